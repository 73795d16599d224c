/**
 * Operator accounts and console sessions: sign-in (email + password, a TOTP code when enrolled;
 * one generic 401 for every failure), who am I, sign-out, TOTP enrolment, and the admin's
 * management of accounts. Every change is audited in its transaction, failed sign-ins too.
 *
 * Sign-in is built so that guessing and flooding cost the guesser, not the gateway:
 * - each attempt is reserved (a row, under advisory locks) before its password is hashed, and
 *   the limits count failures and attempts still being checked: per (email, address), per email,
 *   per address (db/queries/operators.ts reserveAttempt) — parallel guesses count one another;
 * - an unknown email costs a decoy hash only within a global budget per window, past it an
 *   equally long wait without one; every hash runs in a bounded slot (api/auth/password-hashes.ts);
 * - a TOTP time step is accepted once per account (totp_last_step);
 * - the session is stamped with the account's credential_version, checked under the account's
 *   row lock when it is made and on every use, so a password or TOTP change ends it even if the
 *   sign-in raced the change.
 */
import { createHmac } from 'node:crypto';
import type { Context } from 'koa';
import type { AppDeps } from '../deps';
import type { AuditActor } from '../../domain/audit';
import { Conflict, DomainError, InvalidArgument, NotFound, TooManyInFlight, Unauthenticated } from '../../domain/errors';
import { newId } from '../../domain/ids';
import { isOperatorRole, type OperatorRole } from '../../domain/operator-roles';
import { newTotpSecret, otpauthUri, totpSteps, unusedStep } from '../../domain/crypto/totp';
import { insertAudit } from '../../db/queries/audit';
import {
  bumpCredentialVersion,
  deleteEndedSessions,
  deleteSession,
  deleteSessionsOf,
  findOperator,
  findOperatorByEmail,
  findSession,
  finishAttempt,
  insertOperator,
  insertSession,
  listOperators,
  lockOperator,
  recordSignIn,
  reserveAttempt,
  updateOperator,
  useTotpStep,
  type OperatorRow,
} from '../../db/queries/operators';
import { clearSessionCookie, csrfTokenOf, newSessionToken, sessionEnd, sessionIdOf, sessionReference, setSessionCookie } from '../auth/operator-session';

/** The one answer of every failed sign-in: no telling an unknown email from a wrong password or code. */
const SIGN_IN_REFUSED = 'invalid email, password or code';

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
    totp_required: row.totp_required,
    last_sign_in_at: row.last_sign_in_at?.toISOString() ?? '',
    last_sign_in_address: row.last_sign_in_address,
  };
}

const totpAad = (operatorId: string) => `operator-totp:${operatorId}`;
/** The account signing in, with the session it is getting. */
const sessionActor = (row: Pick<OperatorRow, 'id' | 'role'>, ctx: Context, sessionId: string): AuditActor => ({
  kind: 'operator_account',
  id: row.id,
  role: row.role as OperatorRole,
  requestId: String(ctx.state.traceId ?? ''),
  requestKey: newId(),
  credential: sessionReference(sessionId),
});
export const clientAddress = (ctx: Context) => String(ctx.state.clientIp ?? '');
/** Whoever failed to sign in: known only by the client address. */
const anonymousActor = (ctx: Context): AuditActor => ({
  kind: 'anonymous',
  id: clientAddress(ctx),
  role: '',
  requestId: String(ctx.state.traceId ?? ''),
  requestKey: newId(),
});

/** The attempts table keeps an HMAC of the email: what was typed there (sometimes a password) is not kept in clear. */
function emailKeyOf(deps: AppDeps, email: string): string {
  const key = createHmac('sha256', Buffer.from(deps.config.SECRETS_ENCRYPTION_KEY, 'base64')).update('operator-sign-in-v1').digest();
  return createHmac('sha256', key).update(email).digest('hex');
}

export function sessionAnswer(deps: AppDeps, s: { operator: OperatorRow; sessionId: string; expiresAt: Date; absoluteEnd: Date }) {
  return {
    operator: presentOperator(s.operator),
    csrf_token: csrfTokenOf(deps, s.sessionId),
    expires_at: s.expiresAt.toISOString(),
    absolute_expires_at: s.absoluteEnd.toISOString(),
    idle_timeout_seconds: deps.config.OPERATOR_SESSION_IDLE_SECONDS,
  };
}

const LIMIT_MESSAGES = {
  pair: 'too many failed sign-ins for this email from this address; try again later',
  email: 'too many failed sign-ins for this email; try again later',
  address: 'too many failed sign-ins from this address; try again later',
} as const;

/** One attempt reserved before any hash: its id and whether an unknown email still gets a decoy hash; 429 at a limit. */
async function reserve(deps: AppDeps, ctx: Context, email: string, operatorId: string | null, kind: 'sign_in' | 'confirm') {
  const nowMs = deps.now();
  const window = deps.config.OPERATOR_SIGN_IN_WINDOW_SECONDS;
  const reservation = await deps.sql.begin((tx) =>
    reserveAttempt(tx, {
      emailKey: emailKeyOf(deps, email),
      operatorId,
      address: clientAddress(ctx),
      kind,
      since: new Date(nowMs - window * 1000),
      now: new Date(nowMs),
      limits: {
        perPair: deps.config.OPERATOR_SIGN_IN_MAX_FAILURES,
        perEmail: deps.config.OPERATOR_SIGN_IN_MAX_FAILURES_PER_EMAIL,
        perAddress: deps.config.OPERATOR_SIGN_IN_MAX_FAILURES_PER_ADDRESS,
        unknownHashes: deps.config.OPERATOR_SIGN_IN_UNKNOWN_HASHES,
      },
    }),
  );
  if ('refused' in reservation) {
    ctx.state.rateLimitRetryAfter = window;
    throw new TooManySignIns(LIMIT_MESSAGES[reservation.refused]);
  }
  return reservation;
}

/** A full hash queue drains in seconds: Retry-After for its 429. */
const HASHES_BUSY_RETRY_SECONDS = 5;

/**
 * Runs the checks of an attempt: a refusal of the hash gate (its queue full) leaves the attempt
 * refused (nothing was checked), any other error leaves it failed.
 */
async function checked<T>(deps: AppDeps, ctx: Context, attemptId: string, check: () => Promise<T>): Promise<T> {
  try {
    return await check();
  } catch (error) {
    const busy = error instanceof TooManyInFlight;
    if (busy) ctx.state.rateLimitRetryAfter = HASHES_BUSY_RETRY_SECONDS;
    await finishAttempt(deps.sql, attemptId, busy ? 'refused' : 'failed', busy ? 'busy' : 'error', new Date(deps.now())).catch(() => undefined);
    throw error;
  }
}

type SignInVerdict = { ok: true; steps: number[] } | { ok: false; reason: string };

export async function signIn(deps: AppDeps, ctx: Context, body: { email: string; password: string; totp_code?: string | undefined }) {
  const email = normalizeEmail(body.email);
  const operator = await findOperatorByEmail(deps.sql, email);
  const attempt = await reserve(deps, ctx, email, operator?.id ?? null, 'sign_in');

  const verdict = await checked<SignInVerdict>(deps, ctx, attempt.id, async () => {
    if (!operator) {
      // An unknown email: a decoy hash (the same work, the same answer) within the global budget, else as long a wait.
      await (attempt.hashed ? deps.passwordHashes.verifyDecoy(body.password) : deps.passwordHashes.idle());
      return { ok: false, reason: 'unknown_email' };
    }
    if (!(await deps.passwordHashes.verify(body.password, operator.password_hash))) return { ok: false, reason: 'password' };
    if (operator.disabled_at !== null || !isOperatorRole(operator.role)) return { ok: false, reason: 'disabled' };
    if (operator.totp_secret_sealed === null) return { ok: true, steps: [] };
    if (body.totp_code === undefined) return { ok: false, reason: 'code_missing' };
    const steps = totpSteps(deps.secretBox.open(operator.totp_secret_sealed, totpAad(operator.id)), body.totp_code, deps.now());
    return steps.length > 0 ? { ok: true, steps } : { ok: false, reason: 'code_wrong' };
  });

  const token = newSessionToken();
  const sessionId = sessionIdOf(token);
  // The session starts now, after the (slow by design) password check.
  const startedMs = deps.now();
  const started = new Date(startedMs);
  const expiresAt = sessionEnd(deps, started, started);
  const absoluteEnd = new Date(startedMs + deps.config.OPERATOR_SESSION_ABSOLUTE_SECONDS * 1000);
  const outcome: { failed: string } | { operator: OperatorRow } = !verdict.ok
    ? { failed: verdict.reason }
    : await deps.sql.begin(async (tx) => {
        // Under the account's lock: the credential checked is still the account's, and a code's step is still unused.
        const current = await lockOperator(tx, operator!.id);
        if (!current || current.credential_version !== operator!.credential_version || current.password_hash !== operator!.password_hash)
          return { failed: 'credential_changed' };
        if (current.disabled_at !== null) return { failed: 'disabled' };
        if (verdict.steps.length > 0) {
          const step = unusedStep(verdict.steps, current.totp_last_step);
          if (step === undefined || !(await useTotpStep(tx, current.id, step))) return { failed: 'code_reused' };
        }
        await insertSession(tx, {
          id: sessionId,
          operatorId: current.id,
          credentialVersion: current.credential_version,
          expiresAt,
          ip: clientAddress(ctx),
          userAgent: ctx.get('User-Agent'),
          now: started,
        });
        await recordSignIn(tx, current.id, started, clientAddress(ctx));
        await finishAttempt(tx, attempt.id, 'succeeded', '', started);
        await insertAudit(tx, sessionActor(current, ctx, sessionId), {
          action: 'session.sign_in',
          objectType: 'operator',
          objectId: current.id,
          after: { email },
        });
        return { operator: current };
      });
  if ('failed' in outcome) {
    await deps.sql.begin(async (tx) => {
      await finishAttempt(tx, attempt.id, 'failed', outcome.failed, new Date(deps.now()));
      // Failures are audited with the account they named; an unknown email has none (its attempt row stays).
      if (operator) {
        await insertAudit(tx, anonymousActor(ctx), {
          action: 'session.sign_in_failed',
          objectType: 'operator',
          objectId: operator.id,
          after: { email, reason: outcome.failed, address: clientAddress(ctx) },
        });
      }
    });
    throw new Unauthenticated(SIGN_IN_REFUSED);
  }
  await deleteEndedSessions(deps.sql, new Date(deps.now()));
  setSessionCookie(ctx, deps, token, deps.config.OPERATOR_SESSION_ABSOLUTE_SECONDS);
  return sessionAnswer(deps, { operator: outcome.operator, sessionId, expiresAt, absoluteEnd });
}

/**
 * The signed-in operator proves itself again before a credential of an account is replaced: its
 * password, or (when it has TOTP) a current code not used before. Counted like a sign-in (same
 * limits, reserved before the hash), audited when it fails; a wrong one is 400 naming the field.
 */
async function confirmCredential(
  deps: AppDeps,
  ctx: Context,
  who: OperatorRow,
  proof: { confirm_password?: string | undefined; confirm_code?: string | undefined },
  actor: AuditActor,
): Promise<void> {
  const byCode = proof.confirm_code !== undefined && who.totp_secret_sealed !== null;
  if (!byCode && proof.confirm_password === undefined) {
    const how =
      who.totp_secret_sealed !== null
        ? 'your password (confirm_password) or a current code of your authenticator (confirm_code)'
        : 'your password (confirm_password)';
    throw new InvalidArgument(`confirm this change with ${how}`, [{ field: 'confirm_password', message: 'required', code: 'required' }]);
  }
  const attempt = await reserve(deps, ctx, who.email, who.id, 'confirm');
  const reason = await checked(deps, ctx, attempt.id, async () => {
    if (byCode) {
      const steps = totpSteps(deps.secretBox.open(who.totp_secret_sealed!, totpAad(who.id)), proof.confirm_code!, deps.now());
      if (steps.length === 0) return 'code_wrong';
      const fresh = await findOperator(deps.sql, who.id);
      const step = unusedStep(steps, fresh?.totp_last_step ?? null);
      return step !== undefined && (await useTotpStep(deps.sql, who.id, step)) ? '' : 'code_reused';
    }
    return (await deps.passwordHashes.verify(proof.confirm_password!, who.password_hash)) ? '' : 'password';
  });
  const now = new Date(deps.now());
  if (reason === '') {
    await finishAttempt(deps.sql, attempt.id, 'succeeded', '', now);
    return;
  }
  await deps.sql.begin(async (tx) => {
    await finishAttempt(tx, attempt.id, 'failed', reason, now);
    await insertAudit(tx, actor, { action: 'operator.confirm_failed', objectType: 'operator', objectId: who.id, after: { reason } });
  });
  const field = byCode ? 'confirm_code' : 'confirm_password';
  throw new InvalidArgument(byCode ? 'the code does not match your authenticator, or was used already' : 'the password is not yours', [
    { field, message: 'does not match', code: 'invalid_value' },
  ]);
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
  const passwordHash = await deps.passwordHashes.hash(input.password);
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

/** Who acts on an account: the operator (its id) and, for a console account, the session making the request. */
export interface ActingOperator {
  operatorId: string;
  via: 'jwt' | 'session';
  sessionId?: string | undefined;
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
    if (!admin) throw new Unauthenticated('the console session has ended; sign in again');
    await confirmCredential(deps, ctx, admin, patch, actor);
  }
  const passwordHash = patch.password !== undefined ? await deps.passwordHashes.hash(patch.password) : undefined;
  return deps.sql.begin(async (tx) => {
    const before = await lockOperator(tx, operatorId);
    if (!before) throw new NotFound('operator not found');
    const changes: Parameters<typeof updateOperator>[2] = {};
    if (patch.role !== undefined) changes.role = patch.role;
    if (patch.disabled !== undefined) changes.disabled_at = patch.disabled ? (before.disabled_at ?? new Date(deps.now())) : null;
    if (passwordHash !== undefined) changes.password_hash = passwordHash;
    if (patch.reset_totp) changes.totp_secret_sealed = null;
    if (Object.keys(changes).length === 0) return before;
    let after = await updateOperator(tx, operatorId, changes);
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

/**
 * TOTP enrolment of the signed-in account: `{}` answers a new secret (nothing changes), shown once
 * as an otpauth URI; `{ secret, code, confirm_password | confirm_code }` sets it — the code of the
 * new secret proves the authenticator has it, and the account's password (or, when it has TOTP
 * already, a current code of the old secret) proves the operator is who the session says. Setting
 * it moves the account's credential_version on and ends its other sessions; the new code's time
 * step counts as used. Sign-in asks for a code from then on.
 */
export async function enrollTotp(
  deps: AppDeps,
  ctx: Context,
  acting: ActingOperator,
  body: { secret?: string | undefined; code?: string | undefined; confirm_password?: string | undefined; confirm_code?: string | undefined },
  actor: AuditActor,
) {
  const operator = await findOperator(deps.sql, acting.operatorId);
  if (!operator) throw new NotFound('operator not found');
  if (body.secret === undefined) {
    const secret = newTotpSecret();
    return { enrolled: false, secret, otpauth_uri: otpauthUri('Merchant Gateway', operator.email, secret) };
  }
  const steps = body.code === undefined ? [] : totpSteps(body.secret, body.code, deps.now());
  if (steps.length === 0) {
    throw new InvalidArgument('the code does not match the secret (check the authenticator clock)', [
      { field: 'code', message: 'does not match', code: 'invalid_value' },
    ]);
  }
  await confirmCredential(deps, ctx, operator, body, actor);
  const ended = await deps.sql.begin(async (tx) => {
    const before = await lockOperator(tx, operator.id);
    if (!before) throw new NotFound('operator not found');
    await updateOperator(tx, operator.id, { totp_secret_sealed: deps.secretBox.seal(body.secret!, totpAad(operator.id)), totp_last_step: Math.max(...steps) });
    const version = await bumpCredentialVersion(tx, operator.id);
    const sessionsEnded = await deleteSessionsOf(tx, operator.id, acting.sessionId ? { sessionId: acting.sessionId, credentialVersion: version } : undefined);
    await insertAudit(tx, actor, {
      action: 'operator.totp_enroll',
      objectType: 'operator',
      objectId: operator.id,
      after: { replaced: before.totp_secret_sealed !== null, sessions_ended: sessionsEnded },
    });
    return sessionsEnded;
  });
  deps.log.info({ operatorId: operator.id, sessionsEnded: ended }, 'operator TOTP enrolled');
  return { enrolled: true, secret: '', otpauth_uri: '' };
}

/**
 * The signed-in operator's own new password: proved with its present password (or a current code
 * of its authenticator), counted like a sign-in. The account's credential_version moves on, so
 * every other session ends; the one making the change moves to the new version and stays.
 */
export async function changeOwnPassword(
  deps: AppDeps,
  ctx: Context,
  acting: ActingOperator,
  body: { new_password: string; confirm_password?: string | undefined; confirm_code?: string | undefined },
  actor: AuditActor,
) {
  const operator = await findOperator(deps.sql, acting.operatorId);
  if (!operator) throw new Unauthenticated('the console session has ended; sign in again');
  await confirmCredential(deps, ctx, operator, body, actor);
  const passwordHash = await deps.passwordHashes.hash(body.new_password);
  const sessionsEnded = await deps.sql.begin(async (tx) => {
    const before = await lockOperator(tx, operator.id);
    if (!before) throw new NotFound('operator not found');
    await updateOperator(tx, operator.id, { password_hash: passwordHash });
    const version = await bumpCredentialVersion(tx, operator.id);
    const ended = await deleteSessionsOf(tx, operator.id, acting.sessionId ? { sessionId: acting.sessionId, credentialVersion: version } : undefined);
    await insertAudit(tx, actor, { action: 'operator.password_change', objectType: 'operator', objectId: operator.id, after: { sessions_ended: ended } });
    return ended;
  });
  deps.log.info({ operatorId: operator.id, sessionsEnded }, 'operator changed its own password');
  return { changed: true, sessions_ended: sessionsEnded };
}
