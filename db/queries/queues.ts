/** The console's home (issue 28.3): what waits for an operator, how many and since when. */
import type { Db } from '../sql';

export interface QueueCount {
  count: number;
  /** The oldest waiting item's time (null when none waits). */
  oldest: Date | null;
}

export interface QueueCounts {
  appeals: QueueCount;
  withdrawals: QueueCount & { awaiting_second_approval: number };
  alerts: QueueCount;
  stuck_deals: QueueCount;
}

/** One round trip: appeals OPEN/REOPENED, withdrawals PENDING_MANUAL, open alerts, live deals (not APPEALED) untouched since `stuckBefore`. */
export async function queueCounts(db: Db, f: { terminalDealStatuses: readonly string[]; stuckBefore: Date; fourEyesAbove: bigint }): Promise<QueueCounts> {
  const [row] = await db<
    {
      appeals: number; appeals_oldest: Date | null;
      withdrawals: number; withdrawals_oldest: Date | null; second: number;
      alerts: number; alerts_oldest: Date | null;
      stuck: number; stuck_oldest: Date | null;
    }[]
  >`
    select
      (select count(*)::int from appeals where status in ('OPEN', 'REOPENED')) as appeals,
      (select min(updated_at) from appeals where status in ('OPEN', 'REOPENED')) as appeals_oldest,
      (select count(*)::int from withdrawals where status = 'PENDING_MANUAL') as withdrawals,
      (select min(created_at) from withdrawals where status = 'PENDING_MANUAL') as withdrawals_oldest,
      (select count(*)::int from withdrawals w where w.status = 'PENDING_MANUAL' and w.amount > ${f.fourEyesAbove}
         and exists (select 1 from withdrawal_approvals a where a.withdrawal_id = w.id)) as second,
      (select count(*)::int from operator_alerts where resolved_at is null) as alerts,
      (select min(created_at) from operator_alerts where resolved_at is null) as alerts_oldest,
      (select count(*)::int from deals where status <> all(${f.terminalDealStatuses as string[]}) and status <> 'APPEALED' and not sandbox and updated_at < ${f.stuckBefore}) as stuck,
      (select min(updated_at) from deals where status <> all(${f.terminalDealStatuses as string[]}) and status <> 'APPEALED' and not sandbox and updated_at < ${f.stuckBefore}) as stuck_oldest`;
  return {
    appeals: { count: row!.appeals, oldest: row!.appeals_oldest },
    withdrawals: { count: row!.withdrawals, oldest: row!.withdrawals_oldest, awaiting_second_approval: row!.second },
    alerts: { count: row!.alerts, oldest: row!.alerts_oldest },
    stuck_deals: { count: row!.stuck, oldest: row!.stuck_oldest },
  };
}
