/**
 * The replay rule: a client signing exactly as the spec's signing rule says (the current second, v1
 * over `<t>.<raw body>`, the same headers for every body-less request of that second) is never
 * refused; a key rotation refuses a signature any request carried before; single-use routes
 * refuse a second use on the same route; the opt-in request-bound v2 cannot be moved to another
 * method, path or query, and a merchant can be required to send it. Plus the client address
 * behind proxies (TRUSTED_PROXIES).
 */
import test from 'ava';
import { randomUUID } from 'node:crypto';
import { API_URL, asOperator, cabinetToken, hmacHeaders, newMerchant, signed, signedBound, withBearer, type KeyPair } from '../helpers/api';
import { startApp, testSql } from '../helpers/app';
import { createPayin } from '../helpers/deals';
import { v1Client } from '../v1/v1-client';

const sql = testSql();
test.after.always(() => sql.end());

const MERCHANT = '/api/v1/p2p/merchant';
const now = () => Math.floor(Date.now() / 1000);

const send = (path: string, method: string, headers: Record<string, string>, body?: string, base = API_URL) =>
  fetch(base + path, { method, headers: { ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}), ...headers }, body });

const keyCount = async (merchantId: string) => (await sql`select count(*)::int as n from api_keys where merchant_id = ${merchantId}`)[0]!.n as number;

/** One set of v1 headers (the spec's signing rule) for every body-less request of one second, as a Stripe-style signer makes them. */
const bodyless = (keys: KeyPair, t = now()) => hmacHeaders(keys, '', t);

test('a spec client: body-less requests of one second share their headers, on any route, repeats included', async (t) => {
  const { keys } = await newMerchant();
  const deal = await createPayin(keys);
  const headers = bodyless(keys);
  const answers = [];
  for (const [method, path] of [
    ['GET', `${MERCHANT}/balance`],
    ['GET', `${MERCHANT}/deals`],
    ['GET', `${MERCHANT}/balance`],
    ['GET', `${MERCHANT}/deals/${deal.deal_id}`],
    ['GET', `${MERCHANT}/callbacks`],
    ['GET', '/api/v1/p2p/my-merchant'],
    ['POST', `${MERCHANT}/deals/${deal.deal_id}/cancel`],
  ] as const) {
    const res = await send(path, method, headers);
    answers.push(`${method} ${path.replace(deal.deal_id, '{id}')} ${res.status}`);
  }
  t.deepEqual(
    answers.map((a) => a.split(' ').pop()),
    ['200', '200', '200', '200', '200', '200', '200'],
    answers.join('\n'),
  );
  // A manual retry right after listing the callbacks is not refused as a replay (the id is unknown: 404).
  const retry = await send(`${MERCHANT}/callbacks/${randomUUID()}/retry`, 'POST', headers);
  t.is(retry.status, 404, await retry.text());
});

test('the same request repeated with one signature (a retry with the same key) is accepted', async (t) => {
  const { keys } = await newMerchant();
  const body = JSON.stringify({ idempotency_key: randomUUID(), amount: 150_000, currency: 'RUB', payment_method_id: 'card-rub' });
  const headers = hmacHeaders(keys, body);
  const [a, b] = [await send(`${MERCHANT}/deals/payin`, 'POST', headers, body), await send(`${MERCHANT}/deals/payin`, 'POST', headers, body)];
  t.is(a.status, 200);
  t.is(b.status, 200);
  t.is((await a.json()).deal.deal_id, (await b.json()).deal.deal_id);
});

test('V1: incoming then outgoing statistics signed with one {timestamp} are both answered', async (t) => {
  const merchant = await newMerchant({ api_version: 'v1' });
  const client = v1Client(merchant, { timestamp: now() });
  const incoming = await client.incomingStatistics({});
  const outgoing = await client.outgoingStatistics({});
  t.is(incoming.status, 200, incoming.text);
  t.is(outgoing.status, 200, outgoing.text);
  t.is((await client.banks({})).status, 200, 'and the banks list, which signs the same payload');
});

test('a key rotation refuses a signature any request carried before: a GET’s headers cannot rotate the keys', async (t) => {
  const { keys, merchantId } = await newMerchant();
  // Three different seconds, counted from one clock reading: read apart, a slow machine could make two of them the same second.
  const base = now();
  const headers = bodyless(keys, base - 3);
  t.is((await send(`${MERCHANT}/balance`, 'GET', headers)).status, 200);
  const stolen = await send(`${MERCHANT}/api-keys/rotate`, 'POST', headers);
  t.is(stolen.status, 401);
  t.regex((await stolen.json()).detail, /already used/);
  t.is(await keyCount(merchantId), 1, 'no new pair was made');
  // Stripping v2 from a bound GET gains nothing: the v1 signature of a body-less request is remembered either way.
  const second = base - 5;
  const boundGet = await signedBound(keys, 'GET', `${MERCHANT}/deals?page_size=5`, undefined, second);
  t.is(boundGet.status, 200);
  t.is((await send(`${MERCHANT}/api-keys/rotate`, 'POST', bodyless(keys, second))).status, 401);
  t.is(await keyCount(merchantId), 1);
  // A fresh signature rotates; the very same rotation request is not replayable.
  const fresh = bodyless(keys, base - 9);
  t.is((await send(`${MERCHANT}/api-keys/rotate`, 'POST', fresh)).status, 200);
  t.is((await send(`${MERCHANT}/api-keys/rotate`, 'POST', fresh)).status, 401);
  t.is(await keyCount(merchantId), 2);
});

test('a rotation carrying a valid v2 is bound to its route: accepted after a GET of the same second, never twice', async (t) => {
  const { keys, merchantId } = await newMerchant();
  const second = now() - 2;
  t.is((await send(`${MERCHANT}/balance`, 'GET', bodyless(keys, second))).status, 200);
  const bound = hmacHeaders(keys, '', second, { method: 'POST', target: `${MERCHANT}/api-keys/rotate` });
  const first = await send(`${MERCHANT}/api-keys/rotate`, 'POST', bound);
  t.is(first.status, 200, await first.text());
  t.is((await send(`${MERCHANT}/api-keys/rotate`, 'POST', bound)).status, 401, 'a repeat of the bound rotation');
  t.is(await keyCount(merchantId), 2);
});

test('concurrent rotations with one signature: exactly one rotates', async (t) => {
  const { keys, merchantId } = await newMerchant();
  const headers = bodyless(keys, now() - 13);
  const answers = await Promise.all(Array.from({ length: 5 }, () => send(`${MERCHANT}/api-keys/rotate`, 'POST', headers)));
  t.deepEqual(answers.map((a) => a.status).sort(), [200, 401, 401, 401, 401]);
  t.is(await keyCount(merchantId), 2);
});

test('single-use routes refuse a second use on the same route only', async (t) => {
  const { keys } = await newMerchant();
  const headers = bodyless(keys, now() - 17);
  const [a, b] = [randomUUID(), randomUUID()];
  // Body-less retries of two different deliveries: two routes (unknown ids: 404, not a replay).
  t.is((await send(`${MERCHANT}/callbacks/${a}/retry`, 'POST', headers)).status, 404);
  t.is((await send(`${MERCHANT}/callbacks/${b}/retry`, 'POST', headers)).status, 404);
  const again = await send(`${MERCHANT}/callbacks/${a}/retry`, 'POST', headers);
  t.is(again.status, 401, 'the same retry request again');
  // A pass created twice with one signature would be two passes: the second is refused.
  const body = JSON.stringify({ amount: 5000 });
  const passHeaders = hmacHeaders(keys, body, now() - 17);
  t.is((await send(`${MERCHANT}/passes`, 'POST', passHeaders, body)).status, 201);
  t.is((await send(`${MERCHANT}/passes`, 'POST', passHeaders, body)).status, 401);
});

test('a single-use route is one route however its path is spelled: trailing slash, upper-cased or percent-encoded id', async (t) => {
  const { keys } = await newMerchant();
  const headers = bodyless(keys, now() - 19);
  const id = randomUUID();
  t.is((await send(`${MERCHANT}/callbacks/${id}/retry`, 'POST', headers)).status, 404);
  for (const variant of [
    `${MERCHANT}/callbacks/${id}/retry/`,
    `${MERCHANT}/callbacks/${id.toUpperCase()}/retry`,
    `${MERCHANT}/callbacks/%${id.charCodeAt(0).toString(16)}${id.slice(1)}/retry`,
  ]) {
    t.is((await send(variant, 'POST', headers)).status, 401, variant);
  }
  const body = JSON.stringify({ amount: 6000 });
  const passHeaders = hmacHeaders(keys, body, now() - 19);
  t.is((await send(`${MERCHANT}/passes`, 'POST', passHeaders, body)).status, 201);
  t.is((await send(`${MERCHANT}/passes/`, 'POST', passHeaders, body)).status, 401, 'trailing slash');
});

test('memory is kept only for body-less requests and single-use routes, not for every request', async (t) => {
  const { keys } = await newMerchant();
  const get = bodyless(keys, now() - 21);
  await send(`${MERCHANT}/balance`, 'GET', get);
  const getSignature = get['X-Signature'].split('v1=')[1]!;
  t.is((await sql`select route from signature_uses where signature = ${getSignature}`).map((r) => r.route).join(), '');
  const body = JSON.stringify({ idempotency_key: randomUUID(), amount: 150_000, currency: 'RUB', payment_method_id: 'card-rub' });
  const post = hmacHeaders(keys, body, now() - 21);
  t.is((await send(`${MERCHANT}/deals/payin`, 'POST', post, body)).status, 200);
  t.is((await sql`select count(*)::int as n from signature_uses where signature = ${post['X-Signature'].split('v1=')[1]!}`)[0]!.n, 0);
});

test('v2 binds the signature to method, path and query: moved anywhere it is 401, and it must verify when present', async (t) => {
  const { keys } = await newMerchant();
  const target = `${MERCHANT}/deals?page_size=5`;
  const ok = await signedBound(keys, 'GET', target);
  t.is(ok.status, 200, ok.text);
  const second = now() - 1;
  const bound = hmacHeaders(keys, '', second, { method: 'GET', target });
  t.is((await send(target, 'GET', bound)).status, 200, 'repeats on the same request are fine');
  for (const [method, path] of [
    ['GET', `${MERCHANT}/deals?page_size=6`],
    ['GET', `${MERCHANT}/deals`],
    ['GET', `${MERCHANT}/balance`],
    ['POST', `${MERCHANT}/api-keys/rotate`],
  ] as const) {
    const moved = await send(path, method, bound);
    t.is(moved.status, 401, `${method} ${path}`);
    t.regex((await moved.json()).detail, /v2 signature does not match/);
  }
  const wrong = { ...bound, 'X-Signature': `${bound['X-Signature'].split(',v2=')[0]},v2=${'0'.repeat(64)}` };
  t.is((await send(target, 'GET', wrong)).status, 401, 'a wrong v2 beside a right v1 is refused');
  const v2Only = { ...bound, 'X-Signature': `t=${second},v2=${bound['X-Signature'].split(',v2=')[1]}` };
  t.is((await send(target, 'GET', v2Only)).status, 200, 'v2 alone is a complete signature');
});

test('signature_binding: set by the operator, shown in the profile; required refuses v1-only requests with a message naming v2', async (t) => {
  const { keys, merchantId } = await newMerchant();
  t.is((await signed(keys, 'GET', '/api/v1/p2p/my-merchant')).body.merchant.signature_binding, 'optional');
  const merchantCannot = await withBearer(await cabinetToken(merchantId), 'PATCH', `/api/v1/p2p/admin/merchants/${merchantId}`, {
    signature_binding: 'required',
  });
  t.is(merchantCannot.status, 403);
  t.is((await asOperator('PATCH', `/api/v1/p2p/admin/merchants/${merchantId}`, { signature_binding: 'sometimes' })).status, 400);
  const patched = await asOperator('PATCH', `/api/v1/p2p/admin/merchants/${merchantId}`, { signature_binding: 'required' });
  t.is(patched.status, 200, patched.text);
  t.is(patched.body.merchant.signature_binding, 'required');

  const refused = await signed(keys, 'GET', `${MERCHANT}/balance`);
  t.is(refused.status, 401);
  t.regex(refused.body.detail, /v2/);
  const bound = await signedBound(keys, 'GET', '/api/v1/p2p/my-merchant');
  t.is(bound.status, 200, bound.text);
  t.is(bound.body.merchant.signature_binding, 'required');
  const created = await signedBound(keys, 'POST', `${MERCHANT}/deals/payin`, {
    idempotency_key: randomUUID(),
    amount: 150_000,
    currency: 'RUB',
    payment_method_id: 'card-rub',
  });
  t.is(created.status, 200, created.text);
});

test('ip_whitelist behind proxies: X-Forwarded-For counts only from TRUSTED_PROXIES, walked from the right', async (t) => {
  const { keys, merchantId } = await newMerchant();
  await sql`update merchants set ip_whitelist = ${['203.0.113.7']} where id = ${merchantId}`;
  const get = (base: string, forwarded?: string) =>
    send('/api/v1/p2p/my-merchant', 'GET', { ...bodyless(keys), ...(forwarded ? { 'X-Forwarded-For': forwarded } : {}) }, undefined, base);

  // No trusted proxy: a direct caller writing the whitelisted address itself is not believed.
  t.is((await get(API_URL, '203.0.113.7')).status, 403, 'direct spoof');

  // The test client connects from 127.0.0.1, which this API trusts as its proxy.
  const proxied = await startApp({ TRUSTED_PROXIES: ['127.0.0.1', '10.0.0.0/8'] });
  t.teardown(() => proxied.close());
  t.is((await get(proxied.url)).status, 403, 'no header: the peer itself is the client');
  t.is((await get(proxied.url, '203.0.113.7')).status, 200, 'the proxy saw the whitelisted client');
  t.is((await get(proxied.url, '203.0.113.7, 198.51.100.9')).status, 403, 'the client wrote the whitelisted address first; the proxy appended the real one');
  t.is((await get(proxied.url, '198.51.100.9, 203.0.113.7, 10.1.2.3')).status, 200, 'a second trusted hop (10/8) is skipped');

  const untrusted = await startApp({ TRUSTED_PROXIES: ['10.0.0.0/8'] });
  t.teardown(() => untrusted.close());
  t.is((await get(untrusted.url, '203.0.113.7')).status, 403, 'the socket peer is not a trusted proxy: the header is ignored');
});
