/**
 * Operator sign-in under attack: attempts reserved before the password hash (parallel guesses
 * count one another), limits per (email, address), per email and per address, failures audited
 * and kept; unknown emails limited before hashing; a TOTP code accepted once; replacing a TOTP
 * secret needs the password or the current code and ends the other sessions; a session made with
 * a credential that changed meanwhile does not outlive the change.
 *
 * The limit tests run an API of their own that trusts this process as its proxy, so each test
 * signs in from addresses of its own (X-Forwarded-For) and no test's failures count for another.
 */
import test from 'ava';
import { randomBytes, randomInt, randomUUID } from 'node:crypto';
import { loadConfig } from '../../config';
import { SecretBox } from '../../domain/crypto/secret-box';
import { newTotpSecret, totpAt, TOTP_STEP_SECONDS } from '../../domain/crypto/totp';
import { API_URL, asOperator, problemDetail, readResponse, type ApiResponse, type Json } from '../helpers/api';
import { startApp, testSql } from '../helpers/app';
import { ADMIN_BASE as ADMIN } from '../helpers/operator-session';

const sql = testSql();
test.after.always(() => sql.end());

const SESSION = `${ADMIN}/session`;
let proxied: Awaited<ReturnType<typeof startApp>>;
test.before(async () => {
  proxied = await startApp({ TRUSTED_PROXIES: ['127.0.0.1'] });
});
test.after.always(() => proxied?.close());

/** An address of this test's own (TEST-NET ranges are never real clients). */
const address = () => `198.18.${randomInt(0, 256)}.${randomInt(1, 255)}`;

async function signInFrom(base: string, from: string | undefined, body: Record<string, unknown>): Promise<ApiResponse> {
  const headers: Record<string, string> = { 'Content-Type': 'application/json' };
  if (from) headers['X-Forwarded-For'] = from;
  return readResponse(await fetch(`${base}${SESSION}`, { method: 'POST', headers, body: JSON.stringify(body) }));
}

interface Session {
  cookie: string;
  csrf: string;
}
const sessionOf = (res: ApiResponse): Session => ({ cookie: (res.headers.get('set-cookie') ?? '').split(';')[0]!, csrf: res.body.csrf_token });
async function asSession(s: Session, method: string, path: string, body?: unknown, base = API_URL) {
  const headers: Record<string, string> = { Cookie: s.cookie, 'X-CSRF-Token': s.csrf };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  return readResponse(await fetch(`${base}${path}`, { method, headers, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) }));
}

async function account(role: 'finance' | 'admin' | 'support' = 'finance') {
  const email = `sign-in-${randomUUID()}@example.test`;
  const password = `pw-${randomBytes(12).toString('base64url')}`;
  const created = await asOperator('POST', `${ADMIN}/operators`, { email, password, role });
  if (created.status !== 201) throw new Error(`operator create failed: ${created.status} ${created.text}`);
  return { id: created.body.operator.operator_id as string, email, password };
}

async function signedIn(who: { email: string; password: string }, extra: Record<string, unknown> = {}, base = API_URL): Promise<Session> {
  const res = await signInFrom(base, undefined, { email: who.email, password: who.password, ...extra });
  if (res.status !== 200) throw new Error(`sign-in failed: ${res.status} ${res.text}`);
  return sessionOf(res);
}

const failures = async (operatorId: string) =>
  (await sql<{ n: number }[]>`select count(*)::int as n from sign_in_attempts where account_id = ${operatorId} and outcome = 'failed'`)[0]!.n;
const failureAudits = async (operatorId: string) =>
  sql<{ actor_kind: string; actor_id: string; role: string; after: Json }[]>`
    select actor_kind, actor_id, role, after from audit_log where object_id = ${operatorId} and action = 'session.sign_in_failed' order by id`;
const statuses = (answers: ApiResponse[]) => answers.map((r) => r.status);
const count = (answers: ApiResponse[], status: number) => answers.filter((r) => r.status === status).length;

/** A code of a time step the account has not used yet: the next step's (accepted as clock drift), after waiting if the last use took it. */
async function freshCode(secret: string, used: { step: number }): Promise<string> {
  for (;;) {
    const next = Math.floor(Date.now() / 1000 / TOTP_STEP_SECONDS) + 1;
    if (next > used.step) {
      used.step = next;
      return totpAt(secret, next * TOTP_STEP_SECONDS * 1000);
    }
    await new Promise((r) => setTimeout(r, 500));
  }
}

test.serial(
  'thirty parallel guesses from one address: ten are checked, the rest 429 before any hash; the right password after them is refused; each failure audited and kept',
  async (t) => {
    const who = await account();
    const from = address();
    const guesses = await Promise.all(
      Array.from({ length: 30 }, (_, i) => signInFrom(proxied.url, from, { email: who.email, password: `wrong-password-${i}` })),
    );
    t.is(count(guesses, 401), 10, statuses(guesses).join(','));
    t.is(count(guesses, 429), 20, statuses(guesses).join(','));
    for (const refused of guesses.filter((r) => r.status === 429)) t.truthy(refused.headers.get('retry-after'));
    const right = await signInFrom(proxied.url, from, { email: who.email, password: who.password });
    t.is(right.status, 429, right.text);
    t.regex(problemDetail(right.body).message, /too many failed sign-ins/);

    t.is(await failures(who.id), 10, 'exactly the checked guesses failed');
    const audits = await failureAudits(who.id);
    t.is(audits.length, 10);
    t.true(
      audits.every((a) => a.actor_kind === 'anonymous' && a.actor_id === from && a.role === '' && a.after.reason === 'password' && a.after.email === who.email),
    );
    // From another address the account is still open (the per-email limit is higher).
    t.is((await signInFrom(proxied.url, address(), { email: who.email, password: who.password })).status, 200);
  },
);

test.serial('thirty parallel guesses from thirty addresses: at most the per-email limit is checked, then even the right password is 429', async (t) => {
  const who = await account();
  const guesses = await Promise.all(
    Array.from({ length: 30 }, (_, i) => signInFrom(proxied.url, address(), { email: who.email, password: `wrong-password-${i}` })),
  );
  t.is(count(guesses, 401), 20, statuses(guesses).join(','));
  t.is(count(guesses, 429), 10, statuses(guesses).join(','));
  const right = await signInFrom(proxied.url, address(), { email: who.email, password: who.password });
  t.is(right.status, 429, right.text);
  t.is(await failures(who.id), 20);
});

test.serial('a success erases nothing: failures before it stay in the trail and in the window', async (t) => {
  const who = await account();
  const from = address();
  for (let i = 0; i < 4; i += 1) t.is((await signInFrom(proxied.url, from, { email: who.email, password: 'wrong-password-xx' })).status, 401);
  t.is((await signInFrom(proxied.url, from, { email: who.email, password: who.password })).status, 200);
  t.is(await failures(who.id), 4);
  t.is((await failureAudits(who.id)).length, 4);
  // Four before the success count with six after it: the eleventh try is 429.
  for (let i = 0; i < 6; i += 1) t.is((await signInFrom(proxied.url, from, { email: who.email, password: 'wrong-password-yy' })).status, 401);
  t.is((await signInFrom(proxied.url, from, { email: who.email, password: who.password })).status, 429);
});

test('unknown emails: the same 401, limited per address before hashing, and past the global budget answered without a hash', async (t) => {
  const budget = await startApp({ TRUSTED_PROXIES: ['127.0.0.1'], OPERATOR_SIGN_IN_MAX_FAILURES_PER_ADDRESS: 8, OPERATOR_SIGN_IN_UNKNOWN_HASHES: 3 });
  t.teardown(() => budget.close());
  const from = address();
  const answers = await Promise.all(
    Array.from({ length: 20 }, () => signInFrom(budget.url, from, { email: `nobody-${randomUUID()}@example.test`, password: 'x' })),
  );
  t.is(count(answers, 401), 8, statuses(answers).join(','));
  t.is(count(answers, 429), 12, statuses(answers).join(','));
  const known = await account();
  t.is((await signInFrom(budget.url, from, { email: known.email, password: known.password })).status, 429, 'the address is over its limit, whatever the email');

  // From many addresses: every answer is the one 401, but no more than the budget were hashed.
  const spread = await Promise.all(
    Array.from({ length: 12 }, () => signInFrom(budget.url, address(), { email: `nobody-${randomUUID()}@example.test`, password: 'x' })),
  );
  t.deepEqual(statuses(spread), Array(12).fill(401));
  t.deepEqual(new Set(spread.map((r) => r.text)).size, 1);
  const [unhashed] = await sql<{ n: number }[]>`
    select count(*)::int as n from sign_in_attempts where account_id is null and not hashed and at > now() - interval '1 minute'`;
  t.true(unhashed!.n >= 9, `answered without a hash: ${unhashed!.n}`);
});

test('a TOTP code signs in once: again, or twice at once, is the one 401; the failure says why in the trail', async (t) => {
  const who = await account();
  // Enrolled directly (the enrolment route has its own test below): only sign-in is under test here.
  const secret = newTotpSecret();
  const box = new SecretBox(loadConfig(process.env).SECRETS_ENCRYPTION_KEY);
  await sql`update accounts set totp_secret_sealed = ${box.seal(secret, `operator-totp:${who.id}`)} where id = ${who.id}`;
  const used = { step: 0 };
  const code = await freshCode(secret, used);
  const first = await signInFrom(API_URL, undefined, { email: who.email, password: who.password, totp_code: code });
  t.is(first.status, 200, first.text);
  const again = await signInFrom(API_URL, undefined, { email: who.email, password: who.password, totp_code: code });
  t.is(again.status, 401, 'the same code a second time');

  const next = await freshCode(secret, used);
  const both = await Promise.all([
    signInFrom(API_URL, undefined, { email: who.email, password: who.password, totp_code: next }),
    signInFrom(API_URL, undefined, { email: who.email, password: who.password, totp_code: next }),
  ]);
  t.deepEqual(statuses(both).sort(), [200, 401], both.map((r) => r.text).join(' | '));
  t.deepEqual(again.body, both.find((r) => r.status === 401)!.body, 'the one answer');
  t.deepEqual(
    (await failureAudits(who.id)).map((a) => a.after.reason),
    ['code_reused', 'code_reused'],
  );
});

test('replacing a TOTP secret needs the password or the current code, and ends the account’s other sessions', async (t) => {
  const who = await account();
  const mine = await signedIn(who);
  const other = await signedIn(who);
  const first = (await asSession(mine, 'POST', `${SESSION}/totp`, {})).body.secret as string;
  const used = { step: 0 };
  const code1 = await freshCode(first, used);

  const unconfirmed = await asSession(mine, 'POST', `${SESSION}/totp`, { secret: first, code: code1 });
  t.is(unconfirmed.status, 400, unconfirmed.text);
  t.is(unconfirmed.body.errors[0].field, 'confirm_password');
  const wrong = await asSession(mine, 'POST', `${SESSION}/totp`, { secret: first, code: code1, confirm_password: 'not-my-password' });
  t.is(wrong.status, 400, wrong.text);
  t.is(wrong.body.errors[0].field, 'confirm_password');
  t.is((await sql`select 1 from audit_log where object_id = ${who.id} and action = 'operator.confirm_failed'`).length, 1, 'a wrong confirmation is audited');
  t.is((await asSession(other, 'GET', SESSION)).status, 200, 'nothing changed yet');

  const enrolled = await asSession(mine, 'POST', `${SESSION}/totp`, { secret: first, code: code1, confirm_password: who.password });
  t.is(enrolled.status, 200, enrolled.text);
  t.is((await asSession(other, 'GET', SESSION)).status, 401, 'the other session ended');
  t.is((await asSession(mine, 'GET', SESSION)).status, 200, 'the session that enrolled goes on');

  // A re-enrolment by the current code (of the old secret), not the password.
  const second = (await asSession(mine, 'POST', `${SESSION}/totp`, {})).body.secret as string;
  const another = await signedIn(who, { totp_code: await freshCode(first, used) });
  const current = await freshCode(first, used);
  const newCode = totpAt(second, used.step * TOTP_STEP_SECONDS * 1000);
  const reenrolled = await asSession(mine, 'POST', `${SESSION}/totp`, { secret: second, code: newCode, confirm_code: current });
  t.is(reenrolled.status, 200, reenrolled.text);
  t.is((await asSession(another, 'GET', SESSION)).status, 401, 'the other session ended');
  t.is((await asSession(mine, 'GET', SESSION)).status, 200);
  // The new secret's code took its step: it cannot confirm anything now.
  const reused = await asSession(mine, 'POST', `${SESSION}/totp`, { secret: second, code: newCode, confirm_code: newCode });
  t.is(reused.status, 400, reused.text);
  t.is(reused.body.errors[0].field, 'confirm_code');
});

test('an admin removes an operator’s TOTP only with its own password or code; the operator’s sessions end; the JWT needs neither', async (t) => {
  const admin = await account('admin');
  const adminSession = await signedIn(admin);
  const who = await account();
  const whoSession = await signedIn(who);
  const secret = (await asSession(whoSession, 'POST', `${SESSION}/totp`, {})).body.secret as string;
  const used = { step: 0 };
  t.is((await asSession(whoSession, 'POST', `${SESSION}/totp`, { secret, code: await freshCode(secret, used), confirm_password: who.password })).status, 200);

  const bare = await asSession(adminSession, 'PATCH', `${ADMIN}/operators/${who.id}`, { reset_totp: true });
  t.is(bare.status, 400, bare.text);
  t.is(
    (await asSession(adminSession, 'PATCH', `${ADMIN}/operators/${who.id}`, { reset_totp: true, confirm_password: who.password })).status,
    400,
    'the operator’s password is not the admin’s',
  );
  t.is((await asSession(whoSession, 'GET', SESSION)).status, 200, 'nothing changed yet');
  const reset = await asSession(adminSession, 'PATCH', `${ADMIN}/operators/${who.id}`, { reset_totp: true, confirm_password: admin.password });
  t.is(reset.status, 200, reset.text);
  t.false(reset.body.operator.totp_enrolled);
  t.is((await asSession(whoSession, 'GET', SESSION)).status, 401, 'its sessions ended');
  t.is((await asSession(adminSession, 'GET', SESSION)).status, 200);

  // The spec's operator JWT is the break-glass credential: no password to confirm with.
  const again = await signedIn(who);
  const secret2 = (await asSession(again, 'POST', `${SESSION}/totp`, {})).body.secret as string;
  t.is(
    (await asSession(again, 'POST', `${SESSION}/totp`, { secret: secret2, code: await freshCode(secret2, used), confirm_password: who.password })).status,
    200,
  );
  const byJwt = await asOperator('PATCH', `${ADMIN}/operators/${who.id}`, { reset_totp: true });
  t.is(byJwt.status, 200, byJwt.text);
  t.is((await asSession(again, 'GET', SESSION)).status, 401);
});

test('a sign-in racing a password change never outlives it', async (t) => {
  const who = await account();
  let password = who.password;
  for (let round = 0; round < 10; round += 1) {
    const next = `pw-${randomBytes(12).toString('base64url')}`;
    // Another API process than the one changing the password, as in a deployment with several.
    const signingIn = signInFrom(proxied.url, address(), { email: who.email, password });
    await new Promise((r) => setTimeout(r, round * 15));
    const changed = await asOperator('PATCH', `${ADMIN}/operators/${who.id}`, { password: next });
    t.is(changed.status, 200, changed.text);
    const res = await signingIn;
    if (res.status === 200) t.is((await asSession(sessionOf(res), 'GET', SESSION)).status, 401, `round ${round}: the session made with the old password ended`);
    else t.is(res.status, 401, res.text);
    password = next;
  }
  t.is((await signInFrom(proxied.url, address(), { email: who.email, password })).status, 200);
});
