/**
 * Traders for tests, through the doors a real trader uses: an operator creates the trader with its
 * account's email (invited), the trader accepts the link and sets up its authenticator, the
 * operator approves it; requests under the trader's session (the cookie gw_trader and its CSRF token).
 */
import { totpAt, TOTP_STEP_SECONDS } from '../../domain/crypto/totp';
import { API_URL, asOperator, readResponse, type ApiResponse } from './api';
import { asMember, freshCode, newEmail, newPassword, sessionOf, tokenOf, type MemberSession } from './cabinet-session';
import { txHashOf } from './tx-hash';

export const TRADER = '/api/v1/p2p/trader';

export type TraderSession = MemberSession;

export interface TraderAccount {
  traderId: string;
  accountId: string;
  email: string;
  password: string;
  /** The authenticator's secret, and the last time step a code of it was used. */
  secret: string;
  used: { step: number };
  session: TraderSession;
}

/** A public trader-door call (sign-in, an invitation's check and acceptance). */
export async function traderPost(path: string, body: unknown): Promise<ApiResponse> {
  return readResponse(
    await fetch(`${API_URL}${TRADER}${path}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) }),
  );
}

/** A request under a trader's session: its cookie and (unless `csrf: null`) its CSRF token. */
export const asTrader = (s: TraderSession, method: string, path: string, body?: unknown, options: { csrf?: string | null; cookie?: string } = {}) =>
  asMember(s, method, path, body, options);

/** Accepts a trader's invitation link with a new password and sets up the authenticator, as an invitee must before anything else. */
export async function acceptTraderInvitation(inviteUrl: string, email: string) {
  const password = newPassword();
  const accepted = await traderPost('/invitation/accept', { token: tokenOf(inviteUrl), password });
  if (accepted.status !== 201) throw new Error(`accept failed: ${accepted.status} ${accepted.text}`);
  const session = sessionOf(accepted);
  const started = await asTrader(session, 'POST', `${TRADER}/session/totp`, {});
  if (started.status !== 200) throw new Error(`TOTP start failed: ${started.status} ${started.text}`);
  const secret = started.body.secret as string;
  const now = Date.now();
  const used = { step: Math.floor(now / 1000 / TOTP_STEP_SECONDS) };
  const enrolled = await asTrader(session, 'POST', `${TRADER}/session/totp`, { secret, code: totpAt(secret, now), confirm_password: password });
  if (enrolled.status !== 200) throw new Error(`TOTP enrolment failed: ${enrolled.status} ${enrolled.text}`);
  return { accountId: accepted.body.account.account_id as string, email, password, secret, used, session };
}

/** Signs a trader in again (password and a fresh code): a new session. */
export async function signInTrader(t: Pick<TraderAccount, 'email' | 'password' | 'secret' | 'used'>): Promise<TraderSession> {
  const res = await traderPost('/session', { email: t.email, password: t.password, totp_code: await freshCode(t.secret, t.used) });
  if (res.status !== 200) throw new Error(`sign-in failed: ${res.status} ${res.text}`);
  return sessionOf(res);
}

/**
 * A trader with its own account (invited, accepted, enrolled, signed in) and, unless told
 * otherwise, approved and funded with `liquidity` USDT cents by a recorded top-up (as the demo
 * traders are). No requisites: the trader adds its own.
 */
export async function newTrader(options: { approve?: boolean; liquidity?: number; name?: string; online?: boolean } = {}): Promise<TraderAccount> {
  const email = newEmail('trader');
  const created = await asOperator('POST', '/api/v1/p2p/admin/traders', { name: options.name ?? `App trader ${email.slice(7, 19)}`, email });
  if (created.status !== 201) throw new Error(`trader create failed: ${created.status} ${created.text}`);
  const traderId = created.body.trader.trader_id as string;
  const account = await acceptTraderInvitation(created.body.account_invitation.invite_url, email);
  if (options.approve !== false) {
    const approved = await asOperator('POST', `/api/v1/p2p/admin/traders/${traderId}/approve`);
    if (approved.status !== 200) throw new Error(`approve failed: ${approved.status} ${approved.text}`);
  }
  const liquidity = options.liquidity ?? 100_000_000;
  if (liquidity > 0) {
    const funded = await asOperator('POST', `/api/v1/p2p/admin/traders/${traderId}/deposits`, { amount: liquidity, tx_hash: txHashOf(`fund-${traderId}`) });
    if (funded.status !== 201) throw new Error(`funding failed: ${funded.status} ${funded.text}`);
  }
  // Present, as a trader with its app open is (docs/trader.md, "Presence"): online, its heartbeat
  // sent every 20 s for as long as the test file runs. `online: false` leaves it offline.
  if (options.online !== false) {
    const online = await asTrader(account.session, 'PUT', `${TRADER}/presence`, { online: true });
    if (online.status !== 200) throw new Error(`going online failed: ${online.status} ${online.text}`);
    setInterval(() => void asTrader(account.session, 'POST', `${TRADER}/presence/heartbeat`).catch(() => {}), 20_000).unref();
  }
  return { traderId, ...account };
}

/** A multipart upload under a trader's session (its cookie and CSRF token), e.g. a payout's proof. */
export async function traderUpload(s: TraderSession, path: string, upload: { body: Buffer; contentType: string }): Promise<ApiResponse> {
  return readResponse(
    await fetch(`${API_URL}${path}`, {
      method: 'POST',
      headers: { Cookie: s.cookie, 'X-CSRF-Token': s.csrf, 'Content-Type': upload.contentType },
      body: new Uint8Array(upload.body),
    }),
  );
}
