/**
 * A manual retry: a run of its own making exactly one attempt now (attempt key
 * `manual:<n>`); an attempt after a success changes nothing.
 */
import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';
import { WEBHOOK_ATTEMPT_RETRY } from './contracts/webhook-attempts';
import type { ManualRetryInput } from './contracts/webhook-manual-retry';

// The HTTP attempt is a regular activity: a hanging receiver then only holds an activity slot,
// never a workflow-task slot that deal workflows need. The HTTP timeout is enforced inside; the
// activity's deadline is that timeout plus a margin, so an attempt on a worker that died is
// retried after seconds, not minutes.
const httpAttempts = (timeoutMs: number) =>
  proxyActivities<Activities>({
    startToCloseTimeout: timeoutMs,
    retry: { ...WEBHOOK_ATTEMPT_RETRY, maximumAttempts: 5 },
  });

export async function webhookManualRetryWorkflow(input: ManualRetryInput): Promise<'SUCCESS' | 'ERROR'> {
  const http = httpAttempts(input.attemptTimeoutMs);
  const attempt = { callbackId: input.callbackId, attemptKey: `manual:${input.manualRetry}`, final: true, manual: true };
  if (!input.afterError) {
    const outcome = await http.deliverWebhook(attempt);
    return outcome.ok ? 'SUCCESS' : 'ERROR';
  }
  // The claim queued an ERROR delivery as RETRY: it must not stay queued when no attempt is made.
  try {
    const outcome = await http.deliverWebhook({ ...attempt, afterError: true });
    return outcome.ok ? 'SUCCESS' : 'ERROR';
  } catch (error) {
    await http.giveUpDelivery({ callbackId: input.callbackId, reason: error instanceof Error ? error.message : 'the manual attempt failed' });
    throw error;
  }
}
