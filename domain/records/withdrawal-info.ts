/** A withdrawal as merchants and operators see it; int64 as digit strings, unset times as empty strings. */
import type { WithdrawalStatus } from '../state/withdrawals';

/** The fields of a withdrawal row that merchants see (db/queries/withdrawals.ts WithdrawalRow has them all). */
export interface WithdrawalRecord {
  id: string;
  status: WithdrawalStatus;
  auto: boolean;
  address: string;
  amount: bigint;
  fee: bigint;
  net: bigint;
  tx_hash: string;
  idempotency_key: string;
  cancel_reason: string;
  created_at: Date;
  updated_at: Date;
  approved_at: Date | null;
  completed_at: Date | null;
  cancelled_at: Date | null;
  /** The merchant's world at insert (the `withdrawals_sandbox` trigger). */
  sandbox?: boolean;
}

/** The withdrawal as merchants see it (POST /wallet/withdraw, GET /wallet/withdrawals, webhooks). */
export function presentWithdrawal(row: WithdrawalRecord) {
  return {
    withdrawal_id: row.id,
    status: row.status,
    currency: 'USDT' as const,
    amount: row.amount.toString(),
    fee_usdt_cents: row.fee.toString(),
    net_usdt_cents: row.net.toString(),
    address: row.address,
    tx_hash: row.tx_hash,
    idempotency_key: row.idempotency_key,
    processing: row.auto ? ('AUTO' as const) : ('MANUAL' as const),
    cancel_reason: row.cancel_reason,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    approved_at: row.approved_at?.toISOString() ?? '',
    completed_at: row.completed_at?.toISOString() ?? '',
    cancelled_at: row.cancelled_at?.toISOString() ?? '',
    // On a sandbox merchant's withdrawals only (a live merchant's keep exactly these fields).
    ...(row.sandbox ? { sandbox: true as const } : {}),
  };
}
