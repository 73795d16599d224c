/**
 * Operator invitations: an admin invites an email with a role; the invitee opens the link, sets a
 * password and is signed in — with an account that must set up an authenticator before anything
 * else (api/mount.ts lets its session do only that). The link carries 32 random bytes; the table
 * keeps their sha256, so a database reader cannot accept an invitation. A link works once, before
 * OPERATOR_INVITE_TTL_SECONDS have passed, and a new invitation of the email revokes the older.
 *
 * There is no SMTP here: the link is answered to the inviting admin (who passes it on) and the
 * e-mail it would be is appended to OPERATOR_MAILBOX_FILE, a development mailbox (docs/console.md).
 */
import { createHash, randomBytes } from 'node:crypto';
import { appendFile, mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Context } from 'koa';
import type { AppDeps } from '../deps';
import type { AuditActor } from '../../domain/audit';
import { Conflict, FailedPrecondition, NotFound } from '../../domain/errors';
import { newId } from '../../domain/ids';
import type { OperatorRole } from '../../domain/operator-roles';
import { insertAudit } from '../../db/queries/audit';
import {
  findInvitationByToken,
  findOperatorByEmail,
  insertInvitation,
  insertOperator,
  insertSession,
  listOpenInvitations,
  lockInvitation,
  lockInvitationByToken,
  markInvitationAccepted,
  recordSignIn,
  revokeInvitation,
  type InvitationRow,
} from '../../db/queries/operators';
import { newSessionToken, sessionEnd, sessionIdOf, setSessionCookie } from '../auth/operator-session';
import { clientAddress, normalizeEmail, presentOperator, sessionAnswer } from './operators';

const tokenHashOf = (token: string) => createHash('sha256').update(`operator-invitation:${token}`).digest('hex');

function presentInvitation(row: InvitationRow, nowMs: number) {
  return {
    invitation_id: row.id,
    email: row.email,
    role: row.role as OperatorRole,
    invited_by: row.invited_by,
    created_at: row.created_at.toISOString(),
    expires_at: row.expires_at.toISOString(),
    expired: row.expires_at.getTime() <= nowMs,
  };
}

/** Where the console is reached from outside, and the page an invitation's link opens (the token in the fragment: never sent to a server or a log). */
const invitationUrl = (deps: Pick<AppDeps, 'config'>, token: string) =>
  `${(deps.config.CONSOLE_BASE_URL ?? deps.config.CHECKOUT_BASE_URL).replace(/\/+$/, '')}/console/invitation#token=${token}`;

/** The development mailbox: one JSON line per e-mail that would have been sent. A failure to write it costs nothing but the line. */
async function deliverToMailbox(deps: AppDeps, message: { to: string; subject: string; text: string; link: string }) {
  const file = deps.config.OPERATOR_MAILBOX_FILE;
  if (!file) return;
  try {
    await mkdir(dirname(file), { recursive: true });
    await appendFile(file, `${JSON.stringify({ at: new Date(deps.now()).toISOString(), ...message })}\n`, { mode: 0o600 });
  } catch (error) {
    deps.log.warn({ err: (error as Error).message, file }, 'the invitation could not be written to the development mailbox');
  }
}

/** Invites an email with a role: the link (shown once, to the inviting admin) and the invitation. 409 when an account has the email. */
export async function inviteOperator(deps: AppDeps, input: { email: string; role: OperatorRole }, actor: AuditActor) {
  const email = normalizeEmail(input.email);
  if (await findOperatorByEmail(deps.sql, email)) {
    throw new Conflict(`an operator with the email ${email} exists`, [{ field: 'email', message: 'taken', code: 'already_exists' }]);
  }
  const token = randomBytes(32).toString('base64url');
  const nowMs = deps.now();
  const { invitation, revoked } = await deps.sql.begin(async (tx) => {
    const made = await insertInvitation(tx, {
      id: newId(),
      tokenHash: tokenHashOf(token),
      email,
      role: input.role,
      invitedBy: `${actor.kind}:${actor.id}`,
      expiresAt: new Date(nowMs + deps.config.OPERATOR_INVITE_TTL_SECONDS * 1000),
    });
    await insertAudit(tx, actor, {
      action: 'operator.invite',
      objectType: 'operator_invitation',
      objectId: made.invitation.id,
      after: { ...presentInvitation(made.invitation, nowMs), revoked_earlier: made.revoked },
    });
    return made;
  });
  const link = invitationUrl(deps, token);
  await deliverToMailbox(deps, {
    to: email,
    subject: 'Your operator account at the gateway console',
    text: `You are invited as ${input.role}. Open the link, choose a password and set up an authenticator app. The link works once, until ${invitation.expires_at.toISOString()}.`,
    link,
  });
  return { invitation: presentInvitation(invitation, nowMs), invite_url: link, revoked_earlier: revoked };
}

export async function listInvitations(deps: AppDeps) {
  const nowMs = deps.now();
  return (await listOpenInvitations(deps.sql)).map((r) => presentInvitation(r, nowMs));
}

export async function revokeOperatorInvitation(deps: AppDeps, invitationId: string, actor: AuditActor) {
  const nowMs = deps.now();
  return deps.sql.begin(async (tx) => {
    const before = await lockInvitation(tx, invitationId);
    if (!before) throw new NotFound('invitation not found');
    if (before.accepted_at !== null) throw new FailedPrecondition('this invitation was accepted already: disable the account instead');
    if (before.revoked_at !== null) return presentInvitation(before, nowMs);
    const after = await revokeInvitation(tx, invitationId);
    await insertAudit(tx, actor, {
      action: 'operator.invite_revoke',
      objectType: 'operator_invitation',
      objectId: invitationId,
      before: presentInvitation(before, nowMs),
    });
    return presentInvitation(after, nowMs);
  });
}

/** Why a link no longer works, or undefined while it does. */
function invitationRefusal(row: InvitationRow, nowMs: number): string | undefined {
  if (row.accepted_at !== null) return 'this invitation link was used already: sign in with the password set then';
  if (row.revoked_at !== null) return 'this invitation was withdrawn (a newer one may have been sent): ask an admin';
  if (row.expires_at.getTime() <= nowMs) return 'this invitation link has expired: ask an admin for a new one';
  return undefined;
}

const UNKNOWN_LINK = 'this invitation link is not known (copy the whole link)';

/** What a link invites to (the page shows it before the password is chosen); 404 unknown, 400 used, withdrawn or expired. */
export async function checkInvitation(deps: AppDeps, token: string) {
  const row = await findInvitationByToken(deps.sql, tokenHashOf(token));
  if (!row) throw new NotFound(UNKNOWN_LINK);
  const refused = invitationRefusal(row, deps.now());
  if (refused) throw new FailedPrecondition(refused);
  return { email: row.email, role: row.role as OperatorRole, expires_at: row.expires_at.toISOString() };
}

/**
 * Accepts a link once: under the invitation's row lock (two acceptances take turns; the second
 * finds it used), the account is created with the password chosen here, `totp_required` (its
 * session can only set up an authenticator until it has), and signed in. Audited
 * (`operator.invite_accept`, the account as its own actor).
 */
export async function acceptInvitation(deps: AppDeps, ctx: Context, body: { token: string; password: string }) {
  const tokenHash = tokenHashOf(body.token);
  const known = await findInvitationByToken(deps.sql, tokenHash);
  if (!known) throw new NotFound(UNKNOWN_LINK);
  const early = invitationRefusal(known, deps.now());
  if (early) throw new FailedPrecondition(early);
  // The hash is slow by design: made before the transaction, which then only writes.
  const passwordHash = await deps.passwordHashes.hash(body.password);
  const token = newSessionToken();
  const sessionId = sessionIdOf(token);
  const startedMs = deps.now();
  const started = new Date(startedMs);
  const expiresAt = sessionEnd(deps, started, started);
  const operator = await deps.sql.begin(async (tx) => {
    const invitation = await lockInvitationByToken(tx, tokenHash);
    if (!invitation) throw new NotFound(UNKNOWN_LINK);
    const refused = invitationRefusal(invitation, startedMs);
    if (refused) throw new FailedPrecondition(refused);
    const row = await insertOperator(tx, {
      id: newId(),
      email: invitation.email,
      passwordHash,
      role: invitation.role,
      createdBy: invitation.invited_by,
      totpRequired: true,
    });
    if (!row) throw new Conflict(`an operator with the email ${invitation.email} exists`, [{ field: 'email', message: 'taken', code: 'already_exists' }]);
    await markInvitationAccepted(tx, invitation.id, row.id);
    await insertSession(tx, {
      id: sessionId,
      operatorId: row.id,
      credentialVersion: row.credential_version,
      expiresAt,
      ip: clientAddress(ctx),
      userAgent: ctx.get('User-Agent'),
      now: started,
    });
    await recordSignIn(tx, row.id, started, clientAddress(ctx));
    await insertAudit(
      tx,
      { kind: 'operator_account', id: row.id, role: invitation.role as OperatorRole, requestId: String(ctx.state.traceId ?? ''), requestKey: newId() },
      { action: 'operator.invite_accept', objectType: 'operator', objectId: row.id, after: { ...presentOperator(row), invitation_id: invitation.id } },
    );
    return { ...row, last_sign_in_at: started, last_sign_in_address: clientAddress(ctx) };
  });
  setSessionCookie(ctx, deps, token, deps.config.OPERATOR_SESSION_ABSOLUTE_SECONDS);
  return sessionAnswer(deps, {
    operator,
    sessionId,
    expiresAt,
    absoluteEnd: new Date(startedMs + deps.config.OPERATOR_SESSION_ABSOLUTE_SECONDS * 1000),
  });
}
