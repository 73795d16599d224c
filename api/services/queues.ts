/** The work waiting for operators (the console's home): per queue its count and the age of its oldest item. */
import type { AppDeps } from '../deps';
import { PAYIN_TERMINAL } from '../../domain/state/payin';
import { PAYOUT_TERMINAL } from '../../domain/state/payout';
import { APPEAL_ACTIVE } from '../../domain/state/appeals';
import { queueCounts, type QueueCount } from '../../db/queries/queues';

/** `operatorAccountId`: the asking console account, whose assigned appeals are counted (none for the operator JWT). */
export async function consoleQueues(deps: AppDeps, operatorAccountId?: string) {
  const nowMs = deps.now();
  const counts = await queueCounts(deps.sql, {
    terminalDealStatuses: [...new Set([...PAYIN_TERMINAL, ...PAYOUT_TERMINAL])],
    stuckBefore: new Date(nowMs - deps.config.DEAL_STUCK_SLA_SECONDS * 1000),
    fourEyesAbove: deps.config.WITHDRAWAL_FOUR_EYES_ABOVE_USDT_CENTS,
    waitingAppealStatuses: APPEAL_ACTIVE,
    now: new Date(nowMs),
    ...(operatorAccountId ? { operatorAccountId } : {}),
  });
  const present = (q: QueueCount) => ({
    count: q.count,
    oldest_at: q.oldest?.toISOString() ?? '',
    oldest_age_seconds: q.oldest ? Math.max(0, Math.floor((nowMs - q.oldest.getTime()) / 1000)) : 0,
  });
  return {
    appeals_waiting: { ...present(counts.appeals), sandbox_count: counts.appeals.sandbox },
    // How long past its deadline the most overdue appeal is: the age of its missed respond_by.
    appeals_overdue: { ...present(counts.appeals_overdue), sla_seconds: deps.config.APPEAL_RESPONSE_SLA_SECONDS },
    appeals_assigned_to_me: counts.appeals_mine,
    withdrawals_waiting: {
      ...present(counts.withdrawals),
      awaiting_second_approval: counts.withdrawals.awaiting_second_approval,
      sandbox_count: counts.withdrawals.sandbox,
    },
    open_alerts: { ...present(counts.alerts), sandbox_count: counts.alerts.sandbox },
    stuck_deals: { ...present(counts.stuck_deals), sla_seconds: deps.config.DEAL_STUCK_SLA_SECONDS },
    generated_at: new Date(nowMs).toISOString(),
  };
}
