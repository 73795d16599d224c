/**
 * Settlement of an EXPIRED deal: PAYIN_TRANSITIONS.settle (domain/state/payin.ts).
 * One settlement deal per appeal; the same idempotency_key answers it again, another is 409.
 */
import type { ActivityDeps } from './deps';
import type { Db } from '../db/sql';
import { Conflict, FailedPrecondition, InvalidArgument, NotFound } from '../domain/errors';
import { settledAppealDeal, settlementRefusal } from '../domain/state/appeals';
import { newCheckoutHash } from '../domain/ids';
import { fiatToUsdtCents } from '../domain/money';
import { PAYIN_TRANSITIONS, payinMoney } from '../domain/state/payin';
import { findSettlement, insertSettlement, lockDealAndAppeal, type AppealRow } from '../db/queries/appeals';
import { findNewDealTerms } from '../db/queries/catalog';
import { findDeal, insertDeal, type DealRow } from '../db/queries/deals';
import { postSettlement } from '../db/queries/postings';
import { dealMoves } from './deal-moves';
import { insertAudit } from '../db/queries/audit';
import { auditedAppeal, auditedDeal } from './audit-views';
import type { SettlementRequest, SettlementResult } from '../workflows/contracts/settlement';

/** The status each of the settlement deal's events shows, with its event id discriminator. */
const SETTLEMENT_EVENT_STATUS: Record<string, { status: string; discriminator: string }> = {
  'deal.created': { status: 'INITIALIZED', discriminator: 'created' },
  'deal.escrow_locked': { status: 'ESCROW_LOCKED', discriminator: 'ESCROW_LOCKED' },
  'deal.payment_verified': { status: 'PAYMENT_VERIFIED', discriminator: 'PAYMENT_VERIFIED' },
  'deal.completed': { status: 'COMPLETED', discriminator: 'COMPLETED' },
};

type Parent = DealRow;

/** Why the appeal cannot be settled now (409), or the fiat amount the settlement deal is for. */
function settlementAmount(parent: Parent, appeal: AppealRow, req: SettlementRequest): bigint {
  const refused = settlementRefusal(parent.status, appeal.status);
  if (refused) throw new Conflict(refused);
  const amount = req.receivedAmountOverride !== null ? BigInt(req.receivedAmountOverride) : parent.received_amount;
  if (amount <= 0n) {
    throw new Conflict('the expired deal has no received_amount: nothing was reported received; send received_amount_override with a reason');
  }
  return amount;
}

/** The settlement deal's worth at today's BUY rate and the merchant's PayIn fee (currency, rate and fees in one query, as a new deal's). */
async function settlementTerms(tx: Db, parent: Parent, amount: bigint) {
  const terms = await findNewDealTerms(tx, parent.tenant_id, parent.merchant_id, parent.currency);
  if (terms.currency_exponent === null) throw new FailedPrecondition(`currency ${parent.currency} is not active`);
  if (terms.buy_rate_micro === null) throw new FailedPrecondition(`no exchange rate is set for ${parent.currency}`);
  const amountUsdt = fiatToUsdtCents(amount, terms.currency_exponent, terms.buy_rate_micro);
  if (amountUsdt <= 0n) throw new InvalidArgument('the settlement amount converts to 0 USDT cents');
  return { amountUsdt, rateMicro: terms.buy_rate_micro, feeBps: terms.payin_fee_bps!, money: payinMoney(amountUsdt, terms.payin_fee_bps!, false) };
}

/**
 * The settlement deal's row: the parent's merchant, method, requisite and trader, COMPLETED with
 * the amount received. Its key `settlement:<appeal_id>` is outside the merchant's key space
 * (deals_merchant_key covers only deals without origin_appeal_id), so a merchant PayIn under the
 * same key cannot collide; any other unique collision is a conflict (409), never an endlessly
 * retried step.
 */
function insertSettlementDeal(
  tx: Db,
  req: SettlementRequest,
  parent: Parent,
  appealId: string,
  amount: bigint,
  terms: Awaited<ReturnType<typeof settlementTerms>>,
): Promise<DealRow> {
  return insertDeal(tx, {
    id: req.dealId,
    tenantId: parent.tenant_id,
    merchantId: parent.merchant_id,
    dealType: 'PAYIN',
    status: PAYIN_TRANSITIONS.settle.to!,
    idempotencyKey: `settlement:${appealId}`,
    amount,
    currency: parent.currency,
    clientId: parent.client_id,
    paymentMethodId: parent.payment_method_id,
    requisiteId: parent.requisite_id,
    traderId: parent.trader_id,
    checkoutHash: newCheckoutHash(),
    description: parent.description,
    callbackUrl: parent.callback_url,
    payerBank: parent.payer_bank,
    isClientCommission: false,
    amountUsdt: terms.amountUsdt,
    exchangeRateMicro: terms.rateMicro,
    feeUsdt: terms.money.fee,
    feeBps: terms.feeBps,
    escrowUsdt: terms.money.escrow,
    receivedAmount: amount,
    amountMatchStatus: 'full',
    parentDealId: parent.id,
    originAppealId: appealId,
  }).catch((error: { code?: string; constraint_name?: string }) => {
    if (error.code === '23505') {
      throw new Conflict(`the settlement deal of appeal ${appealId} collides with an existing deal (${error.constraint_name ?? 'unique key'})`);
    }
    throw error;
  });
}

export function createSettlementActivities(deps: ActivityDeps) {
  const { sql } = deps;
  const moves = dealMoves(deps);

  return {
    /**
     * In one transaction: a new PayIn deal for the received amount at today's rate, its escrow
     * locked on the parent's trader (who received the payer's money), verified and COMPLETED
     * through the normal completion path, with deal.created, deal.escrow_locked,
     * deal.payment_verified and deal.completed. The parent stays EXPIRED. A settled appeal answers
     * its deal again (same key) or 409 (another key).
     */
    async createSettlementDeal(req: SettlementRequest): Promise<SettlementResult> {
      return sql.begin(async (tx) => {
        const locked = await lockDealAndAppeal(tx, req.appealId);
        if (!locked) throw new NotFound('appeal not found');
        const { deal: parent, appeal } = locked;
        const existing = await findSettlement(tx, appeal.id);
        if (existing) {
          const dealId = settledAppealDeal(existing, appeal.id, req.idempotencyKey);
          return { dealId, status: (await findDeal(tx, dealId))!.status, replayed: true };
        }

        const amount = settlementAmount(parent, appeal, req);
        const terms = await settlementTerms(tx, parent, amount);
        const deal = await insertSettlementDeal(tx, req, parent, appeal.id, amount, terms);
        await insertSettlement(tx, {
          appealId: appeal.id,
          dealId: deal.id,
          idempotencyKey: req.idempotencyKey,
          receivedAmountOverride: req.receivedAmountOverride !== null ? amount : null,
          reason: req.reason,
          operatorId: req.operatorId,
        });
        await postSettlement(tx, deal, await moves.walletOf(tx, 'trader', parent.trader_id!)).catch((error: unknown) => {
          if (!(error instanceof FailedPrecondition)) throw error;
          throw new FailedPrecondition(
            `insufficient balance: the expired deal's trader has less than ${terms.money.escrow} USDT cents available to back the settlement`,
          );
        });
        for (const type of PAYIN_TRANSITIONS.settle.events) {
          const { status, discriminator } = SETTLEMENT_EVENT_STATUS[type]!;
          await moves.event(tx, { ...deal, status }, type, discriminator);
        }
        // The operator's settlement and its audit row in one transaction.
        if (req.actor) {
          await insertAudit(tx, req.actor, {
            action: 'appeal.settlement',
            objectType: 'appeal',
            objectId: appeal.id,
            before: auditedAppeal(appeal, parent),
            after: {
              ...auditedAppeal(appeal, parent),
              settlement: {
                ...auditedDeal(deal),
                deal_id: deal.id,
                idempotency_key: req.idempotencyKey,
                received_amount_override: req.receivedAmountOverride,
                reason: req.reason,
              },
            },
          });
        }
        return { dealId: deal.id, status: deal.status, replayed: false };
      });
    },
  };
}
