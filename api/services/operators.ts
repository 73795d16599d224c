/**
 * Operator accounts and console sessions (issue 28.2): sign-in (email + password, a TOTP code
 * when enrolled; one generic 401 for every failure, failures per email and client address
 * limited), who am I, sign-out, and the admin's management of accounts. Every change is audited
 * in its transaction.
 */
import { createHash } from 'node:crypto';
import type { Context } from 'koa';
import type { AppDeps } from '../deps';
import type { AuditActor } from '../../domain/audit';
import { Conflict, DomainError, InvalidArgument, NotFound, Unauthenticated } from '../../domain/errors';
import { newId } from '../../domain/ids';
import { isOperatorRole, type OperatorRole } from '../../domain/operator-roles';
import { decoyHash, hashPassword, verifyPassword } from '../../domain/passwords';
import { newTotpSecret, otpauthUri, verifyTotp } from '../../domain/totp';
import { insertAudit } from '../../db/queries/audit';
import {
  clearSignInFailures,
  countSignInFailures,
  deleteEndedSessions,
  deleteSession,
  deleteSessionsOf,
  findOperator,
  findOperatorByEmail,
  findSession,
  insertOperator,
  insertSession,
  listOperators,
  lockOperator,
  recordSignInFailure,
  updateOperator,
  type OperatorRow,
} from '../../db/queries/operators';
import { clearSessionCookie, csrfTokenOf, newSessionToken, sessionEnd, sessionIdOf, setSessionCookie } from '../auth/operator-session';

/** The one answer of every failed sign-in: no telling an unknown email from a wrong password or code. */
export const SIGN_IN_REFUSED = 'invalid email, password or code';

/** Too many failed sign-ins: 429 with Retry-After, like the merchant rate limit. */
class TooManySignIns extends DomainError {
  readonly kind = 'RATE_LIMITED' as const;
}

export const normalizeEmail = (email: string) => email.trim().toLowerCase();

export function presentOperator(row: OperatorRow) {
  return {
    operator_id: row.id,
    email: row.email,
    role: row.role as OperatorRole,
    totp_enrolled: row.totp_secret_sealed !== null,
    disabled: row.disabled_at !== null,
    disabled_at: row.disabled_at?.toISOString() ?? '',
    created_at: row.created_at.toISOString(),
  };
}

const totpAad = (operatorId: string) => `operator-totp:${operatorId}`;
const sessionActor = (row: Pick<OperatorRow, 'id' | 'role'>, ctx: Context): AuditActor => ({
  kind: 'operator_account',
  id: row.id,
  role: row.role as OperatorRole,
  requestId: String(ctx.state.traceId ?? ''),
  requestKey: newId(),
});

function sessionAnswer(deps: AppDeps, s: { operator: OperatorRow; sessionId: string; expiresAt: Date; absoluteEnd: Date }) {
  return {
    operator: presentOperator(s.operator),
    csrf_token: csrfTokenOf(deps, s.sessionId),
    expires_at: s.expiresAt.toISOString(),
    absolute_expires_at: s.absoluteEnd.toISOString(),
    idle_timeout_seconds: deps.config.OPERATOR_SESSION_IDLE_SECONDS,
  };
}

export async function signIn(deps: AppDeps, ctx: Context, body: { email: string; password: string; totp_code?: string | undefined }) {
  const email = normalizeEmail(body.email);
  const nowMs = deps.now();
  const now = new Date(nowMs);
  const key = createHash('sha256').update(`${email}\0${String(ctx.state.clientIp ?? '')}`).digest('hex');
  const windowStart = new Date(nowMs - deps.config.OPERATOR_SIGN_IN_WINDOW_SECONDS * 1000);
  if ((await countSignInFailures(deps.sql, key, windowStart)) >= deps.config.OPERATOR_SIGN_IN_MAX_FAILURES) {
    ctx.state.rateLimitRetryAfter = deps.config.OPERATOR_SIGN_IN_WINDOW_SECONDS;
    throw new TooManySignIns('too many failed sign-ins for this email from this address; try again later');
  }
  const operator = await findOperatorByEmail(deps.sql, email);
  // An unknown email is checked against a decoy hash: the same work, the same answer.
  const passwordOk = await verifyPassword(body.password, operator?.password_hash ?? (await decoyHash()));
  let ok = passwordOk && operator !== undefined && operator.disabled_at === null && isOperatorRole(operator.role);
  if (ok && operator!.totp_secret_sealed !== null) {
    const secret = deps.secretBox.open(operator!.totp_secret_sealed, totpAad(operator!.id));
    ok = body.totp_code !== undefined && verifyTotp(secret, body.totp_code, nowMs);
  }
  if (!ok) {
    await recordSignInFailure(deps.sql, key, now);
    throw new Unauthenticated(SIGN_IN_REFUSED);
  }
  const token = newSessionToken();
  const sessionId = sessionIdOf(token);
  // The session starts now, after the (slow by design) password check.
  const startedMs = deps.now();
  const started = new Date(startedMs);
  const expiresAt = sessionEnd(deps, started, started);
  const absoluteEnd = new Date(startedMs + deps.config.OPERATOR_SESSION_ABSOLUTE_SECONDS * 1000);
  await deps.sql.begin(async (tx) => {
    await insertSession(tx, { id: sessionId, operatorId: operator!.id, expiresAt, ip: String(ctx.state.clientIp ?? ''), userAgent: ctx.get('User-Agent'), now: started });
    await insertAudit(tx, sessionActor(operator!, ctx), { action: 'session.sign_in', objectType: 'operator', objectId: operator!.id, after: { email } });
  });
  await clearSignInFailures(deps.sql, key, windowStart);
  await deleteEndedSessions(deps.sql, now);
  setSessionCookie(ctx, deps, token, deps.config.OPERATOR_SESSION_ABSOLUTE_SECONDS);
  return sessionAnswer(deps, { operator: operator!, sessionId, expiresAt, absoluteEnd });
}

/** Who am I: the session's operator, its CSRF token and when it ends. A JWT operator gets its identity without a session. */
export async function currentSession(deps: AppDeps, identity: { operatorId: string; role: OperatorRole; via: 'jwt' | 'session'; sessionId?: string; expiresAt?: Date }) {
  if (identity.via !== 'session') {
    return {
      operator: { operator_id: identity.operatorId, email: '', role: identity.role, totp_enrolled: false, disabled: false, disabled_at: '', created_at: '' },
      csrf_token: '',
      expires_at: '',
      absolute_expires_at: '',
      idle_timeout_seconds: 0,
    };
  }
  const operator = await findOperator(deps.sql, identity.operatorId);
  if (!operator) throw new Unauthenticated('the console session has ended; sign in again');
  const session = await findSession(deps.sql, identity.sessionId!);
  const absoluteEnd = new Date((session?.created_at.getTime() ?? 0) + deps.config.OPERATOR_SESSION_ABSOLUTE_SECONDS * 1000);
  return sessionAnswer(deps, { operator, sessionId: identity.sessionId!, expiresAt: identity.expiresAt!, absoluteEnd });
}

export async function signOut(deps: AppDeps, ctx: Context, identity: { via: 'jwt' | 'session'; sessionId?: string; operatorId: string }, actor: AuditActor) {
  if (identity.via === 'session') {
    await deps.sql.begin(async (tx) => {
      await deleteSession(tx, identity.sessionId!);
      await insertAudit(tx, actor, { action: 'session.sign_out', objectType: 'operator', objectId: identity.operatorId });
    });
  }
  clearSessionCookie(ctx, deps);
}

// ---- Accounts (admin) ----

export async function createOperatorAccount(
  deps: AppDeps,
  input: { email: string; password: string; role: OperatorRole },
  actor: AuditActor | undefined,
): Promise<OperatorRow> {
  const email = normalizeEmail(input.email);
  const passwordHash = await hashPassword(input.password);
  return deps.sql.begin(async (tx) => {
    const row = await insertOperator(tx, { id: newId(), email, passwordHash, role: input.role, createdBy: actor ? `${actor.kind}:${actor.id}` : 'seed' });
    if (!row) throw new Conflict(`an operator with the email ${email} exists`, [{ field: 'email', message: 'taken', code: 'already_exists' }]);
    if (actor) await insertAudit(tx, actor, { action: 'operator.create', objectType: 'operator', objectId: row.id, after: presentOperator(row) });
    return row;
  });
}

export async function listOperatorAccounts(deps: AppDeps) {
  return (await listOperators(deps.sql)).map(presentOperator);
}

/**
 * Sets an account's role, disables or enables it, resets its password or its TOTP. Disabling
 * (and any role or password change) ends its sessions. An admin cannot disable or demote itself
 * (the last way in would go).
 */
export async function updateOperatorAccount(
  deps: AppDeps,
  operatorId: string,
  patch: { role?: OperatorRole | undefined; disabled?: boolean | undefined; password?: string | undefined; reset_totp?: boolean | undefined },
  actor: AuditActor,
): Promise<OperatorRow> {
  const passwordHash = patch.password !== undefined ? await hashPassword(patch.password) : undefined;
  return deps.sql.begin(async (tx) => {
    const before = await lockOperator(tx, operatorId);
    if (!before) throw new NotFound('operator not found');
    if (actor.kind === 'operator_account' && actor.id === operatorId && (patch.disabled === true || (patch.role !== undefined && patch.role !== 'admin'))) {
      throw new InvalidArgument('an admin cannot disable or demote its own account (ask another admin)');
    }
    const changes: Parameters<typeof updateOperator>[2] = {};
    if (patch.role !== undefined) changes.role = patch.role;
    if (patch.disabled !== undefined) changes.disabled_at = patch.disabled ? (before.disabled_at ?? new Date(deps.now())) : null;
    if (passwordHash !== undefined) changes.password_hash = passwordHash;
    if (patch.reset_totp) changes.totp_secret_sealed = null;
    if (Object.keys(changes).length === 0) return before;
    const after = await updateOperator(tx, operatorId, changes);
    if (patch.disabled === true || patch.role !== undefined || passwordHash !== undefined) await deleteSessionsOf(tx, operatorId);
    await insertAudit(tx, actor, {
      action: 'operator.update',
      objectType: 'operator',
      objectId: operatorId,
      before: presentOperator(before),
      after: { ...presentOperator(after), ...(passwordHash !== undefined ? { password_changed: true } : {}) },
    });
    return after;
  });
}

/**
 * TOTP enrollment of the signed-in account: a new secret (sealed at rest), shown once as an
 * otpauth URI; sign-in asks for a code from then on. Confirmed by the first code, or nothing changes.
 */
export async function enrollTotp(deps: AppDeps, operatorId: string, body: { secret?: string | undefined; code?: string | undefined }, actor: AuditActor) {
  const operator = await findOperator(deps.sql, operatorId);
  if (!operator) throw new NotFound('operator not found');
  if (body.secret === undefined) {
    const secret = newTotpSecret();
    return { enrolled: false, secret, otpauth_uri: otpauthUri('Merchant Gateway', operator.email, secret) };
  }
  if (body.code === undefined || !verifyTotp(body.secret, body.code, deps.now())) {
    throw new InvalidArgument('the code does not match the secret (check the authenticator clock)', [{ field: 'code', message: 'does not match', code: 'invalid_value' }]);
  }
  await deps.sql.begin(async (tx) => {
    await updateOperator(tx, operatorId, { totp_secret_sealed: deps.secretBox.seal(body.secret!, totpAad(operatorId)) });
    await insertAudit(tx, actor, { action: 'operator.totp_enroll', objectType: 'operator', objectId: operatorId });
  });
  return { enrolled: true, secret: '', otpauth_uri: '' };
}
