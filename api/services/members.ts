/**
 * A merchant's people: the cabinet's door onto the accounts of every party (api/services/accounts.ts:
 * sign-in, TOTP, one's own password, sign-out — the same rules as the console's), who am I (the
 * cabinet JWT too), and the owner's team: roles, disabling, removing, invitations
 * (api/services/invitations.ts). A merchant always keeps one enabled owner: every change of a
 * team takes the team's row locks first (db/queries/accounts.ts lockMembers), so changes racing
 * one another take turns and the last owner is never demoted, disabled or removed.
 */
import type { Context } from 'koa';
import type { AppDeps } from '../deps';
import type { AuditActor } from '../../domain/audit';
import { FailedPrecondition, NotFound, PermissionDenied, Unauthenticated } from '../../domain/errors';
import type { MerchantRole } from '../../domain/roles';
import { insertAudit } from '../../db/queries/audit';
import { deleteSessionsOf, findAccount, listMembers, lockMembers, revokeInvitationsBy, updateAccount, type AccountRow } from '../../db/queries/accounts';
import { merchantNames } from '../../db/queries/merchants';
import { csrfTokenOf, sessionEnded } from '../auth/sessions';
import type { MerchantIdentity } from '../auth/authenticate';
import * as accounts from './accounts';
import { acceptInvitation, checkInvitation, invite, listInvitations, revoke } from './invitations';

function presentMember(row: AccountRow) {
  return { member_id: row.id, ...accounts.accountFields<MerchantRole>(row) };
}

async function merchantOfMember(deps: AppDeps, merchantId: string) {
  return { merchant_id: merchantId, name: (await merchantNames(deps.sql, [merchantId])).get(merchantId) ?? '' };
}

async function sessionAnswer(deps: AppDeps, s: accounts.NewSession) {
  return {
    member: presentMember(s.account),
    merchant: await merchantOfMember(deps, s.account.merchant_id!),
    csrf_token: csrfTokenOf(deps, s.sessionId),
    expires_at: s.expiresAt.toISOString(),
    absolute_expires_at: s.absoluteEnd.toISOString(),
    idle_timeout_seconds: deps.config.OPERATOR_SESSION_IDLE_SECONDS,
  };
}

export async function signIn(deps: AppDeps, ctx: Context, body: { email: string; password: string; totp_code?: string | undefined }) {
  return sessionAnswer(deps, await accounts.signIn(deps, ctx, 'merchant', body));
}

/** The member a cabinet session is (the cabinet JWT is none: 403). */
function memberOf(identity: MerchantIdentity, what: string) {
  if (identity.via !== 'session' || !identity.sessionId) throw new PermissionDenied(`${what} belongs to a member's account; the cabinet JWT has none`);
  return { accountId: identity.subject, sessionId: identity.sessionId };
}

/** Who am I: the member, its merchant, the CSRF token and when the session ends; the cabinet JWT gets its sub as an owner, no session. */
export async function currentSession(deps: AppDeps, identity: MerchantIdentity) {
  if (identity.via !== 'session') {
    return {
      member: {
        member_id: identity.subject,
        email: '',
        role: identity.role ?? 'owner',
        totp_enrolled: false,
        disabled: false,
        disabled_at: '',
        created_at: '',
        totp_required: false,
        last_sign_in_at: '',
        last_sign_in_address: '',
      },
      merchant: await merchantOfMember(deps, identity.merchantId),
      csrf_token: '',
      expires_at: '',
      absolute_expires_at: '',
      idle_timeout_seconds: 0,
    };
  }
  const account = await findAccount(deps.sql, identity.subject);
  if (account?.party !== 'merchant') throw new Unauthenticated(sessionEnded('merchant'));
  const absoluteEnd = await accounts.sessionTimes(deps, identity.sessionId!);
  return sessionAnswer(deps, { account, sessionId: identity.sessionId!, expiresAt: identity.expiresAt!, absoluteEnd });
}

export async function signOut(deps: AppDeps, ctx: Context, identity: MerchantIdentity, actor: AuditActor) {
  if (identity.via === 'session' && identity.sessionId) {
    await accounts.endSession(deps, ctx, 'merchant', { sessionId: identity.sessionId, accountId: identity.subject }, actor);
    return;
  }
  accounts.clearCookie(ctx, deps, 'merchant');
}

export const enrollTotp = (deps: AppDeps, ctx: Context, identity: MerchantIdentity, body: Parameters<typeof accounts.enrollTotp>[4], actor: AuditActor) =>
  accounts.enrollTotp(deps, ctx, 'merchant', memberOf(identity, 'TOTP'), body, actor);

export const changeOwnPassword = (
  deps: AppDeps,
  ctx: Context,
  identity: MerchantIdentity,
  body: Parameters<typeof accounts.changeOwnPassword>[4],
  actor: AuditActor,
) => accounts.changeOwnPassword(deps, ctx, 'merchant', memberOf(identity, 'A password'), body, actor);

// ---- The team (owner) ----

export async function listTeam(deps: AppDeps, merchantId: string) {
  return (await listMembers(deps.sql, merchantId)).map(presentMember);
}

const enabledOwners = (team: AccountRow[]) => team.filter((m) => m.role === 'owner' && m.disabled_at === null && m.removed_at === null);
const LAST_OWNER =
  'a merchant keeps at least one enabled owner: make another member owner first (an operator can invite a new owner: POST /admin/merchants/{merchant_id}/owner-invitations)';

/** The merchant's member (a removed one, another merchant's or no account: 404) from the locked team. */
function memberIn(team: AccountRow[], memberId: string): AccountRow {
  const member = team.find((m) => m.id === memberId && m.removed_at === null);
  if (!member) throw new NotFound('member not found');
  return member;
}

/**
 * Sets a member's role, or disables or enables it, under the team's locks. A change that would
 * leave the merchant without an enabled owner is refused (400), whoever asks — an owner demoting
 * or disabling itself included. A role change or disabling ends the member's sessions (an owner
 * changing its own role keeps the session it does it with), and an owner demoted or disabled
 * withdraws the invitations it made that nobody accepted yet. The same values again change nothing.
 */
export async function updateMember(
  deps: AppDeps,
  merchantId: string,
  memberId: string,
  patch: { role?: MerchantRole | undefined; disabled?: boolean | undefined },
  acting: MerchantIdentity,
  actor: AuditActor,
) {
  return deps.sql.begin(async (tx) => {
    const team = await lockMembers(tx, merchantId);
    const before = memberIn(team, memberId);
    const changes: Parameters<typeof updateAccount>[2] = {};
    if (patch.role !== undefined && patch.role !== before.role) changes.role = patch.role;
    if (patch.disabled !== undefined && patch.disabled !== (before.disabled_at !== null)) changes.disabled_at = patch.disabled ? new Date(deps.now()) : null;
    if (Object.keys(changes).length === 0) return presentMember(before);
    const wouldBe = { ...before, ...changes } as AccountRow;
    if (enabledOwners(team.map((m) => (m.id === memberId ? wouldBe : m))).length === 0) throw new FailedPrecondition(LAST_OWNER);
    const after = await updateAccount(tx, memberId, changes);
    const self = acting.via === 'session' && acting.subject === memberId;
    const keep =
      self && changes.disabled_at === undefined && acting.sessionId ? { sessionId: acting.sessionId, credentialVersion: after.credential_version } : undefined;
    const sessionsEnded = await deleteSessionsOf(tx, memberId, keep);
    // An owner no longer (demoted or disabled): the links it gave out and nobody used yet stop working.
    const invitationsRevoked = after.role !== 'owner' || after.disabled_at !== null ? await revokeInvitationsBy(tx, `merchant_account:${memberId}`) : 0;
    await insertAudit(tx, actor, {
      action: 'member.update',
      objectType: 'merchant_member',
      objectId: memberId,
      before: { ...presentMember(before), merchant_id: merchantId },
      after: { ...presentMember(after), merchant_id: merchantId, sessions_ended: sessionsEnded, invitations_revoked: invitationsRevoked },
    });
    return presentMember(after);
  });
}

/**
 * Removes a member: it can never sign in again and is no longer listed (its id stays in the
 * trail); its email may be invited again. The last enabled owner is never removed. Its sessions
 * end at once — an owner removing itself included — and the invitations it made and nobody
 * accepted yet are withdrawn.
 */
export async function removeMember(deps: AppDeps, merchantId: string, memberId: string, actor: AuditActor) {
  await deps.sql.begin(async (tx) => {
    const team = await lockMembers(tx, merchantId);
    const before = memberIn(team, memberId);
    if (enabledOwners(team.filter((m) => m.id !== memberId)).length === 0) throw new FailedPrecondition(LAST_OWNER);
    const now = new Date(deps.now());
    await updateAccount(tx, memberId, { removed_at: now, disabled_at: before.disabled_at ?? now });
    const sessionsEnded = await deleteSessionsOf(tx, memberId);
    const invitationsRevoked = await revokeInvitationsBy(tx, `merchant_account:${memberId}`);
    await insertAudit(tx, actor, {
      action: 'member.remove',
      objectType: 'merchant_member',
      objectId: memberId,
      before: { ...presentMember(before), merchant_id: merchantId },
      after: { removed_at: now.toISOString(), sessions_ended: sessionsEnded, invitations_revoked: invitationsRevoked },
    });
  });
}

// ---- Invitations ----

const scopeOf = (merchantId: string) => ({ party: 'merchant' as const, merchantId });

export async function inviteMember(deps: AppDeps, merchantId: string, input: { email: string; role: MerchantRole }, actor: AuditActor) {
  const name = (await merchantNames(deps.sql, [merchantId])).get(merchantId);
  if (name === undefined) throw new NotFound('merchant not found');
  return invite(deps, scopeOf(merchantId), input, actor, name);
}

export const listMemberInvitations = (deps: AppDeps, merchantId: string) => listInvitations(deps, scopeOf(merchantId));
export const revokeMemberInvitation = (deps: AppDeps, merchantId: string, invitationId: string, actor: AuditActor) =>
  revoke(deps, scopeOf(merchantId), invitationId, actor);

/** What a cabinet link invites to: the email, the role and the merchant's name. */
export async function checkMemberInvitation(deps: AppDeps, token: string) {
  const row = await checkInvitation(deps, 'merchant', token);
  const merchant = await merchantOfMember(deps, row.merchant_id!);
  return { email: row.email, role: row.role as MerchantRole, merchant_name: merchant.name, expires_at: row.expires_at.toISOString() };
}

export async function acceptMemberInvitation(deps: AppDeps, ctx: Context, body: { token: string; password: string }) {
  return sessionAnswer(deps, await acceptInvitation(deps, ctx, 'merchant', body, (row) => ({ ...presentMember(row), merchant_id: row.merchant_id })));
}
