/**
 * Invitations of every party's door: an inviter (the admins for operators; a merchant's owner —
 * or the operator who creates the merchant, for its first owner — for members) invites an email
 * with a role; the invitee opens the link, sets a password and is signed in at the door — with an
 * account that must set up an authenticator before anything else (api/mount.ts lets its session
 * do only that). The link carries 32 random bytes; the table keeps their sha256, so a database
 * reader cannot accept an invitation. A link works once, before OPERATOR_INVITE_TTL_SECONDS have
 * passed, and a new invitation of the email by the same inviter revokes the older.
 *
 * There is no SMTP here: the link is answered to the inviter (who passes it on) and the e-mail it
 * would be is appended to the door's development mailbox (OPERATOR_MAILBOX_FILE,
 * MERCHANT_MAILBOX_FILE, TRADER_MAILBOX_FILE; docs/console.md, docs/cabinet.md, docs/trader.md).
 */
import { createHash, randomBytes } from 'node:crypto';
import { appendFile, mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Context } from 'koa';
import type { AppDeps } from '../deps';
import type { AuditActor } from '../../domain/audit';
import { Conflict, FailedPrecondition, NotFound } from '../../domain/errors';
import { newId } from '../../domain/ids';
import type { AnyRole, Party } from '../../domain/roles';
import { insertAudit } from '../../db/queries/audit';
import type { Db } from '../../db/sql';
import {
  findAccountByEmail,
  findInvitationByToken,
  insertAccount,
  insertInvitation,
  insertSession,
  listOpenInvitations,
  lockInvitation,
  lockInvitationByToken,
  markInvitationAccepted,
  recordSignIn,
  revokeInvitation,
  type AccountRow,
  type InvitationRow,
  type InvitationScope,
} from '../../db/queries/accounts';
import { setSessionCookie } from '../auth/sessions';
import { clientAddress, DOORS, normalizeEmail, sessionActor, startSession, type NewSession } from './accounts';

const tokenHashOf = (token: string) => createHash('sha256').update(`operator-invitation:${token}`).digest('hex');

export function presentInvitation(row: InvitationRow, nowMs: number) {
  return {
    invitation_id: row.id,
    email: row.email,
    role: row.role as AnyRole,
    invited_by: row.invited_by,
    created_at: row.created_at.toISOString(),
    expires_at: row.expires_at.toISOString(),
    expired: row.expires_at.getTime() <= nowMs,
  };
}

/** What is particular to a door's invitations: where its link opens, its mailbox, what the e-mail says. */
const INVITE_DOORS: { readonly [P in Party]: { page: string; mailbox: (deps: AppDeps) => string; subject: string; who: string } } = {
  operator: {
    page: '/console/invitation',
    mailbox: (deps) => deps.config.OPERATOR_MAILBOX_FILE,
    subject: 'Your operator account at the gateway console',
    who: 'an admin',
  },
  merchant: {
    page: '/cabinet/invitation',
    mailbox: (deps) => deps.config.MERCHANT_MAILBOX_FILE,
    subject: "Your account at the merchant's cabinet",
    who: "your merchant's owner",
  },
  trader: {
    page: '/trader/invitation',
    mailbox: (deps) => deps.config.TRADER_MAILBOX_FILE,
    subject: 'Your account at the gateway’s trader app',
    who: 'an operator',
  },
};

/** Where the apps are reached from outside, and the page an invitation's link opens (the token in the fragment: never sent to a server or a log). */
const invitationUrl = (deps: Pick<AppDeps, 'config'>, party: Party, token: string) =>
  `${(deps.config.CONSOLE_BASE_URL ?? deps.config.CHECKOUT_BASE_URL).replace(/\/+$/, '')}${INVITE_DOORS[party].page}#token=${token}`;

/** The development mailbox: one JSON line per e-mail that would have been sent. A failure to write it costs nothing but the line. */
async function deliverToMailbox(deps: AppDeps, party: Party, message: { to: string; subject: string; text: string; link: string }) {
  const file = INVITE_DOORS[party].mailbox(deps);
  if (!file) return;
  try {
    await mkdir(dirname(file), { recursive: true });
    await appendFile(file, `${JSON.stringify({ at: new Date(deps.now()).toISOString(), ...message })}\n`, { mode: 0o600 });
  } catch (error) {
    deps.log.warn({ err: (error as Error).message, file }, 'the invitation could not be written to the development mailbox');
  }
}

const EMAIL_TAKEN = (email: string) =>
  new Conflict(`an account with the email ${email} exists`, [{ field: 'email', message: 'taken', code: 'already_exists' }]);

/** A made invitation: the row, the link (shown once to the inviter) and how many earlier ones it withdrew. */
export interface MadeInvitation {
  invitation: InvitationRow;
  link: string;
  revoked: number;
}

/**
 * Makes an invitation in the caller's transaction (a merchant's first owner is invited in the
 * transaction that creates the merchant), audited as `<door action>.invite`; the link is never in
 * the trail. Deliver it after the commit (deliverInvitation).
 */
export async function makeInvitation(
  tx: Db,
  deps: AppDeps,
  scope: InvitationScope,
  input: { email: string; role: AnyRole },
  actor: AuditActor,
): Promise<MadeInvitation> {
  const door = DOORS[scope.party];
  const email = normalizeEmail(input.email);
  if (await findAccountByEmail(tx, scope.party, email)) throw EMAIL_TAKEN(email);
  const token = randomBytes(32).toString('base64url');
  const nowMs = deps.now();
  const made = await insertInvitation(tx, {
    ...scope,
    id: newId(),
    tokenHash: tokenHashOf(token),
    email,
    role: input.role,
    invitedBy: `${actor.kind}:${actor.id}`,
    expiresAt: new Date(nowMs + deps.config.OPERATOR_INVITE_TTL_SECONDS * 1000),
  });
  await insertAudit(tx, actor, {
    action: `${door.action}.invite`,
    objectType: door.invitationType,
    objectId: made.invitation.id,
    after: { ...presentInvitation(made.invitation, nowMs), ...(scope.merchantId ? { merchant_id: scope.merchantId } : {}), revoked_earlier: made.revoked },
  });
  return { invitation: made.invitation, link: invitationUrl(deps, scope.party, token), revoked: made.revoked };
}

/** The e-mail of a made invitation, to the door's development mailbox; `where` names what it invites to (a merchant's name). */
export async function deliverInvitation(deps: AppDeps, made: MadeInvitation, where = '') {
  const { invitation } = made;
  const door = INVITE_DOORS[invitation.party];
  await deliverToMailbox(deps, invitation.party, {
    to: invitation.email,
    subject: door.subject,
    text:
      `You are invited as ${invitation.role}${where ? ` of ${where}` : ''}. Open the link, choose a password and set up an authenticator app. ` +
      `The link works once, until ${invitation.expires_at.toISOString()}.`,
    link: made.link,
  });
}

/** Invites an email with a role at the inviter's door: the link (shown once, to the inviter) and the invitation. 409 when the door has an account of the email. */
export async function invite(deps: AppDeps, scope: InvitationScope, input: { email: string; role: AnyRole }, actor: AuditActor, where = '') {
  const made = await deps.sql.begin((tx) => makeInvitation(tx, deps, scope, input, actor));
  await deliverInvitation(deps, made, where);
  return { invitation: presentInvitation(made.invitation, deps.now()), invite_url: made.link, revoked_earlier: made.revoked };
}

export async function listInvitations(deps: AppDeps, scope: InvitationScope) {
  const nowMs = deps.now();
  return (await listOpenInvitations(deps.sql, scope)).map((r) => presentInvitation(r, nowMs));
}

/** Withdraws the inviter's invitation (another inviter's is 404); an accepted one is 400, a withdrawn one answered as it is. */
export async function revoke(deps: AppDeps, scope: InvitationScope, invitationId: string, actor: AuditActor) {
  const door = DOORS[scope.party];
  const nowMs = deps.now();
  return deps.sql.begin(async (tx) => {
    const before = await lockInvitation(tx, scope, invitationId);
    if (!before) throw new NotFound('invitation not found');
    if (before.accepted_at !== null) throw new FailedPrecondition('this invitation was accepted already: disable the account instead');
    if (before.revoked_at !== null) return presentInvitation(before, nowMs);
    const after = await revokeInvitation(tx, invitationId);
    await insertAudit(tx, actor, {
      action: `${door.action}.invite_revoke`,
      objectType: door.invitationType,
      objectId: invitationId,
      before: presentInvitation(before, nowMs),
    });
    return presentInvitation(after, nowMs);
  });
}

/** Why a link no longer works, or undefined while it does. */
function invitationRefusal(row: InvitationRow, nowMs: number): string | undefined {
  const who = INVITE_DOORS[row.party].who;
  if (row.accepted_at !== null) return 'this invitation link was used already: sign in with the password set then';
  if (row.revoked_at !== null) return `this invitation was withdrawn (a newer one may have been sent): ask ${who}`;
  if (row.expires_at.getTime() <= nowMs) return `this invitation link has expired: ask ${who} for a new one`;
  return undefined;
}

const UNKNOWN_LINK = 'this invitation link is not known (copy the whole link)';

/** The door's invitation of a link: another door's link is unknown here. */
async function invitationOf(db: Db, party: Party, token: string) {
  const row = await findInvitationByToken(db, tokenHashOf(token));
  if (!row || row.party !== party) throw new NotFound(UNKNOWN_LINK);
  return row;
}

/** What a link invites to (the page shows it before the password is chosen); 404 unknown, 400 used, withdrawn or expired. */
export async function checkInvitation(deps: AppDeps, party: Party, token: string) {
  const row = await invitationOf(deps.sql, party, token);
  const refused = invitationRefusal(row, deps.now());
  if (refused) throw new FailedPrecondition(refused);
  return row;
}

/**
 * Accepts a link once: under the invitation's row lock (two acceptances take turns; the second
 * finds it used), the account is created at the door with the password chosen here (a member in
 * the invitation's merchant), `totp_required` (its session can only set up an authenticator until
 * it has), and signed in (the door's cookie). Audited (`<door action>.invite_accept`, the account
 * as its own actor).
 */
export async function acceptInvitation(
  deps: AppDeps,
  ctx: Context,
  party: Party,
  body: { token: string; password: string },
  present: (row: AccountRow) => object,
): Promise<NewSession> {
  const door = DOORS[party];
  const tokenHash = tokenHashOf(body.token);
  const known = await invitationOf(deps.sql, party, body.token);
  const early = invitationRefusal(known, deps.now());
  if (early) throw new FailedPrecondition(early);
  // The hash is slow by design: made before the transaction, which then only writes.
  const passwordHash = await deps.passwordHashes.hash(body.password);
  const session = startSession(deps);
  const account = await deps.sql.begin(async (tx) => {
    const invitation = await lockInvitationByToken(tx, tokenHash);
    if (!invitation || invitation.party !== party) throw new NotFound(UNKNOWN_LINK);
    const refused = invitationRefusal(invitation, session.started.getTime());
    if (refused) throw new FailedPrecondition(refused);
    const row: AccountRow | undefined = await insertAccount(tx, {
      id: newId(),
      party,
      merchantId: invitation.merchant_id,
      traderId: invitation.trader_id,
      email: invitation.email,
      passwordHash,
      role: invitation.role,
      createdBy: invitation.invited_by,
      totpRequired: true,
    });
    if (!row) throw EMAIL_TAKEN(invitation.email);
    await markInvitationAccepted(tx, invitation.id, row.id);
    await insertSession(tx, {
      id: session.sessionId,
      accountId: row.id,
      credentialVersion: row.credential_version,
      expiresAt: session.expiresAt,
      ip: clientAddress(ctx),
      userAgent: ctx.get('User-Agent'),
      now: session.started,
    });
    await recordSignIn(tx, row.id, session.started, clientAddress(ctx));
    const { credential: _none, ...actor } = sessionActor(row, ctx, session.sessionId);
    await insertAudit(tx, actor, {
      action: `${door.action}.invite_accept`,
      objectType: door.objectType,
      objectId: row.id,
      after: { ...present(row), invitation_id: invitation.id },
    });
    return { ...row, last_sign_in_at: session.started, last_sign_in_address: clientAddress(ctx) };
  });
  setSessionCookie(ctx, deps, party, session.token, deps.config.OPERATOR_SESSION_ABSOLUTE_SECONDS);
  return { account, sessionId: session.sessionId, expiresAt: session.expiresAt, absoluteEnd: session.absoluteEnd };
}
