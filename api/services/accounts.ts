/**
 * Accounts of every party — operators at the console, a merchant's members at the cabinet,
 * traders next — signed in, kept and audited by one set of rules (docs/console.md, "Sessions",
 * "Sign-in: limits, floods, codes"; docs/cabinet.md): sign-in (email + password, a TOTP code when
 * enrolled; one generic 401 for every failure), sign-out, TOTP enrolment, one's own password.
 * What differs by party is its door (DOORS): the cookie, the names its actions are audited under,
 * and which accounts its email finds.
 *
 * Sign-in is built so that guessing and flooding cost the guesser, not the gateway:
 * - each attempt is reserved (a row, under advisory locks) before its password is hashed, and
 *   the limits count failures and attempts still being checked: per (email, address), per email,
 *   per address (db/queries/accounts.ts reserveAttempt) — parallel guesses count one another;
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
import type { AuditActor, AuditActorKind } from '../../domain/audit';
import { DomainError, InvalidArgument, NotFound, TooManyInFlight, Unauthenticated } from '../../domain/errors';
import { newId } from '../../domain/ids';
import { isRoleOf, type AnyRole, type Party } from '../../domain/roles';
import { newTotpSecret, otpauthUri, totpSteps, unusedStep } from '../../domain/crypto/totp';
import { insertAudit } from '../../db/queries/audit';
import {
  bumpCredentialVersion,
  deleteEndedSessions,
  deleteSession,
  deleteSessionsOf,
  findAccount,
  findAccountByEmail,
  findSession,
  finishAttempt,
  insertSession,
  lockAccount,
  recordSignIn,
  reserveAttempt,
  updateAccount,
  useTotpStep,
  type AccountRow,
} from '../../db/queries/accounts';
import { clearSessionCookie, newSessionToken, sessionEnd, sessionEnded, sessionIdOf, sessionReference, setSessionCookie } from '../auth/sessions';

/** What is particular to a party's door: how its accounts and their actions appear in the audit trail. */
export interface Door {
  party: Party;
  /** The audit trail's object type of an account of the door, and of its invitations. */
  objectType: string;
  invitationType: string;
  /** The prefix of an account's own actions (`operator.totp_enroll`, `member.totp_enroll`). */
  action: string;
  /** Who an account of the door is as an actor. */
  actorKind: AuditActorKind;
  /** The name an authenticator app shows beside the account. */
  totpIssuer: string;
}

export const DOORS: { readonly [P in Party]: Door } = {
  operator: {
    party: 'operator',
    objectType: 'operator',
    invitationType: 'operator_invitation',
    action: 'operator',
    actorKind: 'operator_account',
    totpIssuer: 'Merchant Gateway',
  },
  merchant: {
    party: 'merchant',
    objectType: 'merchant_member',
    invitationType: 'member_invitation',
    action: 'member',
    actorKind: 'merchant_account',
    totpIssuer: 'Merchant Gateway cabinet',
  },
  trader: {
    party: 'trader',
    objectType: 'trader_account',
    invitationType: 'trader_invitation',
    action: 'trader_account',
    actorKind: 'trader_account',
    totpIssuer: 'Merchant Gateway traders',
  },
};

/** The one answer of every failed sign-in: no telling an unknown email from a wrong password or code. */
const SIGN_IN_REFUSED = 'invalid email, password or code';

/** Too many failed sign-ins: 429 with Retry-After, like the merchant rate limit. */
class TooManySignIns extends DomainError {
  readonly kind = 'RATE_LIMITED' as const;
}

/** An account as its door's API shows it, after its own id key (operator_id, member_id): the same fields at every door. */
export function accountFields<R extends AnyRole>(row: AccountRow) {
  return {
    email: row.email,
    role: row.role as R,
    totp_enrolled: row.totp_secret_sealed !== null,
    disabled: row.disabled_at !== null,
    disabled_at: row.disabled_at?.toISOString() ?? '',
    created_at: row.created_at.toISOString(),
    totp_required: row.totp_required,
    last_sign_in_at: row.last_sign_in_at?.toISOString() ?? '',
    last_sign_in_address: row.last_sign_in_address,
  };
}

export const normalizeEmail = (email: string) => email.trim().toLowerCase();

/** The TOTP secret is sealed bound to its account (an operator's as it always was). */
const totpAad = (account: Pick<AccountRow, 'id' | 'party'>) => `${account.party === 'operator' ? 'operator' : account.party}-totp:${account.id}`;

/** The account signing in, with the session it is getting. */
export const sessionActor = (row: Pick<AccountRow, 'id' | 'role' | 'party'>, ctx: Context, sessionId: string): AuditActor => ({
  kind: DOORS[row.party].actorKind,
  id: row.id,
  role: row.role as AnyRole,
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

/**
 * The attempts table keeps an HMAC of the email: what was typed there (sometimes a password) is
 * not kept in clear. It is the door's: an operator's key is of the email alone (as before there
 * were other doors), another door's of its party and the email, so failures at one door never
 * lock the same address's account at another.
 */
function emailKeyOf(deps: AppDeps, party: Party, email: string): string {
  const key = createHmac('sha256', Buffer.from(deps.config.SECRETS_ENCRYPTION_KEY, 'base64')).update('operator-sign-in-v1').digest();
  return createHmac('sha256', key)
    .update(party === 'operator' ? email : `${party}:${email}`)
    .digest('hex');
}

const LIMIT_MESSAGES = {
  pair: 'too many failed sign-ins for this email from this address; try again later',
  email: 'too many failed sign-ins for this email; try again later',
  address: 'too many failed sign-ins from this address; try again later',
} as const;

/** One attempt reserved before any hash: its id and whether an unknown email still gets a decoy hash; 429 at a limit. */
async function reserve(deps: AppDeps, ctx: Context, party: Party, email: string, accountId: string | null, kind: 'sign_in' | 'confirm') {
  const nowMs = deps.now();
  const window = deps.config.OPERATOR_SIGN_IN_WINDOW_SECONDS;
  const reservation = await deps.sql.begin((tx) =>
    reserveAttempt(tx, {
      party,
      emailKey: emailKeyOf(deps, party, email),
      accountId,
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

/** A session just made: its account and when it ends (idle, absolute). */
export interface NewSession {
  account: AccountRow;
  sessionId: string;
  expiresAt: Date;
  absoluteEnd: Date;
}

/** The session's times as the door's GET session answers them. */
export async function sessionTimes(deps: AppDeps, sessionId: string) {
  const session = await findSession(deps.sql, sessionId);
  return new Date((session?.created_at.getTime() ?? 0) + deps.config.OPERATOR_SESSION_ABSOLUTE_SECONDS * 1000);
}

/** A new session of an account, its cookie set (sign-in, an invitation accepted). Written in the caller's transaction. */
export function startSession(deps: AppDeps) {
  const token = newSessionToken();
  const sessionId = sessionIdOf(token);
  const startedMs = deps.now();
  const started = new Date(startedMs);
  return {
    token,
    sessionId,
    started,
    expiresAt: sessionEnd(deps, started, started),
    absoluteEnd: new Date(startedMs + deps.config.OPERATOR_SESSION_ABSOLUTE_SECONDS * 1000),
  };
}

/**
 * Signs in at `party`'s door: the live account of that email at that door, its password, its
 * code when enrolled. Every failure is the same 401, counted and (when it names an account)
 * audited; the session cookie of the door is set on success.
 */
export async function signIn(
  deps: AppDeps,
  ctx: Context,
  party: Party,
  body: { email: string; password: string; totp_code?: string | undefined },
): Promise<NewSession> {
  const door = DOORS[party];
  const email = normalizeEmail(body.email);
  const account = await findAccountByEmail(deps.sql, party, email);
  const attempt = await reserve(deps, ctx, party, email, account?.id ?? null, 'sign_in');

  const verdict = await checked<SignInVerdict>(deps, ctx, attempt.id, async () => {
    if (!account) {
      // An unknown email: a decoy hash (the same work, the same answer) within the global budget, else as long a wait.
      await (attempt.hashed ? deps.passwordHashes.verifyDecoy(body.password) : deps.passwordHashes.idle());
      return { ok: false, reason: 'unknown_email' };
    }
    if (!(await deps.passwordHashes.verify(body.password, account.password_hash))) return { ok: false, reason: 'password' };
    if (account.disabled_at !== null || !isRoleOf(party, account.role)) return { ok: false, reason: 'disabled' };
    if (account.totp_secret_sealed === null) return { ok: true, steps: [] };
    if (body.totp_code === undefined) return { ok: false, reason: 'code_missing' };
    const steps = totpSteps(deps.secretBox.open(account.totp_secret_sealed, totpAad(account)), body.totp_code, deps.now());
    return steps.length > 0 ? { ok: true, steps } : { ok: false, reason: 'code_wrong' };
  });

  // The session starts now, after the (slow by design) password check.
  const session = startSession(deps);
  const outcome: { failed: string } | { account: AccountRow } = !verdict.ok
    ? { failed: verdict.reason }
    : await deps.sql.begin(async (tx) => {
        // Under the account's lock: the credential checked is still the account's, and a code's step is still unused.
        const current = await lockAccount(tx, account!.id);
        if (!current || current.credential_version !== account!.credential_version || current.password_hash !== account!.password_hash)
          return { failed: 'credential_changed' };
        if (current.disabled_at !== null || current.removed_at !== null) return { failed: 'disabled' };
        if (verdict.steps.length > 0) {
          const step = unusedStep(verdict.steps, current.totp_last_step);
          if (step === undefined || !(await useTotpStep(tx, current.id, step))) return { failed: 'code_reused' };
        }
        await insertSession(tx, {
          id: session.sessionId,
          accountId: current.id,
          credentialVersion: current.credential_version,
          expiresAt: session.expiresAt,
          ip: clientAddress(ctx),
          userAgent: ctx.get('User-Agent'),
          now: session.started,
        });
        await recordSignIn(tx, current.id, session.started, clientAddress(ctx));
        await finishAttempt(tx, attempt.id, 'succeeded', '', session.started);
        await insertAudit(tx, sessionActor(current, ctx, session.sessionId), {
          action: 'session.sign_in',
          objectType: door.objectType,
          objectId: current.id,
          after: { email, ...(current.merchant_id ? { merchant_id: current.merchant_id } : {}) },
        });
        return { account: current };
      });
  if ('failed' in outcome) {
    await deps.sql.begin(async (tx) => {
      await finishAttempt(tx, attempt.id, 'failed', outcome.failed, new Date(deps.now()));
      // Failures are audited with the account they named; an unknown email has none (its attempt row stays).
      if (account) {
        await insertAudit(tx, anonymousActor(ctx), {
          action: 'session.sign_in_failed',
          objectType: door.objectType,
          objectId: account.id,
          after: { email, reason: outcome.failed, address: clientAddress(ctx) },
        });
      }
    });
    throw new Unauthenticated(SIGN_IN_REFUSED);
  }
  await deleteEndedSessions(deps.sql, new Date(deps.now()));
  setSessionCookie(ctx, deps, party, session.token, deps.config.OPERATOR_SESSION_ABSOLUTE_SECONDS);
  return { account: outcome.account, sessionId: session.sessionId, expiresAt: session.expiresAt, absoluteEnd: session.absoluteEnd };
}

/**
 * The signed-in person proves itself again before a credential of an account is replaced: its
 * password, or (when it has TOTP) a current code not used before. Counted like a sign-in (same
 * limits, reserved before the hash), audited when it fails; a wrong one is 400 naming the field.
 */
export async function confirmCredential(
  deps: AppDeps,
  ctx: Context,
  who: AccountRow,
  proof: { confirm_password?: string | undefined; confirm_code?: string | undefined },
  actor: AuditActor,
): Promise<void> {
  const door = DOORS[who.party];
  const byCode = proof.confirm_code !== undefined && who.totp_secret_sealed !== null;
  if (!byCode && proof.confirm_password === undefined) {
    const how =
      who.totp_secret_sealed !== null
        ? 'your password (confirm_password) or a current code of your authenticator (confirm_code)'
        : 'your password (confirm_password)';
    throw new InvalidArgument(`confirm this change with ${how}`, [{ field: 'confirm_password', message: 'required', code: 'required' }]);
  }
  const attempt = await reserve(deps, ctx, who.party, who.email, who.id, 'confirm');
  const reason = await checked(deps, ctx, attempt.id, async () => {
    if (byCode) {
      const steps = totpSteps(deps.secretBox.open(who.totp_secret_sealed!, totpAad(who)), proof.confirm_code!, deps.now());
      if (steps.length === 0) return 'code_wrong';
      const fresh = await findAccount(deps.sql, who.id);
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
    await insertAudit(tx, actor, { action: `${door.action}.confirm_failed`, objectType: door.objectType, objectId: who.id, after: { reason } });
  });
  const field = byCode ? 'confirm_code' : 'confirm_password';
  throw new InvalidArgument(byCode ? 'the code does not match your authenticator, or was used already' : 'the password is not yours', [
    { field, message: 'does not match', code: 'invalid_value' },
  ]);
}

/** Signs the session out: its row goes, its cookie is cleared; audited. */
export async function endSession(deps: AppDeps, ctx: Context, party: Party, session: { sessionId: string; accountId: string }, actor: AuditActor) {
  await deps.sql.begin(async (tx) => {
    await deleteSession(tx, session.sessionId);
    await insertAudit(tx, actor, { action: 'session.sign_out', objectType: DOORS[party].objectType, objectId: session.accountId });
  });
  clearSessionCookie(ctx, deps, party);
}

/** Who acts on an account through a session: the account (its id) and the session making the request. */
export interface ActingAccount {
  accountId: string;
  sessionId?: string | undefined;
}

/** The signed-in account of a session, or 401: it ended meanwhile. */
async function signedInAccount(deps: AppDeps, party: Party, accountId: string): Promise<AccountRow> {
  const account = await findAccount(deps.sql, accountId);
  if (!account || account.party !== party || account.removed_at !== null) throw new Unauthenticated(sessionEnded(party));
  return account;
}

/**
 * TOTP enrolment of the signed-in account: `{}` answers a new secret (nothing changes), shown once
 * as an otpauth URI; `{ secret, code, confirm_password | confirm_code }` sets it — the code of the
 * new secret proves the authenticator has it, and the account's password (or, when it has TOTP
 * already, a current code of the old secret) proves the person is who the session says. Setting
 * it moves the account's credential_version on and ends its other sessions; the new code's time
 * step counts as used. Sign-in asks for a code from then on.
 */
export async function enrollTotp(
  deps: AppDeps,
  ctx: Context,
  party: Party,
  acting: ActingAccount,
  body: { secret?: string | undefined; code?: string | undefined; confirm_password?: string | undefined; confirm_code?: string | undefined },
  actor: AuditActor,
) {
  const door = DOORS[party];
  const account = await signedInAccount(deps, party, acting.accountId).catch(() => {
    throw new NotFound(`${door.objectType} not found`);
  });
  if (body.secret === undefined) {
    const secret = newTotpSecret();
    return { enrolled: false, secret, otpauth_uri: otpauthUri(door.totpIssuer, account.email, secret) };
  }
  const steps = body.code === undefined ? [] : totpSteps(body.secret, body.code, deps.now());
  if (steps.length === 0) {
    throw new InvalidArgument('the code does not match the secret (check the authenticator clock)', [
      { field: 'code', message: 'does not match', code: 'invalid_value' },
    ]);
  }
  await confirmCredential(deps, ctx, account, body, actor);
  const ended = await deps.sql.begin(async (tx) => {
    const before = await lockAccount(tx, account.id);
    if (!before) throw new NotFound(`${door.objectType} not found`);
    await updateAccount(tx, account.id, { totp_secret_sealed: deps.secretBox.seal(body.secret!, totpAad(account)), totp_last_step: Math.max(...steps) });
    const version = await bumpCredentialVersion(tx, account.id);
    const sessionsEnded = await deleteSessionsOf(tx, account.id, acting.sessionId ? { sessionId: acting.sessionId, credentialVersion: version } : undefined);
    await insertAudit(tx, actor, {
      action: `${door.action}.totp_enroll`,
      objectType: door.objectType,
      objectId: account.id,
      after: { replaced: before.totp_secret_sealed !== null, sessions_ended: sessionsEnded },
    });
    return sessionsEnded;
  });
  deps.log.info({ accountId: account.id, party, sessionsEnded: ended }, 'TOTP enrolled');
  return { enrolled: true, secret: '', otpauth_uri: '' };
}

/**
 * The signed-in account's own new password: proved with its present password (or a current code
 * of its authenticator), counted like a sign-in. The account's credential_version moves on, so
 * every other session ends; the one making the change moves to the new version and stays.
 */
export async function changeOwnPassword(
  deps: AppDeps,
  ctx: Context,
  party: Party,
  acting: ActingAccount,
  body: { new_password: string; confirm_password?: string | undefined; confirm_code?: string | undefined },
  actor: AuditActor,
) {
  const door = DOORS[party];
  const account = await signedInAccount(deps, party, acting.accountId);
  await confirmCredential(deps, ctx, account, body, actor);
  const passwordHash = await deps.passwordHashes.hash(body.new_password);
  const sessionsEnded = await deps.sql.begin(async (tx) => {
    const before = await lockAccount(tx, account.id);
    if (!before) throw new NotFound(`${door.objectType} not found`);
    await updateAccount(tx, account.id, { password_hash: passwordHash });
    const version = await bumpCredentialVersion(tx, account.id);
    const ended = await deleteSessionsOf(tx, account.id, acting.sessionId ? { sessionId: acting.sessionId, credentialVersion: version } : undefined);
    await insertAudit(tx, actor, {
      action: `${door.action}.password_change`,
      objectType: door.objectType,
      objectId: account.id,
      after: { sessions_ended: ended },
    });
    return ended;
  });
  deps.log.info({ accountId: account.id, party, sessionsEnded }, 'an account changed its own password');
  return { changed: true, sessions_ended: sessionsEnded };
}

/** Clears the door's cookie (a sign-out without a session: the JWT's). */
export const clearCookie = (ctx: Context, deps: AppDeps, party: Party) => clearSessionCookie(ctx, deps, party);
