/** The snapshots a deal's workflow keeps, read from the deal's row (money as strings, times as RFC 3339). */
import type { DealRow } from '../db/queries/deals';
import type { PayinStatus } from '../domain/state/payin';
import type { PayoutStatus } from '../domain/state/payout';
import type { PayinSnapshot } from '../workflows/contracts/payin';
import type { PayoutSnapshot } from '../workflows/contracts/payout';

export function payinSnapshot(row: DealRow): PayinSnapshot {
  return {
    status: row.status as PayinStatus,
    amount: row.amount.toString(),
    amountVersion: row.amount_version.toString(),
    receivedAmount: row.received_amount.toString(),
    amountMatchStatus: row.amount_match_status,
    paymentTimeoutAt: row.payment_timeout_at?.toISOString() ?? '',
    ...(row.sandbox ? { sandbox: true } : {}),
  };
}

export function payoutSnapshot(row: DealRow): PayoutSnapshot {
  return {
    status: row.status as PayoutStatus,
    assignDeadlineAt: row.assign_deadline_at?.toISOString() ?? '',
    transferDeadlineAt: row.transfer_deadline_at?.toISOString() ?? '',
    ...(row.sandbox ? { sandbox: true } : {}),
  };
}
