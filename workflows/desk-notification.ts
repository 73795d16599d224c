/**
 * One desk event to the desk hook: an activity that POSTs it, retried by Temporal on durable
 * timers (5 s, doubling, at most 10 min apart) until the hook takes it or the attempts run out;
 * a target that can never take it (a refused address) ends the run at once.
 */
import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { DeskNotificationInput } from './contracts/desk-notification';

export async function deskNotificationWorkflow(input: DeskNotificationInput): Promise<'DELIVERED'> {
  const { deliverDeskEvent } = proxyActivities<Activities>({
    startToCloseTimeout: input.attemptTimeoutMs,
    retry: { initialInterval: '5 seconds', backoffCoefficient: 2, maximumInterval: '10 minutes', maximumAttempts: input.maxAttempts },
  });
  await deliverDeskEvent(input.eventId);
  return 'DELIVERED';
}
