/**
 * The merchant's people (docs/cabinet.md): a first owner invited with the merchant, members the
 * owner invites with roles, the console's session rules at the cabinet's door (cookie, CSRF,
 * TOTP first, lockout), the one role table, the doors kept apart, the last owner kept under
 * concurrent changes, the cabinet JWT unchanged, every member action audited as the member.
 */
import test from 'ava';
import { randomBytes, randomInt, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { loadConfig } from '../../config';
import { totpAt, TOTP_STEP_SECONDS } from '../../domain/crypto/totp';
import { API_URL, asOperator, cabinetToken, problemDetail, readResponse, signed, withBearer, type ApiResponse, type Json } from '../helpers/api';
import { appEnv, startApp, testSql } from '../helpers/app';
import { ADMIN_BASE, operatorAccount, asSession as asOperatorSession } from '../helpers/operator-session';
import {
  acceptAndEnrol,
  asMember,
  CABINET,
  cabinetPost,
  freshCode,
  invitedMember,
  merchantWithOwner,
  MY_MERCHANT,
  newEmail,
  newPassword,
  sessionOf,
  signInMember,
  tokenOf,
  type Member,
} from '../helpers/cabinet-session';

const sql = testSql();
test.after.always(() => sql.end());

const auditOf = (objectId: string) =>
  sql<
    { actor_kind: string; actor_id: string; role: string; action: string; object_type: string; before: Json; after: Json; actor_credential: string | null }[]
  >`
    select * from audit_log where object_id = ${objectId} order by id`;
const statuses = (answers: ApiResponse[]) => answers.map((r) => r.status).join(',');
const count = (answers: ApiResponse[], status: number) => answers.filter((r) => r.status === status).length;
const messageOf = (res: ApiResponse) => problemDetail(res.body).message;

test('the first owner: invited with the merchant, accepts once, sets up TOTP before anything, signs in, reads and patches its profile with the CSRF token', async (t) => {
  const ownerEmail = newEmail('first-owner');
  const created = await asOperator('POST', '/api/v1/p2p/admin/merchants', {
    name: 'First owner merchant',
    email: newEmail('merchant'),
    owner_email: ownerEmail.toUpperCase(),
  });
  t.is(created.status, 201, created.text);
  const merchantId = created.body.merchant.id as string;
  const link = created.body.owner_invitation.invite_url as string;
  t.regex(link, /\/cabinet\/invitation#token=[A-Za-z0-9_-]{43}$/);
  t.like(created.body.owner_invitation.invitation, { email: ownerEmail, role: 'owner', expired: false, invited_by: 'operator_jwt:test-operator' });
  // No SMTP: the e-mail is a line of the merchants' development mailbox.
  const mailbox = readFileSync(loadConfig(appEnv()).MERCHANT_MAILBOX_FILE, 'utf8');
  const mail = mailbox
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l))
    .find((m) => m.to === ownerEmail);
  t.is(mail?.link, link);
  t.regex(mail.text, /owner of First owner merchant/);
  const [invite] = await sql<{ after: Json; actor_kind: string }[]>`
    select after, actor_kind from audit_log where action = 'member.invite' and object_id = ${created.body.owner_invitation.invitation.invitation_id}`;
  t.is(invite!.actor_kind, 'operator_jwt');
  t.false(JSON.stringify(invite!.after).includes(tokenOf(link)), 'the trail never holds the link');

  const checked = await cabinetPost('/invitation/check', { token: tokenOf(link) });
  t.is(checked.status, 200, checked.text);
  t.like(checked.body, { email: ownerEmail, role: 'owner', merchant_name: 'First owner merchant' });
  // A console link is unknown at the cabinet, and a cabinet link at the console.
  const consoleInvite = await asOperator('POST', `${ADMIN_BASE}/operators/invitations`, { email: newEmail('op'), role: 'support' });
  t.is((await cabinetPost('/invitation/check', { token: tokenOf(consoleInvite.body.invite_url) })).status, 404);
  const atConsole = await fetch(`${API_URL}${ADMIN_BASE}/invitation/check`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ token: tokenOf(link) }),
  });
  t.is(atConsole.status, 404);

  // Five acceptances at once: one member, one session.
  const password = newPassword();
  const accepts = await Promise.all(Array.from({ length: 5 }, () => cabinetPost('/invitation/accept', { token: tokenOf(link), password })));
  t.is(count(accepts, 201), 1, statuses(accepts));
  t.is(count(accepts, 400), 4, statuses(accepts));
  const accepted = accepts.find((r) => r.status === 201)!;
  t.regex(accepted.headers.get('set-cookie') ?? '', /^gw_merchant=[A-Za-z0-9_-]{40,}; Path=\/; HttpOnly; SameSite=Strict; Max-Age=\d+$/);
  t.like(accepted.body, { member: { email: ownerEmail, role: 'owner', totp_required: true, totp_enrolled: false }, merchant: { merchant_id: merchantId } });
  const session = sessionOf(accepted);
  const ownerId = accepted.body.member.member_id as string;

  // Until an authenticator is set up: its own session, the set-up, sign-out — nothing else.
  t.is((await asMember(session, 'GET', `${CABINET}/session`)).status, 200);
  const blocked = await asMember(session, 'GET', MY_MERCHANT);
  t.is(blocked.status, 403, blocked.text);
  t.regex(messageOf(blocked), /authenticator/);
  const secret = (await asMember(session, 'POST', `${CABINET}/session/totp`, {})).body.secret as string;
  const now = Date.now();
  const used = { step: Math.floor(now / 1000 / TOTP_STEP_SECONDS) };
  const enrolled = await asMember(session, 'POST', `${CABINET}/session/totp`, { secret, code: totpAt(secret, now), confirm_password: password });
  t.is(enrolled.status, 200, enrolled.text);
  t.is((await asMember(session, 'GET', MY_MERCHANT)).status, 200, 'enrolled: the session works');

  // Sign-in needs the code now.
  t.is((await cabinetPost('/session', { email: ownerEmail, password })).status, 401);
  const signedIn = await cabinetPost('/session', { email: ownerEmail, password, totp_code: await freshCode(secret, used) });
  t.is(signedIn.status, 200, signedIn.text);
  t.like(signedIn.body, {
    member: { member_id: ownerId, role: 'owner', totp_enrolled: true },
    merchant: { merchant_id: merchantId, name: 'First owner merchant' },
  });
  const fresh = sessionOf(signedIn);
  const profile = await asMember(fresh, 'GET', MY_MERCHANT);
  t.is(profile.status, 200, profile.text);
  t.is(profile.body.merchant.id, merchantId);

  // PATCH /my-merchant with the session: without its CSRF token (or with another's) 403 and nothing changes.
  const hook = `http://203.0.113.10/hook-${randomBytes(4).toString('hex')}`;
  for (const csrf of [null, '', session.csrf === fresh.csrf ? 'x'.repeat(43) : session.csrf]) {
    const refused = await asMember(fresh, 'PATCH', MY_MERCHANT, { webhook_url: hook }, { csrf });
    t.is(refused.status, 403, refused.text);
  }
  t.not((await asMember(fresh, 'GET', MY_MERCHANT)).body.merchant.webhook_url, hook);
  const patched = await asMember(fresh, 'PATCH', MY_MERCHANT, { webhook_url: hook });
  t.is(patched.status, 200, patched.text);
  t.is(patched.body.merchant.webhook_url, hook);

  const trail = await auditOf(ownerId);
  t.deepEqual(
    trail.map((r) => r.action),
    ['member.invite_accept', 'member.totp_enroll', 'session.sign_in_failed', 'session.sign_in'],
  );
  t.true(trail.every((r) => r.object_type === 'merchant_member'));
  t.true(
    trail
      .filter((r) => r.action !== 'session.sign_in_failed')
      .every((r) => r.actor_kind === 'merchant_account' && r.actor_id === ownerId && r.role === 'owner'),
  );
  t.like(trail[2], { actor_kind: 'anonymous', after: { reason: 'code_missing' } });
  const [update] = await sql<{ actor_kind: string; actor_id: string; role: string; before: Json; after: Json; actor_credential: string }[]>`
    select * from audit_log where object_id = ${merchantId} and action = 'merchant.update_profile'`;
  t.like(update, { actor_kind: 'merchant_account', actor_id: ownerId, role: 'owner', after: { webhook_url: hook } });
  t.regex(update!.actor_credential, /^session:[0-9a-f]{12}$/);
  // Operators read it with the member's email.
  const listed = await asOperator('GET', `${ADMIN_BASE}/audit?object_id=${merchantId}&action=merchant.update_profile`);
  t.like(listed.body.data[0], { actor_kind: 'merchant_account', actor_name: ownerEmail, actor_email: ownerEmail });
});

test('support reads and every write is 403; developer and finance as the table says; refusals change and audit nothing', async (t) => {
  const { merchantId, owner } = await merchantWithOwner();
  const support = await invitedMember(owner, 'support');
  const developer = await invitedMember(owner, 'developer');
  const finance = await invitedMember(owner, 'finance');

  for (const path of [MY_MERCHANT, '/api/v1/p2p/merchant/appeals', '/api/v1/p2p/merchant/events', '/api/v1/p2p/merchant/passes', `${CABINET}/session`]) {
    t.is((await asMember(support.session, 'GET', path)).status, 200, path);
  }
  t.is((await asMember(support.session, 'GET', `${CABINET}/team`)).status, 403, 'the team is the owner’s');

  // Every cabinet route that changes something, from the served document: 403 for support before anything is read.
  const doc = await (await fetch(`${API_URL}/openapi.json`)).json();
  const own = ['cabinetDeleteSession', 'cabinetEnrollTotp', 'cabinetChangeOwnPassword'];
  const auditBefore = (await sql`select count(*)::int as n from audit_log where actor_id = ${support.id}`)[0]!.n;
  let refused = 0;
  for (const [path, item] of Object.entries<Json>(doc.paths)) {
    for (const [method, op] of Object.entries<Json>(item)) {
      if (!(op.security ?? []).some((s: object) => 'CabinetSessionCookie' in s) || method === 'get' || own.includes(op.operationId)) continue;
      t.false(op['x-roles'].includes('support'), op.operationId);
      const res = await asMember(
        support.session,
        method.toUpperCase(),
        path.replace(/\{[^}]+\}/g, () => randomUUID()),
        {},
      );
      t.is(res.status, 403, `${op.operationId}: ${res.text}`);
      t.regex(messageOf(res), /merchant role support may not call/);
      refused += 1;
    }
  }
  t.true(refused >= 10, `${refused} routes`);
  t.is((await sql`select count(*)::int as n from audit_log where actor_id = ${support.id}`)[0]!.n, auditBefore, 'a refused action is not audited');

  // developer: the integration (profile settings, keys); not the disputes or the team.
  const hook = `http://203.0.113.10/dev-${randomBytes(4).toString('hex')}`;
  t.is((await asMember(developer.session, 'PATCH', MY_MERCHANT, { webhook_url: hook })).status, 200);
  const rotated = await asMember(developer.session, 'POST', '/api/v1/p2p/merchant/api-keys/rotate');
  t.is(rotated.status, 200, rotated.text);
  const [rotation] = await sql<{ actor_id: string; role: string; after: Json }[]>`
    select actor_id, role, after from audit_log where object_id = ${merchantId} and action = 'merchant.keys_rotate'`;
  t.like(rotation, { actor_id: developer.id, role: 'developer', after: { token: rotated.body.token } });
  t.false(JSON.stringify(rotation!.after).includes(rotated.body.secret), 'never the secret');
  const appealBody = { deal_id: randomUUID(), reason: 'the payer paid and nothing happened' };
  t.is((await asMember(developer.session, 'POST', '/api/v1/p2p/merchant/appeals', appealBody)).status, 403);
  t.is((await asMember(developer.session, 'POST', `${CABINET}/team/invitations`, { email: newEmail(), role: 'support' })).status, 403);

  // finance: the disputes; not the profile.
  t.is((await asMember(finance.session, 'PATCH', MY_MERCHANT, { webhook_url: hook })).status, 403);
  const appeal = await asMember(finance.session, 'POST', '/api/v1/p2p/merchant/appeals', appealBody);
  t.is(appeal.status, 404, `finance passes the role check and meets the deal's scope: ${appeal.text}`);
  t.is((await asMember(finance.session, 'POST', '/api/v1/p2p/merchant/api-keys/rotate')).status, 403);
});

test("another merchant's members, invitations and objects are 404; the session is its own merchant's", async (t) => {
  const a = await merchantWithOwner();
  const b = await merchantWithOwner();
  const bMember = await invitedMember(b.owner, 'support');
  const bInvite = await asMember(b.owner.session, 'POST', `${CABINET}/team/invitations`, { email: newEmail(), role: 'finance' });
  t.is(bInvite.status, 201);
  const bInvitationId = bInvite.body.invitation.invitation_id as string;

  t.is((await asMember(a.owner.session, 'PATCH', `${CABINET}/team/${bMember.id}`, { role: 'owner' })).status, 404);
  t.is((await asMember(a.owner.session, 'DELETE', `${CABINET}/team/${bMember.id}`)).status, 404);
  t.is((await asMember(a.owner.session, 'POST', `${CABINET}/team/invitations/${bInvitationId}/revoke`)).status, 404);
  t.is((await asMember(a.owner.session, 'GET', `/api/v1/p2p/merchant/appeals/${randomUUID()}`)).status, 404);
  const team = await asMember(a.owner.session, 'GET', `${CABINET}/team`);
  t.deepEqual(
    team.body.data.map((m: Json) => m.member_id),
    [a.owner.id],
  );
  t.false((await asMember(a.owner.session, 'GET', `${CABINET}/team/invitations`)).body.data.some((i: Json) => i.invitation_id === bInvitationId));
  t.is((await asMember(a.owner.session, 'GET', MY_MERCHANT)).body.merchant.id, a.merchantId);
  // B's member and invitation are as they were.
  const [member] = await sql<{ role: string; removed_at: Date | null }[]>`select role, removed_at from accounts where id = ${bMember.id}`;
  t.deepEqual({ ...member }, { role: 'support', removed_at: null });
  t.is((await sql`select revoked_at from account_invitations where id = ${bInvitationId}`)[0]!.revoked_at, null);
});

test('the doors are apart: a member session on an operator route is 403, an operator session on a cabinet route 403; both cookies at once each find their own', async (t) => {
  const { owner } = await merchantWithOwner();
  const operator = await operatorAccount('admin');
  const onAdmin = await asMember(owner.session, 'GET', `${ADMIN_BASE}/queues`);
  t.is(onAdmin.status, 403, onAdmin.text);
  t.regex(messageOf(onAdmin), /admin role required/);
  t.is((await asMember(owner.session, 'POST', `${ADMIN_BASE}/merchants`, { name: 'x', email: newEmail() })).status, 403);
  const onCabinet = await asOperatorSession(operator.session, 'GET', MY_MERCHANT);
  t.is(onCabinet.status, 403, onCabinet.text);
  t.regex(messageOf(onCabinet), /merchant identity required/);
  t.is((await asOperatorSession(operator.session, 'GET', `${CABINET}/session`)).status, 403);

  const both = `${owner.session.cookie}; ${operator.session.cookie}`;
  const asOperatorToo = await asMember(owner.session, 'GET', `${ADMIN_BASE}/session`, undefined, { cookie: both });
  t.is(asOperatorToo.status, 200);
  t.is(asOperatorToo.body.operator.operator_id, operator.id);
  const asMemberToo = await asMember(owner.session, 'GET', `${CABINET}/session`, undefined, { cookie: both });
  t.is(asMemberToo.status, 200);
  t.is(asMemberToo.body.member.member_id, owner.id);

  // A session that ended is no identity at either door: 401.
  const spare = await signInMember(owner);
  t.is((await asMember(spare, 'DELETE', `${CABINET}/session`)).status, 204);
  t.is((await asMember(spare, 'GET', `${ADMIN_BASE}/queues`)).status, 401);
  t.is((await asMember(spare, 'GET', MY_MERCHANT)).status, 401);
  // No cookie of either: 401.
  t.is((await readResponse(await fetch(`${API_URL}${MY_MERCHANT}`))).status, 401);
});

test.serial(
  'thirty parallel wrong passwords at the cabinet: ten checked, twenty 429, the right one refused; the same email at the console is not locked',
  async (t) => {
    const proxied = await startApp({ TRUSTED_PROXIES: ['127.0.0.1'] });
    t.teardown(() => proxied.close());
    const from = `198.18.${randomInt(0, 256)}.${randomInt(1, 255)}`;
    const { owner } = await merchantWithOwner();
    // The owner's email is also an operator's (another door's account of the same address).
    const operatorPassword = newPassword();
    t.is((await asOperator('POST', `${ADMIN_BASE}/operators`, { email: owner.email, password: operatorPassword, role: 'support' })).status, 201);

    const guesses = await Promise.all(
      Array.from({ length: 30 }, (_, i) => cabinetPost('/session', { email: owner.email, password: `wrong-password-${i}` }, { base: proxied.url, from })),
    );
    t.is(count(guesses, 401), 10, statuses(guesses));
    t.is(count(guesses, 429), 20, statuses(guesses));
    t.true(guesses.filter((r) => r.status === 429).every((r) => r.headers.get('retry-after') !== null));
    // A fresh code, refused before it is checked: still unused for the sign-in from elsewhere below.
    const code = await freshCode(owner.secret, owner.used);
    const right = await cabinetPost('/session', { email: owner.email, password: owner.password, totp_code: code }, { base: proxied.url, from });
    t.is(right.status, 429, right.text);
    t.regex(messageOf(right), /too many failed sign-ins/);
    const failures = await sql<{ n: number }[]>`
    select count(*)::int as n from sign_in_attempts where account_id = ${owner.id} and party = 'merchant' and outcome = 'failed'`;
    t.is(failures[0]!.n, 10, 'exactly the checked guesses failed');
    const audits = await sql<{ actor_kind: string; actor_id: string; object_type: string; after: Json }[]>`
    select actor_kind, actor_id, object_type, after from audit_log where object_id = ${owner.id} and action = 'session.sign_in_failed'`;
    t.is(audits.length, 10);
    t.true(audits.every((a) => a.actor_kind === 'anonymous' && a.actor_id === from && a.object_type === 'merchant_member' && a.after.reason === 'password'));

    // The console's account of the same email, from the same address: its own door, its own count.
    const atConsole = await readResponse(
      await fetch(`${proxied.url}${ADMIN_BASE}/session`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-Forwarded-For': from },
        body: JSON.stringify({ email: owner.email, password: operatorPassword }),
      }),
    );
    t.is(atConsole.status, 200, atConsole.text);
    t.regex(atConsole.headers.get('set-cookie') ?? '', /^gw_operator=/);
    // From another address the member still signs in (the per-email limit is higher).
    const elsewhere = await cabinetPost(
      '/session',
      { email: owner.email, password: owner.password, totp_code: code },
      { base: proxied.url, from: `198.18.${randomInt(0, 256)}.${randomInt(1, 255)}` },
    );
    t.is(elsewhere.status, 200, elsewhere.text);
  },
);

test('the last owner stays: thirty demotions, then thirty removals, of two owners at once each leave exactly one change; the last owner cannot demote, disable or remove itself', async (t) => {
  const { merchantId, owner: a } = await merchantWithOwner();
  const b = await invitedMember(a, 'owner');
  const cabinet = await cabinetToken(merchantId);
  const enabledOwners = () => sql<{ id: string }[]>`
    select id from accounts where merchant_id = ${merchantId} and role = 'owner' and disabled_at is null and removed_at is null`;
  const changesOf = (ids: string[], action: string) =>
    sql<{ object_id: string; actor_kind: string }[]>`select object_id, actor_kind from audit_log where object_id in ${sql(ids)} and action = ${action}`;

  // Thirty demotions of both owners at once (the same demotion again is answered as it is, unchanged).
  const demotions = await Promise.all(
    Array.from({ length: 30 }, (_, i) => withBearer(cabinet, 'PATCH', `${CABINET}/team/${i % 2 === 0 ? a.id : b.id}`, { role: 'developer' })),
  );
  t.true(
    demotions.every((r) => r.status === 200 || r.status === 400),
    statuses(demotions),
  );
  for (const r of demotions.filter((x) => x.status === 400)) t.regex(messageOf(r), /at least one enabled owner/);
  const demoted = await changesOf([a.id, b.id], 'member.update');
  t.is(demoted.length, 1, JSON.stringify(demoted));
  t.is(demoted[0]!.actor_kind, 'merchant_jwt');
  const [left] = await enabledOwners();
  t.is((await enabledOwners()).length, 1, 'exactly one enabled owner is left');

  // The one left cannot leave the merchant ownerless, not even by itself.
  const last = left!.id === a.id ? a : b;
  const lastSession = last.id === a.id ? a.session : await signInMember(b);
  for (const [method, body] of [
    ['PATCH', { role: 'developer' }],
    ['PATCH', { disabled: true }],
    ['DELETE', undefined],
  ] as const) {
    const res = await asMember(lastSession, method, `${CABINET}/team/${last.id}`, body);
    t.is(res.status, 400, res.text);
  }

  // A second owner; thirty removals of both at once: exactly one is removed.
  const c = await invitedMember({ ...last, session: lastSession }, 'owner');
  const removals = await Promise.all(Array.from({ length: 30 }, (_, i) => withBearer(cabinet, 'DELETE', `${CABINET}/team/${i % 2 === 0 ? last.id : c.id}`)));
  t.is(count(removals, 204), 1, statuses(removals));
  t.true(
    removals.every((r) => [204, 400, 404].includes(r.status)),
    statuses(removals),
  );
  t.is((await changesOf([last.id, c.id], 'member.remove')).length, 1);
  t.is((await enabledOwners()).length, 1);

  // With a second owner an owner may step down itself, and keeps the session it does it with.
  const [survivorRow] = await enabledOwners();
  const survivor = survivorRow!.id === c.id ? c : { ...last, session: lastSession };
  const d = await invitedMember(survivor, 'owner');
  const down = await asMember(survivor.session, 'PATCH', `${CABINET}/team/${survivor.id}`, { role: 'developer' });
  t.is(down.status, 200, down.text);
  t.is(down.body.member.role, 'developer');
  t.is((await asMember(survivor.session, 'GET', `${CABINET}/session`)).body.member.role, 'developer');
  t.is((await asMember(survivor.session, 'GET', `${CABINET}/team`)).status, 403, 'a developer now');
  t.is((await asMember(d.session, 'GET', `${CABINET}/team`)).status, 200);
});

test('the owner manages the team: a disabled member is out at once, a removed one for good; invitations per merchant; emails of members are 409', async (t) => {
  const { owner } = await merchantWithOwner();
  const other = await merchantWithOwner();
  const dev = await invitedMember(owner, 'developer');

  t.is((await asMember(owner.session, 'PATCH', `${CABINET}/team/${dev.id}`, { disabled: true })).status, 200);
  t.is((await asMember(dev.session, 'GET', MY_MERCHANT)).status, 401, 'disabling ends its sessions at once');
  t.is((await cabinetPost('/session', { email: dev.email, password: dev.password, totp_code: '000000' })).status, 401);
  t.is((await asMember(owner.session, 'PATCH', `${CABINET}/team/${dev.id}`, { disabled: false, role: 'finance' })).status, 200);
  const back = await signInMember(dev);
  t.is((await asMember(back, 'GET', `${CABINET}/session`)).body.member.role, 'finance');

  // An email that has a cabinet account, here or at another merchant, is 409.
  t.is((await asMember(owner.session, 'POST', `${CABINET}/team/invitations`, { email: other.owner.email, role: 'support' })).status, 409);
  // Two merchants invite one email: each withdraws only its own earlier invitation.
  const shared = newEmail('shared');
  const mine1 = await asMember(owner.session, 'POST', `${CABINET}/team/invitations`, { email: shared, role: 'support' });
  const theirs = await asMember(other.owner.session, 'POST', `${CABINET}/team/invitations`, { email: shared, role: 'support' });
  const mine2 = await asMember(owner.session, 'POST', `${CABINET}/team/invitations`, { email: shared, role: 'finance' });
  t.deepEqual([mine1.body.revoked_earlier, theirs.body.revoked_earlier, mine2.body.revoked_earlier], [0, 0, 1]);
  t.is((await cabinetPost('/invitation/check', { token: tokenOf(mine1.body.invite_url) })).status, 400);
  t.is((await cabinetPost('/invitation/check', { token: tokenOf(theirs.body.invite_url) })).status, 200);
  const revoked = await asMember(owner.session, 'POST', `${CABINET}/team/invitations/${mine2.body.invitation.invitation_id}/revoke`);
  t.is(revoked.status, 200, revoked.text);
  t.is((await cabinetPost('/invitation/accept', { token: tokenOf(mine2.body.invite_url), password: newPassword() })).status, 400);

  // An owner who leaves takes the links it gave out and nobody used with it.
  const co = await invitedMember(owner, 'owner');
  const pending = await asMember(co.session, 'POST', `${CABINET}/team/invitations`, { email: newEmail('pending'), role: 'support' });
  t.is(pending.status, 201, pending.text);
  t.is((await asMember(owner.session, 'DELETE', `${CABINET}/team/${co.id}`)).status, 204);
  const withdrawn = await cabinetPost('/invitation/check', { token: tokenOf(pending.body.invite_url) });
  t.is(withdrawn.status, 400, withdrawn.text);
  t.regex(messageOf(withdrawn), /withdrawn/);

  // Removed: out for good, not listed, kept in the trail; its email may be invited again.
  t.is((await asMember(owner.session, 'DELETE', `${CABINET}/team/${dev.id}`)).status, 204);
  t.is((await asMember(back, 'GET', MY_MERCHANT)).status, 401);
  t.is((await asMember(owner.session, 'DELETE', `${CABINET}/team/${dev.id}`)).status, 404);
  t.false((await asMember(owner.session, 'GET', `${CABINET}/team`)).body.data.some((m: Json) => m.member_id === dev.id));
  t.deepEqual(
    (await auditOf(dev.id)).filter((r) => r.actor_id === owner.id).map((r) => r.action),
    ['member.update', 'member.update', 'member.remove'],
  );
  const again = await asMember(owner.session, 'POST', `${CABINET}/team/invitations`, { email: dev.email, role: 'support' });
  t.is(again.status, 201, again.text);
  const returned: Member = await acceptAndEnrol(again.body.invite_url, dev.email);
  t.not(returned.id, dev.id, 'a new member');
});

test('the cabinet JWT works as before (and as the owner); a member reads its profile while the kill-switch is on, nothing else', async (t) => {
  const { merchantId, keys, owner } = await merchantWithOwner();
  const cabinet = await cabinetToken(merchantId);
  t.is((await withBearer(cabinet, 'GET', MY_MERCHANT)).status, 200);
  const patched = await withBearer(cabinet, 'PATCH', MY_MERCHANT, { deal_max_amount: 9_000_000 });
  t.is(patched.status, 200, patched.text);
  t.is(patched.body.merchant.deal_max_amount, '9000000');
  const [audit] = await sql<{ actor_kind: string; actor_id: string; role: string }[]>`
    select actor_kind, actor_id, role from audit_log where object_id = ${merchantId} and action = 'merchant.update_profile'`;
  t.like(audit, { actor_kind: 'merchant_jwt', actor_id: 'test-user', role: 'owner' });
  const me = await withBearer(cabinet, 'GET', `${CABINET}/session`);
  t.like(me.body, { member: { member_id: 'test-user', role: 'owner' }, merchant: { merchant_id: merchantId }, csrf_token: '' });
  t.is((await withBearer(cabinet, 'GET', `${CABINET}/team`)).status, 200);
  t.is((await withBearer(cabinet, 'POST', `${CABINET}/session/totp`, {})).status, 403, 'the JWT has no authenticator');
  t.is((await signed(keys, 'PATCH', MY_MERCHANT, { deal_max_amount: 1 })).status, 403, 'HMAC stays refused');
  t.is((await signed(keys, 'GET', `${CABINET}/team`)).status, 403);

  t.is((await asOperator('POST', `/api/v1/p2p/merchant/${merchantId}/disable`, { reason: 'cabinet test' })).status, 200);
  t.is((await asMember(owner.session, 'GET', MY_MERCHANT)).body.merchant.kill_switch, true);
  t.is((await asMember(owner.session, 'GET', `${CABINET}/team`)).status, 200, 'its people still manage their accounts');
  const refused = await asMember(owner.session, 'PATCH', MY_MERCHANT, { deal_max_amount: 1 });
  t.is(refused.status, 403, refused.text);
  t.regex(messageOf(refused), /disabled/);
  t.is((await asMember(owner.session, 'GET', '/api/v1/p2p/merchant/appeals')).status, 403);
  t.is((await withBearer(cabinet, 'GET', MY_MERCHANT)).status, 200);
});

test('an operator invites a new owner to an existing merchant (admin only)', async (t) => {
  const { merchantId } = await merchantWithOwner();
  const email = newEmail('recovered-owner');
  const invited = await asOperator('POST', `${ADMIN_BASE}/merchants/${merchantId}/owner-invitations`, { email });
  t.is(invited.status, 201, invited.text);
  t.like(invited.body.invitation, { email, role: 'owner' });
  t.is((await asOperator('POST', `${ADMIN_BASE}/merchants/${randomUUID()}/owner-invitations`, { email: newEmail() })).status, 404);
  const support = await operatorAccount('support');
  t.is((await asOperatorSession(support.session, 'POST', `${ADMIN_BASE}/merchants/${merchantId}/owner-invitations`, { email: newEmail() })).status, 403);
  const owner = await acceptAndEnrol(invited.body.invite_url, email);
  t.is(owner.role, 'owner');
  t.is((await asMember(owner.session, 'GET', `${CABINET}/team`)).body.data.length, 2);
});
