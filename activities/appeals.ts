/**
 * Appeal steps (issue 9). Each is one Postgres transaction that locks the deal, then the appeal
 * (always in that order), checks the move against the table of domain/appeals.ts, moves the
 * appeal, the deal and the money together and writes their outbox events. A retried step of the
 * same command (same appeal id / command id / idempotency key) answers the committed result.
 */
import type { ActivityDeps } from './index';
import type { Db } from '../db/sql';
import { Conflict, FailedPrecondition, InvalidArgument, NotFound } from '../domain/errors';
import {
  APPEAL_EVENT_BY_STATUS,
  APPEAL_HOLDS_DEAL,
  APPEAL_REFUSED_DEAL_STATUSES,
  SETTLEABLE_APPEAL,
  appealMove,
  appealView,
  resolutionNote,
  resolveMove,
  terminalResolutionProblem,
  type AppealMoveKind,
} from '../domain/appeals';
import { dealEventPayload } from '../domain/deal-info';
import { newCheckoutHash } from '../domain/ids';
import { fiatToUsdtCents } from '../domain/money';
import { payinMoney, type PayinStatus } from '../domain/payin';
import { findAppealOfDeal, findSettlement, lockAppeal, type AppealRow } from '../db/queries/appeals';
import { findCurrency } from '../db/queries/catalog';
import { findDeal, lockDeal, type DealRow } from '../db/queries/deals';
import { moveHold } from '../db/queries/ledger';
import { writeOutboxEvent } from '../db/queries/outbox';
import { dealSteps } from './deal-steps';
import { postPayinCompletion, snapshotOf } from './payins';
import type { AppealMoveResult, OpenAppealInput, ResolveAppealInput } from '../workflows/contracts/payin';
import type { SettlementRequest, SettlementResult } from '../workflows/contracts/settlement';

/** Which workflow runs the step: only the deal's own workflow may move a live deal. */
export type StepOwner = 'deal' | 'appeal';

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
    deal: snapshotOf(deal),
  });

  async function setDealStatus(tx: Db, deal: DealRow, to: PayinStatus, eventType: string, cancelReason?: string): Promise<DealRow> {
    const [updated] = await tx<DealRow[]>`
      update deals set status = ${to}, updated_at = now(), cancel_reason = ${cancelReason ?? deal.cancel_reason}
      where id = ${deal.id} returning *`;
    await steps.event(tx, updated!, eventType, to);
    return updated!;
  }

  /** The deal (locked first) and then the appeal (locked), or 404. */
  async function lockDealAndAppeal(tx: Db, appealId: string): Promise<{ deal: DealRow; appeal: AppealRow }> {
    const [peek] = await tx<{ deal_id: string }[]>`select deal_id from appeals where id = ${appealId}`;
    if (!peek) throw new NotFound('appeal not found');
    const deal = await lockDeal(tx, peek.deal_id);
    const appeal = await lockAppeal(tx, appealId);
    if (!deal || !appeal) throw new NotFound('appeal not found');
    return { deal, appeal };
  }

  async function moveAppealRow(
    tx: Db,
    appeal: AppealRow,
    deal: DealRow,
    to: AppealRow['status'],
    commandId: string,
    extra: { outcome?: string; note?: string; resolvedBy?: string; resolved?: boolean; reopened?: boolean } = {},
  ): Promise<AppealRow> {
    const [updated] = await tx<AppealRow[]>`
      update appeals set status = ${to}, version = version + 1, last_command_id = ${commandId}, updated_at = now(),
        outcome = ${extra.outcome ?? appeal.outcome},
        resolution_note = ${extra.note ?? appeal.resolution_note},
        resolved_by = ${extra.resolvedBy ?? appeal.resolved_by},
        resolved_at = ${extra.resolved ? tx`now()` : extra.reopened ? null : appeal.resolved_at}
      where id = ${appeal.id} returning *`;
    await appealEvent(tx, updated!, deal);
    return updated!;
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
        if (existing) {
          throw new FailedPrecondition(
            `an appeal was already opened for this deal (appeal ${existing.id}, ${existing.status}); one appeal per deal — an operator may reopen it`,
          );
        }
        if (APPEAL_REFUSED_DEAL_STATUSES.includes(deal.status as PayinStatus)) {
          throw new FailedPrecondition(`deal is ${deal.status}; it cannot be appealed`);
        }
        const holds = APPEAL_HOLDS_DEAL.includes(deal.status as PayinStatus);
        if (holds && owner !== 'deal') throw new FailedPrecondition(`deal is ${deal.status}; a live deal is appealed through its own workflow`);
        let appeal: AppealRow;
        try {
          [appeal] = (await tx<AppealRow[]>`
            insert into appeals (id, tenant_id, merchant_id, deal_id, status, reason, file_ids, deal_status_at_open, last_command_id)
            values (${input.appealId}, ${deal.tenant_id}, ${deal.merchant_id}, ${deal.id}, 'OPEN', ${input.reason},
              ${input.fileIds}::uuid[], ${deal.status}, ${input.appealId})
            returning *`) as unknown as [AppealRow];
        } catch (error) {
          if ((error as { code?: string }).code === '23505') throw new FailedPrecondition('an appeal was already opened for this deal');
          throw error;
        }
        const after = holds ? await setDealStatus(tx, deal, 'APPEALED', 'deal.appealed') : deal;
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
        const { deal, appeal } = await lockDealAndAppeal(tx, input.appealId);
        if (appeal.last_command_id === input.commandId) return result(appeal, deal);
        const move = appealMove(appeal.status, resolveMove(input.outcome));
        if ('refused' in move) throw new FailedPrecondition(move.refused);
        const settlement = await findSettlement(tx, appeal.id);
        let after = deal;
        if (deal.status === 'APPEALED') {
          if (owner !== 'deal') throw new FailedPrecondition('deal is APPEALED; its resolution runs in the deal workflow');
          const traderWallet = await steps.walletOf(tx, 'trader', deal.trader_id!);
          if (input.outcome === 'REJECTED') {
            await moveHold(tx, { key: `deal:${deal.id}:release`, kind: 'escrow_release', refId: deal.id, walletId: traderWallet, amount: deal.escrow_usdt, direction: 'release' });
            after = await setDealStatus(tx, deal, 'CANCELLED', 'deal.cancelled', `appeal ${appeal.id} rejected`);
          } else {
            await postPayinCompletion(tx, deal, traderWallet);
            after = await setDealStatus(tx, deal, 'COMPLETED', 'deal.completed');
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
        return result(moved, after);
      });
    },

    /** review (→ IN_REVIEW), close (→ CLOSED), reopen (→ REOPENED): the appeal alone moves. */
    async moveAppeal(input: { appealId: string; kind: Extract<AppealMoveKind, 'review' | 'close' | 'reopen'>; operatorId: string; commandId: string }): Promise<AppealMoveResult> {
      return sql.begin(async (tx) => {
        const { deal, appeal } = await lockDealAndAppeal(tx, input.appealId);
        if (appeal.last_command_id === input.commandId) return result(appeal, deal);
        const move = appealMove(appeal.status, input.kind);
        if ('refused' in move) throw new FailedPrecondition(move.refused);
        if (input.kind === 'close' && deal.status === 'APPEALED') {
          throw new FailedPrecondition('the deal is APPEALED and waits for this appeal: resolve it (SATISFIED or REJECTED) instead of closing it');
        }
        const moved = await moveAppealRow(tx, appeal, deal, move.to, input.commandId, { reopened: input.kind === 'reopen' });
        return result(moved, deal);
      });
    },

    /**
     * Settlement of an EXPIRED deal (spec 4.1.4, 2.9), in one transaction: a new PayIn deal for
     * the received amount at today's rate, its escrow locked on the parent's trader (who received
     * the payer's money), verified and COMPLETED through the normal completion path, with
     * deal.created, deal.escrow_locked, deal.payment_verified and deal.completed. The parent
     * stays EXPIRED. One per appeal: the same idempotency_key answers it again, another is 409.
     */
    async createSettlementDeal(req: SettlementRequest): Promise<SettlementResult> {
      return sql.begin(async (tx) => {
        const [peek] = await tx<{ deal_id: string }[]>`select deal_id from appeals where id = ${req.appealId}`;
        if (!peek) throw new NotFound('appeal not found');
        const parent = await lockDeal(tx, peek.deal_id);
        const appeal = await lockAppeal(tx, req.appealId);
        if (!parent || !appeal) throw new NotFound('appeal not found');

        const existing = await findSettlement(tx, appeal.id);
        if (existing) {
          if (existing.idempotency_key !== req.idempotencyKey) {
            throw new Conflict(`appeal ${appeal.id} was already settled by deal ${existing.deal_id} under another idempotency_key`);
          }
          const deal = await findDeal(tx, existing.deal_id);
          return { dealId: existing.deal_id, status: deal!.status, replayed: true };
        }
        if (parent.status !== 'EXPIRED') throw new Conflict(`the appealed deal is ${parent.status}; only an EXPIRED deal can be settled`);
        if (!SETTLEABLE_APPEAL.includes(appeal.status)) {
          throw new Conflict(`appeal is ${appeal.status}; a settlement needs it OPEN, IN_REVIEW (IN_PROGRESS) or REOPENED`);
        }
        const amount = req.receivedAmountOverride !== null ? BigInt(req.receivedAmountOverride) : parent.received_amount;
        if (amount <= 0n) {
          throw new Conflict('the expired deal has no received_amount: nothing was reported received; send received_amount_override with a reason');
        }
        const currency = await findCurrency(tx, parent.tenant_id, parent.currency);
        if (!currency) throw new FailedPrecondition(`currency ${parent.currency} is not active`);
        const [rate] = await tx<{ buy_rate_micro: bigint }[]>`
          select buy_rate_micro from rates where tenant_id = ${parent.tenant_id} and currency_code = ${parent.currency}`;
        if (!rate) throw new FailedPrecondition(`no exchange rate is set for ${parent.currency}`);
        const [merchant] = await tx<{ payin_fee_bps: number }[]>`select payin_fee_bps from merchants where id = ${parent.merchant_id}`;
        const amountUsdt = fiatToUsdtCents(amount, currency.exponent, rate.buy_rate_micro);
        if (amountUsdt <= 0n) throw new InvalidArgument('the settlement amount converts to 0 USDT cents');
        const money = payinMoney(amountUsdt, merchant!.payin_fee_bps, false);

        // The key `settlement:<appeal_id>` is outside the merchant's key space (deals_merchant_key covers
        // only deals without origin_appeal_id), so a merchant PayIn under the same key cannot collide.
        // Any other unique collision is a conflict (409), never an endlessly retried step.
        const [deal] = await tx<DealRow[]>`
          insert into deals (id, tenant_id, merchant_id, deal_type, status, idempotency_key, amount, currency, client_id,
            payment_method_id, requisite_id, trader_id, checkout_hash, description, callback_url, payer_bank,
            is_client_commission, amount_usdt, exchange_rate_micro, fee_usdt, fee_bps, escrow_usdt,
            received_amount, amount_match_status, parent_deal_id, origin_appeal_id)
          values (${req.dealId}, ${parent.tenant_id}, ${parent.merchant_id}, 'PAYIN', 'COMPLETED', ${`settlement:${appeal.id}`},
            ${amount}, ${parent.currency}, ${parent.client_id}, ${parent.payment_method_id}, ${parent.requisite_id},
            ${parent.trader_id}, ${newCheckoutHash()}, ${parent.description}, ${parent.callback_url}, ${parent.payer_bank},
            false, ${amountUsdt}, ${rate.buy_rate_micro}, ${money.fee}, ${merchant!.payin_fee_bps}, ${money.escrow},
            ${amount}, 'full', ${parent.id}, ${appeal.id})
          returning *`.catch((error: { code?: string; constraint_name?: string }) => {
          if (error.code === '23505') {
            throw new Conflict(`the settlement deal of appeal ${appeal.id} collides with an existing deal (${error.constraint_name ?? 'unique key'})`);
          }
          throw error;
        });
        await tx`
          insert into appeal_settlements (appeal_id, deal_id, idempotency_key, received_amount_override, reason, operator_id)
          values (${appeal.id}, ${deal!.id}, ${req.idempotencyKey}, ${req.receivedAmountOverride !== null ? amount : null},
            ${req.reason}, ${req.operatorId})`;

        const traderWallet = await steps.walletOf(tx, 'trader', parent.trader_id!);
        try {
          await moveHold(tx, { key: `deal:${deal!.id}:escrow:v1`, kind: 'escrow_lock', refId: deal!.id, walletId: traderWallet, amount: money.escrow, direction: 'lock' });
        } catch (error) {
          if (error instanceof FailedPrecondition) {
            throw new FailedPrecondition(
              `insufficient balance: the expired deal's trader has less than ${money.escrow} USDT cents available to back the settlement`,
            );
          }
          throw error;
        }
        await postPayinCompletion(tx, deal!, traderWallet);
        for (const [type, status] of [
          ['deal.created', 'INITIALIZED'],
          ['deal.escrow_locked', 'ESCROW_LOCKED'],
          ['deal.payment_verified', 'PAYMENT_VERIFIED'],
          ['deal.completed', 'COMPLETED'],
        ] as const) {
          await steps.event(tx, { ...deal!, status }, type, status === 'INITIALIZED' ? 'created' : status);
        }
        return { dealId: deal!.id, status: deal!.status, replayed: false };
      });
    },

    /** A pass whose expires_at passed leaves ACTIVE (a USED pass stays USED). */
    async expirePass(passId: string): Promise<void> {
      await sql`update passes set status = 'EXPIRED', updated_at = now() where id = ${passId} and status = 'ACTIVE' and expires_at <= now()`;
    },
  };
}
