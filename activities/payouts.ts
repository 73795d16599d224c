/**
 * PayOut steps (spec 3.2). The merchant's USDT hold (amount_usdt at the SELL rate plus the payout
 * fee) moves available → frozen at creation; COMPLETED debits it (the trader is paid amount_usdt,
 * the platform the fee); FAILED and EXPIRED return it. One transaction per step, keyed postings.
 */
import type { ActivityDeps } from './index';
import type { Db } from '../db/sql';
import { Conflict, FailedPrecondition, InvalidArgument, NotFound } from '../domain/errors';
import { newId } from '../domain/ids';
import { feeFromBps, fiatToUsdtCents } from '../domain/money';
import type { PayoutStatus } from '../domain/payout';
import { findCurrency } from '../db/queries/catalog';
import { findDeal, lockDeal, type DealRow } from '../db/queries/deals';
import { moveHold, postLedger } from '../db/queries/ledger';
import { checkDailyCap } from '../db/queries/limits';
import { claimRequisite } from '../db/queries/matching';
import { ensureSystemWallet } from '../db/queries/wallets';
import type { CreatePayoutInput, PayoutSnapshot } from '../workflows/contracts/payout';
import { dealSteps } from './deal-steps';

export function payoutSnapshotOf(row: DealRow): PayoutSnapshot {
  return {
    status: row.status as PayoutStatus,
    assignDeadlineAt: row.assign_deadline_at?.toISOString() ?? '',
    transferDeadlineAt: row.transfer_deadline_at?.toISOString() ?? '',
  };
}

export function createPayoutActivities(deps: ActivityDeps) {
  const { sql, config } = deps;
  const steps = dealSteps(deps);

  const resolveAlerts = (tx: Db, dealId: string) => tx`update operator_alerts set resolved_at = now() where deal_id = ${dealId} and resolved_at is null`;

  const releaseHold = async (tx: Db, row: DealRow): Promise<void> => {
    await moveHold(tx, { key: `deal:${row.id}:release`, kind: 'payout_hold_release', refId: row.id, walletId: row.wallet_id!, amount: row.escrow_usdt, direction: 'release' });
  };

  /** When a MATCHED payout must have started (millisecond precision, as the snapshot shows it). */
  const transferDeadline = (tx: Db) => tx`date_trunc('milliseconds', now() + make_interval(secs => ${config.PAYOUT_TRANSFER_SLA_SECONDS}))`;

  const move = async (dealId: string, from: readonly PayoutStatus[], to: PayoutStatus, effects: Parameters<typeof steps.transition>[3], eventType?: string) =>
    payoutSnapshotOf(await steps.transition(dealId, from, to, effects, eventType));

  return {
    /** Hold, synchronous auto-matching and the deal row in one transaction. */
    async createPayoutDeal(input: CreatePayoutInput): Promise<PayoutSnapshot> {
      return sql.begin(async (tx) => {
        const existing = await findDeal(tx, input.dealId);
        if (existing) return payoutSnapshotOf(existing);
        const amount = BigInt(input.amount);
        const [merchant] = await tx<{ payout_fee_bps: number }[]>`select payout_fee_bps from merchants where id = ${input.merchantId}`;
        if (!merchant) throw new NotFound('merchant not found');
        const currency = await findCurrency(tx, input.tenantId, input.currency);
        if (!currency) throw new InvalidArgument(`unknown currency ${input.currency}`);
        const [rate] = await tx<{ sell_rate_micro: bigint }[]>`
          select sell_rate_micro from rates where tenant_id = ${input.tenantId} and currency_code = ${input.currency}`;
        if (!rate) throw new FailedPrecondition(`no exchange rate is set for ${input.currency}`);
        const amountUsdt = fiatToUsdtCents(amount, currency.exponent, rate.sell_rate_micro);
        if (amountUsdt <= 0n) throw new InvalidArgument('amount is too small: it converts to 0 USDT cents');
        const fee = feeFromBps(amountUsdt, merchant.payout_fee_bps);
        const hold = amountUsdt + fee;

        await checkDailyCap(tx, input.merchantId, amount);
        const [wallet] = await tx<{ available: bigint }[]>`select available from wallets where id = ${input.walletId} for update`;
        if (!wallet || wallet.available < hold) {
          throw new FailedPrecondition(`insufficient balance: the hold needs ${hold} USDT cents, available ${wallet?.available ?? 0n}`);
        }
        const match = await claimRequisite(tx, { paymentMethodId: input.paymentMethodId, amount, escrowUsdt: 0n, payerBank: input.targetBank });
        const [row] = await tx<DealRow[]>`
          insert into deals (id, tenant_id, merchant_id, deal_type, status, idempotency_key, amount, currency,
            payment_method_id, requisite_id, trader_id, target_requisite, target_name, target_bank, requisite_details,
            wallet_id, amount_usdt, exchange_rate_micro, fee_usdt, fee_bps, escrow_usdt, assign_deadline_at, transfer_deadline_at)
          values (${input.dealId}, ${input.tenantId}, ${input.merchantId}, 'PAYOUT', ${match ? 'MATCHED' : 'UNASSIGNED'},
            ${input.idempotencyKey}, ${amount}, ${input.currency}, ${input.paymentMethodId}, ${match?.requisite_id ?? null},
            ${match?.trader_id ?? null}, ${input.targetRequisite}, ${input.targetName}, ${input.targetBank},
            ${tx.json(input.requisiteDetails)}, ${input.walletId}, ${amountUsdt}, ${rate.sell_rate_micro}, ${fee},
            ${merchant.payout_fee_bps}, ${hold}, now() + make_interval(secs => ${config.PAYOUT_ASSIGN_SLA_SECONDS}),
            ${match ? transferDeadline(tx) : null})
          returning *`;
        await moveHold(tx, { key: `deal:${row!.id}:hold`, kind: 'payout_hold', refId: row!.id, walletId: input.walletId, amount: hold, direction: 'lock' });
        await steps.event(tx, row!, 'deal.created', 'created');
        return payoutSnapshotOf(row!);
      }).catch((error: { code?: string; constraint_name?: string }) => {
        if (error.code === '23505' && error.constraint_name === 'deals_payout_key_tenant') {
          throw new Conflict('idempotency_key is already used by another merchant');
        }
        throw error;
      });
    },

    /** The deal's snapshot if its row exists (a create attempt committed), else null. */
    async findPayoutSnapshot(dealId: string): Promise<PayoutSnapshot | null> {
      const row = await findDeal(sql, dealId);
      return row ? payoutSnapshotOf(row) : null;
    },

    /** The retry worker: an UNASSIGNED payout looks for a free trader again. */
    async matchPayout(dealId: string): Promise<PayoutSnapshot> {
      return sql.begin(async (tx) => {
        const row = await lockDeal(tx, dealId);
        if (!row) throw new NotFound('deal not found');
        if (row.status !== 'UNASSIGNED') return payoutSnapshotOf(row);
        const match = await claimRequisite(tx, { paymentMethodId: row.payment_method_id, amount: row.amount, escrowUsdt: 0n, payerBank: row.target_bank });
        if (!match) return payoutSnapshotOf(row);
        const [updated] = await tx<DealRow[]>`
          update deals set status = 'MATCHED', requisite_id = ${match.requisite_id}, trader_id = ${match.trader_id},
            transfer_deadline_at = ${transferDeadline(tx)}, updated_at = now()
          where id = ${dealId} returning *`;
        return payoutSnapshotOf(updated!);
      });
    },

    /**
     * Operator override: assign an UNASSIGNED payout, or reassign a MATCHED one before the
     * transfer starts, to the given requisite and its trader. The deal then belongs to that
     * trader, with a new transfer window. A retry after commit finds it already done.
     */
    async assignPayout(dealId: string, requisiteId: string): Promise<PayoutSnapshot> {
      return sql.begin(async (tx) => {
        const row = await lockDeal(tx, dealId);
        if (!row) throw new NotFound('deal not found');
        const [requisite] = await tx<{ id: string; trader_id: string; payment_method_id: string; status: string }[]>`
          select id, trader_id, payment_method_id, status from requisites where id = ${requisiteId}`;
        if (!requisite || requisite.status !== 'ACTIVE') throw new InvalidArgument('requisite_id must be an ACTIVE requisite');
        if (row.payment_method_id !== requisite.payment_method_id) {
          throw new InvalidArgument('the requisite is for another payment method than the payout');
        }
        if (row.status === 'MATCHED' && row.requisite_id === requisite.id) return payoutSnapshotOf(row);
        if (row.status !== 'UNASSIGNED' && row.status !== 'MATCHED') throw new FailedPrecondition(`payout is ${row.status}`);
        const [updated] = await tx<DealRow[]>`
          update deals set status = 'MATCHED', requisite_id = ${requisite.id}, trader_id = ${requisite.trader_id},
            transfer_deadline_at = ${transferDeadline(tx)}, updated_at = now()
          where id = ${dealId} returning *`;
        return payoutSnapshotOf(updated!);
      });
    },

    async startPayout(dealId: string): Promise<PayoutSnapshot> {
      return move(dealId, ['MATCHED'], 'PROCESSING', async () => {});
    },

    async completePayout(dealId: string): Promise<PayoutSnapshot> {
      return move(
        dealId,
        ['PROCESSING'],
        'COMPLETED',
        async (tx, row) => {
          await resolveAlerts(tx, row.id);
          const trader = await steps.walletOf(tx, 'trader', row.trader_id!);
          const platform = await ensureSystemWallet(tx, 'platform_fees', 'USDT');
          await postLedger(tx, {
            key: `deal:${row.id}:complete`,
            kind: 'payout_complete',
            refType: 'deal',
            refId: row.id,
            entries: [
              { walletId: row.wallet_id!, bucket: 'frozen', amount: -row.escrow_usdt },
              { walletId: trader, bucket: 'available', amount: row.amount_usdt },
              { walletId: platform, bucket: 'available', amount: row.fee_usdt },
            ],
          });
        },
        'deal.completed',
      );
    },

    async failPayout(dealId: string, reason: string): Promise<PayoutSnapshot> {
      return move(dealId, ['PROCESSING'], 'FAILED', async (tx, row) => {
        await resolveAlerts(tx, row.id);
        await releaseHold(tx, row);
        return { failure_reason: reason };
      }, 'deal.failed');
    },

    async expirePayout(dealId: string): Promise<PayoutSnapshot> {
      return move(dealId, ['UNASSIGNED'], 'EXPIRED', (tx, row) => releaseHold(tx, row), 'deal.expired');
    },

    /** The transfer SLA ran out before the trader started: EXPIRED, hold returned (the workflow checked the deadline). */
    async expireMatchedPayout(dealId: string): Promise<PayoutSnapshot> {
      return move(dealId, ['MATCHED'], 'EXPIRED', (tx, row) => releaseHold(tx, row), 'deal.expired');
    },

    /**
     * A PROCESSING payout past its alert time: the trader may have sent the fiat, so the hold is
     * kept, and an operator is told (one alert row per deal, `GET /admin/alerts`, and a log line).
     */
    async flagOverduePayout(dealId: string): Promise<void> {
      const [alert] = await sql<{ id: string }[]>`
        insert into operator_alerts (id, kind, deal_id, message)
        select ${newId()}, 'payout_processing_overdue', id,
          'payout has been PROCESSING for longer than PAYOUT_PROCESSING_ALERT_SECONDS; complete or reject it'
        from deals where id = ${dealId} and status = 'PROCESSING'
        on conflict (kind, deal_id) do nothing
        returning id`;
      if (alert) deps.log.warn({ dealId, alertId: alert.id }, 'payout overdue in PROCESSING: operator action needed');
    },
  };
}
