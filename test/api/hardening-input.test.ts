/**
 * Hostile input: control characters and bad Unicode, JWT claims, impossible dates,
 * URL schemes and private targets, content types, bodies where none is taken, error echo caps,
 * duplicate status filters, inclusive bounds at the shown precision.
 */
import { randomUUID } from 'node:crypto';
import test from 'ava';
import { signJwt } from '../../api/auth/jwt';
import { API_URL, asOperator, cabinetToken, JWT_SECRET, newMerchant, signed, withBearer } from '../helpers/api';
import { startApp, testSql } from '../helpers/app';
import { createPayin, PAYIN, payinBody } from '../helpers/deals';

const sql = testSql();
test.after.always(() => sql.end());

const dealCount = async (merchantId: string) => (await sql`select count(*)::int as n from deals where merchant_id = ${merchantId}`)[0]!.n as number;

test('NUL and other control characters in any text field are 400 naming the field, and change nothing', async (t) => {
  const { keys, merchantId } = await newMerchant();
  const cases: Array<[string, Record<string, unknown>]> = [
    ['client_id', { client_id: 'payer\u0000x' }],
    ['description', { description: 'thanks\u0000' }],
    ['idempotency_key', { idempotency_key: 'key\u0000' }],
    ['payer_bank', { payer_bank: 'sber\u001b[31m' }],
    ['idempotency_key', { idempotency_key: 'line\r\nbreak' }],
  ];
  for (const [field, patch] of cases) {
    const res = await signed(keys, 'POST', PAYIN, payinBody(patch));
    t.is(res.status, 400, `${field}: ${res.text}`);
    t.regex(res.body.errors?.[0]?.field ?? '', new RegExp(field), res.text);
  }
  const ok = await signed(keys, 'POST', PAYIN, payinBody({ description: 'two\nlines\tand a tab' }));
  t.is(ok.status, 200, 'free text keeps newlines and tabs');
  t.is(await dealCount(merchantId), 1);

  const cabinet = await cabinetToken(merchantId);
  for (const body of [{ name: 'Shop\u0000' }, { checkout_brand_name: 'Brand\u0007' }, { finance_chat_id: '\u0000' }]) {
    const res = await withBearer(cabinet, 'PATCH', '/api/v1/p2p/my-merchant', body);
    t.is(res.status, 400, JSON.stringify(body));
  }
  const payout = await signed(keys, 'POST', '/api/v1/p2p/merchant/deals/payout', {
    idempotency_key: randomUUID(),
    amount: 1000,
    currency: 'RUB',
    wallet_id: randomUUID(),
    target_requisite: '4111\u00001111',
    payment_method: 'card-rub',
  });
  t.is(payout.status, 400);
  const trader = await asOperator('POST', '/api/v1/p2p/admin/traders', { name: 'Bad\u0000Name' });
  t.is(trader.status, 400);
  // Path and query parameters too.
  t.is((await signed(keys, 'GET', '/api/v1/p2p/merchant/deals?statuses=COMPLETED%00')).status, 400);
});

test('invalid UTF-8 and lone surrogates are refused, never replaced (two keys cannot collide)', async (t) => {
  const { keys, merchantId } = await newMerchant();
  const lone = await signed(keys, 'POST', PAYIN, JSON.stringify(payinBody({ idempotency_key: 'k-\ud800' })));
  t.is(lone.status, 400, lone.text);
  const bytes = Buffer.concat([
    Buffer.from('{"idempotency_key":"k-'),
    Buffer.from([0xff, 0xfe]),
    Buffer.from('","amount":1000,"currency":"RUB","payment_method_id":"card-rub"}'),
  ]);
  const { hmacHeaders } = await import('../helpers/api');
  const res = await fetch(`${API_URL}${PAYIN}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...hmacHeaders(keys, bytes.toString('latin1')) },
    body: bytes,
  });
  t.is(res.status, 400);
  t.regex(await res.text(), /UTF-8/);
  t.is(await dealCount(merchantId), 0);
});

test('a cabinet JWT whose merchant_id is not a UUID is 401 on every JWT route', async (t) => {
  const token = await signJwt({ sub: 'user', role: 'merchant', merchant_id: 'not-a-uuid' }, JWT_SECRET);
  for (const [method, path] of [
    ['GET', '/api/v1/p2p/my-merchant'],
    ['PATCH', '/api/v1/p2p/my-merchant'],
    ['POST', '/api/v1/p2p/merchant/api-keys/rotate'],
  ] as const) {
    const res = await withBearer(token, method, path, method === 'PATCH' ? { name: 'x' } : undefined);
    t.is(res.status, 401, `${method} ${path}: ${res.text}`);
  }
});

test('impossible dates are 400 on the listing, turnover and both exports (never a 500 or a cut body)', async (t) => {
  const { keys } = await newMerchant();
  for (const path of [
    '/api/v1/p2p/merchant/deals?created_after=0000-01-01T00:00:00Z',
    '/api/v1/p2p/merchant/deals/turnover?created_after=0000-01-01T00:00:00Z&created_before=0000-02-01T00:00:00Z',
    '/api/v1/p2p/merchant/deals/export?created_after=0000-01-01T00:00:00Z',
    '/api/v1/p2p/deals/export?created_before=99999-01-01T00:00:00Z',
  ]) {
    const res = await signed(keys, 'GET', path);
    t.is(res.status, 400, `${path}: ${res.status} ${res.text.slice(0, 200)}`);
    t.is(res.headers.get('content-type'), 'application/problem+json');
  }
});

test('URLs: only http(s), CR/LF refused, and private or metadata targets refused at save time', async (t) => {
  const { merchantId } = await newMerchant();
  const cabinet = await cabinetToken(merchantId);
  for (const url of [
    'javascript:alert(1)',
    'file:///etc/passwd',
    'ftp://example.com/x',
    'https://example.com/a\r\nX-Injected: 1',
    'https://user:pw@example.com/',
  ]) {
    for (const field of ['webhook_url', 'success_redirect_url']) {
      const res = await withBearer(cabinet, 'PATCH', '/api/v1/p2p/my-merchant', { [field]: url });
      t.is(res.status, 400, `${field}=${JSON.stringify(url)}: ${res.text}`);
    }
  }
  const { keys } = await newMerchant();
  t.is((await signed(keys, 'POST', PAYIN, payinBody({ callback_url: 'javascript:alert(1)' }))).status, 400);

  // Where private targets are not allowed (production's default), they are refused when saved.
  const strict = await startApp({ WEBHOOK_ALLOW_PRIVATE_TARGETS: false });
  t.teardown(() => strict.close());
  for (const url of [
    'http://169.254.169.254/latest/meta-data',
    'http://127.0.0.1:9/x',
    'http://localhost/x',
    'http://[64:ff9b::a9fe:a9fe]/',
    'http://[2002:a9fe:a9fe::1]/',
    'http://10.0.0.5/',
  ]) {
    const res = await withBearer(cabinet, 'PATCH', `${strict.url}/api/v1/p2p/my-merchant`, { webhook_url: url });
    t.is(res.status, 400, `${url}: ${res.text}`);
    const created = await withBearer(await (await import('../helpers/api')).operatorToken(), 'POST', `${strict.url}/api/v1/p2p/admin/merchants`, {
      name: 'Strict',
      email: `strict-${randomUUID()}@example.test`,
      webhook_url: url,
    });
    t.is(created.status, 400, `create ${url}`);
  }
  const production = await startApp({ NODE_ENV: 'production', WEBHOOK_ALLOW_PRIVATE_TARGETS: false });
  t.teardown(() => production.close());
  const plain = await withBearer(cabinet, 'PATCH', `${production.url}/api/v1/p2p/my-merchant`, { webhook_url: 'http://203.0.113.10/hook' });
  t.is(plain.status, 400, 'production takes https targets only');
});

test('content type, bodies on body-less routes, and capped error echoes', async (t) => {
  const { keys, merchantId } = await newMerchant();
  const raw = JSON.stringify(payinBody());
  const { hmacHeaders } = await import('../helpers/api');
  const asText = await fetch(`${API_URL}${PAYIN}`, { method: 'POST', headers: { 'Content-Type': 'text/plain', ...hmacHeaders(keys, raw) }, body: raw });
  t.is(asText.status, 415);
  const none = await fetch(`${API_URL}${PAYIN}`, { method: 'POST', headers: { ...hmacHeaders(keys, raw) }, body: raw });
  t.is(none.status, 415);
  const charset = await fetch(`${API_URL}${PAYIN}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json; charset=utf-8', ...hmacHeaders(keys, raw) },
    body: raw,
  });
  t.is(charset.status, 200);

  const rotate = await signed(keys, 'POST', '/api/v1/p2p/merchant/api-keys/rotate', { merchant_id: randomUUID() });
  t.is(rotate.status, 400, 'rotation takes no body');
  const current = await sql`select count(*)::int as n from api_keys where merchant_id = ${merchantId}`;
  t.is(current[0]!.n, 1, 'nothing rotated');
  t.is((await signed(keys, 'POST', '/api/v1/p2p/merchant/api-keys/rotate', {})).status, 200, 'an empty object is no body');

  const cabinet = await cabinetToken(merchantId);
  const many: Record<string, number> = {};
  for (let i = 0; i < 3_000; i += 1) many[`unknown_key_${i}`] = 1; // ~60 kB: just under the 64 KiB body limit
  const huge = await withBearer(cabinet, 'PATCH', '/api/v1/p2p/my-merchant', many);
  t.is(huge.status, 400);
  t.true(huge.text.length < 5_000, `error body is ${huge.text.length} bytes`);
  for (let i = 3_000; i < 40_000; i += 1) many[`unknown_key_${i}`] = 1;
  t.is((await withBearer(cabinet, 'PATCH', '/api/v1/p2p/my-merchant', many)).status, 413, 'over 64 KiB: refused unread');
  const long = await signed(keys, 'POST', PAYIN, payinBody({ payment_method_id: 'x'.repeat(60_000) }));
  t.is(long.status, 400);
  t.true(long.text.length < 5_000, `error body is ${long.text.length} bytes`);
  const deep = await signed(keys, 'POST', PAYIN, `${'['.repeat(5000)}${']'.repeat(5000)}`);
  t.is(deep.status, 400);
});

test('statuses given twice list each deal once; created_before equal to a deal created_at includes it', async (t) => {
  const { keys } = await newMerchant();
  const a = await createPayin(keys);
  await createPayin(keys);
  const listed = await signed(keys, 'GET', '/api/v1/p2p/merchant/deals?statuses=ESCROW_LOCKED,ESCROW_LOCKED&statuses=ESCROW_LOCKED');
  t.is(listed.status, 200);
  t.is(listed.body.data.length, 2);
  const got = await signed(keys, 'GET', `/api/v1/p2p/merchant/deals/${a.deal_id}`);
  const createdAt = got.body.deal.created_at as string;
  const bounded = await signed(
    keys,
    'GET',
    `/api/v1/p2p/merchant/deals?created_after=${encodeURIComponent(createdAt)}&created_before=${encodeURIComponent(createdAt)}`,
  );
  t.true(
    bounded.body.data.some((d: { deal_id: string }) => d.deal_id === a.deal_id),
    'inclusive at the shown millisecond',
  );
  const turnover = await signed(
    keys,
    'GET',
    `/api/v1/p2p/merchant/deals/turnover?created_after=${encodeURIComponent(createdAt)}&created_before=${encodeURIComponent(createdAt)}`,
  );
  t.is(turnover.body.data[0]?.count, 1);
});
