import test, { type ExecutionContext } from 'ava';
import { randomUUID } from 'node:crypto';
import { asOperator, hmacHeaders, newMerchant, signed, unsigned, type ApiResponse } from '../helpers/api';
import { testSql } from '../helpers/app';
import { fundedMerchant } from '../helpers/deals';
import { randomTronAddress } from '../helpers/wallet';
import { incomingBody, v1, v1Client } from './v1-client';

const sql = testSql();
test.after.always(() => sql.end());

/** Every V1 signature category plus the documented ones: [name, method, path, body, signed fields]. */
function categories(ids: { incoming: string; outgoing: string; withdrawal: string }) {
  const wd = { requestId: `wd-${randomUUID()}`, amount: '10.00', address: randomTronAddress(), salt: 'w' };
  const payin = incomingBody();
  const payout = { payOutId: `po-${randomUUID()}`, amount: '95.00', currency: 643, paymentMethod: 'card-rub', cardNumber: '4111111111111111', salt: 'x' };
  return [
    ['PayIn create', 'POST', '/v1/payments/incoming', payin, [payin.payInId, payin.salt]],
    ['PayIn create (idempotency mirror)', 'POST', '/v1/payments/incoming/idempotency', payin, [payin.payInId, payin.salt]],
    ['PayIn create (nochannel mirror)', 'POST', '/v1/payments/incoming/nochannel', payin, [payin.payInId, payin.salt]],
    ['PayOut create', 'POST', '/v1/payments/outgoing', payout, [payout.payOutId, payout.salt]],
    ['banks list', 'POST', '/v1/banks/list', {}, []],
    ['incoming list', 'POST', '/v1/payments/incoming/list', {}, []],
    ['outgoing list', 'POST', '/v1/payments/outgoing/list', {}, []],
    ['incoming statistics', 'POST', '/v1/payments/incoming/statistics', {}, []],
    ['outgoing statistics', 'POST', '/v1/payments/outgoing/statistics', {}, []],
    ['incoming GET', 'GET', `/v1/payments/incoming/${ids.incoming}`, undefined, [ids.incoming]],
    ['outgoing GET', 'GET', `/v1/payments/outgoing/${ids.outgoing}`, undefined, [ids.outgoing]],
    ['withdraw create (address alias)', 'POST', '/v1/merchant/withdraw', wd, [wd.requestId, wd.address, wd.salt]],
    ['withdraw list', 'POST', '/v1/merchant/withdraw/list', {}, []],
    ['withdraw GET', 'GET', `/v1/merchant/withdraw/${ids.withdrawal}`, undefined, [ids.withdrawal]],
  ] as Array<[string, 'GET' | 'POST', string, Record<string, unknown> | undefined, unknown[]]>;
}

function refused(t: ExecutionContext, res: ApiResponse, status: number, message: RegExp, label: string) {
  t.is(res.status, status, `${label}: ${res.text}`);
  t.like(res.body, { value: null, isSuccess: false, isFailure: true }, label);
  t.regex(res.body.failures[0].message, message, label);
  t.is(res.headers.get('deprecation'), 'true', label);
  t.truthy(res.headers.get('sunset'), label);
}

test('every signature category: the right payload passes; a wrong secret, a stale or a future timestamp, other fields are 401', async (t) => {
  const m = await fundedMerchant(100_000, { api_version: 'v1' });
  const c = v1Client(m);
  const incoming = (await c.createIncoming(incomingBody())).body.value.id as string;
  const outgoing = (
    await c.createOutgoing({ payOutId: `po-${randomUUID()}`, amount: '95.00', currency: 643, paymentMethod: 'card-rub', cardNumber: '4111111111111111' })
  ).body.value.id as string;
  const wd = { requestId: `wd-${randomUUID()}`, amount: '5.00', wallet: randomTronAddress() };
  const withdrawal = (await v1(m, 'POST', '/v1/merchant/withdraw', wd, [wd.requestId, wd.wallet, undefined])).body.value.id as string;
  const now = Math.floor(Date.now() / 1000);
  for (const [index, [name, method, path, body, fields]] of categories({ incoming, outgoing, withdrawal }).entries()) {
    refused(t, await v1(m, method, path, body, fields, { secret: 'whsec_not-the-secret' }), 401, /invalid merchant credentials/, `${name}, wrong secret`);
    // The secret without its whsec_ prefix is another key.
    refused(
      t,
      await v1(m, method, path, body, fields, { secret: m.keys.secret.replace(/^whsec_/, '') }),
      401,
      /invalid merchant credentials/,
      `${name}, secret without whsec_`,
    );
    refused(t, await v1(m, method, path, body, fields, { timestamp: now - 301 }), 401, /replay window/, `${name}, stale`);
    refused(t, await v1(m, method, path, body, fields, { timestamp: now + 120 }), 401, /future/, `${name}, future`);
    refused(t, await v1(m, method, path, body, [...fields, 'extra']), 401, /invalid merchant credentials/, `${name}, another payload`);
    const ok = await v1(m, method, path, body, fields, { timestamp: now - 280 + index });
    t.is(ok.status, 200, `${name}, inside the window: ${ok.text}`);
    t.true(ok.body.isSuccess, name);
  }
  // 60 s of future drift is tolerated.
  t.is((await c.banks({ take: 1 })).status, 200);
  t.is((await v1(m, 'POST', '/v1/banks/list', { take: 2 }, [], { timestamp: now + 50 })).status, 200);
  // The signature covers the create category's fields: the PayIn payload without its salt fails.
  const body = incomingBody();
  refused(t, await v1(m, 'POST', '/v1/payments/incoming', body, [body.payInId]), 401, /invalid merchant credentials/, 'salt left out');
  // Headers missing or malformed.
  refused(t, await unsigned('POST', '/v1/banks/list', {}), 401, /MERCHANT, TIMESTAMP or SIGNATURE/, 'no headers');
  refused(t, await v1(m, 'POST', '/v1/banks/list', {}, [], { headers: { SIGNATURE: 'abc' } }), 401, /malformed/, 'short signature');
  refused(t, await v1(m, 'POST', '/v1/banks/list', {}, [], { merchantId: 'not-a-uuid' }), 401, /invalid merchant credentials/, 'bad merchant id');
  refused(t, await v1(m, 'POST', '/v1/banks/list', {}, [], { merchantId: randomUUID() }), 401, /invalid merchant credentials/, 'unknown merchant');
  // A V1 signature is accepted on any V1 route of its family within its window, repeats included: the reads are one family.
  const t0 = now - 200;
  t.is((await v1(m, 'POST', '/v1/payments/incoming/list', {}, [], { timestamp: t0 })).status, 200);
  t.is((await v1(m, 'POST', '/v1/payments/incoming/list', { take: 1 }, [], { timestamp: t0 })).status, 200, 'the same route may repeat');
  t.is((await v1(m, 'POST', '/v1/banks/list', {}, [], { timestamp: t0 })).status, 200, 'same signature, other route');
  // The PayIn create mirrors count as one route: a retry on a mirror with the same signature is the same request.
  const retry = incomingBody();
  const first = await v1(m, 'POST', '/v1/payments/incoming', retry, [retry.payInId, retry.salt], { timestamp: t0 + 1 });
  const mirrored = await v1(m, 'POST', '/v1/payments/incoming/idempotency', retry, [retry.payInId, retry.salt], { timestamp: t0 + 1 });
  t.is(mirrored.status, 200, mirrored.text);
  t.is(mirrored.body.value.id, first.body.value.id);
  refused(
    t,
    await v1(
      m,
      'POST',
      '/v1/payments/outgoing',
      { ...retry, payOutId: retry.payInId, cardNumber: '4111', paymentMethod: 'card-rub' },
      [retry.payInId, retry.salt],
      { timestamp: t0 + 1 },
    ),
    401,
    /already used/,
    'a PayIn signature replayed as a PayOut',
  );
  refused(
    t,
    await v1(
      m,
      'POST',
      '/v1/payments/outgoing/',
      { ...retry, payOutId: retry.payInId, cardNumber: '4111', paymentMethod: 'card-rub' },
      [retry.payInId, retry.salt],
      { timestamp: t0 + 1 },
    ),
    401,
    /already used/,
    'the same, spelt with a trailing slash',
  );
});

test('after key rotation the old pair signs V1 during the grace window, and the new one at once', async (t) => {
  const m = await newMerchant({ api_version: 'v1' });
  const rotated = await signed(m.keys, 'POST', '/api/v1/p2p/merchant/api-keys/rotate');
  t.is((await v1Client(m).banks()).status, 200, 'old pair in grace');
  t.is((await v1Client({ merchantId: m.merchantId, keys: rotated.body }).banks({ take: 3 })).status, 200, 'new pair');
  await sql`update api_keys set grace_until = now() - interval '1 second' where merchant_id = ${m.merchantId} and superseded_at is not null`;
  refused(t, await v1Client(m).banks({ take: 4 }), 401, /invalid merchant credentials/, 'old pair after grace');
});

test("a V2 merchant's pair on V1 routes: its V1 signature verifies but gets 403; V2 headers are not V1 credentials (401)", async (t) => {
  const m = await newMerchant(); // api_version v2 (default)
  const c = v1Client(m);
  refused(t, await c.banks(), 403, /api_version v2/, 'V2 merchant, V1 signature');
  refused(t, await c.createIncoming(incomingBody()), 403, /api_version v2/, 'V2 merchant, PayIn create');
  refused(t, await c.createIncoming(incomingBody(), '/v1/payments/incoming'), 403, /api_version v2/, 'V2 merchant, PayIn create');
  const [deals] = await sql`select count(*)::int as n from deals where merchant_id = ${m.merchantId}`;
  t.is(deals!.n, 0);
  // Its V2 pair (X-Merchant-Token, X-Signature) on a V1 route.
  const raw = '{}';
  const res = await unsigned('POST', '/v1/banks/list', raw, hmacHeaders(m.keys, raw));
  refused(t, res, 401, /MERCHANT, TIMESTAMP or SIGNATURE/, 'V2 headers on V1');
  // A wrongly signed V2 merchant is 401 like anyone, not 403 (no hint that the id exists).
  refused(t, await v1(m, 'POST', '/v1/banks/list', {}, [], { secret: 'whsec_x' }), 401, /invalid merchant credentials/, 'V2 merchant, wrong secret');
});

test('kill-switch, ip_whitelist and rate limit apply to V1 exactly as to V2', async (t) => {
  const m = await newMerchant({ api_version: 'v1' });
  const c = v1Client(m);
  await asOperator('POST', `/api/v1/p2p/merchants/${m.merchantId}/kill-switch`);
  refused(t, await c.banks(), 403, /^merchant is disabled$/, 'kill-switch');
  refused(t, await c.createIncoming(incomingBody()), 403, /^merchant is disabled$/, 'kill-switch create');
  await asOperator('POST', `/api/v1/p2p/merchants/${m.merchantId}/kill-switch`);
  t.is((await c.banks({ take: 1 })).status, 200);

  await sql`update merchants set ip_whitelist = ${['203.0.113.7']} where id = ${m.merchantId}`;
  refused(t, await c.banks({ take: 2 }), 403, /ip_whitelist/, 'ip_whitelist');
  await sql`update merchants set ip_whitelist = ${['203.0.113.7', '127.0.0.1']} where id = ${m.merchantId}`;
  const allowed = await c.banks({ take: 3 });
  t.is(allowed.status, 200);
  t.truthy(allowed.headers.get('x-ratelimit-limit'));

  await sql`update merchants set rate_limit_per_minute = 1 where id = ${m.merchantId}`;
  let limited: Awaited<ReturnType<typeof c.banks>> | undefined;
  for (let i = 0; i < 3 && !limited; i += 1) {
    const res = await c.banks({ take: 10 + i });
    if (res.status === 429) limited = res;
  }
  t.truthy(limited, 'a 429 within three calls (one may cross a minute boundary)');
  refused(t, limited!, 429, /merchant rate limit exceeded \(limit: 1\/min\)/, 'rate limit');
  t.is(limited!.headers.get('x-ratelimit-limit'), '1');
  t.truthy(limited!.headers.get('retry-after'));
});
