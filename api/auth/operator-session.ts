/**
 * Console sessions: an HttpOnly, SameSite=Strict cookie holding a random token; the
 * table keeps only its sha256 (operator_sessions.id). Every request that is not a GET/HEAD must
 * carry X-CSRF-Token: the HMAC of the session id under a key derived from the server's secrets
 * (a synchronizer token nothing stores; sign-in and GET /admin/session answer it). A session ends
 * after OPERATOR_SESSION_IDLE_SECONDS without a request or OPERATOR_SESSION_ABSOLUTE_SECONDS after
 * sign-in, on sign-out, or when its operator is disabled.
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Context } from 'koa';
import { PermissionDenied, Unauthenticated } from '../../domain/errors';
import { isOperatorRole, type OperatorRole } from '../../domain/operator-roles';
import { findLiveSession, touchSession } from '../../db/queries/operators';
import type { AppDeps } from '../deps';

const SESSION_COOKIE = 'gw_operator';
const CSRF_HEADER = 'X-CSRF-Token';
const CSRF_REFUSED =
  'a console request that changes something needs the X-CSRF-Token header of its session (answered by sign-in and GET /api/v1/p2p/admin/session)';

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

/** The CSRF token of a session: HMAC-SHA256(key from SECRETS_ENCRYPTION_KEY, session id). */
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

export function setSessionCookie(ctx: Context, deps: Pick<AppDeps, 'config'>, token: string, maxAgeSeconds: number): void {
  const parts = [`${SESSION_COOKIE}=${token}`, 'Path=/', 'HttpOnly', 'SameSite=Strict', `Max-Age=${maxAgeSeconds}`];
  if (cookieSecure(ctx, deps)) parts.push('Secure');
  ctx.append('Set-Cookie', parts.join('; '));
}

export function clearSessionCookie(ctx: Context, deps: Pick<AppDeps, 'config'>): void {
  const parts = [`${SESSION_COOKIE}=`, 'Path=/', 'HttpOnly', 'SameSite=Strict', 'Max-Age=0'];
  if (cookieSecure(ctx, deps)) parts.push('Secure');
  ctx.append('Set-Cookie', parts.join('; '));
}

/** The session token of the request's cookie, if any. */
export function sessionTokenOf(ctx: Context): string | undefined {
  const header = ctx.get('Cookie');
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const [name, ...rest] = part.trim().split('=');
    if (name === SESSION_COOKIE) {
      const value = rest.join('=');
      return /^[A-Za-z0-9_-]{20,100}$/.test(value) ? value : undefined;
    }
  }
  return undefined;
}

export interface SessionIdentity {
  kind: 'operator';
  operatorId: string;
  role: OperatorRole;
  via: 'session';
  email: string;
  sessionId: string;
  expiresAt: Date;
  credential: string;
  /** The account must set up an authenticator first: only ENROLMENT_OPERATIONS are open to it (api/mount.ts). */
  enrolmentPending: boolean;
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * The operator of the request's session cookie, or 401 (no live session), or 403 (a request that
 * changes something without its CSRF token). A live session's idle end moves on.
 */
export async function authenticateSession(ctx: Context, deps: AppDeps, token: string): Promise<SessionIdentity> {
  const id = sessionIdOf(token);
  const now = new Date(deps.now());
  const session = await findLiveSession(deps.sql, id, now);
  if (!session || session.disabled_at !== null || !isOperatorRole(session.role)) throw new Unauthenticated('the console session has ended; sign in again');
  if (!SAFE_METHODS.has(ctx.method)) {
    const given = ctx.get(CSRF_HEADER);
    if (!given || !sameText(given, csrfTokenOf(deps, id))) throw new PermissionDenied(CSRF_REFUSED);
  }
  const expiresAt = sessionEnd(deps, session.created_at, now);
  await touchSession(deps.sql, id, now, expiresAt);
  return {
    kind: 'operator',
    operatorId: session.operator_id,
    role: session.role,
    via: 'session',
    email: session.email,
    sessionId: id,
    expiresAt,
    credential: sessionReference(id),
    enrolmentPending: session.enrolment_pending,
  };
}
