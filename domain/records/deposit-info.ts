/** A deposit as merchants see it (GET /wallet/deposits, the p2p.finance.deposit_confirmed webhook); unset times are empty strings. */
import type { EventType } from '../events/event-types';

export const DEPOSIT_CONFIRMED_EVENT = 'p2p.finance.deposit_confirmed' satisfies EventType;

/**
 * PENDING    seen on chain, not final: nothing credited
 * CONFIRMED  final (solidified, receipt SUCCESS): the amount was credited to `available`, once
 * DROPPED    seen, then gone from the chain before it was final: never credited
 */
type DepositStatus = 'PENDING' | 'CONFIRMED' | 'DROPPED';

export interface DepositRecord {
  id: string;
  status: string;
  amount: bigint;
  tx_hash: string;
  address: string;
  confirmations: number;
  created_at: Date;
  confirmed_at: Date | null;
  /** The merchant's world at insert (the `deposits_sandbox` trigger). */
  sandbox?: boolean;
}

export function presentDeposit(r: DepositRecord) {
  return {
    deposit_id: r.id,
    status: r.status as DepositStatus,
    currency: 'USDT' as const,
    amount: r.amount.toString(),
    tx_hash: r.tx_hash,
    address: r.address,
    confirmations: r.confirmations,
    created_at: r.created_at.toISOString(),
    // Operator-recorded deposits are final when recorded: their confirmation time is their creation.
    confirmed_at: (r.confirmed_at ?? (r.status === 'CONFIRMED' ? r.created_at : null))?.toISOString() ?? '',
    // On a sandbox merchant's deposits only (a live merchant's keep exactly these fields).
    ...(r.sandbox ? { sandbox: true as const } : {}),
  };
}
