/**
 * Appeal steps, the moves of APPEAL_TRANSITIONS (domain/state/appeals.ts) and what they do to the deal
 * (PAYIN_TRANSITIONS' open_appeal, appeal_rejected, appeal_satisfied), as the deal's or the
 * appeal's workflow decided them. Each is one Postgres transaction that locks the deal, then the
 * appeal (always in that order), checks the move against the same tables again (a safety net for
 * what changed since the workflow decided), moves the appeal, the deal and the money together and
 * writes their outbox events. A retried step of the same command (same appeal id / command id)
 * answers the committed result.
 */
import type { ActivityDeps } from './deps';
import type { Db } from '../db/sql';
import { Conflict, FailedPrecondition, InvalidArgument, NotFound } from '../domain/errors';
import {
  APPEAL_EVENT_BY_STATUS,
  APPEAL_HOLDS_DEAL,
  appealMove,
  appealOpenRefusal,
  appealView,
  liveDealRefusal,
  resolutionNote,
  resolveMove,
  terminalResolutionProblem,
  traderAnswerRefusal,
  type AppealStatus,
} from '../domain/state/appeals';
import { dealEventPayload } from '../domain/records/deal-info';
import { PAYIN_TRANSITIONS, type PayinStatus } from '../domain/state/payin';
import { allowsFrom } from '../domain/state/state-machine';
import {
  findAppeal,
  findAppealOfDeal,
  findSettlement,
  databaseNow,
  insertAppeal,
  lockDealAndAppeal,
  markTraderAnswered,
  setAppealStatus,
  type AppealChanges,
  type AppealRow,
} from '../db/queries/appeals';
import { findDeal, lockDeal, type DealRow } from '../db/queries/deals';
import { writeOutboxEvent } from '../db/queries/outbox';
import { postEscrowRelease, postPayinCompletion } from '../db/queries/postings';
import { dealMoves } from './deal-moves';
import { payinSnapshot } from './snapshots';
import type { AppealMoveResult, OpenAppealInput, ResolveAppealInput } from '../workflows/contracts/payin';
import type { AppealMoveInput, AppealState, TraderAnswerInput } from '../workflows/contracts/appeal';
import { presentMessage, writeAppealMessage } from '../db/queries/appeal-messages';
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
  const moves = dealMoves(deps);

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

  /** An operator's appeal move, audited in its transaction. */
  async function auditAppeal(tx: Db, actor: AuditActor, action: string, before: [AppealRow, DealRow], after: [AppealRow, DealRow]) {
    await insertAudit(tx, actor, { action, objectType: 'appeal', objectId: after[0].id, before: auditedAppeal(...before), after: auditedAppeal(...after) });
  }

  return {
    /**
     * What the appeal's workflow decides a command on: the appeal (by id; for an open, the deal's
     * appeal) and its deal, read without locks — the move's step checks again under them.
     */
    async readAppealState(appealId: string, dealId?: string): Promise<AppealState> {
      const appeal = dealId ? await findAppealOfDeal(sql, dealId) : await findAppeal(sql, appealId);
      const dealOf = dealId ?? appeal?.deal_id;
      const deal = dealOf ? await findDeal(sql, dealOf) : undefined;
      const settled = appeal ? (await findSettlement(sql, appeal.id)) !== undefined : false;
      return {
        ...(deal ? { dealStatus: deal.status } : {}),
        ...(appeal ? { appeal: { id: appeal.id, status: appeal.status, outcome: appeal.outcome, lastCommandId: appeal.last_command_id, settled } } : {}),
      };
    },

    /**
     * Opens an appeal. A live deal is held: APPEALED, deal.appealed, no
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
        const live = owner === 'appeal' ? liveDealRefusal('open', deal.status) : undefined;
        if (live) throw new FailedPrecondition(live);
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
            respondWithinSeconds: config.APPEAL_RESPONSE_SLA_SECONDS,
            traderRespondWithinSeconds: config.APPEAL_TRADER_RESPONSE_SECONDS,
          });
        } catch (error) {
          if ((error as { code?: string }).code === '23505') throw new FailedPrecondition('an appeal was already opened for this deal');
          throw error;
        }
        const after = holds ? await moves.applyMove(tx, deal, PAYIN_TRANSITIONS.open_appeal) : deal;
        await appealEvent(tx, appeal, after);
        return result(appeal, after);
      });
    },

    /**
     * The arbiter's resolution. On an APPEALED deal it moves the money: REJECTED →
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
          const live = owner === 'appeal' ? liveDealRefusal(resolveMove(input.outcome), deal.status) : undefined;
          if (live) throw new FailedPrecondition(live);
          const traderWallet = await moves.walletOf(tx, 'trader', deal.trader_id!);
          if (input.outcome === 'REJECTED') {
            await postEscrowRelease(tx, deal, traderWallet, 'release');
            after = await moves.applyMove(tx, deal, dealMove, { cancel_reason: `appeal ${appeal.id} rejected` });
          } else {
            await postPayinCompletion(tx, deal, traderWallet);
            after = await moves.applyMove(tx, deal, dealMove);
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

    /**
     * The trader of the appealed deal answers: its statement and evidence as one TRADER message,
     * the first answer's time stamped on the appeal, audited with the trader account — all in one
     * transaction under the deal's and the appeal's locks. Refused (409) once the appeal no longer
     * waits for the arbiter or the trader's deadline passed (traderAnswerRefusal, at the
     * database's clock). A retried step (the same message id) answers without writing again.
     */
    async answerAppealAsTrader(input: TraderAnswerInput): Promise<AppealMoveResult> {
      return sql.begin(async (tx) => {
        const { deal, appeal } = await lockedAppeal(tx, input.appealId);
        if (deal.trader_id !== input.traderId) throw new NotFound('appeal not found');
        const [stored] = await tx<{ id: string }[]>`select id from appeal_messages where id = ${input.messageId}`;
        if (stored) return result(appeal, deal);
        const refused = traderAnswerRefusal(appeal, await databaseNow(tx));
        if (refused) throw new Conflict(refused);
        const message = await writeAppealMessage(tx, config.CHECKOUT_BASE_URL, appeal, {
          id: input.messageId,
          senderRole: 'TRADER',
          senderId: input.traderId,
          body: input.body,
          fileIds: input.fileIds,
        });
        const answered = await markTraderAnswered(tx, appeal.id);
        await insertAudit(tx, input.actor, {
          action: 'appeal.trader_answer',
          objectType: 'appeal',
          objectId: appeal.id,
          before: { trader_responded_at: appeal.trader_responded_at?.toISOString() ?? '' },
          after: { ...presentMessage(message), trader_responded_at: answered.trader_responded_at!.toISOString() },
        });
        return result(answered, deal);
      });
    },

    /** review (→ IN_REVIEW), close (→ CLOSED), reopen (→ REOPENED): the appeal alone moves. */
    async moveAppeal(input: AppealMoveInput): Promise<AppealMoveResult> {
      return sql.begin(async (tx) => {
        const { deal, appeal } = await lockedAppeal(tx, input.appealId);
        if (appeal.last_command_id === input.commandId) return result(appeal, deal);
        const move = appealMove(appeal.status, input.kind);
        if ('refused' in move) throw new FailedPrecondition(move.refused);
        const live = liveDealRefusal(input.kind, deal.status);
        if (live) throw new FailedPrecondition(live);
        // A reopened appeal waits for an answer again: a new deadline.
        const reopen = input.kind === 'reopen' ? { reopened: true, respondWithinSeconds: config.APPEAL_RESPONSE_SLA_SECONDS } : {};
        const moved = await moveAppealRow(tx, appeal, deal, move.to, input.commandId, reopen);
        await auditAppeal(tx, input.actor, `appeal.${input.kind}`, [appeal, deal], [moved, deal]);
        return result(moved, deal);
      });
    },
  };
}
