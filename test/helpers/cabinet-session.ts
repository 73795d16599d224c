/**
 * A merchant's people for tests: a merchant made by the operator with its first owner invited, the
 * owner's link accepted and its authenticator set up; members invited by the owner; requests under
 * a member's session (the cookie gw_merchant and its CSRF token).
 */
import { randomBytes } from 'node:crypto';
import { totpAt, TOTP_STEP_SECONDS } from '../../domain/crypto/totp';
import { API_URL, asOperator, readResponse, type ApiResponse, type KeyPair } from './api';

export const CABINET = '/api/v1/p2p/cabinet';
export const MY_MERCHANT = '/api/v1/p2p/my-merchant';

export interface MemberSession {
  cookie: string;
  csrf: string;
}

export interface Member {
  id: string;
  email: string;
  password: string;
  role: string;
  /** The authenticator's secret, and the last time step a code of it was used. */
  secret: string;
  used: { step: number };
  session: MemberSession;
}

export const newEmail = (label = 'member') => `${label}-${process.pid}-${randomBytes(5).toString('hex')}@example.test`;
export const newPassword = () => `pw-${randomBytes(12).toString('base64url')}`;
export const tokenOf = (url: string) => url.split('#token=')[1]!;

/** A public cabinet call (sign-in, an invitation's check and acceptance), optionally from an address (a proxy's X-Forwarded-For). */
export async function cabinetPost(path: string, body: unknown, options: { base?: string; from?: string } = {}): Promise<ApiResponse> {
  const headers: Record<string, string> = { 'Content-Type': 'application/json' };
  if (options.from) headers['X-Forwarded-For'] = options.from;
  return readResponse(await fetch(`${options.base ?? API_URL}${CABINET}${path}`, { method: 'POST', headers, body: JSON.stringify(body) }));
}

export const sessionOf = (res: ApiResponse): MemberSession => ({ cookie: (res.headers.get('set-cookie') ?? '').split(';')[0]!, csrf: res.body.csrf_token });

/** A request under a session: its cookie and (unless `csrf: null`, or another value given) its CSRF token. */
export async function asMember(s: MemberSession, method: string, path: string, body?: unknown, options: { csrf?: string | null; cookie?: string } = {}) {
  const headers: Record<string, string> = { Cookie: options.cookie ?? s.cookie };
  const csrf = options.csrf === undefined ? s.csrf : options.csrf;
  if (csrf !== null) headers['X-CSRF-Token'] = csrf;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  return readResponse(await fetch(`${API_URL}${path}`, { method, headers, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) }));
}

/** A code of a time step the account has not used yet: the next step's (accepted as clock drift), after waiting if the last use took it. */
export async function freshCode(secret: string, used: { step: number }): Promise<string> {
  for (;;) {
    const next = Math.floor(Date.now() / 1000 / TOTP_STEP_SECONDS) + 1;
    if (next > used.step) {
      used.step = next;
      return totpAt(secret, next * TOTP_STEP_SECONDS * 1000);
    }
    await new Promise((r) => setTimeout(r, 500));
  }
}

/** Accepts an invitation link with a new password and sets up the authenticator, as an invitee must before anything else. */
export async function acceptAndEnrol(inviteUrl: string, email: string): Promise<Member> {
  const password = newPassword();
  const accepted = await cabinetPost('/invitation/accept', { token: tokenOf(inviteUrl), password });
  if (accepted.status !== 201) throw new Error(`accept failed: ${accepted.status} ${accepted.text}`);
  const session = sessionOf(accepted);
  const started = await asMember(session, 'POST', `${CABINET}/session/totp`, {});
  if (started.status !== 200) throw new Error(`TOTP start failed: ${started.status} ${started.text}`);
  const secret = started.body.secret as string;
  // The current step's code: the next sign-in's code (the next step's, as drift) is then fresh at once.
  const now = Date.now();
  const used = { step: Math.floor(now / 1000 / TOTP_STEP_SECONDS) };
  const enrolled = await asMember(session, 'POST', `${CABINET}/session/totp`, { secret, code: totpAt(secret, now), confirm_password: password });
  if (enrolled.status !== 200) throw new Error(`TOTP enrolment failed: ${enrolled.status} ${enrolled.text}`);
  return { id: accepted.body.member.member_id, email, password, role: accepted.body.member.role, secret, used, session };
}

/** Signs a member in again (password and a fresh code): a new session. */
export async function signInMember(m: Member, options: { base?: string; from?: string } = {}): Promise<MemberSession> {
  const res = await cabinetPost('/session', { email: m.email, password: m.password, totp_code: await freshCode(m.secret, m.used) }, options);
  if (res.status !== 200) throw new Error(`sign-in failed: ${res.status} ${res.text}`);
  return sessionOf(res);
}

let counter = 0;
/** A merchant made by the operator with `owner_email`, its key pair, and its first owner (accepted, enrolled, signed in). */
export async function merchantWithOwner(overrides: Record<string, unknown> = {}) {
  counter += 1;
  const ownerEmail = newEmail('owner');
  const created = await asOperator('POST', '/api/v1/p2p/admin/merchants', {
    name: `Cabinet merchant ${process.pid}-${counter}`,
    email: `cabinet-${process.pid}-${counter}-${Date.now()}@example.test`,
    webhook_url: process.env.TEST_WEBHOOK_SINK_URL ?? 'http://127.0.0.1:9/webhooks',
    owner_email: ownerEmail,
    ...overrides,
  });
  if (created.status !== 201) throw new Error(`merchant create failed: ${created.status} ${created.text}`);
  const merchantId = created.body.merchant.id as string;
  const keys = await asOperator('POST', '/api/v1/p2p/merchant/api-keys', { merchant_id: merchantId });
  if (keys.status !== 201) throw new Error(`key issue failed: ${keys.status} ${keys.text}`);
  const owner = await acceptAndEnrol(created.body.owner_invitation.invite_url, ownerEmail);
  return { merchantId, keys: keys.body as KeyPair, created: created.body, owner };
}

/** A member of `role`, invited by the owner's session, accepted and enrolled. */
export async function invitedMember(owner: Member, role: 'owner' | 'developer' | 'finance' | 'support'): Promise<Member> {
  const email = newEmail(role);
  const invited = await asMember(owner.session, 'POST', `${CABINET}/team/invitations`, { email, role });
  if (invited.status !== 201) throw new Error(`invite failed: ${invited.status} ${invited.text}`);
  return acceptAndEnrol(invited.body.invite_url, email);
}
