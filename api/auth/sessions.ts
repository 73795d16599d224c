/**
 * Sessions of every party's accounts (operators at the console, merchant members at the cabinet,
 * traders next): one mechanism, a cookie per door. The cookie is HttpOnly and SameSite=Strict and
 * holds a random token; the table keeps only its sha256 (account_sessions.id). Every request that
 * is not a GET/HEAD must carry X-CSRF-Token: the HMAC of the session id under a key derived from
 * the server's secrets (a synchronizer token nothing stores; sign-in and the door's GET session
 * answer it). A session ends after OPERATOR_SESSION_IDLE_SECONDS without a request or
 * OPERATOR_SESSION_ABSOLUTE_SECONDS after sign-in, on sign-out, or when its account is disabled,
 * removed or changes its credential.
 *
 * A door's cookie is its own (gw_operator, gw_merchant, gw_trader): one browser may be signed in
 * at the console and the cabinet at once, and a session is only ever read at its own door — a
 * member's session presented at the console is refused there (api/auth/authenticate.ts).
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Context } from 'koa';
import { PermissionDenied, Unauthenticated } from '../../domain/errors';
import { isRoleOf, type Party } from '../../domain/roles';
import { findLiveSession, touchSession } from '../../db/queries/accounts';
import type { AppDeps } from '../deps';

/** Each door's cookie. */
const SESSION_COOKIES: { readonly [P in Party]: string } = { operator: 'gw_operator', merchant: 'gw_merchant', trader: 'gw_trader' };
/** Where each door's people are told their session ended. */
const DOOR_NAMES: { readonly [P in Party]: string } = { operator: 'console', merchant: 'cabinet', trader: 'trader app' };
const SESSION_PATHS: { readonly [P in Party]: string } = {
  operator: '/api/v1/p2p/admin/session',
  merchant: '/api/v1/p2p/cabinet/session',
  trader: '/api/v1/p2p/trader/session',
};
const CSRF_HEADER = 'X-CSRF-Token';

export const sessionEnded = (party: Party) => `the ${DOOR_NAMES[party]} session has ended; sign in again`;
const csrfRefused = (party: Party) =>
  `a ${DOOR_NAMES[party]} request that changes something needs the X-CSRF-Token header of its session (answered by sign-in and GET ${SESSION_PATHS[party]})`;

export const sessionIdOf = (token: string) => createHash('sha256').update(token).digest('hex');
export const newSessionToken = () => randomBytes(32).toString('base64url');

/**
 * What the audit trail keeps of a credential: a short one-way reference that tells one session or
 * one token from another and can sign nobody in (a hash of the session's id, itself a hash of
 * the cookie; of the JWT's bytes).
 */
const reference = (what: string) => createHash('sha256').update(`audit-credential:${what}`).digest('hex').slice(0, 12);
export const sessionReference = (sessionId: string) => `session:${reference(sessionId)}`;
export const tokenReference = (token: string) => `jwt:${reference(token)}`;

/** The CSRF token of a session: HMAC-SHA256(key from SECRETS_ENCRYPTION_KEY, session id). Session ids are unique across doors. */
export function csrfTokenOf(deps: Pick<AppDeps, 'config'>, sessionId: string): string {
  const key = createHmac('sha256', Buffer.from(deps.config.SECRETS_ENCRYPTION_KEY, 'base64')).update('operator-csrf-v1').digest();
  return createHmac('sha256', key).update(sessionId).digest('base64url');
}

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** When the session ends if a request is seen at `now`: the idle end, never past the absolute end. */
export function sessionEnd(deps: Pick<AppDeps, 'config'>, createdAt: Date, now: Date): Date {
  const idle = now.getTime() + deps.config.OPERATOR_SESSION_IDLE_SECONDS * 1000;
  const absolute = createdAt.getTime() + deps.config.OPERATOR_SESSION_ABSOLUTE_SECONDS * 1000;
  return new Date(Math.min(idle, absolute));
}

/** The cookie's attributes: HttpOnly, SameSite=Strict, Path=/, Secure on https or in production (OPERATOR_COOKIE_SECURE). */
function cookieSecure(ctx: Context, deps: Pick<AppDeps, 'config'>): boolean {
  const mode = deps.config.OPERATOR_COOKIE_SECURE;
  if (mode !== 'auto') return mode === 'always';
  return deps.config.NODE_ENV === 'production' || ctx.protocol === 'https';
}

export function setSessionCookie(ctx: Context, deps: Pick<AppDeps, 'config'>, party: Party, token: string, maxAgeSeconds: number): void {
  const parts = [`${SESSION_COOKIES[party]}=${token}`, 'Path=/', 'HttpOnly', 'SameSite=Strict', `Max-Age=${maxAgeSeconds}`];
  if (cookieSecure(ctx, deps)) parts.push('Secure');
  ctx.append('Set-Cookie', parts.join('; '));
}

export function clearSessionCookie(ctx: Context, deps: Pick<AppDeps, 'config'>, party: Party): void {
  const parts = [`${SESSION_COOKIES[party]}=`, 'Path=/', 'HttpOnly', 'SameSite=Strict', 'Max-Age=0'];
  if (cookieSecure(ctx, deps)) parts.push('Secure');
  ctx.append('Set-Cookie', parts.join('; '));
}

/** The session token of the request's cookie of this door, if any. */
export function sessionTokenOf(ctx: Context, party: Party): string | undefined {
  const header = ctx.get('Cookie');
  if (!header) return undefined;
  const name = SESSION_COOKIES[party];
  for (const part of header.split(';')) {
    const [key, ...rest] = part.trim().split('=');
    if (key === name) {
      const value = rest.join('=');
      return /^[A-Za-z0-9_-]{20,100}$/.test(value) ? value : undefined;
    }
  }
  return undefined;
}

/** A live session of an account, as the request pipeline knows it. */
export interface AccountSession {
  party: Party;
  accountId: string;
  /** The member's merchant; the trader's trader. */
  merchantId: string | null;
  traderId: string | null;
  role: string;
  email: string;
  sessionId: string;
  expiresAt: Date;
  credential: string;
  /** The account must set up an authenticator first: only its door's ENROLMENT_OPERATIONS are open to it (api/mount.ts). */
  enrolmentPending: boolean;
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * The account of the request's session cookie of `party`'s door, or 401 (no live session of
 * that door), or 403 (a request that changes something without its CSRF token). A live
 * session's idle end moves on.
 */
export async function authenticateSession(ctx: Context, deps: AppDeps, party: Party, token: string): Promise<AccountSession> {
  const id = sessionIdOf(token);
  const now = new Date(deps.now());
  const session = await findLiveSession(deps.sql, id, now);
  if (!session || session.party !== party || session.disabled_at !== null || !isRoleOf(party, session.role)) {
    throw new Unauthenticated(sessionEnded(party));
  }
  if (!SAFE_METHODS.has(ctx.method)) {
    const given = ctx.get(CSRF_HEADER);
    if (!given || !sameText(given, csrfTokenOf(deps, id))) throw new PermissionDenied(csrfRefused(party));
  }
  const expiresAt = sessionEnd(deps, session.created_at, now);
  await touchSession(deps.sql, id, now, expiresAt);
  return {
    party,
    accountId: session.account_id,
    merchantId: session.merchant_id,
    traderId: session.trader_id,
    role: session.role,
    email: session.email,
    sessionId: id,
    expiresAt,
    credential: sessionReference(id),
    enrolmentPending: session.enrolment_pending,
  };
}

/** Whether the token is a live session of `party`'s door (nothing moves: the request is refused at another door). */
export async function sessionIsLive(deps: AppDeps, party: Party, token: string): Promise<boolean> {
  const session = await findLiveSession(deps.sql, sessionIdOf(token), new Date(deps.now()));
  return session !== undefined && session.party === party && session.disabled_at === null;
}
