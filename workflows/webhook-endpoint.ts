/**
 * One delivery stream per merchant endpoint (contracts/webhook-endpoint.ts), what the outbox
 * relay signals. It keeps a lane per deal:
 *
 *   - a lane delivers its deal's events in outbox order, each to its end (SUCCESS or ERROR)
 *     before the next: its first attempt, then WEBHOOK_RETRY_DELAYS up to the merchant's
 *     max_retries in total, on durable timers;
 *   - the retries of all heads due about then share one wake-up and one activity (each may go a
 *     tenth of its pause late, never early), and while the endpoint is parked or busy the whole
 *     stream waits and then sends one probe: a dead endpoint costs a timer and an attempt per
 *     pause, not per deal;
 *   - lanes go side by side: a deal whose event is retrying holds up no other deal;
 *   - the first attempts of all lanes that are ready go in one local activity
 *     (deliverWebhookGroups), so deals created together cost one workflow task together;
 *   - the stream continues as new with its lanes, each head's retry progress included, and
 *     closes after WEBHOOK_STREAM_IDLE_SECONDS without lanes.
 *
 * The lanes' bookkeeping (queues, callbacks taken, batches, schedules) is EndpointLanes
 * (endpoint-lanes.ts); this file is the protocol: take events, start lanes, send first attempts,
 * wait out a head's schedule, continue as new, close when idle.
 */
import { condition, continueAsNew, log, proxyActivities, proxyLocalActivities, setHandler, sleep, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities';
import { WEBHOOK_ATTEMPT_RETRY, type AttemptOutcome } from './contracts/webhook-attempts';
import { endpointEventsSignal, firstAttemptsDeadlineMs, type EndpointInput } from './contracts/webhook-endpoint';
import { EndpointLanes, type FirstAttemptBatch, type RetryBatch } from './endpoint-lanes';
import { failureReason } from './failures';

export async function webhookEndpointWorkflow(input: EndpointInput): Promise<number> {
  const firstAttempts = (groupLengths: number[]) =>
    proxyLocalActivities<Activities>({
      startToCloseTimeout: firstAttemptsDeadlineMs(input.attemptTimeoutMs, groupLengths),
      retry: WEBHOOK_ATTEMPT_RETRY,
    });
  const http = proxyActivities<Activities>({
    startToCloseTimeout: input.attemptTimeoutMs,
    retry: WEBHOOK_ATTEMPT_RETRY,
  });
  const retries = (count: number) =>
    proxyActivities<Activities>({
      startToCloseTimeout: firstAttemptsDeadlineMs(
        input.attemptTimeoutMs,
        Array.from({ length: count }, () => 1),
      ),
      retry: WEBHOOK_ATTEMPT_RETRY,
      ...(input.retryTaskQueue ? { taskQueue: input.retryTaskQueue } : {}),
    });

  const lanes = new EndpointLanes({ delaysMs: input.delaysMs, carried: input.lanes, seen: input.seen, pause: input.pause });
  setHandler(endpointEventsSignal, (events) => lanes.take(events));
  const dueToContinue = () => workflowInfo().continueAsNewSuggested || (input.continueAfter !== undefined && lanes.delivered >= input.continueAfter);

  /** One batch of first attempts (a local activity): each lane gets its group's outcomes, or none when the batch failed as a whole. */
  const sendFirstAttempts = async (batch: FirstAttemptBatch) => {
    try {
      batch.settle(
        await firstAttempts(batch.groups.map((g) => g.length)).deliverWebhookGroups(
          batch.groups.map((group) => group.map((e) => ({ callbackId: e.callbackId, attemptKey: 'auto:1', final: e.maxAttempts <= 1, manual: false }))),
        ),
      );
    } catch {
      // It gives single deliveries up itself; failing as a whole, each lane's head goes alone on
      // its own schedule, and what the batch recorded is not done again.
      batch.settle(undefined);
    }
  };

  /** One batch of retries (a regular activity: a retry may wait out a hanging receiver without holding a workflow task). */
  const sendRetries = async (batch: RetryBatch) => {
    try {
      const outcomes = await retries(batch.attempts.length).deliverWebhookGroups(batch.attempts.map((a) => [a]));
      batch.settle(batch.attempts.map((_, i) => outcomes[i]?.[0]));
    } catch (error) {
      batch.settle(error instanceof Error ? error : new Error(String(error)));
    }
  };

  /**
   * The stream's retry clock: one timer to the next wake-up its waiting heads need (re-set only
   * when a head needs an earlier one), then every head due goes, in batches.
   */
  const runRetries = async () => {
    for (;;) {
      const wake = lanes.nextRetryWake();
      const earlier = () => lanes.draining || (lanes.nextRetryWake() ?? Number.POSITIVE_INFINITY) < (wake ?? Number.POSITIVE_INFINITY);
      if (wake === undefined) await condition(earlier);
      else if (wake > Date.now()) await condition(earlier, wake - Date.now());
      if (lanes.draining) {
        lanes.stopWaiting();
        return;
      }
      const version = lanes.retryVersion;
      const batches = lanes.takeDueRetries();
      for (const batch of batches) void sendRetries(batch);
      // A wake-up with nothing to send (not expected: a head due by then always goes) waits for a
      // head or an answer to move instead of spinning.
      if (batches.length === 0 && wake !== undefined && wake <= Date.now()) await condition(() => lanes.draining || lanes.retryVersion !== version);
    }
  };
  void runRetries();

  /**
   * The lane's head, attempt after attempt on its schedule, to its end: 'done' — or 'stopped' when
   * the stream drains for continue-as-new during a pause (the head keeps its progress). `first` is
   * an attempt the batch could not make (the endpoint was parked or busy), to wait on first.
   */
  const finishHead = async (key: string, first?: AttemptOutcome): Promise<'done' | 'stopped'> => {
    const { event, total, retry } = lanes.head(key);
    let outcome = first;
    try {
      for (;;) {
        if (!outcome) {
          const answer = await lanes.awaitRetry(
            key,
            { callbackId: event.callbackId, attemptKey: `auto:${retry.attempt}`, final: retry.attempt >= total, manual: false },
            retry,
          );
          if (answer === 'stopped') return 'stopped';
          if (answer instanceof Error) throw answer;
          outcome = answer;
        }
        if (lanes.afterAttempt(retry, total, outcome) === 'ended') break;
        outcome = undefined;
      }
    } catch (error) {
      // A non-retryable failure inside the activity (never the receiver's answer, never a failure
      // to record an attempt): the event is given up — ERROR, retryable by hand — and the lane goes on.
      log.error('webhook delivery given up after a non-retryable failure', { callbackId: event.callbackId, error: String(error) });
      await http.giveUpDelivery({ callbackId: event.callbackId, reason: failureReason(error) });
    }
    lanes.endHead(key);
    return 'done';
  };

  /** A lane to its end (or to the drain): its events' first attempts in groups, a failure then alone on its schedule. */
  const runLane = async (key: string) => {
    lanes.start(key);
    try {
      while (lanes.hasNext(key)) {
        let first: AttemptOutcome | undefined;
        if (!lanes.inSchedule(key)) {
          // The next group's first attempts, batched with the other lanes' groups.
          const next = lanes.recordFirstAttempts(key, await lanes.askFirstAttempts(key));
          if (next.head === 'ended') continue;
          first = next.first;
        }
        // The head that did not end goes alone, on its schedule.
        if ((await finishHead(key, first)) === 'stopped') return;
      }
    } finally {
      lanes.stop(key);
    }
  };

  /** Closes the stream after idleMs without lanes: one timer per idle period, none while lanes outlast it. */
  let idleExpired = false;
  const watchIdle = async () => {
    for (;;) {
      const left = lanes.idleLeft(input.idleMs);
      if (left <= 0 && lanes.idle()) {
        idleExpired = true;
        return;
      }
      // Idle time passed while lanes still wait (a long retry or parked pause): nothing to time until they end.
      if (left <= 0) await condition(() => lanes.idle());
      else await sleep(Math.max(left, 1000));
    }
  };
  if (input.idleMs > 0) void watchIdle();

  for (;;) {
    for (const key of lanes.startable()) void runLane(key);
    // What the lanes asked for in this activation goes out together, in batches.
    await condition(() => lanes.hasAsked() || lanes.startable().length > 0 || !lanes.anyRunning() || dueToContinue());
    for (const batch of lanes.takeBatches()) void sendFirstAttempts(batch);
    if (dueToContinue() && !lanes.draining) {
      // Lanes stop at their next pause (keeping its progress) or after their current attempt.
      lanes.draining = true;
      await condition(() => lanes.quiet());
      await continueAsNew<typeof webhookEndpointWorkflow>({ ...input, ...lanes.carry() });
    }
    if (lanes.idle()) {
      if (input.idleMs <= 0 || idleExpired) return lanes.delivered;
      await condition(() => lanes.hasLanes() || idleExpired || dueToContinue());
    }
  }
}
