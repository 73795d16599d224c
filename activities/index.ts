import type { ActivityDeps } from './deps';
import { deadlineBoundSql } from './deadline';
import { createAppealActivities } from './appeals';
import { createBankNotificationActivities } from './bank-notifications';
import { createChain } from './chain';
import { createChainWatchActivities } from './chain-watch';
import { createDeskHookActivities } from './desk-hook';
import { withBusinessFailures } from './errors';
import { createPassActivities } from './passes';
import { createSandboxActivities } from './sandbox';
import { createPayinActivities } from './payins';
import { createPayoutActivities } from './payouts';
import { createSettlementActivities } from './settlements';
import { createWebhookActivities } from './webhooks';
import { createWithdrawalActivities } from './withdrawals';

/** All activities, built around injected dependencies (no module-level clients). */
export function createActivities(input: ActivityDeps) {
  // Every transaction an activity opens is bounded by that activity's deadline (deadline.ts).
  const deps = { ...input, sql: deadlineBoundSql(input.sql) };
  // One chain per worker process: the withdrawal adapter and, on TRON, the deposit watcher.
  const chain = createChain(deps.config, deps.sql, deps.log);
  return withBusinessFailures({
    ...createPayinActivities(deps),
    ...createPayoutActivities(deps),
    ...createWebhookActivities(deps),
    ...createWithdrawalActivities(deps, chain.adapter),
    ...createChainWatchActivities(deps, chain),
    ...createAppealActivities(deps),
    ...createSettlementActivities(deps),
    ...createPassActivities(deps),
    ...createSandboxActivities(deps),
    ...createDeskHookActivities(deps),
    ...createBankNotificationActivities(deps),
  });
}

export type Activities = ReturnType<typeof createActivities>;
