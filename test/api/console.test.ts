/**
 * The operator console's server side: accounts and sessions (cookie,
 * CSRF, timeouts), the role table, the audit trail (in the effect's transaction, append-only),
 * four-eyes withdrawal approval, the queues.
 */
import test from 'ava';
import { randomBytes, randomUUID } from 'node:crypto';
import { API_URL, asOperator, newMerchant, operatorToken, readResponse, signed, type ApiResponse, type Json } from '../helpers/api';
import { startApp, testSql } from '../helpers/app';
import { eventually } from '../helpers/poll';
import { ADMIN, deposit, randomTronAddress, walletMerchant, withdraw } from '../helpers/wallet';
import { OPERATOR_ROUTE_ROLES } from '../../domain/roles';
import { ownCurrency } from '../helpers/catalog';

const sql = testSql();
test.after.always(() => sql.end());

const SESSION = `${ADMIN}/session`;

/** An alert as the listing answers it, the fields these tests read. */
interface Alert {
  alert_id: string;
  subject: string;
  resolved_at: string;
}

interface Session {
  cookie: string;
  csrf: string;
  setCookie: string;
  body: Json;
}

async function rawSignIn(base: string, email: string, password: string, extra: Record<string, unknown> = {}): Promise<ApiResponse> {
  const res = await fetch(`${base}${SESSION}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ email, password, ...extra }),
  });
  return readResponse(res);
}

async function signIn(email: string, password: string, base = API_URL): Promise<Session> {
  const res = await rawSignIn(base, email, password);
  if (res.status !== 200) throw new Error(`sign-in failed: ${res.status} ${res.text}`);
  const setCookie = res.headers.get('set-cookie') ?? '';
  return { cookie: setCookie.split(';')[0]!, csrf: res.body.csrf_token, setCookie, body: res.body };
}

async function asSession(s: Session, method: string, path: string, body?: unknown, options: { csrf?: string | null; base?: string; traceId?: string } = {}) {
  const headers: Record<string, string> = { Cookie: s.cookie };
  const csrf = options.csrf === undefined ? s.csrf : options.csrf;
  if (csrf !== null) headers['X-CSRF-Token'] = csrf;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (options.traceId) headers['X-Trace-Id'] = options.traceId;
  const res = await fetch(`${options.base ?? API_URL}${path}`, { method, headers, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
  return readResponse(res);
}

let counter = 0;
/** A fresh account of a role (made with the spec's operator JWT) and its session. */
async function operator(role: 'arbiter' | 'finance' | 'support' | 'admin') {
  counter += 1;
  const email = `op-${role}-${process.pid}-${counter}-${randomBytes(3).toString('hex')}@Example.test`;
  const password = `pw-${randomBytes(12).toString('base64url')}`;
  const created = await asOperator('POST', `${ADMIN}/operators`, { email, password, role });
  if (created.status !== 201) throw new Error(`operator create failed: ${created.status} ${created.text}`);
  return { id: created.body.operator.operator_id as string, email: email.toLowerCase(), password, session: await signIn(email, password) };
}

const auditOf = (objectId: string) =>
  sql<{ actor_kind: string; actor_id: string; role: string; action: string; object_type: string; before: Json; after: Json; request_id: string }[]>`
    select * from audit_log where object_id = ${objectId} order by id`;

test('sign in, who am I, sign out: HttpOnly SameSite=Strict cookie, a CSRF token, the session gone after sign-out', async (t) => {
  const op = await operator('support');
  t.regex(op.session.setCookie, /^gw_operator=[A-Za-z0-9_-]{40,}; Path=\/; HttpOnly; SameSite=Strict; Max-Age=\d+$/);
  t.false(/Secure/.test(op.session.setCookie), 'plain http in tests: no Secure flag (auto)');
  t.like(op.session.body.operator, { operator_id: op.id, email: op.email, role: 'support', totp_enrolled: false, disabled: false });
  t.regex(op.session.body.csrf_token, /^[A-Za-z0-9_-]{43}$/);
  // The table stores only the token's hash.
  const token = op.session.cookie.split('=')[1]!;
  t.is((await sql`select 1 from account_sessions where id = ${token}`).length, 0);

  const me = await asSession(op.session, 'GET', SESSION);
  t.is(me.status, 200, me.text);
  t.like(me.body, { operator: { operator_id: op.id, role: 'support' }, csrf_token: op.session.csrf });
  t.true(Date.parse(me.body.expires_at) > Date.now());

  t.is((await asSession(op.session, 'DELETE', SESSION, undefined, { csrf: null })).status, 403, 'sign-out needs the CSRF token too');
  const out = await asSession(op.session, 'DELETE', SESSION);
  t.is(out.status, 204, out.text);
  t.regex(out.headers.get('set-cookie') ?? '', /^gw_operator=; Path=\/; HttpOnly; SameSite=Strict; Max-Age=0/);
  const after = await asSession(op.session, 'GET', SESSION);
  t.is(after.status, 401);
  t.is(after.headers.get('content-type'), 'application/problem+json');
  t.deepEqual(
    (await auditOf(op.id)).map((r) => r.action),
    ['operator.create', 'session.sign_in', 'session.sign_out'],
  );
});

test('a wrong password, an unknown email, a disabled account: the same 401; too many failures are 429', async (t) => {
  const op = await operator('finance');
  const wrong = await rawSignIn(API_URL, op.email, 'not-the-password-at-all');
  const unknown = await rawSignIn(API_URL, `nobody-${randomUUID()}@example.test`, 'not-the-password-at-all');
  t.is(wrong.status, 401);
  t.is(unknown.status, 401);
  t.deepEqual(wrong.body, unknown.body);
  t.is(wrong.headers.get('set-cookie'), null);

  t.is((await asOperator('PATCH', `${ADMIN}/operators/${op.id}`, { disabled: true })).status, 200);
  t.is((await asSession(op.session, 'GET', SESSION)).status, 401, 'disabling ends its sessions at once');
  const disabled = await rawSignIn(API_URL, op.email, op.password);
  t.is(disabled.status, 401);
  t.deepEqual(disabled.body, unknown.body);
  t.is((await asOperator('PATCH', `${ADMIN}/operators/${op.id}`, { disabled: false })).status, 200);
  t.is((await rawSignIn(API_URL, op.email, op.password)).status, 200);

  // The limit is per (email, address): OPERATOR_SIGN_IN_MAX_FAILURES (10) failures, then 429 even with the right password.
  const target = await operator('support');
  for (let i = 0; i < 10; i += 1) t.is((await rawSignIn(API_URL, target.email, 'wrong-password-xxxx')).status, 401);
  const limited = await rawSignIn(API_URL, target.email, target.password);
  t.is(limited.status, 429, limited.text);
  t.truthy(limited.headers.get('retry-after'));
});

test('idle and absolute timeouts end a session', async (t) => {
  // Timeouts of several seconds and requests timed against them with seconds of room on either
  // side: a request that takes a while on a loaded machine lands on the same side of the line.
  const op = await operator('support');
  const idle = await startApp({ OPERATOR_SESSION_IDLE_SECONDS: 8, OPERATOR_SESSION_ABSOLUTE_SECONDS: 600 });
  const absolute = await startApp({ OPERATOR_SESSION_IDLE_SECONDS: 600, OPERATOR_SESSION_ABSOLUTE_SECONDS: 8 });
  t.teardown(async () => {
    await idle.close();
    await absolute.close();
  });
  const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
  const a = await signIn(op.email, op.password, idle.url);
  t.is((await asSession(a, 'GET', SESSION, undefined, { base: idle.url })).status, 200);
  await pause(5_000);
  t.is((await asSession(a, 'GET', SESSION, undefined, { base: idle.url })).status, 200, 'within the idle timeout');
  await pause(5_000);
  t.is((await asSession(a, 'GET', SESSION, undefined, { base: idle.url })).status, 200, 'past the first idle end: the request before moved it');
  await pause(10_000);
  t.is((await asSession(a, 'GET', SESSION, undefined, { base: idle.url })).status, 401, 'idle for longer than the idle timeout');

  const b = await signIn(op.email, op.password, absolute.url);
  // The absolute end the sign-in answered: counted from when the session began (after the slow
  // password check), not from when the test sent the sign-in.
  const absoluteEnd = Date.parse(b.body.absolute_expires_at);
  t.true(absoluteEnd <= Date.now() + 8_000);
  t.is((await asSession(b, 'GET', SESSION, undefined, { base: absolute.url })).status, 200);
  // Active all along (a request a second), until two seconds past the absolute end.
  while (Date.now() < absoluteEnd + 2_000) {
    await pause(1_000);
    await asSession(b, 'GET', SESSION, undefined, { base: absolute.url });
  }
  t.is((await asSession(b, 'GET', SESSION, undefined, { base: absolute.url })).status, 401, 'active, but past the absolute timeout');
});

test('CSRF: a missing or wrong X-CSRF-Token is 403 and changes nothing', async (t) => {
  const op = await operator('finance');
  // A rate of this test's own: rates are global, and other files read the seeded ones meanwhile.
  const currency = await ownCurrency({ buyMicro: 34_000_000n, sellMicro: 34_800_000n });
  const rates = `${ADMIN}/rates/${currency}`;
  const auditBefore = await sql`select count(*)::int as n from audit_log where object_type = 'rate' and object_id = ${currency}`;
  for (const csrf of [null, 'x'.repeat(43), ''] as const) {
    const res = await asSession(op.session, 'PUT', rates, { buy_rate_micro: 1, sell_rate_micro: 2 }, { csrf });
    t.is(res.status, 403, res.text);
    t.is(res.headers.get('content-type'), 'application/problem+json');
  }
  const [rate] = await sql<{ buy_rate_micro: bigint }[]>`select buy_rate_micro from rates where currency_code = ${currency}`;
  t.is(rate!.buy_rate_micro, 34_000_000n);
  t.deepEqual(await sql`select count(*)::int as n from audit_log where object_type = 'rate' and object_id = ${currency}`, auditBefore);
  // Another session's token is no good either.
  const other = await operator('finance');
  t.is((await asSession(op.session, 'PUT', rates, { buy_rate_micro: 1, sell_rate_micro: 2 }, { csrf: other.session.csrf })).status, 403);
  // With its own token it goes through, audited as the account.
  const ok = await asSession(op.session, 'PUT', rates, { buy_rate_micro: 34_100_000, sell_rate_micro: 34_900_000 });
  t.is(ok.status, 200, ok.text);
  const [row] = await sql<{ after: Json }[]>`select * from audit_log where object_type = 'rate' and object_id = ${currency} order by id desc limit 1`;
  t.like(row, { actor_kind: 'operator_account', actor_id: op.id, role: 'finance', action: 'rate.set' });
  t.deepEqual(row!.after, { buy_rate_micro: '34100000', sell_rate_micro: '34900000' });
});

test('the role table covers every operator route, GETs only for support, and the OpenAPI document shows it', async (t) => {
  const doc = await (await fetch(`${API_URL}/openapi.json`)).json();
  const operations: Array<{ id: string; method: string; path: string; roles: string[] }> = [];
  for (const [path, item] of Object.entries<Json>(doc.paths)) {
    for (const [method, op] of Object.entries<Json>(item)) {
      if ((op.security ?? []).some((s: object) => 'OperatorJwt' in s)) operations.push({ id: op.operationId, method, path, roles: op['x-roles'] });
    }
  }
  t.deepEqual(operations.map((o) => o.id).sort(), Object.keys(OPERATOR_ROUTE_ROLES).sort());
  for (const o of operations) {
    t.deepEqual(o.roles, [...OPERATOR_ROUTE_ROLES[o.id]!], o.id);
    t.true(o.roles.includes('admin'), `the operator JWT (admin) keeps every route: ${o.id}`);
    if (o.method !== 'get' && !['adminDeleteSession', 'adminEnrollTotp', 'adminChangeOwnPassword'].includes(o.id)) t.false(o.roles.includes('support'), o.id);
  }
});

test('support is refused on every operator route that changes something; each role on a sample', async (t) => {
  const support = await operator('support');
  const doc = await (await fetch(`${API_URL}/openapi.json`)).json();
  const auditBefore = (await sql`select count(*)::int as n from audit_log where actor_id = ${support.id}`)[0]!.n;
  let refused = 0;
  for (const [path, item] of Object.entries<Json>(doc.paths)) {
    for (const [method, op] of Object.entries<Json>(item)) {
      if (!(op.security ?? []).some((s: object) => 'OperatorJwt' in s) || method === 'get') continue;
      if (['adminDeleteSession', 'adminEnrollTotp', 'adminChangeOwnPassword'].includes(op.operationId)) continue;
      const concrete = path.replace(/\{currency\}/, 'RUB').replace(/\{[^}]+\}/g, () => randomUUID());
      const res = await asSession(support.session, method.toUpperCase(), concrete, {});
      t.is(res.status, 403, `${op.operationId}: ${res.text}`);
      t.regex(JSON.parse(res.body.detail).message, /operator role support may not call/);
      refused += 1;
    }
  }
  t.true(refused >= 30, `${refused} routes`);
  t.is((await sql`select count(*)::int as n from audit_log where actor_id = ${support.id}`)[0]!.n, auditBefore, 'a refused action is not audited');
  // Support reads.
  for (const path of ['/withdrawals', '/appeals', '/alerts', '/audit', '/queues', '/session']) {
    t.is((await asSession(support.session, 'GET', `${ADMIN}${path}`)).status, 200, path);
  }
  t.is((await asSession(support.session, 'GET', `${ADMIN}/operators`)).status, 403, 'the operator list is the admin’s');

  const arbiter = await operator('arbiter');
  const finance = await operator('finance');
  const admin = await operator('admin');
  const merchant = { name: 'Console merchant', email: `console-${randomUUID()}@example.test` };
  t.is((await asSession(arbiter.session, 'POST', `${ADMIN}/merchants`, merchant)).status, 403);
  t.is((await asSession(finance.session, 'POST', `${ADMIN}/merchants`, merchant)).status, 403);
  const made = await asSession(admin.session, 'POST', `${ADMIN}/merchants`, merchant);
  t.is(made.status, 201, made.text);
  t.is((await asSession(arbiter.session, 'PUT', `${ADMIN}/rates/KZT`, { buy_rate_micro: 480_000_000, sell_rate_micro: 490_000_000 })).status, 403);
  t.is((await asSession(finance.session, 'POST', `${ADMIN}/deals/${randomUUID()}/confirm`, {})).status, 403);
  t.is((await asSession(arbiter.session, 'POST', `${ADMIN}/deals/${randomUUID()}/confirm`, {})).status, 404, 'the arbiter passes the role check');
  t.is(
    (await asSession(admin.session, 'POST', `${ADMIN}/operators`, { email: `x-${randomUUID()}@example.test`, password: 'short', role: 'support' })).status,
    400,
  );
  const dup = await asSession(admin.session, 'POST', `${ADMIN}/operators`, {
    email: admin.email.toUpperCase(),
    password: 'long-enough-password',
    role: 'support',
  });
  t.is(dup.status, 409, dup.text);
});

test('audit: merchant settings, kill-switch and withdrawal cancel, with before/after and the request id; the JWT path too', async (t) => {
  const admin = await operator('admin');
  const { merchantId, keys } = await walletMerchant(50_000, { auto_withdrawal_mode: 'MANUAL_ONLY' });
  const traceId = `trace-${randomUUID()}`;
  const patched = await asSession(admin.session, 'PATCH', `${ADMIN}/merchants/${merchantId}`, { payin_fee_bps: 321 }, { traceId });
  t.is(patched.status, 200, patched.text);
  const killed = await fetch(`${API_URL}/api/v1/p2p/merchant/${merchantId}/disable`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${await operatorToken()}`, 'Content-Type': 'application/json', 'X-Trace-Id': `${traceId}-jwt` },
    body: JSON.stringify({ reason: 'fraud check' }),
  });
  t.is(killed.status, 200);
  const rows = await auditOf(merchantId);
  const settings = rows.find((r) => r.action === 'merchant.update_settings' && r.actor_kind === 'operator_account')!;
  t.like(settings, { actor_kind: 'operator_account', actor_id: admin.id, role: 'admin', object_type: 'merchant', request_id: traceId });
  t.is(settings.before.payin_fee_bps, 0);
  t.is(settings.after.payin_fee_bps, 321);
  const disable = rows.find((r) => r.action === 'merchant.disable')!;
  t.like(disable, { actor_kind: 'operator_jwt', actor_id: 'test-operator', role: 'admin', request_id: `${traceId}-jwt` });
  t.is(disable.before.disabled_at, null);
  t.truthy(disable.after.disabled_at);
  t.is(disable.after.kill_switch_reason, 'fraud check');
  t.is((await asOperator('POST', `/api/v1/p2p/merchant/${merchantId}/enable`)).status, 200);
  t.deepEqual(
    (await auditOf(merchantId)).map((r) => r.action).filter((a) => a.startsWith('merchant.')),
    ['merchant.create', 'merchant.keys_issue', 'merchant.update_settings', 'merchant.update_settings', 'merchant.disable', 'merchant.enable'],
  );
  // The key issue keeps the (public) token, never the secret.
  t.false(JSON.stringify(rows.find((r) => r.action === 'merchant.keys_issue')!.after).includes(keys.secret));

  const w = await withdraw(keys, { address: randomTronAddress(), amount: 3_000 });
  t.is(w.body.status, 'PENDING_MANUAL');
  const finance = await operator('finance');
  const cancelled = await asSession(
    finance.session,
    'POST',
    `${ADMIN}/withdrawals/${w.body.withdrawal_id}/cancel`,
    { reason: 'checks' },
    { traceId: `${traceId}-w` },
  );
  t.is(cancelled.status, 200, cancelled.text);
  const [cancel] = await auditOf(w.body.withdrawal_id);
  t.like(cancel, {
    action: 'withdrawal.cancel',
    actor_kind: 'operator_account',
    actor_id: finance.id,
    role: 'finance',
    object_type: 'withdrawal',
    request_id: `${traceId}-w`,
  });
  t.is(cancel!.before.status, 'PENDING_MANUAL');
  t.like(cancel!.after, { status: 'CANCELLED', cancel_reason: 'checks', cancelled_by: finance.id });
  // A refused move (already cancelled) writes nothing.
  t.is((await asSession(finance.session, 'POST', `${ADMIN}/withdrawals/${w.body.withdrawal_id}/approve`, {})).status, 400);
  t.is((await auditOf(w.body.withdrawal_id)).length, 1);

  // GET /audit: filters, newest first, pages; support may read it.
  const support = await operator('support');
  const page1 = await asSession(support.session, 'GET', `${ADMIN}/audit?object_type=merchant&object_id=${merchantId}&page_size=2`);
  t.is(page1.status, 200, page1.text);
  t.deepEqual(
    page1.body.data.map((r: { action: string }) => r.action),
    ['merchant.enable', 'merchant.disable'],
  );
  const page2 = await asSession(
    support.session,
    'GET',
    `${ADMIN}/audit?object_type=merchant&object_id=${merchantId}&page_size=2&page_token=${page1.body.next_page_token}`,
  );
  t.deepEqual(
    page2.body.data.map((r: { action: string }) => r.action),
    ['merchant.update_settings', 'merchant.update_settings'],
  );
  t.is(
    (await asSession(support.session, 'GET', `${ADMIN}/audit?object_id=${merchantId}&page_token=${page1.body.next_page_token}`)).status,
    400,
    'a token of other filters',
  );
  const byActor = await asOperator('GET', `${ADMIN}/audit?actor=${admin.id}&action=merchant.update_settings`);
  t.deepEqual(
    byActor.body.data.map((r: { object_id: string }) => r.object_id),
    [merchantId],
  );
  t.is((await asOperator('GET', `${ADMIN}/audit?from=yesterday`)).status, 400);
  t.is((await asOperator('GET', `${ADMIN}/audit?from=2030-01-01T00:00:00Z&to=2029-01-01T00:00:00Z`)).status, 400);
  const none = await asOperator('GET', `${ADMIN}/audit?object_id=${merchantId}&from=2099-01-01T00:00:00Z`);
  t.deepEqual(none.body, { data: [], next_page_token: '' });
});

test('audit_log is append-only: UPDATE, DELETE and TRUNCATE raise', async (t) => {
  const admin = await operator('admin');
  t.true((await auditOf(admin.id)).length > 0);
  await t.throwsAsync(sql`update audit_log set role = 'support' where actor_id = ${admin.id}`, { message: /append-only/ });
  await t.throwsAsync(sql`delete from audit_log where object_id = ${admin.id}`, { message: /append-only/ });
  await t.throwsAsync(sql`truncate audit_log`, { message: /append-only/ });
  t.true((await auditOf(admin.id)).every((r) => r.role === 'admin'));
});

test('four-eyes: above the amount the same operator cannot give the second approval; another operator releases it; below, one approval', async (t) => {
  const { keys } = await walletMerchant(5_000_000, { auto_withdrawal_mode: 'MANUAL_ONLY' });
  const big = await withdraw(keys, { address: randomTronAddress(), amount: 1_500_000 });
  t.is(big.body.status, 'PENDING_MANUAL', big.text);
  const id = big.body.withdrawal_id;
  const firstOperator = await operator('finance');
  const first = await asSession(firstOperator.session, 'POST', `${ADMIN}/withdrawals/${id}/approve`, {});
  t.is(first.status, 202, first.text);
  t.like(first.body, { status: 'PENDING_MANUAL', approvals_required: 2 });
  t.deepEqual(
    first.body.approvals.map((a: { approver: string; counts: boolean }) => [a.approver, a.counts]),
    [[`operator_account:${firstOperator.id}`, true]],
  );
  t.is((await signed(keys, 'GET', `/api/v1/p2p/merchant/wallet/withdrawals/${id}`)).body.status, 'PENDING_MANUAL', 'the merchant sees no new status');
  const again = await asSession(firstOperator.session, 'POST', `${ADMIN}/withdrawals/${id}/approve`, {});
  t.is(again.status, 409, again.text);
  t.regex(JSON.parse(again.body.detail).message, /another operator/);
  const finance = await operator('finance');
  const second = await asSession(finance.session, 'POST', `${ADMIN}/withdrawals/${id}/approve`, {});
  t.is(second.status, 200, second.text);
  t.like(second.body, { status: 'COMPLETED', approved_by: finance.id, approvals_required: 2 });
  t.is(second.body.approvals.length, 2);
  const trail = await auditOf(id);
  t.deepEqual(
    trail.map((r) => [r.action, r.actor_kind, r.after.status]),
    [
      ['withdrawal.approve', 'operator_account', 'PENDING_MANUAL'],
      ['withdrawal.approve', 'operator_account', 'APPROVED'],
    ],
  );
  t.is((await sql`select count(*)::int as n from simulated_chain_transfers where withdrawal_id = ${id}`)[0]!.n, 1);

  const small = await withdraw(keys, { address: randomTronAddress(), amount: 900_000 });
  const one = await asSession(finance.session, 'POST', `${ADMIN}/withdrawals/${small.body.withdrawal_id}/approve`, {});
  t.is(one.status, 200, one.text);
  t.like(one.body, { status: 'COMPLETED', approvals_required: 1 });
});

test('four-eyes: two operators approving at once release the withdrawal once', async (t) => {
  const { keys } = await walletMerchant(5_000_000, { auto_withdrawal_mode: 'MANUAL_ONLY' });
  const a = await operator('finance');
  const b = await operator('finance');
  for (let round = 0; round < 2; round += 1) {
    const w = await withdraw(keys, { address: randomTronAddress(), amount: 1_200_000 + round });
    const id = w.body.withdrawal_id;
    const answers = await Promise.all([
      asSession(a.session, 'POST', `${ADMIN}/withdrawals/${id}/approve`, {}),
      asSession(b.session, 'POST', `${ADMIN}/withdrawals/${id}/approve`, {}),
      asSession(a.session, 'POST', `${ADMIN}/withdrawals/${id}/approve`, {}),
    ]);
    // Served one at a time: one records (202), one releases (200), and the third is the same
    // operator again (409) or comes after the release (400).
    const statuses = answers.map((r) => r.status).sort();
    t.true(statuses[0] === 200 && statuses[1] === 202 && (statuses[2] === 409 || statuses[2] === 400), answers.map((r) => `${r.status} ${r.text}`).join(' | '));
    await eventually(async () => (await sql`select status from withdrawals where id = ${id}`)[0]!.status === 'COMPLETED', 'completion');
    t.is((await sql`select count(*)::int as n from simulated_chain_transfers where withdrawal_id = ${id}`)[0]!.n, 1);
    t.is((await sql`select count(*)::int as n from withdrawal_approvals where withdrawal_id = ${id}`)[0]!.n, 2);
    t.is((await sql`select count(*)::int as n from audit_log where object_id = ${id} and after->>'status' = 'APPROVED'`)[0]!.n, 1);
  }
});

test('queues: appeals, withdrawals waiting (and for a second approval), open alerts, stuck deals, with their ages', async (t) => {
  const { keys } = await walletMerchant(5_000_000, { auto_withdrawal_mode: 'MANUAL_ONLY' });
  const before = await asOperator('GET', `${ADMIN}/queues`);
  t.is(before.status, 200, before.text);
  const w = await withdraw(keys, { address: randomTronAddress(), amount: 1_100_000 });
  const finance = await operator('finance');
  t.is((await asSession(finance.session, 'POST', `${ADMIN}/withdrawals/${w.body.withdrawal_id}/approve`, {})).status, 202);
  const after = await asOperator('GET', `${ADMIN}/queues`);
  // Other tests of this file run beside it: at least this one more.
  t.true(after.body.withdrawals_waiting.count >= 1);
  t.true(after.body.withdrawals_waiting.awaiting_second_approval >= 1);
  t.true(after.body.withdrawals_waiting.oldest_age_seconds >= 0);
  t.truthy(Date.parse(after.body.withdrawals_waiting.oldest_at));
  for (const key of ['appeals_waiting', 'open_alerts', 'stuck_deals']) t.is(typeof after.body[key].count, 'number', key);
  t.is(after.body.stuck_deals.sla_seconds, 3600);
  // Leave nothing held for the ledger check: cancel it.
  t.is((await asOperator('POST', `${ADMIN}/withdrawals/${w.body.withdrawal_id}/cancel`)).status, 200);
});

test('TOTP: once enrolled, sign-in needs the code', async (t) => {
  const { totpAt, TOTP_STEP_SECONDS } = await import('../../domain/crypto/totp');
  const op = await operator('arbiter');
  const start = await asSession(op.session, 'POST', `${SESSION}/totp`, {});
  t.is(start.status, 200, start.text);
  t.regex(start.body.otpauth_uri, /^otpauth:\/\/totp\//);
  const now = Date.now();
  t.is(
    (
      await asSession(op.session, 'POST', `${SESSION}/totp`, {
        secret: start.body.secret,
        code: '000000' === totpAt(start.body.secret, now) ? '111111' : '000000',
        confirm_password: op.password,
      })
    ).status,
    400,
  );
  const done = await asSession(op.session, 'POST', `${SESSION}/totp`, {
    secret: start.body.secret,
    code: totpAt(start.body.secret, now),
    confirm_password: op.password,
  });
  t.is(done.status, 200, done.text);
  const [row] = await sql<{ totp_secret_sealed: string }[]>`select totp_secret_sealed from accounts where id = ${op.id}`;
  t.false(row!.totp_secret_sealed.includes(start.body.secret), 'sealed at rest');
  const without = await rawSignIn(API_URL, op.email, op.password);
  t.is(without.status, 401);
  // The enrolment used the current step: the next one's code (within the drift allowed) signs in.
  t.is((await rawSignIn(API_URL, op.email, op.password, { totp_code: totpAt(start.body.secret, now + TOTP_STEP_SECONDS * 1000) })).status, 200);
  t.is((await asOperator('PATCH', `${ADMIN}/operators/${op.id}`, { reset_totp: true })).status, 200);
  t.is((await rawSignIn(API_URL, op.email, op.password)).status, 200);
});

test('the operator JWT: who am I answers its sub as an admin; deposits keep working and are audited as operator_jwt', async (t) => {
  const me = await asOperator('GET', SESSION);
  t.is(me.status, 200, me.text);
  t.like(me.body, { operator: { operator_id: 'test-operator', role: 'admin' }, csrf_token: '' });
  const { merchantId } = await newMerchant();
  const res = await deposit(merchantId, 1234);
  t.is(res.status, 201);
  const [row] = await auditOf(res.body.deposit.deposit_id);
  t.like(row, { action: 'deposit.record', actor_kind: 'operator_jwt', actor_id: 'test-operator', role: 'admin' });
  t.is(row!.after.amount, '1234');
});

test('a deal confirm is audited in its step (the arbiter session and the JWT alike), a refused one is not', async (t) => {
  const { createPayin, operatorDeal } = await import('../helpers/deals');
  const { keys } = await newMerchant();
  const arbiter = await operator('arbiter');
  const dealId = (await createPayin(keys)).deal_id;
  const confirmed = await asSession(arbiter.session, 'POST', `${ADMIN}/deals/${dealId}/confirm`, {}, { traceId: `confirm-${dealId}` });
  t.is(confirmed.status, 200, confirmed.text);
  const rows = await auditOf(dealId);
  t.is(rows.length, 1);
  t.like(rows[0], {
    action: 'deal.confirm',
    actor_kind: 'operator_account',
    actor_id: arbiter.id,
    role: 'arbiter',
    object_type: 'deal',
    request_id: `confirm-${dealId}`,
  });
  t.is(rows[0]!.before.status, 'ESCROW_LOCKED');
  t.is(rows[0]!.after.status, 'COMPLETED');
  t.is((await operatorDeal(dealId, 'confirm')).status, 400, 'a second confirm is refused');
  t.is((await auditOf(dealId)).length, 1, 'and not audited');

  const otherId = (await createPayin(keys)).deal_id;
  t.is((await operatorDeal(otherId, 'confirm')).status, 200);
  t.like((await auditOf(otherId))[0], { action: 'deal.confirm', actor_kind: 'operator_jwt', actor_id: 'test-operator' });
});

test('alerts: finance acknowledges and resolves (audited with the change, idempotent), keyset pages; the gateway still resolves by itself', async (t) => {
  const { resolveAlerts } = await import('../../db/queries/alerts');
  const subject = `console-alert-${randomUUID()}`;
  const ids = [randomUUID(), randomUUID(), randomUUID()];
  for (const [i, id] of ids.entries()) {
    await sql`insert into operator_alerts (id, kind, subject, message) values (${id}, ${`console_test_${i}`}, ${subject}, ${`test alert ${i}`})`;
  }
  const [finance, support, arbiter] = [await operator('finance'), await operator('support'), await operator('arbiter')];
  const ack = (s: Session, id: string) => asSession(s, 'POST', `${ADMIN}/alerts/${id}/acknowledge`, {}, { traceId: `ack-${id}` });
  t.is((await ack(support.session, ids[0]!)).status, 403);
  t.is((await ack(arbiter.session, ids[0]!)).status, 403);
  t.is((await ack(finance.session, randomUUID())).status, 404);

  const first = await ack(finance.session, ids[0]!);
  t.is(first.status, 200, first.text);
  t.like(first.body.alert, { alert_id: ids[0], subject, acknowledged_by: finance.id, resolved_at: '', resolved_by: '' });
  t.truthy(Date.parse(first.body.alert.acknowledged_at));
  const again = await ack(finance.session, ids[0]!);
  t.is(again.status, 200, 'a repeat answers the alert');
  t.is(again.body.alert.acknowledged_at, first.body.alert.acknowledged_at);

  const resolved = await asSession(finance.session, 'POST', `${ADMIN}/alerts/${ids[0]}/resolve`, {});
  t.is(resolved.status, 200, resolved.text);
  t.like(resolved.body.alert, { resolved_by: finance.id, acknowledged_by: finance.id });
  const resolvedAgain = await asOperator('POST', `${ADMIN}/alerts/${ids[0]}/resolve`);
  t.is(resolvedAgain.status, 200);
  t.is(resolvedAgain.body.alert.resolved_by, finance.id, 'the first resolution stays');
  t.is((await ack(finance.session, ids[0]!)).body.alert.resolved_by, finance.id, 'acknowledging a resolved alert changes nothing');
  const trail = await auditOf(ids[0]!);
  t.deepEqual(
    trail.map((r) => [r.action, r.actor_id, r.object_type]),
    [
      ['alert.acknowledge', finance.id, 'alert'],
      ['alert.resolve', finance.id, 'alert'],
    ],
  );
  t.is(trail[0]!.request_id, `ack-${ids[0]}`);
  t.like(trail[0]!.before, { acknowledged_at: '' });
  t.like(trail[1]!.after, { resolved_by: finance.id });

  // The gateway's own resolution (a subject that moved on) keeps working and names nobody.
  await resolveAlerts(sql, subject, 'console_test_1');
  const all = await asSession(support.session, 'GET', `${ADMIN}/alerts?include_resolved=true&page_size=500`);
  t.is(all.status, 200, all.text);
  const mine: Alert[] = all.body.data.filter((a: Alert) => a.subject === subject);
  t.like(
    mine.find((a) => a.alert_id === ids[1]),
    { resolved_by: '', acknowledged_at: '' },
  );
  t.truthy(mine.find((a) => a.alert_id === ids[1])?.resolved_at);
  const open = await asSession(support.session, 'GET', `${ADMIN}/alerts`);
  t.deepEqual(
    open.body.data.filter((a: Alert) => a.subject === subject).map((a: Alert) => a.alert_id),
    [ids[2]],
    'the open listing (no parameters, as before) holds only the open one',
  );

  // Keyset pages, newest first: no alert twice, each page's token bound to its filter.
  const p1 = await asSession(support.session, 'GET', `${ADMIN}/alerts?include_resolved=true&page_size=2`);
  t.is(p1.body.data.length, 2);
  t.truthy(p1.body.next_page_token);
  const p2 = await asSession(support.session, 'GET', `${ADMIN}/alerts?include_resolved=true&page_size=2&page_token=${p1.body.next_page_token}`);
  t.is(p2.status, 200, p2.text);
  t.true(p2.body.data.length >= 1);
  t.false(p2.body.data.some((a: Alert) => p1.body.data.some((b: Alert) => b.alert_id === a.alert_id)));
  t.true(Date.parse(p2.body.data[0].created_at) <= Date.parse(p1.body.data[1].created_at));
  t.is((await asSession(support.session, 'GET', `${ADMIN}/alerts?page_size=2&page_token=${p1.body.next_page_token}`)).status, 400, 'a token of another filter');
  await resolveAlerts(sql, subject);
});

test('the operator sets a merchant’s IP whitelist and deal limits by the cabinet’s rules, audited; the merchant’s calls from elsewhere are refused', async (t) => {
  const { cabinetToken, withBearer } = await import('../helpers/api');
  const { merchantId, keys } = await newMerchant();
  const admin = await operator('admin');
  const finance = await operator('finance');
  const path = `${ADMIN}/merchants/${merchantId}`;
  t.is((await asSession(finance.session, 'PATCH', path, { ip_whitelist: '["203.0.113.9"]' })).status, 403);

  // The same rule and message as the merchant's cabinet.
  const bad = { ip_whitelist: '["not-an-ip"]' };
  const byOperator = await asSession(admin.session, 'PATCH', path, bad);
  const byMerchant = await withBearer(await cabinetToken(merchantId), 'PATCH', '/api/v1/p2p/my-merchant', bad);
  t.is(byOperator.status, 400, byOperator.text);
  t.is(byMerchant.status, 400, byMerchant.text);
  t.deepEqual(byOperator.body.errors, byMerchant.body.errors);
  const inverted = await asSession(admin.session, 'PATCH', path, { deal_min_amount: 5000, deal_max_amount: '1000' });
  t.is(inverted.status, 400);
  t.regex(inverted.text, /max_below_min/);

  const ok = await asSession(
    admin.session,
    'PATCH',
    path,
    { ip_whitelist: '["203.0.113.9"]', deal_min_amount: '1000', deal_max_amount: 500000, daily_deal_amount_limit: '9007199254740993' },
    { traceId: `ip-${merchantId}` },
  );
  t.is(ok.status, 200, ok.text);
  t.like(ok.body.merchant, { ip_whitelist: ['203.0.113.9'], deal_min_amount: '1000', deal_max_amount: '500000', daily_deal_amount_limit: '9007199254740993' });
  const refused = await signed(keys, 'GET', '/api/v1/p2p/my-merchant');
  t.is(refused.status, 403, refused.text);
  t.regex(refused.text, /ip_whitelist/);
  const [row] = (await auditOf(merchantId)).filter((r) => r.action === 'merchant.update_settings');
  t.like(row, { actor_id: admin.id, request_id: `ip-${merchantId}` });
  t.deepEqual([row!.before.ip_whitelist, row!.after.ip_whitelist], [[], ['203.0.113.9']]);
  t.deepEqual([row!.before.deal_min_amount, row!.after.deal_min_amount, row!.after.daily_deal_amount_limit], [null, '1000', '9007199254740993']);

  // An int64 amount above 2^53 as raw JSON digits stays exact; 0 removes a limit; [] opens the whitelist again.
  const raw = await fetch(`${API_URL}${path}`, {
    method: 'PATCH',
    headers: { Cookie: admin.session.cookie, 'X-CSRF-Token': admin.session.csrf, 'Content-Type': 'application/json' },
    body: '{"daily_deal_amount_limit":9007199254740995,"deal_min_amount":0,"ip_whitelist":"[]"}',
  });
  const rawBody = await raw.json();
  t.is(raw.status, 200, JSON.stringify(rawBody));
  t.is(rawBody.merchant.daily_deal_amount_limit, '9007199254740995');
  t.is(rawBody.merchant.deal_min_amount, undefined);
  t.deepEqual(rawBody.merchant.ip_whitelist, []);
  t.is((await signed(keys, 'GET', '/api/v1/p2p/my-merchant')).status, 200);
});
