/**
 * One delivery stream per merchant endpoint (contracts/webhook-endpoint.ts), what the outbox
 * relay signals since issue 21. It keeps a lane per deal:
 *
 *   - a lane delivers its deal's events in outbox order, each to its end (SUCCESS or ERROR)
 *     before the next, exactly as a stream per deal did: its first attempt, then
 *     WEBHOOK_RETRY_DELAYS up to the merchant's max_retries in total, on durable timers;
 *   - lanes go side by side: a deal whose event is retrying holds up no other deal;
 *   - the first attempts of all lanes that are ready go in one local activity
 *     (deliverWebhookGroups), so deals created together cost one workflow task together;
 *   - the stream continues as new with its lanes, each head's retry progress included, and
 *     closes after WEBHOOK_STREAM_IDLE_SECONDS without lanes.
 */
import { condition, continueAsNew, log, proxyActivities, proxyLocalActivities, setHandler, sleep, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities';
import { failureReason } from './failures';
import { endpointWait, retryDelayMs, WEBHOOK_ATTEMPT_RETRY, type AttemptOutcome } from './contracts/webhook-attempts';
import { endpointEventsSignal, firstAttemptsDeadlineMs, type CarriedLane, type EndpointInput, type HeadRetry } from './contracts/webhook-endpoint';
import type { StreamEvent } from './contracts/webhook-endpoint';

/** A lane's queued events that go in one group of first attempts. */
const GROUP = 10;
/** Lanes in one batch of first attempts (one local activity). */
const LANES_PER_BATCH = 50;
/** Callback ids remembered across continue-as-new, to drop a relay's repeated signal. */
const SEEN_KEPT = 500;

interface Lane {
  events: StreamEvent[];
  retry?: HeadRetry;
  running: boolean;
}

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

  const lanes = new Map<string, Lane>();
  for (const carried of input.lanes ?? []) lanes.set(carried.lane, { events: [...carried.events], retry: carried.retry, running: false });
  const seen = new Set<string>(input.seen ?? []);
  // The stream closes after idleMs without lanes. One watchdog timer per idle period, not one per
  // wait: a busy stream starts a timer every idleMs, not one per batch of events, and none while
  // its lanes outlast the idle time.
  let lastBusy = Date.now();
  let idleExpired = false;
  // A relay that crashed before marking its batch signals the same events again: taken once.
  setHandler(endpointEventsSignal, (events) => {
    for (const { lane, ...event } of events) {
      if (seen.has(event.callbackId)) continue;
      seen.add(event.callbackId);
      const l = lanes.get(lane) ?? { events: [], running: false };
      l.events.push(event);
      lanes.set(lane, l);
    }
    lastBusy = Date.now();
  });

  let delivered = 0;
  let draining = false;
  let batchesInFlight = 0;

  // First attempts asked by lanes in one activation are sent together.
  const asked: { group: StreamEvent[]; answer: (outcomes: AttemptOutcome[] | undefined) => void }[] = [];
  const askFirstAttempts = (group: StreamEvent[]) => new Promise<AttemptOutcome[] | undefined>((answer) => asked.push({ group, answer }));
  const sendBatch = async (batch: typeof asked) => {
    batchesInFlight += 1;
    try {
      const outcomes = await firstAttempts(batch.map((b) => b.group.length)).deliverWebhookGroups(
        batch.map((b) => b.group.map((e) => ({ callbackId: e.callbackId, attemptKey: 'auto:1', final: e.maxAttempts <= 1, manual: false }))),
      );
      batch.forEach((b, i) => b.answer(outcomes[i] ?? []));
    } catch {
      // The batch failed for good as a whole (it gives single deliveries up itself): each lane's
      // head then goes alone on its own schedule; what the batch recorded is not done again.
      for (const b of batch) b.answer(undefined);
    } finally {
      batchesInFlight -= 1;
    }
  };

  /**
   * The head event's attempts after `first` (its first attempt's outcome, when made), to its end:
   * 'done' — or 'stopped' when the stream drains for continue-as-new during a pause, its progress
   * kept in `lane.retry` for the next run.
   */
  const finishHead = async (lane: Lane, first?: AttemptOutcome): Promise<'done' | 'stopped'> => {
    const event = lane.events[0]!;
    const total = Math.max(1, event.maxAttempts);
    const state: HeadRetry = lane.retry ?? { attempt: 1, parked: 0, dueAt: Date.now() };
    let made = first;
    try {
      for (;;) {
        if (!made) {
          const wait = state.dueAt - Date.now();
          if (wait > 0 && (await condition(() => draining, wait))) {
            lane.retry = state;
            return 'stopped';
          }
          made = await http.deliverWebhook({ callbackId: event.callbackId, attemptKey: `auto:${state.attempt}`, final: state.attempt >= total, manual: false });
        }
        const outcome: AttemptOutcome = made;
        made = undefined;
        if (outcome.retryInMs !== undefined) {
          // Nothing was sent (parked, busy): the same attempt after a durable pause (see endpointWait).
          const pause = endpointWait(outcome, state.parked);
          state.parked = pause.streak;
          state.dueAt = Date.now() + pause.waitMs;
          continue;
        }
        state.parked = 0;
        if (outcome.ok || outcome.permanent || state.attempt >= total) break;
        state.dueAt = Date.now() + retryDelayMs(input.delaysMs, state.attempt);
        state.attempt += 1;
      }
    } catch (error) {
      // A non-retryable failure inside the activity (never the receiver's answer, never a failure
      // to record an attempt): the event is given up — ERROR, retryable by hand — and the lane goes on.
      log.error('webhook delivery given up after a non-retryable failure', { callbackId: event.callbackId, error: String(error) });
      await http.giveUpDelivery({ callbackId: event.callbackId, reason: failureReason(error) });
    }
    lane.retry = undefined;
    lane.events.shift();
    delivered += 1;
    return 'done';
  };

  /** A lane to its end (or to the drain): batched first attempts, then each failure on its own schedule. */
  const runLane = async (key: string, lane: Lane) => {
    lane.running = true;
    try {
      while (lane.events.length > 0 && !draining) {
        if (lane.retry) {
          if ((await finishHead(lane)) === 'stopped') return;
          continue;
        }
        const group = lane.events.slice(0, GROUP);
        const outcomes = await askFirstAttempts(group);
        if (outcomes === undefined || outcomes.length === 0) {
          if ((await finishHead(lane)) === 'stopped') return;
          continue;
        }
        for (const outcome of outcomes) {
          // Delivered, failed for good, or its only attempt failed (ERROR): the event has ended.
          if (outcome.ok || outcome.permanent || outcome.status === 'ERROR') {
            lane.events.shift();
            delivered += 1;
            continue;
          }
          // The group stopped here: this event follows its own schedule from its second attempt
          // (or its first again, when the endpoint would not take it yet).
          if (outcome.retryInMs === undefined) lane.retry = { attempt: 2, parked: 0, dueAt: Date.now() + retryDelayMs(input.delaysMs, 1) };
          if ((await finishHead(lane, outcome.retryInMs === undefined ? undefined : outcome)) === 'stopped') return;
          break;
        }
      }
    } finally {
      lane.running = false;
      if (lane.events.length === 0) lanes.delete(key);
      lastBusy = Date.now();
    }
  };

  const startable = () => !draining && [...lanes.values()].some((l) => !l.running && l.events.length > 0);
  const anyRunning = () => batchesInFlight > 0 || [...lanes.values()].some((l) => l.running);
  const dueToContinue = () => workflowInfo().continueAsNewSuggested || (input.continueAfter !== undefined && delivered >= input.continueAfter);

  if (input.idleMs > 0) {
    void (async () => {
      for (;;) {
        const left = lastBusy + input.idleMs - Date.now();
        if (left <= 0 && lanes.size === 0 && !anyRunning()) {
          idleExpired = true;
          return;
        }
        // Idle time passed while lanes still wait (a long retry or parked pause): nothing to time
        // until they end.
        if (left <= 0) await condition(() => lanes.size === 0 && !anyRunning());
        else await sleep(Math.max(left, 1000));
      }
    })();
  }

  for (;;) {
    for (const [key, lane] of lanes) if (!lane.running && lane.events.length > 0) void runLane(key, lane);
    // Send what the lanes asked for in this activation, in batches.
    await condition(() => asked.length > 0 || startable() || !anyRunning() || dueToContinue());
    while (asked.length > 0) void sendBatch(asked.splice(0, LANES_PER_BATCH));
    if (dueToContinue() && !draining) {
      // Lanes stop at their next pause (keeping its progress) or after their current attempt.
      draining = true;
      await condition(() => !anyRunning() && asked.length === 0);
      const carried: CarriedLane[] = [...lanes].filter(([, l]) => l.events.length > 0).map(([lane, l]) => ({ lane, events: l.events, ...(l.retry ? { retry: l.retry } : {}) }));
      await continueAsNew<typeof webhookEndpointWorkflow>({ ...input, lanes: carried, seen: [...seen].slice(-SEEN_KEPT) });
    }
    if (lanes.size === 0 && !anyRunning()) {
      if (input.idleMs <= 0 || idleExpired) return delivered;
      await condition(() => lanes.size > 0 || idleExpired || dueToContinue());
    }
  }
}
