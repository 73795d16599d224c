import test, { type ExecutionContext } from 'ava';
import { SignJWT, UnsecuredJWT } from 'jose';
import { signatureHeader } from '../../domain/crypto/signature';
import { asOperator, cabinetToken, JWT_SECRET, newMerchant, problemDetail, signed, unsigned, withBearer, type ApiResponse } from '../helpers/api';
import { startApp, testSql } from '../helpers/app';

const MY = '/api/v1/p2p/my-merchant';
const ROTATE = '/api/v1/p2p/merchant/api-keys/rotate';

function expectProblem(t: ExecutionContext, res: ApiResponse, status: number, title: string, message?: string | RegExp) {
  t.is(res.status, status, res.text);
  t.is(res.headers.get('content-type'), 'application/problem+json');
  t.truthy(res.headers.get('x-trace-id'));
  t.is(res.body.title, title);
  t.is(res.body.status, status);
  t.is(res.body.type, 'about:blank');
  if (message instanceof RegExp) t.regex(problemDetail(res.body).message, message);
  else if (message) t.is(problemDetail(res.body).message, message);
}

test('signed GET my-merchant answers the merchant profile', async (t) => {
  const { merchantId, keys } = await newMerchant({ name: 'Profile Shop' });
  const res = await signed(keys, 'GET', MY);
  t.is(res.status, 200, res.text);
  t.deepEqual(Object.keys(res.body).sort(), ['auto_withdrawal_effective_limit_usdt_cents', 'auto_withdrawal_mode', 'merchant']);
  const m = res.body.merchant;
  t.is(m.id, merchantId);
  t.is(m.name, 'Profile Shop');
  t.is(m.api_token, keys.token);
  t.is(m.kill_switch, false);
  t.is(m.balance_usdt, '0');
  t.is(m.escrow_usdt, '0');
  t.is(m.api_version, 'v2');
  t.deepEqual(m.ip_whitelist, []);
  t.false('deal_min_amount' in m);
  t.false('daily_deal_amount_limit' in m);
  t.false(JSON.stringify(res.body).includes(keys.secret));
  t.is(res.body.auto_withdrawal_mode, 'AUTO_UP_TO_LIMIT'); // new merchants start auto up to AUTO_WITHDRAWAL_LIMIT_USDT_CENTS
  t.is(res.body.auto_withdrawal_effective_limit_usdt_cents, '100000');
  t.truthy(res.headers.get('x-ratelimit-limit'));
});

test('bad signature, stale, future and mismatched timestamps, unknown token get 401', async (t) => {
  const { keys } = await newMerchant();
  const now = Math.floor(Date.now() / 1000);
  expectProblem(t, await signed({ token: keys.token, secret: 'whsec_wrong' }, 'GET', MY), 401, 'UNAUTHENTICATED');
  expectProblem(t, await signed(keys, 'GET', MY, undefined, now - 301), 401, 'UNAUTHENTICATED', /replay window/);
  expectProblem(t, await signed(keys, 'GET', MY, undefined, now + 120), 401, 'UNAUTHENTICATED', /future/);
  t.is((await signed(keys, 'GET', MY, undefined, now + 30)).status, 200);
  t.is((await signed(keys, 'GET', MY, undefined, now - 240)).status, 200);
  expectProblem(t, await signed({ token: 'f'.repeat(64), secret: keys.secret }, 'GET', MY), 401, 'UNAUTHENTICATED');
  const mismatch = await unsigned('GET', MY, undefined, {
    'X-Merchant-Token': keys.token,
    'X-Timestamp': String(now - 1),
    'X-Signature': signatureHeader(keys.secret, now, ''),
  });
  expectProblem(t, mismatch, 401, 'UNAUTHENTICATED', /X-Timestamp/);
  expectProblem(t, await unsigned('GET', MY), 401, 'UNAUTHENTICATED');
});

test('a tampered body fails the signature', async (t) => {
  const { keys } = await newMerchant();
  const now = Math.floor(Date.now() / 1000);
  const res = await unsigned('POST', ROTATE, '{"a":2}', {
    'X-Merchant-Token': keys.token,
    'X-Timestamp': String(now),
    'X-Signature': signatureHeader(keys.secret, now, '{"a":1}'),
  });
  expectProblem(t, res, 401, 'UNAUTHENTICATED');
});

test('rotation: the new pair works at once, the whole old pair during grace, mixed pairs never', async (t) => {
  const { keys: old } = await newMerchant();
  const rotated = await signed(old, 'POST', ROTATE);
  t.is(rotated.status, 200, rotated.text);
  const fresh = rotated.body as { token: string; secret: string };
  t.regex(fresh.token, /^[0-9a-f]{64}$/);
  t.regex(fresh.secret, /^whsec_/);
  t.not(fresh.token, old.token);

  const profile = await signed(fresh, 'GET', MY);
  t.is(profile.status, 200);
  t.is(profile.body.merchant.api_token, fresh.token);
  t.is((await signed(old, 'GET', MY)).status, 200, 'old pair inside the grace window');
  expectProblem(t, await signed({ token: old.token, secret: fresh.secret }, 'GET', MY), 401, 'UNAUTHENTICATED');
  expectProblem(t, await signed({ token: fresh.token, secret: old.secret }, 'GET', MY), 401, 'UNAUTHENTICATED');
});

test('with MERCHANT_KEY_GRACE_PERIOD=0 the old pair dies at rotation', async (t) => {
  const app = await startApp({ MERCHANT_KEY_GRACE_PERIOD: 0 });
  t.teardown(() => app.close());
  const { keys: old } = await newMerchant();
  const rotated = await signed(old, 'POST', `${app.url}${ROTATE}`);
  t.is(rotated.status, 200);
  expectProblem(t, await signed(old, 'GET', `${app.url}${MY}`), 401, 'UNAUTHENTICATED');
  t.is((await signed(rotated.body, 'GET', `${app.url}${MY}`)).status, 200);
});

test('the old pair expires when its grace window ends', async (t) => {
  const { merchantId, keys: old } = await newMerchant();
  const rotated = await signed(old, 'POST', ROTATE);
  t.is(rotated.status, 200);
  const sql = testSql();
  t.teardown(() => sql.end());
  await sql`update api_keys set grace_until = now() - interval '1 second' where token = ${old.token} and merchant_id = ${merchantId}`;
  expectProblem(t, await signed(old, 'GET', MY), 401, 'UNAUTHENTICATED');
});

test('concurrent rotations leave exactly one current pair', async (t) => {
  const { merchantId, keys } = await newMerchant();
  const results = await Promise.all(Array.from({ length: 8 }, () => signed(keys, 'POST', ROTATE)));
  t.true(results.every((r) => r.status === 200));
  const sql = testSql();
  t.teardown(() => sql.end());
  const current = await sql`select token from api_keys where merchant_id = ${merchantId} and superseded_at is null`;
  t.is(current.length, 1);
  t.true(results.some((r) => r.body.token === current[0]!.token));
  const stored = await sql`select secret_sealed from api_keys where merchant_id = ${merchantId}`;
  t.true(
    stored.every((row) => !String(row.secret_sealed).includes('whsec_')),
    'secrets are encrypted at rest',
  );
});

test('kill-switch: HMAC gets 403 merchant is disabled; the cabinet may read but not mutate', async (t) => {
  const { merchantId, keys } = await newMerchant();
  const on = await asOperator('POST', `/api/v1/p2p/merchants/${merchantId}/kill-switch`);
  t.is(on.status, 200);
  t.is(on.body.merchant_id, merchantId);
  t.is(on.body.disabled, true);
  t.truthy(Date.parse(on.body.disabled_at));

  expectProblem(t, await signed(keys, 'GET', MY), 403, 'PERMISSION_DENIED', 'merchant is disabled');
  expectProblem(t, await signed(keys, 'POST', ROTATE), 403, 'PERMISSION_DENIED', 'merchant is disabled');
  const cabinet = await cabinetToken(merchantId);
  const read = await withBearer(cabinet, 'GET', MY);
  t.is(read.status, 200);
  t.is(read.body.merchant.kill_switch, true);
  expectProblem(t, await withBearer(cabinet, 'POST', ROTATE), 403, 'PERMISSION_DENIED', 'merchant is disabled');

  const off = await asOperator('POST', `/api/v1/p2p/admin/merchants/${merchantId}/kill-switch`);
  t.is(off.body.disabled, false);
  t.is(off.body.disabled_at, null);
  t.is((await signed(keys, 'GET', MY)).status, 200);
});

test('disable/activate set disabled_at with a reason; enable clears it', async (t) => {
  const { merchantId, keys } = await newMerchant();
  const disabled = await asOperator('POST', `/api/v1/p2p/merchant/${merchantId}/disable`, { reason: 'chargeback spike' });
  t.is(disabled.status, 200);
  t.true(disabled.body.disabled);
  const profile = await withBearer(await cabinetToken(merchantId), 'GET', MY);
  t.is(profile.body.merchant.kill_switch_reason, 'chargeback spike');
  expectProblem(t, await signed(keys, 'GET', MY), 403, 'PERMISSION_DENIED', 'merchant is disabled');
  const enabled = await asOperator('POST', `/api/v1/p2p/merchant/${merchantId}/enable`, {});
  t.is(enabled.status, 200);
  t.deepEqual(enabled.body, {});
  t.is((await signed(keys, 'GET', MY)).status, 200);
  const activated = await asOperator('POST', `/api/v1/p2p/merchant/${merchantId}/activate`);
  t.true(activated.body.disabled);
  expectProblem(t, await signed(keys, 'GET', MY), 403, 'PERMISSION_DENIED');
  const unknown = await asOperator('POST', `/api/v1/p2p/merchants/00000000-0000-4000-8000-00000000ffff/kill-switch`);
  expectProblem(t, unknown, 404, 'NOT_FOUND');
});

test('operator routes: merchants get 403 admin role required, anonymous 401', async (t) => {
  const { merchantId, keys } = await newMerchant();
  const cabinet = await cabinetToken(merchantId);
  const routes: [string, string, unknown][] = [
    ['POST', '/api/v1/p2p/merchant/api-keys', { merchant_id: merchantId }],
    ['POST', `/api/v1/p2p/merchants/${merchantId}/kill-switch`, undefined],
    ['POST', `/api/v1/p2p/merchant/${merchantId}/enable`, {}],
    ['POST', '/api/v1/p2p/admin/merchants', { name: 'x', email: 'x@example.test' }],
    ['PUT', '/api/v1/p2p/admin/rates/RUB', { buy_rate_micro: 1, sell_rate_micro: 1 }],
  ];
  for (const [method, path, body] of routes) {
    expectProblem(t, await withBearer(cabinet, method, path, body), 403, 'PERMISSION_DENIED', 'admin role required');
    expectProblem(t, await signed(keys, method, path, body), 403, 'PERMISSION_DENIED', 'admin role required');
    expectProblem(t, await unsigned(method, path, body), 401, 'UNAUTHENTICATED');
  }
});

test('expired, wrongly signed and alg none JWTs get 401', async (t) => {
  const key = new TextEncoder().encode(JWT_SECRET);
  const expired = await new SignJWT({ role: 'admin' })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject('op')
    .setExpirationTime(Math.floor(Date.now() / 1000) - 5)
    .sign(key);
  const forged = await new SignJWT({ role: 'admin' })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject('op')
    .setExpirationTime('1h')
    .sign(new TextEncoder().encode('not-the-server-secret-at-all'));
  const none = new UnsecuredJWT({ role: 'admin' }).setSubject('op').setExpirationTime('1h').encode();
  for (const token of [expired, forged, none]) {
    expectProblem(t, await withBearer(token, 'POST', '/api/v1/p2p/admin/merchants', { name: 'x', email: 'x@example.test' }), 401, 'UNAUTHENTICATED');
  }
});

test('ip_whitelist restricts the servers that may use the token', async (t) => {
  const { merchantId, keys } = await newMerchant();
  const sql = testSql();
  t.teardown(() => sql.end());
  await sql`update merchants set ip_whitelist = ${['203.0.113.7']} where id = ${merchantId}`;
  expectProblem(t, await signed(keys, 'GET', MY), 403, 'PERMISSION_DENIED', /ip_whitelist/);
  await sql`update merchants set ip_whitelist = ${['203.0.113.7', '127.0.0.1']} where id = ${merchantId}`;
  t.is((await signed(keys, 'GET', MY)).status, 200);
});
