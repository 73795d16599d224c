/**
 * PayIn steps. Each is one Postgres transaction that checks the deal's current status under a
 * row lock, moves money through keyed ledger postings and writes its outbox event, so an
 * activity retry after a commit is a no-op that returns the same snapshot.
 */
import type { ActivityDeps } from './index';
import type { Db } from '../db/sql';
import { Conflict, FailedPrecondition, InvalidArgument, NotFound } from '../domain/errors';
import { newCheckoutHash, newId } from '../domain/ids';
import { fiatToUsdtCents } from '../domain/money';
import {
  amountMatch,
  amountToPay,
  PAYIN_AMOUNT_CHANGEABLE,
  PAYIN_CANCELLABLE,
  PAYIN_CONFIRMABLE,
  PAYIN_EXPIRABLE,
  payinMoney,
  type PayinStatus,
} from '../domain/payin';
import { findCurrency } from '../db/queries/catalog';
import { findDeal, lockDeal, type DealRow } from '../db/queries/deals';
import { checkDailyCap } from '../db/queries/limits';
import { dealSteps, type StepChanges } from './deal-steps';
import { moveHold, postLedger, type LedgerEntry } from '../db/queries/ledger';
import { claimRequisite } from '../db/queries/matching';
import { claimThroughPass } from '../db/queries/passes';
import { ensureSystemWallet, ensureWallet } from '../db/queries/wallets';
import type { CreatePayinInput, PayinSnapshot } from '../workflows/contracts/payin';

export function snapshotOf(row: DealRow): PayinSnapshot {
  return {
    status: row.status as PayinStatus,
    amount: row.amount.toString(),
    amountVersion: row.amount_version.toString(),
    receivedAmount: row.received_amount.toString(),
    amountMatchStatus: row.amount_match_status,
    paymentTimeoutAt: row.payment_timeout_at?.toISOString() ?? '',
  };
}

/** The trader's USDT for one amount version of a deal: available → frozen. */
const lockEscrow = (tx: Db, dealId: string, traderWalletId: string, amount: bigint, version: bigint) =>
  moveHold(tx, { key: `deal:${dealId}:escrow:v${version}`, kind: 'escrow_lock', refId: dealId, walletId: traderWalletId, amount, direction: 'lock' });

/**
 * The completion money path: the trader's frozen escrow becomes the merchant's pending credit
 * (escrow − fee) and the platform's pending fee. Shared by trader confirmation, an appeal
 * resolved SATISFIED and a settlement deal (activities/appeals.ts).
 */
export async function postPayinCompletion(tx: Db, row: DealRow, traderWalletId: string): Promise<void> {
  const fee = row.fee_usdt;
  const merchantNet = row.escrow_usdt - fee;
  const merchantWallet = (await ensureWallet(tx, 'merchant', row.merchant_id, 'USDT')).id;
  const platform = await ensureSystemWallet(tx, 'platform_fees', 'USDT');
  const entries: LedgerEntry[] = [
    { walletId: traderWalletId, bucket: 'frozen', amount: -row.escrow_usdt },
    { walletId: merchantWallet, bucket: 'pending_credits', amount: merchantNet },
    { walletId: platform, bucket: 'pending_credits', amount: fee },
  ];
  await postLedger(tx, { key: `deal:${row.id}:complete`, kind: 'payin_complete', refType: 'deal', refId: row.id, entries });
}

export function createPayinActivities(deps: ActivityDeps) {
  const { sql, config } = deps;
  const steps = dealSteps(deps);
  const event = steps.event;
  const traderWallet = (tx: Db, row: DealRow) => steps.walletOf(tx, 'trader', row.trader_id!);

  /** Returns the escrow to the trader: frozen → available. */
  async function releaseEscrow(tx: Db, row: DealRow, step: string) {
    const walletId = await traderWallet(tx, row);
    await moveHold(tx, { key: `deal:${row.id}:${step}`, kind: 'escrow_release', refId: row.id, walletId, amount: row.escrow_usdt, direction: 'release' });
  }

  const transition = async (
    dealId: string,
    from: readonly PayinStatus[],
    to: PayinStatus,
    effects: (tx: Db, row: DealRow) => Promise<StepChanges | void>,
    eventType: string,
  ) => snapshotOf(await steps.transition(dealId, from, to, effects, eventType));

  return {
    /** Matching, escrow and the deal row in one transaction; nothing is left behind when no requisite fits. */
    async createPayinDeal(input: CreatePayinInput): Promise<PayinSnapshot> {
      return sql.begin(async (tx) => {
        const existing = await findDeal(tx, input.dealId);
        if (existing) return snapshotOf(existing);
        const amount = BigInt(input.amount);
        const [merchant] = await tx<{ payin_fee_bps: number }[]>`select payin_fee_bps from merchants where id = ${input.merchantId}`;
        if (!merchant) throw new NotFound('merchant not found');
        const currency = await findCurrency(tx, input.tenantId, input.currency);
        if (!currency) throw new InvalidArgument(`unknown currency ${input.currency}`);
        const [rate] = await tx<{ buy_rate_micro: bigint }[]>`
          select buy_rate_micro from rates where tenant_id = ${input.tenantId} and currency_code = ${input.currency}`;
        if (!rate) throw new FailedPrecondition(`no exchange rate is set for ${input.currency}`);
        const amountUsdt = fiatToUsdtCents(amount, currency.exponent, rate.buy_rate_micro);
        if (amountUsdt <= 0n) throw new InvalidArgument('amount is too small: it converts to 0 USDT cents');
        const money = payinMoney(amountUsdt, merchant.payin_fee_bps, input.isClientCommission);

        await checkDailyCap(tx, input.merchantId, amount);
        const request = { paymentMethodId: input.paymentMethodId, amount, escrowUsdt: money.escrow, payerBank: input.payerBank };
        // Spec 3.4 / 4.6: a matching pass of the merchant routes the deal past the cascade (db/queries/passes.ts).
        const passDeal = {
          merchantId: input.merchantId,
          dealId: input.dealId,
          amount,
          currencyId: currency.id,
          paymentMethodId: input.paymentMethodId,
          arrivedAt: input.arrivedAt,
        };
        const match = (await claimThroughPass(tx, passDeal, request)) ?? (await claimRequisite(tx, request));
        if (!match) {
          throw new FailedPrecondition('no trader is available for this payment method and amount right now; retry later with the same idempotency_key');
        }

        const [row] = await tx<DealRow[]>`
          insert into deals (id, tenant_id, merchant_id, deal_type, status, idempotency_key, amount, currency, client_id,
            payment_method_id, requisite_id, trader_id, checkout_hash, description, callback_url, payer_bank,
            is_client_commission, amount_usdt, exchange_rate_micro, fee_usdt, fee_bps, escrow_usdt, payment_timeout_at)
          values (${input.dealId}, ${input.tenantId}, ${input.merchantId}, 'PAYIN', 'ESCROW_LOCKED', ${input.idempotencyKey},
            ${amount}, ${input.currency}, ${input.clientId}, ${input.paymentMethodId}, ${match.requisite_id}, ${match.trader_id},
            ${newCheckoutHash()}, ${input.description}, ${input.callbackUrl}, ${input.payerBank}, ${input.isClientCommission},
            ${amountUsdt}, ${rate.buy_rate_micro}, ${money.fee}, ${merchant.payin_fee_bps}, ${money.escrow},
            now() + make_interval(secs => ${config.PAYIN_TIMEOUT_SECONDS}))
          returning *`;
        await lockEscrow(tx, row!.id, match.trader_wallet_id, money.escrow, 1n);
        await event(tx, { ...row!, status: 'INITIALIZED' }, 'deal.created', 'created');
        await event(tx, row!, 'deal.escrow_locked', 'ESCROW_LOCKED');
        return snapshotOf(row!);
      });
    },

    /** The deal's snapshot if its row exists (a create attempt committed), else null. */
    async findPayinSnapshot(dealId: string): Promise<PayinSnapshot | null> {
      const row = await findDeal(sql, dealId);
      return row ? snapshotOf(row) : null;
    },

    async markPaymentNotified(dealId: string): Promise<PayinSnapshot> {
      return transition(dealId, ['ESCROW_LOCKED'], 'PAYMENT_NOTIFIED', async () => {}, 'deal.payment_notified');
    },

    async markPaymentVerified(dealId: string): Promise<PayinSnapshot> {
      return transition(dealId, PAYIN_CONFIRMABLE, 'PAYMENT_VERIFIED', async () => {}, 'deal.payment_verified');
    },

    /** Escrow settles: the trader's frozen USDT becomes the merchant's pending credit and the platform's pending fee. */
    async completePayin(dealId: string): Promise<PayinSnapshot> {
      return transition(
        dealId,
        ['PAYMENT_VERIFIED'],
        'COMPLETED',
        async (tx, row) => postPayinCompletion(tx, row, await traderWallet(tx, row)),
        'deal.completed',
      );
    },

    async expirePayin(dealId: string): Promise<PayinSnapshot> {
      return transition(dealId, PAYIN_EXPIRABLE, 'EXPIRED', (tx, row) => releaseEscrow(tx, row, 'release'), 'deal.expired');
    },

    async cancelPayin(dealId: string, reason: string): Promise<PayinSnapshot> {
      return transition(
        dealId,
        PAYIN_CANCELLABLE,
        'CANCELLED',
        async (tx, row) => {
          await releaseEscrow(tx, row, 'release');
          return { cancel_reason: reason };
        },
        'deal.cancelled',
      );
    },

    /** Records what the payer actually paid; full / partial / overpaid against what the payer was asked to pay. */
    async recordReconciliation(dealId: string, receivedAmount: string): Promise<PayinSnapshot> {
      return sql.begin(async (tx) => {
        const row = await lockDeal(tx, dealId);
        if (!row) throw new NotFound('deal not found');
        if (['COMPLETED', 'EXPIRED', 'CANCELLED', 'SPAM_REJECTED'].includes(row.status)) {
          throw new FailedPrecondition(`deal is ${row.status}; reconciliation is closed`);
        }
        const received = BigInt(receivedAmount);
        const [updated] = await tx<DealRow[]>`
          update deals set received_amount = ${received}, amount_match_status = ${amountMatch(amountToPay(row), received)}, updated_at = now()
          where id = ${dealId} returning *`;
        return snapshotOf(updated!);
      });
    },

    /** After the fee delay: pending credits become available, and the platform's fee is earned. */
    async distributePayinFee(dealId: string): Promise<void> {
      await sql.begin(async (tx) => {
        const row = await lockDeal(tx, dealId);
        if (!row || row.status !== 'COMPLETED') throw new FailedPrecondition('only a completed deal distributes its fee');
        const merchantNet = row.escrow_usdt - row.fee_usdt;
        const merchantWallet = (await ensureWallet(tx, 'merchant', row.merchant_id, 'USDT')).id;
        const platform = await ensureSystemWallet(tx, 'platform_fees', 'USDT');
        await postLedger(tx, {
          key: `deal:${row.id}:fee-distribution`,
          kind: 'fee_distribution',
          refType: 'deal',
          refId: row.id,
          entries: [
            { walletId: merchantWallet, bucket: 'pending_credits', amount: -merchantNet },
            { walletId: merchantWallet, bucket: 'available', amount: merchantNet },
            { walletId: platform, bucket: 'pending_credits', amount: -row.fee_usdt },
            { walletId: platform, bucket: 'available', amount: row.fee_usdt },
          ],
        });
      });
    },

    /**
     * Operator amount change (spec 4.1.3), in one transaction: amount_usdt at the deal's own
     * rate, the escrow hold of the old version released and one for the new version locked,
     * amount_version + 1, an audit row and deal.amount_changed. Same key + same amount replays.
     */
    async changePayinAmount(input: {
      dealId: string;
      newAmount: string;
      reason: string;
      idempotencyKey: string;
      expectedAmountVersion: string;
      operatorId: string;
    }): Promise<{ snapshot: PayinSnapshot; replayed: boolean }> {
      return sql.begin(async (tx) => {
        const row = await lockDeal(tx, input.dealId);
        if (!row) throw new NotFound('deal not found');
        const newAmount = BigInt(input.newAmount);
        const [previous] = await tx<{ new_amount: bigint }[]>`
          select new_amount from deal_amount_changes where deal_id = ${row.id} and idempotency_key = ${input.idempotencyKey}`;
        if (previous) {
          if (previous.new_amount !== newAmount) throw new Conflict('idempotency_key was already used with another amount');
          return { snapshot: snapshotOf(row), replayed: true };
        }
        if (!PAYIN_AMOUNT_CHANGEABLE.includes(row.status as PayinStatus)) {
          throw new FailedPrecondition(`deal is ${row.status}; the amount can no longer change`);
        }
        const expected = BigInt(input.expectedAmountVersion);
        if (expected !== 0n && expected !== row.amount_version) {
          throw new Conflict(`stale expected_amount_version ${expected}: the current amount_version is ${row.amount_version}`);
        }
        const [currency] = await tx<{ exponent: number }[]>`
          select exponent from currencies where tenant_id = ${row.tenant_id} and code = ${row.currency}`;
        const newUsdt = fiatToUsdtCents(newAmount, currency!.exponent, row.exchange_rate_micro);
        if (newUsdt <= 0n) throw new InvalidArgument('amount_fiat is too small: it converts to 0 USDT cents');
        const money = payinMoney(newUsdt, row.fee_bps, row.is_client_commission);
        const version = row.amount_version + 1n;
        await releaseEscrow(tx, row, `escrow-release:v${row.amount_version}`);
        await lockEscrow(tx, row.id, await traderWallet(tx, row), money.escrow, version);
        await tx`
          insert into deal_amount_changes (id, deal_id, idempotency_key, operator_id, reason, old_amount, new_amount,
            old_amount_usdt, new_amount_usdt, version)
          values (${newId()}, ${row.id}, ${input.idempotencyKey}, ${input.operatorId}, ${input.reason}, ${row.amount},
            ${newAmount}, ${row.amount_usdt}, ${newUsdt}, ${version})`;
        const matchStatus =
          row.amount_match_status === '' ? '' : amountMatch(amountToPay({ ...row, amount: newAmount }), row.received_amount);
        const [updated] = await tx<DealRow[]>`
          update deals set amount = ${newAmount}, amount_usdt = ${newUsdt}, fee_usdt = ${money.fee}, escrow_usdt = ${money.escrow},
            amount_version = ${version}, amount_match_status = ${matchStatus}, updated_at = now()
          where id = ${row.id} returning *`;
        await event(tx, updated!, 'deal.amount_changed', version.toString(), {
          old_amount: row.amount.toString(),
          amount: newAmount.toString(),
          amount_version: version.toString(),
        });
        return { snapshot: snapshotOf(updated!), replayed: false };
      });
    },
  };
}
