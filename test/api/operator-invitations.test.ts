/**
 * Operators invited by e-mail link: the link (shown to the admin, written to the development
 * mailbox) works once and until it expires; the invitee chooses a password and is signed in with
 * an account that may do nothing but set up an authenticator until it has. One's own password
 * change ends the other sessions. The operators list shows each account's last sign-in.
 */
import test from 'ava';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { loadConfig } from '../../config';
import { totpAt } from '../../domain/crypto/totp';
import { asOperator, problemDetail, readResponse, API_URL, type Json } from '../helpers/api';
import { appEnv, testSql } from '../helpers/app';
import { ADMIN_BASE, asSession, operatorAccount, signIn, type Session } from '../helpers/operator-session';

const sql = testSql();
test.after.always(() => sql.end());

const email = () => `invited-${process.pid}-${randomBytes(4).toString('hex')}@example.test`;
const password = () => `pw-${randomBytes(12).toString('base64url')}`;
const tokenOf = (url: string) => url.split('#token=')[1]!;
const post = async (path: string, body: unknown) =>
  readResponse(await fetch(`${API_URL}${ADMIN_BASE}${path}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) }));
const sessionOf = (res: Awaited<ReturnType<typeof post>>): Session => ({
  cookie: (res.headers.get('set-cookie') ?? '').split(';')[0]!,
  csrf: res.body.csrf_token,
});

test('an invitation: the link to the admin and the mailbox, the invitee sets a password and is signed in, may only enrol until it has; the link works once', async (t) => {
  const address = email();
  const invited = await asOperator('POST', `${ADMIN_BASE}/operators/invitations`, { email: address.toUpperCase(), role: 'finance' });
  t.is(invited.status, 201, invited.text);
  t.like(invited.body.invitation, { email: address, role: 'finance', expired: false, invited_by: 'operator_jwt:test-operator' });
  t.regex(invited.body.invite_url, /\/console\/invitation#token=[A-Za-z0-9_-]{43}$/);
  const token = tokenOf(invited.body.invite_url);
  // No SMTP: the e-mail is a line of the development mailbox, with the link.
  const mailbox = readFileSync(loadConfig(appEnv()).OPERATOR_MAILBOX_FILE, 'utf8');
  const mail = mailbox
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l))
    .find((m) => m.to === address);
  t.is(mail?.link, invited.body.invite_url);
  // The audit row never holds the link.
  const [audit] = await sql<
    { after: Json }[]
  >`select after from audit_log where action = 'operator.invite' and object_id = ${invited.body.invitation.invitation_id}`;
  t.false(JSON.stringify(audit!.after).includes(token));
  t.true((await asOperator('GET', `${ADMIN_BASE}/operators/invitations`)).body.data.some((i: Json) => i.email === address));

  const checked = await post('/invitation/check', { token });
  t.is(checked.status, 200, checked.text);
  t.like(checked.body, { email: address, role: 'finance' });
  t.is((await post('/invitation/accept', { token, password: 'short' })).status, 400, 'the password rule holds');

  // Five acceptances at once: one account, one session.
  const chosen = password();
  const accepts = await Promise.all(Array.from({ length: 5 }, () => post('/invitation/accept', { token, password: chosen })));
  const won = accepts.filter((r) => r.status === 201);
  t.is(won.length, 1, accepts.map((r) => `${r.status} ${r.text}`).join('\n'));
  for (const lost of accepts.filter((r) => r.status !== 201)) {
    t.is(lost.status, 400, lost.text);
    t.regex(problemDetail(lost.body).message, /used already/);
  }
  const accepted = won[0]!;
  t.like(accepted.body.operator, { email: address, role: 'finance', totp_enrolled: false, totp_required: true });
  t.truthy(Date.parse(accepted.body.operator.last_sign_in_at));
  t.is((await sql`select id from accounts where email = ${address}`).length, 1);
  t.is((await post('/invitation/check', { token })).status, 400);

  // Until an authenticator is set up, the session may read itself, enrol, sign out — nothing else.
  const session = sessionOf(accepted);
  t.is((await asSession(session, 'GET', `${ADMIN_BASE}/session`)).status, 200);
  const blocked = await asSession(session, 'GET', `${ADMIN_BASE}/queues`);
  t.is(blocked.status, 403, blocked.text);
  t.regex(problemDetail(blocked.body).message, /authenticator/);
  const started = await asSession(session, 'POST', `${ADMIN_BASE}/session/totp`, {});
  t.is(started.status, 200, started.text);
  const secret = started.body.secret;
  const enrolled = await asSession(session, 'POST', `${ADMIN_BASE}/session/totp`, { secret, code: totpAt(secret, Date.now()), confirm_password: chosen });
  t.is(enrolled.status, 200, enrolled.text);
  t.is((await asSession(session, 'GET', `${ADMIN_BASE}/queues`)).status, 200, 'enrolled: the session works');
  const me = (await asSession(session, 'GET', `${ADMIN_BASE}/session`)).body.operator;
  t.like(me, { totp_enrolled: true, totp_required: true });
  const [accept] = await sql<{ actor_id: string }[]>`select actor_id from audit_log where action = 'operator.invite_accept' and object_id = ${me.operator_id}`;
  t.is(accept!.actor_id, me.operator_id);

  // An account with the email exists now: inviting it again is 409.
  t.is((await asOperator('POST', `${ADMIN_BASE}/operators/invitations`, { email: address, role: 'support' })).status, 409);
});

test('an invitation expires; a newer one withdraws the older; a withdrawn one is refused; an unknown token is 404', async (t) => {
  const address = email();
  const first = await asOperator('POST', `${ADMIN_BASE}/operators/invitations`, { email: address, role: 'arbiter' });
  const second = await asOperator('POST', `${ADMIN_BASE}/operators/invitations`, { email: address, role: 'arbiter' });
  t.is(second.body.revoked_earlier, 1);
  const withdrawn = await post('/invitation/accept', { token: tokenOf(first.body.invite_url), password: password() });
  t.is(withdrawn.status, 400, withdrawn.text);
  t.regex(problemDetail(withdrawn.body).message, /withdrawn/);

  await sql`update account_invitations set expires_at = now() - interval '1 second' where id = ${second.body.invitation.invitation_id}`;
  const expired = await post('/invitation/accept', { token: tokenOf(second.body.invite_url), password: password() });
  t.is(expired.status, 400, expired.text);
  t.regex(problemDetail(expired.body).message, /expired/);
  t.is((await sql`select id from accounts where email = ${address}`).length, 0);
  t.true((await asOperator('GET', `${ADMIN_BASE}/operators/invitations`)).body.data.some((i: Json) => i.email === address && i.expired));

  const third = await asOperator('POST', `${ADMIN_BASE}/operators/invitations`, { email: address, role: 'arbiter' });
  const revoked = await asOperator('POST', `${ADMIN_BASE}/operators/invitations/${third.body.invitation.invitation_id}/revoke`);
  t.is(revoked.status, 200, revoked.text);
  t.is((await post('/invitation/accept', { token: tokenOf(third.body.invite_url), password: password() })).status, 400);
  t.is((await post('/invitation/check', { token: randomBytes(32).toString('base64url') })).status, 404);
  t.is((await post('/invitation/check', { token: 'x' })).status, 400);
});

test('one’s own password change: the present password (or a code) proves it, the other sessions end, this one stays; the list shows the last sign-in', async (t) => {
  const account = await operatorAccount('support');
  const [row] = await sql<{ email: string }[]>`select email from accounts where id = ${account.id}`;
  // operatorAccount's password is not returned: set a known one through the admin API first.
  const old = password();
  t.is((await asOperator('PATCH', `${ADMIN_BASE}/operators/${account.id}`, { password: old })).status, 200);
  const here = await signIn(row!.email, old);
  const elsewhere = await signIn(row!.email, old);

  const missing = await asSession(here, 'POST', `${ADMIN_BASE}/session/password`, { new_password: password() });
  t.is(missing.status, 400);
  const wrong = await asSession(here, 'POST', `${ADMIN_BASE}/session/password`, { new_password: password(), confirm_password: 'not-my-password' });
  t.is(wrong.status, 400, wrong.text);
  t.is(wrong.body.errors?.[0]?.field, 'confirm_password');

  const fresh = password();
  const changed = await asSession(here, 'POST', `${ADMIN_BASE}/session/password`, { new_password: fresh, confirm_password: old });
  t.is(changed.status, 200, changed.text);
  t.deepEqual(changed.body, { changed: true, sessions_ended: 1 });
  t.is((await asSession(elsewhere, 'GET', `${ADMIN_BASE}/session`)).status, 401, 'the other session ended');
  t.is((await asSession(here, 'GET', `${ADMIN_BASE}/session`)).status, 200, 'this one stays');
  await t.throwsAsync(() => signIn(row!.email, old));
  await signIn(row!.email, fresh);
  const [audit] = await sql<{ after: Json }[]>`select after from audit_log where action = 'operator.password_change' and object_id = ${account.id}`;
  t.is(audit!.after.sessions_ended, 1);
  t.is((await asOperator('POST', `${ADMIN_BASE}/session/password`, { new_password: fresh, confirm_password: fresh })).status, 403, 'the JWT has no password');

  const listed = (await asOperator('GET', `${ADMIN_BASE}/operators`)).body.data.find((o: Json) => o.operator_id === account.id);
  t.truthy(Date.parse(listed.last_sign_in_at));
  t.is(listed.last_sign_in_address, '127.0.0.1');
});
