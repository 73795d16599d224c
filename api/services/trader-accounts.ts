/**
 * Traders' accounts: the trader app's door onto the accounts of every party (api/services/accounts.ts:
 * sign-in, TOTP, one's own password, sign-out — the console's rules), the operators' invitations of
 * a trader's account, and the approval that lets an invited trader work. An invited trader is
 * PENDING_APPROVAL: it signs in, sets up its authenticator (required: an invited account can do
 * nothing else first) and its requisites, and is matched to nothing until an operator approves it.
 */
import type { Context } from 'koa';
import type { AppDeps } from '../deps';
import type { AuditActor } from '../../domain/audit';
import { FailedPrecondition, NotFound, Unauthenticated } from '../../domain/errors';
import type { TraderRole } from '../../domain/roles';
import { insertAudit } from '../../db/queries/audit';
import { findAccount, type AccountRow } from '../../db/queries/accounts';
import { approveTrader as approveTraderRow, findTrader, traderAccounts } from '../../db/queries/traders';
import { csrfTokenOf, sessionEnded } from '../auth/sessions';
import type { TraderIdentity } from '../auth/authenticate';
import * as accounts from './accounts';
import { acceptInvitation, checkInvitation, deliverInvitation, invite, makeInvitation, presentInvitation } from './invitations';
import type { Db } from '../../db/sql';

function presentAccount(row: AccountRow) {
  return { account_id: row.id, ...accounts.accountFields<TraderRole>(row) };
}

async function traderOfAccount(db: Db, traderId: string) {
  const trader = await findTrader(db, traderId);
  if (!trader) throw new NotFound('trader not found');
  return { trader_id: trader.id, name: trader.name, status: trader.status, approved: trader.status === 'ACTIVE' };
}

async function sessionAnswer(deps: AppDeps, s: accounts.NewSession) {
  return {
    account: presentAccount(s.account),
    trader: await traderOfAccount(deps.sql, s.account.trader_id!),
    csrf_token: csrfTokenOf(deps, s.sessionId),
    expires_at: s.expiresAt.toISOString(),
    absolute_expires_at: s.absoluteEnd.toISOString(),
    idle_timeout_seconds: deps.config.OPERATOR_SESSION_IDLE_SECONDS,
  };
}

export async function signIn(deps: AppDeps, ctx: Context, body: { email: string; password: string; totp_code?: string | undefined }) {
  return sessionAnswer(deps, await accounts.signIn(deps, ctx, 'trader', body));
}

/** Who am I: the account, its trader (approved or not), the CSRF token and when the session ends. */
export async function currentSession(deps: AppDeps, identity: TraderIdentity) {
  const account = await findAccount(deps.sql, identity.accountId);
  if (account?.party !== 'trader') throw new Unauthenticated(sessionEnded('trader'));
  const absoluteEnd = await accounts.sessionTimes(deps, identity.sessionId);
  return sessionAnswer(deps, { account, sessionId: identity.sessionId, expiresAt: identity.expiresAt, absoluteEnd });
}

export const signOut = (deps: AppDeps, ctx: Context, identity: TraderIdentity, actor: AuditActor) =>
  accounts.endSession(deps, ctx, 'trader', { sessionId: identity.sessionId, accountId: identity.accountId }, actor);

const acting = (identity: TraderIdentity) => ({ accountId: identity.accountId, sessionId: identity.sessionId });

export const enrollTotp = (deps: AppDeps, ctx: Context, identity: TraderIdentity, body: Parameters<typeof accounts.enrollTotp>[4], actor: AuditActor) =>
  accounts.enrollTotp(deps, ctx, 'trader', acting(identity), body, actor);

export const changeOwnPassword = (
  deps: AppDeps,
  ctx: Context,
  identity: TraderIdentity,
  body: Parameters<typeof accounts.changeOwnPassword>[4],
  actor: AuditActor,
) => accounts.changeOwnPassword(deps, ctx, 'trader', acting(identity), body, actor);

// ---- Invitations (operators) ----

const scopeOf = (traderId: string) => ({ party: 'trader' as const, traderId });

/** Invites an account for the trader (an operator): the link is answered once and written to the development mailbox. */
export async function inviteTraderAccount(deps: AppDeps, traderId: string, email: string, actor: AuditActor) {
  const trader = await findTrader(deps.sql, traderId);
  if (!trader || trader.sandbox) throw new NotFound('trader not found');
  return invite(deps, scopeOf(traderId), { email, role: 'trader' }, actor, trader.name);
}

/** An invitation made inside the caller's transaction (a trader created with its account's email), delivered after it commits. */
export const makeTraderInvitation = (tx: Db, deps: AppDeps, traderId: string, email: string, actor: AuditActor) =>
  makeInvitation(tx, deps, scopeOf(traderId), { email, role: 'trader' }, actor);

export async function deliverTraderInvitation(deps: AppDeps, made: Awaited<ReturnType<typeof makeTraderInvitation>>, traderName: string) {
  await deliverInvitation(deps, made, traderName);
  return { invitation: presentInvitation(made.invitation, deps.now()), invite_url: made.link };
}

/** What a trader's link invites to: the email and the trader's name. */
export async function checkTraderInvitation(deps: AppDeps, token: string) {
  const row = await checkInvitation(deps, 'trader', token);
  const trader = await traderOfAccount(deps.sql, row.trader_id!);
  return { email: row.email, role: row.role as TraderRole, trader_name: trader.name, expires_at: row.expires_at.toISOString() };
}

export async function acceptTraderInvitation(deps: AppDeps, ctx: Context, body: { token: string; password: string }) {
  return sessionAnswer(deps, await acceptInvitation(deps, ctx, 'trader', body, (row) => ({ ...presentAccount(row), trader_id: row.trader_id })));
}

// ---- Approval (operators) ----

/**
 * Approves an invited trader: from now on the matcher may give it deals (its requisites and
 * presence permitting). Only once one of its accounts has set up its authenticator — a trader
 * nobody can sign in as is never approved (400 saying so). Approving an approved trader changes
 * nothing. Audited (trader.approve).
 */
export async function approveTrader(deps: AppDeps, traderId: string, actor: AuditActor) {
  return deps.sql.begin(async (tx) => {
    const trader = await findTrader(tx, traderId, { lock: true });
    if (!trader || trader.sandbox) throw new NotFound('trader not found');
    if (trader.status === 'ACTIVE') return traderOfAccount(tx, traderId);
    const ready = (await traderAccounts(tx, traderId)).filter((a) => a.disabled_at === null && a.removed_at === null && a.totp_secret_sealed !== null);
    if (ready.length === 0) {
      throw new FailedPrecondition(
        'the trader has no account with an authenticator yet: it approves once the invited trader has accepted the invitation and set up TOTP',
      );
    }
    await approveTraderRow(tx, traderId, `${actor.kind}:${actor.id}`);
    await insertAudit(tx, actor, {
      action: 'trader.approve',
      objectType: 'trader',
      objectId: traderId,
      before: { status: trader.status },
      after: { status: 'ACTIVE' },
    });
    return traderOfAccount(tx, traderId);
  });
}
