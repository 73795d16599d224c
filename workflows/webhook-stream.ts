/**
 * Webhook delivery streams (what the outbox relay starts). Each event × target is one delivery
 * (its callback id, record and attempt rows); attempts follow WEBHOOK_RETRY_DELAYS up to the
 * merchant's max_retries in total, and the pauses are durable timers, so a worker that dies
 * mid-pause is replaced and the delivery goes on. One run per (deal, target) takes the deal's
 * events by signal and delivers them in outbox order, each to its end (SUCCESS or ERROR) before
 * the next; it closes after a final event (deal.completed, …) or when idle. A manual retry is a
 * run of its own (webhook-manual-retry.ts).
 */
import { condition, continueAsNew, log, patched, proxyActivities, proxyLocalActivities, setHandler, sleep, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities';
import { failureReason } from './failures';
import { endpointWait, retryDelayMs, WEBHOOK_ATTEMPT_RETRY, type AttemptOutcome } from './contracts/webhook-delivery';
import { FINAL_EVENT_TYPES, streamEventsSignal, type StreamEvent, type StreamInput } from './contracts/webhook-stream';

type Http = Pick<Activities, 'deliverWebhook'>;

/**
 * One delivery's automatic attempts, to SUCCESS or ERROR. `first` is the outcome of attempt 1
 * when it was already made (in a stream's batch).
 */
async function deliverEvent(http: Http, callbackId: string, maxAttempts: number, delaysMs: number[], first?: AttemptOutcome): Promise<'SUCCESS' | 'ERROR'> {
  const total = Math.max(1, maxAttempts);
  let parked = 0;
  let made = first;
  for (let n = 1; ; n += 1) {
    const final = n >= total;
    const outcome = made ?? (await http.deliverWebhook({ callbackId, attemptKey: `auto:${n}`, final, manual: false }));
    made = undefined;
    if (outcome.retryInMs !== undefined) {
      // Parked or busy endpoint (or a full host): nothing was sent; the same attempt goes again
      // after a durable pause. A wait of the endpoint's own doubles while it lasts (at most an
      // hour), so a thousand deliveries to a dead endpoint wake rarely instead of storming the
      // workers, and one probe reopens it; a wait caused by other endpoints of the host stays flat.
      const wait = endpointWait(outcome, parked);
      await sleep(wait.waitMs);
      parked = wait.streak;
      n -= 1;
      continue;
    }
    parked = 0;
    if (outcome.ok) return 'SUCCESS';
    if (outcome.permanent || final) return 'ERROR';
    await sleep(retryDelayMs(delaysMs, n));
  }
}

/** First attempts a stream makes in one activity, one after another (each bounded by the HTTP timeout). */
const BATCH = 10;

/** Callback ids remembered across continue-as-new, to drop a relay's repeated signal. */
const SEEN_KEPT = 200;

export async function webhookStreamWorkflow(input: StreamInput): Promise<number> {
  // A batch may take one HTTP timeout per event; it heartbeats after each, so a dead worker's
  // batch is retried after one attempt's deadline (the retry sends nothing already delivered).
  // Infrastructure failures (database, worker) are retried without a limit: a stream must not
  // end with events still queued. Only a non-retryable failure gets through (see settle below).
  const batchAttempts = (size: number) =>
    proxyActivities<Activities>({
      startToCloseTimeout: input.attemptTimeoutMs * size,
      heartbeatTimeout: input.attemptTimeoutMs,
      retry: WEBHOOK_ATTEMPT_RETRY,
    });
  // From revision 2 on the first attempts are a local activity: the signal's workflow task runs
  // them and completes with their outcomes, with no activity task to dispatch (issue 21). A worker
  // that dies meanwhile is noticed when that task times out; the retry sends nothing delivered.
  const localBatchAttempts = (size: number) =>
    proxyLocalActivities<Activities>({
      startToCloseTimeout: input.attemptTimeoutMs * size,
      retry: WEBHOOK_ATTEMPT_RETRY,
    });
  const firstAttempts = (size: number) => ((input.revision ?? 1) >= 2 ? localBatchAttempts(size) : batchAttempts(size));
  const streamHttp = proxyActivities<Activities>({
    startToCloseTimeout: input.attemptTimeoutMs,
    retry: WEBHOOK_ATTEMPT_RETRY,
  });
  const queue: StreamEvent[] = [...(input.pending ?? [])];
  const seen = new Set<string>(input.seen ?? []);
  // A relay that crashed before marking its batch signals the same events again: taken once.
  // (Across runs, the attempt activity itself sends nothing for a delivery already ended.)
  setHandler(streamEventsSignal, (events) => {
    for (const event of events) {
      if (seen.has(event.callbackId)) continue;
      seen.add(event.callbackId);
      queue.push(event);
    }
  });
  let delivered = 0;
  let closing = false;
  /**
   * Takes the head event to its end: `first` is its first attempt's outcome when the batch made
   * it. An attempt that fails for good inside the activity (a non-retryable error: data that
   * cannot be rendered, a missing record — never the receiver's answer, never a failure to record
   * an attempt) gives the event up: its record ends ERROR (listed, retryable by hand), and one
   * poisoned event never blocks the deal's later ones.
   */
  const settle = async (first?: AttemptOutcome) => {
    const event = queue[0]!;
    try {
      if (!first?.ok) await deliverEvent(streamHttp, event.callbackId, event.maxAttempts, input.delaysMs, first);
    } catch (error) {
      log.error('webhook delivery given up after a non-retryable failure', { callbackId: event.callbackId, error: String(error) });
      // Runs before issue 17 left the record as it was (PENDING forever when nothing was recorded).
      if (patched('given-up-delivery-ends-error')) await streamHttp.giveUpDelivery({ callbackId: event.callbackId, reason: failureReason(error) });
    }
    queue.shift();
    delivered += 1;
    closing = FINAL_EVENT_TYPES.has(event.eventType);
  };
  for (;;) {
    if (queue.length === 0) {
      if (closing || input.idleMs <= 0) return delivered;
      if (!(await condition(() => queue.length > 0, input.idleMs))) return delivered;
    }
    if (workflowInfo().continueAsNewSuggested || (input.continueAfter !== undefined && delivered >= input.continueAfter)) {
      await continueAsNew<typeof webhookStreamWorkflow>({ ...input, pending: queue, seen: [...seen].slice(-SEEN_KEPT) });
    }
    // The queued events' first attempts go in one activity, stopping at the first that fails;
    // that one then follows its own schedule before anything after it is sent.
    const batch = queue.slice(0, BATCH);
    let outcomes: AttemptOutcome[] = [];
    try {
      outcomes = await firstAttempts(batch.length).deliverWebhooks(
        batch.map((e) => ({ callbackId: e.callbackId, attemptKey: 'auto:1', final: e.maxAttempts <= 1, manual: false })),
      );
    } catch {
      // A non-retryable failure in the batch: the head goes alone (what the batch did is recorded
      // and is not done again), and the rest follow in the next batch.
    }
    if (outcomes.length === 0) await settle();
    for (const outcome of outcomes) await settle(outcome);
  }
}
