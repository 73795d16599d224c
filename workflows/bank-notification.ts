/**
 * One run per bank notification with a credit (contracts/bank-notification.ts): match it exactly
 * to one live PayIn, then confirm that deal with the amount received through the deal's workflow —
 * as a trader's confirmation is, with the device as the actor. Each step is idempotent: a retried
 * match answers the stored outcome, a retried confirmation finds its own audit row.
 */
import { localStepActivities } from './activity-proxies';
import type { BankNotificationOutcome, BankNotificationWorkflowInput } from './contracts/bank-notification';

export async function bankNotificationWorkflow(input: BankNotificationWorkflowInput): Promise<BankNotificationOutcome> {
  const steps = localStepActivities(input.timeouts);
  const matched = await steps.matchBankNotification(input.notificationId);
  if (matched.status !== 'MATCHED') return matched;
  return await steps.confirmDealByNotification(input.notificationId);
}
