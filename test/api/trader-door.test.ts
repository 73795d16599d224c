/**
 * The traders' door (docs/trader.md): an operator creates a trader with its account's email, the
 * trader accepts once, must set up TOTP before anything, signs in with it; the operator approves it
 * only once it can sign in; the doors stay apart (a trader's session is refused at the console and
 * the cabinet, every other credential at the trader's routes); every move is audited as its actor.
 */
import test from 'ava';
import { readFileSync } from 'node:fs';
import { loadConfig } from '../../config';
import { asOperator, cabinetToken, newMerchant, problemDetail, signed, withBearer, operatorToken, type Json } from '../helpers/api';
import { appEnv, testSql } from '../helpers/app';
import { asMember, newEmail, newPassword, sessionOf, tokenOf } from '../helpers/cabinet-session';
import { acceptTraderInvitation, asTrader, newTrader, signInTrader, TRADER, traderPost } from '../helpers/trader-session';

const sql = testSql();
test.after.always(() => sql.end());

const auditOf = (objectId: string) =>
  sql<{ actor_kind: string; actor_id: string; role: string; action: string; after: Json }[]>`
    select actor_kind, actor_id, role, action, after from audit_log where object_id = ${objectId} order by id`;

test('an invited trader: pending until approved, TOTP before anything, approval only once it can sign in, then ACTIVE', async (t) => {
  const email = newEmail('door-trader');
  const created = await asOperator('POST', '/api/v1/p2p/admin/traders', { name: 'Door trader', email: email.toUpperCase() });
  t.is(created.status, 201, created.text);
  const traderId = created.body.trader.trader_id as string;
  t.is(created.body.trader.status, 'PENDING_APPROVAL');
  const link = created.body.account_invitation.invite_url as string;
  t.regex(link, /\/trader\/invitation#token=[A-Za-z0-9_-]{43}$/);
  t.like(created.body.account_invitation.invitation, { email, role: 'trader', expired: false });
  const mail = readFileSync(loadConfig(appEnv()).TRADER_MAILBOX_FILE, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { to: string; link: string })
    .find((m) => m.to === email);
  t.is(mail?.link, link, 'the e-mail is a line of the traders development mailbox');

  // Approval before anyone can sign in as the trader: refused, nothing changes.
  const early = await asOperator('POST', `/api/v1/p2p/admin/traders/${traderId}/approve`);
  t.is(early.status, 400, early.text);
  t.regex(problemDetail(early.body).message, /no account with an authenticator/);

  const check = await traderPost('/invitation/check', { token: tokenOf(link) });
  t.is(check.status, 200, check.text);
  t.like(check.body, { email, role: 'trader', trader_name: 'Door trader' });

  // Accepted: signed in, but nothing but the authenticator's set-up is open.
  const password = newPassword();
  const accepted = await traderPost('/invitation/accept', { token: tokenOf(link), password });
  t.is(accepted.status, 201, accepted.text);
  t.like(accepted.body, { account: { email, role: 'trader', totp_required: true, totp_enrolled: false }, trader: { trader_id: traderId, approved: false } });
  const pending = sessionOf(accepted);
  const before = await asTrader(pending, 'POST', `${TRADER}/session/password`, { new_password: newPassword(), confirm_password: password });
  t.is(before.status, 403, before.text);
  t.regex(problemDetail(before.body).message, /set up an authenticator/);
  const again = await traderPost('/invitation/accept', { token: tokenOf(link), password });
  t.is(again.status, 400, 'a link works once');

  // A second account of the same trader (another invitation), accepted and enrolled: now it can sign in.
  const secondEmail = newEmail('door-second');
  const second = await asOperator('POST', `/api/v1/p2p/admin/traders/${traderId}/invitations`, { email: secondEmail });
  t.is(second.status, 201, second.text);
  const account = await acceptTraderInvitation(second.body.invite_url, secondEmail);
  t.truthy(account.accountId);

  const approved = await asOperator('POST', `/api/v1/p2p/admin/traders/${traderId}/approve`);
  t.is(approved.status, 200, approved.text);
  t.like(approved.body.trader, { trader_id: traderId, status: 'ACTIVE', approved: true });
  const session = await asTrader(account.session, 'GET', `${TRADER}/session`);
  t.is(session.status, 200, session.text);
  t.like(session.body, { trader: { trader_id: traderId, status: 'ACTIVE', approved: true }, account: { role: 'trader', totp_enrolled: true } });
  const repeat = await asOperator('POST', `/api/v1/p2p/admin/traders/${traderId}/approve`);
  t.is(repeat.status, 200, 'approving an approved trader changes nothing');

  const trail = await auditOf(traderId);
  t.deepEqual(
    trail.map((a) => a.action),
    ['trader.create', 'trader.approve'],
  );
  t.is(trail[1]!.actor_kind, 'operator_jwt');
});

test('sign-in needs the TOTP code once enrolled; sign-out ends the session', async (t) => {
  const trader = await newTrader({ liquidity: 0 });
  const noCode = await traderPost('/session', { email: trader.email, password: trader.password });
  t.is(noCode.status, 401, noCode.text);
  const wrong = await traderPost('/session', { email: trader.email, password: `${trader.password}x`, totp_code: '000000' });
  t.is(wrong.status, 401);
  const session = await signInTrader(trader);
  t.regex(session.cookie, /^gw_trader=/);
  const noCsrf = await asTrader(session, 'DELETE', `${TRADER}/session`, undefined, { csrf: null });
  t.is(noCsrf.status, 403, 'a request that changes something needs the CSRF token');
  const out = await asTrader(session, 'DELETE', `${TRADER}/session`);
  t.is(out.status, 204, out.text);
  const after = await asTrader(session, 'GET', `${TRADER}/session`);
  t.is(after.status, 401);
  t.regex(problemDetail(after.body).message, /trader app session has ended/);
  const actions = (await auditOf(trader.accountId)).map((a) => a.action);
  t.true(actions.includes('session.sign_out'), actions.join());
  t.true(actions.includes('trader_account.totp_enroll'), actions.join());
});

test('the doors stay apart: a trader is refused at the console and the cabinet, every other credential at the trader routes', async (t) => {
  const trader = await newTrader({ liquidity: 0 });
  const atConsole = await asTrader(trader.session, 'GET', '/api/v1/p2p/admin/session');
  t.is(atConsole.status, 403, atConsole.text);
  const atCabinet = await asTrader(trader.session, 'GET', '/api/v1/p2p/cabinet/session');
  t.is(atCabinet.status, 403, atCabinet.text);

  const none = await asMember({ cookie: '', csrf: '' }, 'GET', `${TRADER}/session`);
  t.is(none.status, 401);
  const operatorJwt = await withBearer(await operatorToken(), 'GET', `${TRADER}/session`);
  t.is(operatorJwt.status, 403, operatorJwt.text);
  const { merchantId, keys } = await newMerchant();
  const cabinetJwt = await withBearer(await cabinetToken(merchantId), 'GET', `${TRADER}/session`);
  t.is(cabinetJwt.status, 403);
  const hmac = await signed(keys, 'GET', `${TRADER}/session`);
  t.is(hmac.status, 403, hmac.text);

  // Another door's invitation link is no trader's: 404.
  const merchantInvite = await asOperator('POST', '/api/v1/p2p/admin/merchants', { name: 'Door merchant', email: newEmail('m'), owner_email: newEmail('o') });
  const foreign = await traderPost('/invitation/check', { token: tokenOf(merchantInvite.body.owner_invitation.invite_url) });
  t.is(foreign.status, 404, foreign.text);
});

test('an operator-managed trader (no email) is ACTIVE at once; an unknown or sandbox trader cannot be invited', async (t) => {
  const managed = await asOperator('POST', '/api/v1/p2p/admin/traders', { name: 'Managed trader' });
  t.is(managed.status, 201);
  t.is(managed.body.trader.status, 'ACTIVE');
  t.is(managed.body.account_invitation, undefined);
  const unknown = await asOperator('POST', '/api/v1/p2p/admin/traders/00000000-0000-4000-8000-00000000dead/invitations', { email: newEmail('x') });
  t.is(unknown.status, 404);
  const taken = await newTrader({ liquidity: 0, online: false });
  // The console's list says who is present: the operators' own trader always, the app's trader by its switch.
  const listed = await asOperator('GET', '/api/v1/p2p/admin/traders?page_size=200');
  const presenceOf = (id: string) => (listed.body.data as Json[]).find((row) => row.trader_id === id)?.presence;
  t.is(presenceOf(managed.body.trader.trader_id), 'managed');
  t.is(presenceOf(taken.traderId), 'offline');
  const dup = await asOperator('POST', `/api/v1/p2p/admin/traders/${managed.body.trader.trader_id}/invitations`, { email: taken.email });
  t.is(dup.status, 409, dup.text);
});
