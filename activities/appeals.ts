/**
 * Appeal steps (issue 9), the moves of APPEAL_TRANSITIONS (domain/appeals.ts) and what they do to
 * the deal (PAYIN_TRANSITIONS' open_appeal, appeal_rejected, appeal_satisfied). Each is one
 * Postgres transaction that locks the deal, then the appeal (always in that order), checks the
 * move against the tables, moves the appeal, the deal and the money together and writes their
 * outbox events. A retried step of the same command (same appeal id / command id) answers the
 * committed result.
 */
import type { ActivityDeps } from './deps';
import type { Db } from '../db/sql';
import { FailedPrecondition, InvalidArgument, NotFound } from '../domain/errors';
import {
  APPEAL_EVENT_BY_STATUS,
  APPEAL_HOLDS_DEAL,
  appealMove,
  appealOpenRefusal,
  appealView,
  resolutionNote,
  resolveMove,
  terminalResolutionProblem,
  type AppealStatus,
} from '../domain/appeals';
import { dealEventPayload } from '../domain/deal-info';
import { PAYIN_TRANSITIONS, type PayinStatus } from '../domain/payin';
import { allowsFrom } from '../domain/state-machine';
import { findAppealOfDeal, findSettlement, insertAppeal, lockDealAndAppeal, setAppealStatus, type AppealChanges, type AppealRow } from '../db/queries/appeals';
import { lockDeal, type DealRow } from '../db/queries/deals';
import { writeOutboxEvent } from '../db/queries/outbox';
import { postEscrowRelease, postPayinCompletion } from '../db/queries/postings';
import { dealSteps } from './deal-steps';
import { payinSnapshot } from './snapshots';
import type { AppealMoveResult, OpenAppealInput, ResolveAppealInput } from '../workflows/contracts/payin';
import type { AppealMoveInput } from '../workflows/contracts/appeal';
import type { AuditActor } from '../domain/audit';
import { insertAudit } from '../db/queries/audit';
import { auditedAppeal } from './audit-views';

/** Which workflow runs the step: only the deal's own workflow may move a live deal. */
export type StepOwner = 'deal' | 'appeal';

/** The deal and its appeal, both locked (deal first), or 404. */
async function lockedAppeal(tx: Db, appealId: string): Promise<{ deal: DealRow; appeal: AppealRow }> {
  const locked = await lockDealAndAppeal(tx, appealId);
  if (!locked) throw new NotFound('appeal not found');
  return locked;
}

export function createAppealActivities(deps: ActivityDeps) {
  const { sql, config } = deps;
  const steps = dealSteps(deps);

  const appealEvent = (tx: Db, appeal: AppealRow, deal: DealRow) =>
    writeOutboxEvent(tx, {
      merchantId: appeal.merchant_id,
      dealId: appeal.deal_id,
      type: APPEAL_EVENT_BY_STATUS[appeal.status],
      discriminator: `${appeal.id}:v${appeal.version}`,
      payload: { appeal: appealView(appeal), ...dealEventPayload(deal, config.CHECKOUT_BASE_URL) },
    });

  const result = (appeal: AppealRow, deal: DealRow): AppealMoveResult => ({
    appealId: appeal.id,
    appealStatus: appeal.status,
    deal: payinSnapshot(deal),
  });

  async function moveAppealRow(tx: Db, appeal: AppealRow, deal: DealRow, to: AppealStatus, commandId: string, extra: AppealChanges = {}): Promise<AppealRow> {
    const updated = await setAppealStatus(tx, appeal, to, commandId, extra);
    await appealEvent(tx, updated, deal);
    return updated;
  }

  /** An operator's appeal move, audited in its transaction (none without an actor: an older sender). */
  async function auditAppeal(tx: Db, actor: AuditActor | undefined, action: string, before: [AppealRow, DealRow], after: [AppealRow, DealRow]) {
    if (!actor) return;
    await insertAudit(tx, actor, { action, objectType: 'appeal', objectId: after[0].id, before: auditedAppeal(...before), after: auditedAppeal(...after) });
  }

  return {
    /**
     * Opens an appeal (spec 4.5, contract 7). A live deal is held: APPEALED, deal.appealed, no
     * longer expirable, escrow stays locked. EXPIRED and COMPLETED deals stay as they are.
     */
    async openAppeal(input: OpenAppealInput, owner: StepOwner): Promise<AppealMoveResult> {
      return sql.begin(async (tx) => {
        const deal = await lockDeal(tx, input.dealId);
        if (!deal || deal.merchant_id !== input.merchantId) throw new NotFound('deal not found');
        if (deal.deal_type !== 'PAYIN') throw new InvalidArgument('appeals can be opened on PayIn deals only');
        const existing = await findAppealOfDeal(tx, deal.id);
        if (existing?.id === input.appealId) return result(existing, deal); // a retry of this very step
        const refused = appealOpenRefusal(deal.status, existing);
        if (refused) throw new FailedPrecondition(refused);
        const holds = APPEAL_HOLDS_DEAL.includes(deal.status as PayinStatus);
        if (holds && owner !== 'deal') throw new FailedPrecondition(`deal is ${deal.status}; a live deal is appealed through its own workflow`);
        let appeal: AppealRow;
        try {
          appeal = await insertAppeal(tx, {
            id: input.appealId,
            tenantId: deal.tenant_id,
            merchantId: deal.merchant_id,
            dealId: deal.id,
            reason: input.reason,
            fileIds: input.fileIds,
            dealStatusAtOpen: deal.status,
          });
        } catch (error) {
          if ((error as { code?: string }).code === '23505') throw new FailedPrecondition('an appeal was already opened for this deal');
          throw error;
        }
        const after = holds ? await steps.applyMove(tx, deal, PAYIN_TRANSITIONS.open_appeal) : deal;
        await appealEvent(tx, appeal, after);
        return result(appeal, after);
      });
    },

    /**
     * The arbiter's resolution (contract 4). On an APPEALED deal it moves the money: REJECTED →
     * CANCELLED with the escrow back to the trader (deal.cancelled); SATISFIED → COMPLETED through
     * the normal completion path (pending credit, fee distribution later; deal.completed). On a
     * terminal deal it records the decision, which must agree with the deal's final money.
     */
    async resolveAppeal(input: ResolveAppealInput, owner: StepOwner): Promise<AppealMoveResult> {
      return sql.begin(async (tx) => {
        const { deal, appeal } = await lockedAppeal(tx, input.appealId);
        if (appeal.last_command_id === input.commandId) return result(appeal, deal);
        const move = appealMove(appeal.status, resolveMove(input.outcome));
        if ('refused' in move) throw new FailedPrecondition(move.refused);
        const settlement = await findSettlement(tx, appeal.id);
        const dealMove = input.outcome === 'REJECTED' ? PAYIN_TRANSITIONS.appeal_rejected : PAYIN_TRANSITIONS.appeal_satisfied;
        let after = deal;
        if (allowsFrom(dealMove, deal.status)) {
          if (owner !== 'deal') throw new FailedPrecondition(`deal is ${deal.status}; its resolution runs in the deal workflow`);
          const traderWallet = await steps.walletOf(tx, 'trader', deal.trader_id!);
          if (input.outcome === 'REJECTED') {
            await postEscrowRelease(tx, deal, traderWallet, 'release');
            after = await steps.applyMove(tx, deal, dealMove, { cancel_reason: `appeal ${appeal.id} rejected` });
          } else {
            await postPayinCompletion(tx, deal, traderWallet);
            after = await steps.applyMove(tx, deal, dealMove);
          }
        } else {
          const problem = terminalResolutionProblem({
            dealStatus: deal.status,
            outcome: input.outcome,
            settled: settlement !== undefined,
            previousOutcome: appeal.outcome,
          });
          if (problem) throw new FailedPrecondition(problem);
        }
        const moved = await moveAppealRow(tx, appeal, after, move.to, input.commandId, {
          outcome: input.outcome,
          note: resolutionNote(input.note, settlement?.deal_id ?? null),
          resolvedBy: input.operatorId,
          resolved: true,
        });
        await auditAppeal(tx, input.actor, 'appeal.resolve', [appeal, deal], [moved, after]);
        return result(moved, after);
      });
    },

    /** review (→ IN_REVIEW), close (→ CLOSED), reopen (→ REOPENED): the appeal alone moves. */
    async moveAppeal(input: AppealMoveInput): Promise<AppealMoveResult> {
      return sql.begin(async (tx) => {
        const { deal, appeal } = await lockedAppeal(tx, input.appealId);
        if (appeal.last_command_id === input.commandId) return result(appeal, deal);
        const move = appealMove(appeal.status, input.kind);
        if ('refused' in move) throw new FailedPrecondition(move.refused);
        if (input.kind === 'close' && deal.status === 'APPEALED') {
          throw new FailedPrecondition('the deal is APPEALED and waits for this appeal: resolve it (SATISFIED or REJECTED) instead of closing it');
        }
        const moved = await moveAppealRow(tx, appeal, deal, move.to, input.commandId, { reopened: input.kind === 'reopen' });
        await auditAppeal(tx, input.actor, `appeal.${input.kind}`, [appeal, deal], [moved, deal]);
        return result(moved, deal);
      });
    },
  };
}
