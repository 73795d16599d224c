/** The console's home: what waits for an operator, how many and since when. */
import type { Db } from '../sql';

export interface QueueCount {
  count: number;
  /** The oldest waiting item's time (null when none waits). */
  oldest: Date | null;
}

/**
 * `count` and `oldest` are the live world's; a sandbox merchant's items that wait for an
 * operator (an appeal without the sandbox arbiter's words, a withdrawal above the auto limit, an
 * alert on a sandbox deal) are counted apart in `sandbox`, never in the live figures.
 */
interface WorldQueueCount extends QueueCount {
  sandbox: number;
}

export interface QueueCounts {
  appeals: WorldQueueCount;
  /** Live appeals still waiting for an answer past their respond_by; `oldest` is the earliest missed deadline. */
  appeals_overdue: QueueCount;
  /** Appeals still waiting for an answer whose assignee is the asking account. */
  appeals_mine: number;
  withdrawals: WorldQueueCount & { awaiting_second_approval: number };
  alerts: WorldQueueCount;
  stuck_deals: QueueCount;
}

/**
 * One round trip: appeals OPEN/REOPENED, withdrawals PENDING_MANUAL, open alerts, live deals (not
 * APPEALED) untouched since `stuckBefore` — each of the live world, with the sandbox world's
 * count apart (stuck sandbox deals are not an operator's concern: not counted).
 */
export async function queueCounts(
  db: Db,
  f: {
    terminalDealStatuses: readonly string[];
    stuckBefore: Date;
    fourEyesAbove: bigint;
    /** The statuses in which an appeal waits for an answer (its deadline runs), and now. */
    waitingAppealStatuses: readonly string[];
    now: Date;
    /** The asking console account (none for the operator JWT: no appeal is its). */
    operatorAccountId?: string;
  },
): Promise<QueueCounts> {
  const [row] = await db<
    {
      appeals: number;
      appeals_oldest: Date | null;
      appeals_sandbox: number;
      overdue: number;
      overdue_oldest: Date | null;
      mine: number;
      withdrawals: number;
      withdrawals_oldest: Date | null;
      second: number;
      withdrawals_sandbox: number;
      alerts: number;
      alerts_oldest: Date | null;
      alerts_sandbox: number;
      stuck: number;
      stuck_oldest: Date | null;
    }[]
  >`
    with a as (
      select a.updated_at, d.sandbox from appeals a join deals d on d.id = a.deal_id where a.status in ('OPEN', 'REOPENED')
    ), waiting as (
      select a.respond_by, a.assignee_id, d.sandbox from appeals a join deals d on d.id = a.deal_id
      where a.status = any(${f.waitingAppealStatuses as string[]})
    ), w as (
      select id, amount, created_at, sandbox from withdrawals where status = 'PENDING_MANUAL'
    ), o as (
      select o.created_at, coalesce(d.sandbox, false) as sandbox from operator_alerts o left join deals d on d.id = o.deal_id where o.resolved_at is null
    )
    select
      (select count(*)::int from a where not sandbox) as appeals,
      (select min(updated_at) from a where not sandbox) as appeals_oldest,
      (select count(*)::int from a where sandbox) as appeals_sandbox,
      (select count(*)::int from waiting where not sandbox and respond_by < ${f.now}) as overdue,
      (select min(respond_by) from waiting where not sandbox and respond_by < ${f.now}) as overdue_oldest,
      (select count(*)::int from waiting where ${f.operatorAccountId ? db`assignee_id = ${f.operatorAccountId}` : db`false`}) as mine,
      (select count(*)::int from w where not sandbox) as withdrawals,
      (select min(created_at) from w where not sandbox) as withdrawals_oldest,
      (select count(*)::int from w where not sandbox and w.amount > ${f.fourEyesAbove}
         and exists (select 1 from withdrawal_approvals x where x.withdrawal_id = w.id)) as second,
      (select count(*)::int from w where sandbox) as withdrawals_sandbox,
      (select count(*)::int from o where not sandbox) as alerts,
      (select min(created_at) from o where not sandbox) as alerts_oldest,
      (select count(*)::int from o where sandbox) as alerts_sandbox,
      (select count(*)::int from deals where status <> all(${f.terminalDealStatuses as string[]}) and status <> 'APPEALED' and not sandbox and updated_at < ${f.stuckBefore}) as stuck,
      (select min(updated_at) from deals where status <> all(${f.terminalDealStatuses as string[]}) and status <> 'APPEALED' and not sandbox and updated_at < ${f.stuckBefore}) as stuck_oldest`;
  return {
    appeals: { count: row!.appeals, oldest: row!.appeals_oldest, sandbox: row!.appeals_sandbox },
    appeals_overdue: { count: row!.overdue, oldest: row!.overdue_oldest },
    appeals_mine: row!.mine,
    withdrawals: { count: row!.withdrawals, oldest: row!.withdrawals_oldest, awaiting_second_approval: row!.second, sandbox: row!.withdrawals_sandbox },
    alerts: { count: row!.alerts, oldest: row!.alerts_oldest, sandbox: row!.alerts_sandbox },
    stuck_deals: { count: row!.stuck, oldest: row!.stuck_oldest },
  };
}
