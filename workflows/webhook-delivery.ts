/**
 * One workflow per webhook delivery (event × target). Attempts follow WEBHOOK_RETRY_DELAYS up to
 * the merchant's max_retries attempts in total; the pauses are durable timers, so a worker that
 * dies mid-pause is replaced and the delivery goes on. A manual retry is a run of its own that
 * makes one attempt; an attempt after a success changes nothing.
 */
import { proxyActivities, proxyLocalActivities, sleep } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { DeliveryInput } from './contracts/webhook-delivery';

// The HTTP attempt is a regular activity: a hanging receiver then only holds an activity slot,
// never a workflow-task slot that deal workflows need (measured: as a local activity it pushed
// deal-create p99 to 9 s). The HTTP timeout is enforced inside; the activity's deadline is that
// timeout plus a margin, so an attempt on a worker that died is retried after seconds, not minutes.
const httpAttempts = (timeoutMs: number) =>
  proxyActivities<Activities>({
    startToCloseTimeout: timeoutMs,
    retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 5 },
  });
// Preparing the record is one short query: a local activity saves a server round trip.
const local = proxyLocalActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 10 },
});

export async function webhookDeliveryWorkflow(input: DeliveryInput): Promise<'SUCCESS' | 'ERROR'> {
  const http = httpAttempts(input.attemptTimeoutMs ?? 120_000);
  // A delivery the relay prepared goes straight to its first attempt: one workflow task schedules
  // it, one ends the run (the attempt itself is dispatched eagerly where the server allows).
  const plan = input.maxAttempts !== undefined && input.manualRetry === undefined ? { maxAttempts: input.maxAttempts } : await local.prepareDelivery(input);
  if (input.manualRetry !== undefined) {
    const outcome = await http.deliverWebhook({ callbackId: input.callbackId, attemptKey: `manual:${input.manualRetry}`, final: true, manual: true });
    return outcome.ok ? 'SUCCESS' : 'ERROR';
  }
  const total = Math.max(1, plan.maxAttempts);
  let parked = 0;
  for (let n = 1; ; n += 1) {
    const final = n >= total;
    const outcome = await http.deliverWebhook({ callbackId: input.callbackId, attemptKey: `auto:${n}`, final, manual: false });
    if (outcome.retryInMs !== undefined) {
      // Parked or busy host: nothing was sent; the same attempt goes again after a durable pause
      // that doubles while the host stays parked (at most an hour), so a thousand deliveries to a
      // dead endpoint wake rarely instead of storming the workers; one probe reopens the host.
      await sleep(Math.min(outcome.retryInMs * 2 ** Math.min(parked, 10), 3_600_000));
      parked += 1;
      n -= 1;
      continue;
    }
    parked = 0;
    if (outcome.ok) return 'SUCCESS';
    if (outcome.permanent || final) return 'ERROR';
    await sleep(input.delaysMs[Math.min(n - 1, input.delaysMs.length - 1)] ?? 0);
  }
}
