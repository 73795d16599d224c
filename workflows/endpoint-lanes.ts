/**
 * The bookkeeping of an endpoint stream (workflows/webhook-endpoint.ts): its lanes — one per deal,
 * each a queue of events whose head may be in the middle of its retry schedule — the callbacks
 * already taken, the first attempts the lanes asked for and the batches they go out in, the heads
 * waiting for their retry and when the stream wakes for them, the endpoint's pause, the count
 * of deliveries ended and the stream's last busy moment. Plain code with no Temporal calls (the
 * clock is injected), so it is unit-tested on its own (test/unit/endpoint-lanes.test.ts); the
 * workflow drives it: it waits, calls the activities and tells the lanes what they answered.
 */
import { endpointWait, retryDelayMs, type AttemptInput, type AttemptOutcome } from './contracts/webhook-attempts';
import {
  RETRIES_PER_BATCH,
  retrySlackMs,
  type CarriedLane,
  type EndpointEvent,
  type EndpointPause,
  type HeadRetry,
  type StreamEvent,
} from './contracts/webhook-endpoint';

/** A lane's queued events that go in one group of first attempts. */
export const GROUP = 10;
/** Lanes in one batch of first attempts (one local activity). */
export const LANES_PER_BATCH = 50;
/** Callback ids remembered across continue-as-new, to drop a relay's repeated signal. */
export const SEEN_KEPT = 500;

interface Lane {
  events: StreamEvent[];
  /** The head's progress through its schedule, once it follows one (kept across continue-as-new). */
  retry?: HeadRetry;
  /** A workflow coroutine is taking this lane's events (workflow: runLane). */
  running: boolean;
}

/** First attempts of several lanes, one group per lane, sent together; `settle` answers each lane. */
export interface FirstAttemptBatch {
  groups: StreamEvent[][];
  /** The outcomes per group, in order; undefined when the batch failed for good as a whole. */
  settle(outcomes: AttemptOutcome[][] | undefined): void;
}

/** Retries of several heads due together, one attempt each, sent in one activity; `settle` answers each head. */
export interface RetryBatch {
  attempts: AttemptInput[];
  /** The outcomes, in order; an Error when the batch failed for good as a whole (each head is then given up). */
  settle(outcomes: (AttemptOutcome | undefined)[] | Error): void;
}

interface WaitingHead {
  input: AttemptInput;
  retry: HeadRetry;
  answer: (outcome: AttemptOutcome | 'stopped' | Error) => void;
}

/** What a lane does after its group's first attempts: nothing (all ended), or take its head alone. */
export type AfterFirstAttempts = { head: 'ended' } | { head: 'alone'; first?: AttemptOutcome };

export class EndpointLanes {
  readonly #lanes = new Map<string, Lane>();
  readonly #seen: Set<string>;
  readonly #asked: { group: StreamEvent[]; answer: (outcomes: AttemptOutcome[] | undefined) => void }[] = [];
  readonly #delaysMs: number[];
  readonly #now: () => number;
  #batchesInFlight = 0;
  readonly #waiting = new Map<string, WaitingHead>();
  #pause: EndpointPause;
  /** The probe of a pause that ended is out: no other head goes until it answers. */
  #probing = false;
  /** Moves whenever a head starts or stops waiting: the retry clock re-plans. */
  retryVersion = 0;
  #lastBusy: number;
  /** Deliveries ended in this run (SUCCESS or ERROR, given up included). */
  delivered = 0;
  /** Set for continue-as-new: no lane starts, running ones stop at their next pause. */
  draining = false;

  constructor(options: { delaysMs: number[]; carried?: CarriedLane[]; seen?: string[]; pause?: EndpointPause; now?: () => number }) {
    this.#delaysMs = options.delaysMs;
    this.#now = options.now ?? Date.now;
    this.#pause = options.pause ?? { until: 0, streak: 0 };
    for (const carried of options.carried ?? []) this.#lanes.set(carried.lane, { events: [...carried.events], retry: carried.retry, running: false });
    this.#seen = new Set(options.seen ?? []);
    this.#lastBusy = this.#now();
  }

  // ---- Events in ----

  /** The relay's events, each to its lane in the order given; a callback already taken is dropped (a relay that crashed before marking its batch signals it again). */
  take(events: EndpointEvent[]): void {
    for (const { lane, ...event } of events) {
      if (this.#seen.has(event.callbackId)) continue;
      this.#seen.add(event.callbackId);
      const l = this.#lanes.get(lane) ?? { events: [], running: false };
      l.events.push(event);
      this.#lanes.set(lane, l);
    }
    this.#lastBusy = this.#now();
  }

  // ---- Lanes ----

  /** Lanes with events that no coroutine takes yet, in the order they were opened. */
  startable(): string[] {
    if (this.draining) return [];
    return [...this.#lanes].filter(([, l]) => !l.running && l.events.length > 0).map(([key]) => key);
  }

  /** A coroutine takes the lane. */
  start(key: string): void {
    this.#lane(key).running = true;
  }

  /** Whether the lane has an event to take next (and the stream is not draining). */
  hasNext(key: string): boolean {
    return !this.draining && this.#lane(key).events.length > 0;
  }

  /** The lane's head follows its own schedule (a failed first attempt, or carried over mid-schedule). */
  inSchedule(key: string): boolean {
    return this.#lane(key).retry !== undefined;
  }

  /** The coroutine let the lane go: a lane that ran dry is closed, and the stream was busy until now. */
  stop(key: string): void {
    const lane = this.#lane(key);
    lane.running = false;
    if (lane.events.length === 0) this.#lanes.delete(key);
    this.#lastBusy = this.#now();
  }

  // ---- First attempts, batched ----

  /** The lane's next group (up to GROUP events) asks for its first attempts; answered by a batch's `settle`. */
  askFirstAttempts(key: string): Promise<AttemptOutcome[] | undefined> {
    const group = this.#lane(key).events.slice(0, GROUP);
    return new Promise((answer) => this.#asked.push({ group, answer }));
  }

  hasAsked(): boolean {
    return this.#asked.length > 0;
  }

  /** Everything asked so far, in batches of LANES_PER_BATCH groups; each is in flight until settled. */
  takeBatches(): FirstAttemptBatch[] {
    const batches: FirstAttemptBatch[] = [];
    while (this.#asked.length > 0) {
      const asked = this.#asked.splice(0, LANES_PER_BATCH);
      this.#batchesInFlight += 1;
      batches.push({
        groups: asked.map((a) => a.group),
        settle: (outcomes) => {
          for (const [i, a] of asked.entries()) a.answer(outcomes ? (outcomes[i] ?? []) : undefined);
          this.#batchesInFlight -= 1;
        },
      });
    }
    return batches;
  }

  /**
   * A group's first attempts, as its batch answered them: the events that ended (delivered,
   * failed for good, or their only attempt failed: ERROR) leave the lane; the first that did not
   * stops the group and its event goes alone — from its second attempt after the first pause of
   * the schedule, or, when the endpoint would not take it yet (retryInMs), with that outcome to
   * wait on. No outcomes (the batch failed as a whole): the head goes alone from its first attempt.
   */
  recordFirstAttempts(key: string, outcomes: AttemptOutcome[] | undefined): AfterFirstAttempts {
    if (outcomes === undefined || outcomes.length === 0) return { head: 'alone' };
    const lane = this.#lane(key);
    for (const outcome of outcomes) {
      // An attempt the endpoint took (not a parked or busy answer) ends its pause: the heads waiting on it may go.
      if (outcome.retryInMs === undefined) this.#pause = { until: 0, streak: 0 };
      if (outcome.ok || outcome.permanent || outcome.status === 'ERROR') {
        lane.events.shift();
        this.delivered += 1;
        continue;
      }
      if (outcome.retryInMs !== undefined) return { head: 'alone', first: outcome };
      const pause = retryDelayMs(this.#delaysMs, 1);
      lane.retry = { attempt: 2, dueAt: this.#now() + pause, slackMs: retrySlackMs(pause) };
      return { head: 'alone' };
    }
    return { head: 'ended' };
  }

  // ---- The head on its own schedule ----

  /** The lane's head, its total of attempts, and where it stands in its schedule (its first attempt, due now, unless it already follows one). */
  head(key: string): { event: StreamEvent; total: number; retry: HeadRetry } {
    const lane = this.#lane(key);
    const event = lane.events[0]!;
    lane.retry ??= { attempt: 1, dueAt: this.#now() };
    return { event, total: Math.max(1, event.maxAttempts), retry: lane.retry };
  }

  /**
   * Moves the head's schedule on after an attempt's outcome: 'ended' (delivered, failed for good,
   * or its last attempt failed), or 'again' with `retry` showing the attempt to make and when.
   * An attempt not made because of the endpoint itself (parked, busy) pauses the whole stream —
   * a pause that doubles while they last (endpointWait), after which one head probes; one not made
   * because of the merchant's other endpoints on the host (host-busy) waits alone, flat. A failed
   * attempt waits the schedule's next delay; any attempt made ends the endpoint's pause.
   */
  afterAttempt(retry: HeadRetry, total: number, outcome: AttemptOutcome): 'ended' | 'again' {
    const now = this.#now();
    if (outcome.retryInMs !== undefined) {
      if (outcome.waitReason === 'host-busy') {
        retry.dueAt = now + endpointWait(outcome, 0).waitMs;
      } else {
        // Heads of one batch that all found the endpoint parked make one pause, not one each. The
        // head stays due: it waits for the pause, and goes as soon as an attempt ends it.
        if (this.#pause.until <= now) {
          const wait = endpointWait(outcome, this.#pause.streak);
          this.#pause = { until: now + wait.waitMs, streak: wait.streak };
        }
      }
      retry.slackMs = 0;
      return 'again';
    }
    this.#pause = { until: 0, streak: 0 };
    if (outcome.ok || outcome.permanent || retry.attempt >= total) return 'ended';
    const pause = retryDelayMs(this.#delaysMs, retry.attempt);
    retry.dueAt = now + pause;
    retry.slackMs = retrySlackMs(pause);
    retry.attempt += 1;
    return 'again';
  }

  // ---- Retries: the heads waiting, one wake-up and one activity for those due together ----

  /** The head waits for its retry (at retry.dueAt, or after the endpoint's pause): answered by a batch, or 'stopped' by the drain. */
  awaitRetry(key: string, input: AttemptInput, retry: HeadRetry): Promise<AttemptOutcome | 'stopped' | Error> {
    if (this.draining) return Promise.resolve('stopped');
    this.retryVersion += 1;
    return new Promise((answer) => this.#waiting.set(key, { input, retry, answer }));
  }

  /** When the stream must wake for its waiting heads: the earliest a head may be late to (due + slack), not before the pause ends; none while a probe is out. */
  nextRetryWake(): number | undefined {
    if (this.#probing) return undefined;
    let wake: number | undefined;
    for (const { retry } of this.#waiting.values()) {
      const at = Math.max(retry.dueAt + (retry.slackMs ?? 0), this.#pause.until);
      if (wake === undefined || at < wake) wake = at;
    }
    return wake;
  }

  /**
   * The heads due now, in batches of RETRIES_PER_BATCH; after a pause only one, the probe, until
   * it answers. Each head is in flight until its batch settles.
   */
  takeDueRetries(): RetryBatch[] {
    const now = this.#now();
    if (this.#probing || this.#pause.until > now) return [];
    let due = [...this.#waiting].filter(([, w]) => w.retry.dueAt <= now);
    if (due.length === 0) return [];
    const probe = this.#pause.streak > 0;
    if (probe) {
      due = due.slice(0, 1);
      this.#probing = true;
    }
    const batches: RetryBatch[] = [];
    for (let i = 0; i < due.length; i += RETRIES_PER_BATCH) {
      const heads = due.slice(i, i + RETRIES_PER_BATCH);
      for (const [key] of heads) this.#waiting.delete(key);
      this.#batchesInFlight += 1;
      batches.push({
        attempts: heads.map(([, w]) => w.input),
        settle: (outcomes) => {
          this.#batchesInFlight -= 1;
          this.retryVersion += 1;
          if (probe) this.#probing = false;
          for (const [n, [, w]] of heads.entries()) {
            const outcome = outcomes instanceof Error ? outcomes : outcomes[n];
            w.answer(outcome ?? new Error('the batch answered no outcome for this attempt'));
          }
        },
      });
    }
    return batches;
  }

  /** The drain: every waiting head stops (keeping its progress). */
  stopWaiting(): void {
    for (const { answer } of this.#waiting.values()) answer('stopped');
    this.#waiting.clear();
    this.retryVersion += 1;
  }

  /** The head has ended (or was given up): the lane's next event is its head. */
  endHead(key: string): void {
    const lane = this.#lane(key);
    lane.retry = undefined;
    lane.events.shift();
    this.delivered += 1;
  }

  // ---- The stream as a whole ----

  /** A lane is being taken or a batch of first attempts is out. */
  anyRunning(): boolean {
    return this.#batchesInFlight > 0 || [...this.#lanes.values()].some((l) => l.running);
  }

  /** No lane and nothing running: the stream may close once idle long enough. */
  idle(): boolean {
    return this.#lanes.size === 0 && !this.anyRunning();
  }

  hasLanes(): boolean {
    return this.#lanes.size > 0;
  }

  /** ms until the stream has been idle for idleMs since it was last busy (≤ 0: it has). */
  idleLeft(idleMs: number): number {
    return this.#lastBusy + idleMs - this.#now();
  }

  /** Drained for continue-as-new: nothing running and nothing asked. */
  quiet(): boolean {
    return !this.anyRunning() && this.#asked.length === 0;
  }

  /** What the next run takes over: the lanes with events (each head's progress included), the callbacks taken lately, the endpoint's pause. */
  carry(): { lanes: CarriedLane[]; seen: string[]; pause: EndpointPause } {
    const lanes = [...this.#lanes]
      .filter(([, l]) => l.events.length > 0)
      .map(([lane, l]) => ({ lane, events: l.events, ...(l.retry ? { retry: l.retry } : {}) }));
    return { lanes, seen: [...this.#seen].slice(-SEEN_KEPT), pause: { ...this.#pause } };
  }

  #lane(key: string): Lane {
    const lane = this.#lanes.get(key);
    if (!lane) throw new Error(`no lane ${key}`);
    return lane;
  }
}
