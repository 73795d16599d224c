/**
 * Operator accounts and console sessions: the console's door onto the accounts of every party
 * (api/services/accounts.ts: sign-in, TOTP, one's own password, sign-out — the same for every
 * door), who am I (the operator JWT too), an operator invitation's check and acceptance, and the
 * admin's management of operator accounts.
 * Every change is audited in its transaction.
 */
import type { Context } from 'koa';
import type { AppDeps } from '../deps';
import type { AuditActor } from '../../domain/audit';
import { Conflict, InvalidArgument, NotFound, PermissionDenied, Unauthenticated } from '../../domain/errors';
import { newId } from '../../domain/ids';
import type { OperatorRole } from '../../domain/roles';
import { insertAudit } from '../../db/queries/audit';
import {
  bumpCredentialVersion,
  deleteSessionsOf,
  findOperator,
  insertAccount,
  listOperators,
  lockOperator,
  updateAccount,
  type AccountRow,
  type OperatorRow,
} from '../../db/queries/accounts';
import { csrfTokenOf, sessionEnded } from '../auth/sessions';
import * as accounts from './accounts';
import { acceptInvitation, checkInvitation } from './invitations';
import { confirmCredential, normalizeEmail } from './accounts';

export function presentOperator(row: AccountRow) {
  return { operator_id: row.id, ...accounts.accountFields<OperatorRole>(row) };
}

function sessionAnswer(deps: AppDeps, s: { account: AccountRow; sessionId: string; expiresAt: Date; absoluteEnd: Date }) {
  return {
    operator: presentOperator(s.account),
    csrf_token: csrfTokenOf(deps, s.sessionId),
    expires_at: s.expiresAt.toISOString(),
    absolute_expires_at: s.absoluteEnd.toISOString(),
    idle_timeout_seconds: deps.config.OPERATOR_SESSION_IDLE_SECONDS,
  };
}

export async function signIn(deps: AppDeps, ctx: Context, body: { email: string; password: string; totp_code?: string | undefined }) {
  return sessionAnswer(deps, await accounts.signIn(deps, ctx, 'operator', body));
}

/** Who am I: the session's operator, its CSRF token and when it ends. A JWT operator gets its identity without a session. */
export async function currentSession(
  deps: AppDeps,
  identity: { operatorId: string; role: OperatorRole; via: 'jwt' | 'session'; sessionId?: string; expiresAt?: Date },
) {
  if (identity.via !== 'session') {
    return {
      operator: {
        operator_id: identity.operatorId,
        email: '',
        role: identity.role,
        totp_enrolled: false,
        disabled: false,
        disabled_at: '',
        created_at: '',
        totp_required: false,
        last_sign_in_at: '',
        last_sign_in_address: '',
      },
      csrf_token: '',
      expires_at: '',
      absolute_expires_at: '',
      idle_timeout_seconds: 0,
    };
  }
  const operator = await findOperator(deps.sql, identity.operatorId);
  if (!operator) throw new Unauthenticated(sessionEnded('operator'));
  const absoluteEnd = await accounts.sessionTimes(deps, identity.sessionId!);
  return sessionAnswer(deps, { account: operator, sessionId: identity.sessionId!, expiresAt: identity.expiresAt!, absoluteEnd });
}

export async function signOut(deps: AppDeps, ctx: Context, identity: { via: 'jwt' | 'session'; sessionId?: string; operatorId: string }, actor: AuditActor) {
  if (identity.via === 'session') {
    await accounts.endSession(deps, ctx, 'operator', { sessionId: identity.sessionId!, accountId: identity.operatorId }, actor);
    return;
  }
  // The JWT has no session: only a stale cookie to clear.
  accounts.clearCookie(ctx, deps, 'operator');
}

/** Who acts on an account: the operator (its id) and, for a console account, the session making the request. */
export interface ActingOperator {
  operatorId: string;
  via: 'jwt' | 'session';
  sessionId?: string | undefined;
}

/** The console account a request acts as (the operator JWT is none: 403). */
function consoleAccountOf(acting: ActingOperator, what: string) {
  if (acting.via !== 'session') throw new PermissionDenied(`${what} belongs to a console account; the operator JWT has none`);
  return { accountId: acting.operatorId, sessionId: acting.sessionId };
}

/** TOTP enrolment of the signed-in console account (accounts.enrollTotp). */
export const enrollTotp = (deps: AppDeps, ctx: Context, acting: ActingOperator, body: Parameters<typeof accounts.enrollTotp>[4], actor: AuditActor) =>
  accounts.enrollTotp(deps, ctx, 'operator', consoleAccountOf(acting, 'TOTP'), body, actor);

/** The signed-in console account's own new password (accounts.changeOwnPassword). */
export const changeOwnPassword = (
  deps: AppDeps,
  ctx: Context,
  acting: ActingOperator,
  body: Parameters<typeof accounts.changeOwnPassword>[4],
  actor: AuditActor,
) => accounts.changeOwnPassword(deps, ctx, 'operator', consoleAccountOf(acting, 'a password'), body, actor);

/** What an operator's link invites to: the email and the role. */
export async function checkOperatorInvitation(deps: AppDeps, token: string) {
  const row = await checkInvitation(deps, 'operator', token);
  return { email: row.email, role: row.role as OperatorRole, expires_at: row.expires_at.toISOString() };
}

export async function acceptOperatorInvitation(deps: AppDeps, ctx: Context, body: { token: string; password: string }) {
  return sessionAnswer(deps, await acceptInvitation(deps, ctx, 'operator', body, presentOperator));
}

// ---- Accounts (admin) ----

export async function createOperatorAccount(
  deps: AppDeps,
  input: { email: string; password: string; role: OperatorRole },
  actor: AuditActor | undefined,
): Promise<AccountRow> {
  const email = normalizeEmail(input.email);
  const passwordHash = await deps.passwordHashes.hash(input.password);
  return deps.sql.begin(async (tx) => {
    const row = await insertAccount(tx, {
      id: newId(),
      party: 'operator',
      email,
      passwordHash,
      role: input.role,
      createdBy: actor ? `${actor.kind}:${actor.id}` : 'seed',
    });
    if (!row) throw new Conflict(`an operator with the email ${email} exists`, [{ field: 'email', message: 'taken', code: 'already_exists' }]);
    if (actor) await insertAudit(tx, actor, { action: 'operator.create', objectType: 'operator', objectId: row.id, after: presentOperator(row) });
    return row;
  });
}

export async function listOperatorAccounts(deps: AppDeps) {
  return (await listOperators(deps.sql)).map(presentOperator);
}

/**
 * Sets an account's role, disables or enables it, resets its password or its TOTP. Disabling (and
 * any role, password or TOTP change) ends its sessions — all but the one making the change when
 * an admin changes its own account; a new password or a TOTP reset moves its credential_version
 * on. Removing a TOTP enrolment needs the acting admin's own password or current code
 * (confirm_password / confirm_code); the operator JWT has neither and is the break-glass
 * credential, its change audited as operator_jwt. An admin cannot disable or demote itself (the
 * last way in would go).
 */
export async function updateOperatorAccount(
  deps: AppDeps,
  ctx: Context,
  operatorId: string,
  patch: {
    role?: OperatorRole | undefined;
    disabled?: boolean | undefined;
    password?: string | undefined;
    reset_totp?: boolean | undefined;
    confirm_password?: string | undefined;
    confirm_code?: string | undefined;
  },
  acting: ActingOperator,
  actor: AuditActor,
): Promise<OperatorRow> {
  const self = acting.via === 'session' && acting.operatorId === operatorId;
  if (self && (patch.disabled === true || (patch.role !== undefined && patch.role !== 'admin'))) {
    throw new InvalidArgument('an admin cannot disable or demote its own account (ask another admin)');
  }
  if (patch.reset_totp && acting.via === 'session') {
    const admin = await findOperator(deps.sql, acting.operatorId);
    if (!admin) throw new Unauthenticated(sessionEnded('operator'));
    await confirmCredential(deps, ctx, admin, patch, actor);
  }
  const passwordHash = patch.password !== undefined ? await deps.passwordHashes.hash(patch.password) : undefined;
  return deps.sql.begin(async (tx) => {
    const before = await lockOperator(tx, operatorId);
    if (!before) throw new NotFound('operator not found');
    const changes: Parameters<typeof updateAccount>[2] = {};
    if (patch.role !== undefined) changes.role = patch.role;
    if (patch.disabled !== undefined) changes.disabled_at = patch.disabled ? (before.disabled_at ?? new Date(deps.now())) : null;
    if (passwordHash !== undefined) changes.password_hash = passwordHash;
    if (patch.reset_totp) changes.totp_secret_sealed = null;
    if (Object.keys(changes).length === 0) return before;
    let after = (await updateAccount(tx, operatorId, changes)) as OperatorRow;
    const credentialChanged = passwordHash !== undefined || (patch.reset_totp === true && before.totp_secret_sealed !== null);
    if (credentialChanged) {
      await bumpCredentialVersion(tx, operatorId);
      after = (await lockOperator(tx, operatorId))!;
    }
    let sessionsEnded = 0;
    if (patch.disabled === true || patch.role !== undefined || credentialChanged) {
      const keep =
        self && patch.disabled !== true && acting.sessionId ? { sessionId: acting.sessionId, credentialVersion: after.credential_version } : undefined;
      sessionsEnded = await deleteSessionsOf(tx, operatorId, keep);
    }
    await insertAudit(tx, actor, {
      action: 'operator.update',
      objectType: 'operator',
      objectId: operatorId,
      before: presentOperator(before),
      after: { ...presentOperator(after), ...(passwordHash !== undefined ? { password_changed: true } : {}), sessions_ended: sessionsEnded },
    });
    return after;
  });
}
