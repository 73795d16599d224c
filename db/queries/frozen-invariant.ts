import type { Db } from '../sql';
import { PAYOUT_TERMINAL } from '../../domain/payout';
import { WITHDRAWAL_LIVE } from '../../domain/withdrawals';

export interface FrozenMismatch {
  wallet_id: string;
  merchant_id: string;
  frozen: bigint;
  payout_holds: bigint;
  withdrawal_holds: bigint;
}

/**
 * Issue 10, 7: a merchant's USDT `frozen` equals its live payout holds (escrow_usdt of PayOuts not
 * yet COMPLETED, FAILED or EXPIRED) plus its pending withdrawals (PENDING, PENDING_MANUAL,
 * APPROVED). Returns the wallets where it does not hold (empty = clean). Holds of another kind
 * (e.g. dispute holds) must be added here when they arrive.
 */
export async function auditMerchantFrozen(db: Db): Promise<FrozenMismatch[]> {
  const rows = await db<FrozenMismatch[]>`
    with payouts as (
      select wallet_id, sum(escrow_usdt)::bigint as held from deals
      where deal_type = 'PAYOUT' and status <> all(${PAYOUT_TERMINAL as string[]}) and wallet_id is not null
      group by wallet_id
    ), withdrawing as (
      select wallet_id, sum(amount)::bigint as held from withdrawals
      where status = any(${WITHDRAWAL_LIVE as string[]})
      group by wallet_id
    )
    select w.id as wallet_id, w.owner_id as merchant_id, w.frozen,
      coalesce(p.held, 0)::bigint as payout_holds, coalesce(x.held, 0)::bigint as withdrawal_holds
    from wallets w
    left join payouts p on p.wallet_id = w.id
    left join withdrawing x on x.wallet_id = w.id
    where w.owner_type = 'merchant' and w.currency = 'USDT'
      and w.frozen <> coalesce(p.held, 0) + coalesce(x.held, 0)`;
  return [...rows];
}
