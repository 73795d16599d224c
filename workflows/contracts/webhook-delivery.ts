/** The webhook delivery workflow's wire protocol. */
export interface DeliveryInput {
  callbackId: string;
  eventId: string;
  url: string;
  /** Pauses between attempts (WEBHOOK_RETRY_DELAYS), in ms. */
  delaysMs: number[];
  /** Deadline of one HTTP attempt activity: WEBHOOK_TIMEOUT_MS plus room for its two short queries. */
  attemptTimeoutMs?: number;
  /** A manual retry run (the n-th) makes exactly one attempt. */
  manualRetry?: number;
  /**
   * Set by the relay, which has already created the delivery record (in one statement for its
   * batch): the workflow then skips prepareDelivery. Absent (manual retries, older relays): the
   * workflow prepares the record itself.
   */
  maxAttempts?: number;
}

export interface DeliveryPlan {
  maxAttempts: number;
}

export interface AttemptInput {
  callbackId: string;
  /** `auto:<n>` or `manual:<n>`: an attempt recorded under this key is not made again. */
  attemptKey: string;
  /** The last automatic attempt: a failure ends the delivery in ERROR. */
  final: boolean;
  manual: boolean;
}

export interface AttemptOutcome {
  ok: boolean;
  permanent: boolean;
  status: 'SUCCESS' | 'RETRY' | 'ERROR';
  httpStatus: number;
  /** Not attempted: the endpoint is parked (circuit open) or an in-flight limit is reached; come back after this. */
  retryInMs?: number;
  /**
   * Why it was not attempted (with retryInMs): 'parked' (this endpoint's circuit is open) and
   * 'busy' (this endpoint's in-flight cap) are the endpoint's own doing; 'host-busy' (the looser
   * cap over all endpoints of its host) is other endpoints' doing. Absent in results of workers
   * before issue 17 (they were all treated as the endpoint's own).
   */
  waitReason?: 'parked' | 'busy' | 'host-busy';
}

/** The longest a delivery waits for its endpoint in one go. */
export const MAX_ENDPOINT_WAIT_MS = 3_600_000;

/**
 * The durable pause after an attempt that was not made (outcome.retryInMs), and the streak to
 * carry to the next one. A wait of the endpoint's own (parked, busy) doubles with each one in a
 * row, at most an hour, so a thousand deliveries to a dead endpoint wake rarely; a wait caused by
 * other endpoints on the same host ('host-busy') is never escalated and leaves the streak as it is.
 * Deterministic (workflow code): a pure function of the recorded outcome.
 */
export function endpointWait(outcome: Pick<AttemptOutcome, 'retryInMs' | 'waitReason'>, streak: number): { waitMs: number; streak: number } {
  const base = outcome.retryInMs ?? 0;
  if (outcome.waitReason === 'host-busy') return { waitMs: Math.min(base, MAX_ENDPOINT_WAIT_MS), streak };
  return { waitMs: Math.min(base * 2 ** Math.min(streak, 10), MAX_ENDPOINT_WAIT_MS), streak: streak + 1 };
}

export interface GiveUpInput {
  callbackId: string;
  /** What failed for good (the activity failure's message). */
  reason: string;
}

/** The per-event workflow id of earlier relays (and of tests that drive one delivery alone). */
export const webhookWorkflowId = (callbackId: string) => `webhook:${callbackId}`;
/** Manual retries are runs of their own, so they never race the automatic run's last moments. */
export const manualRetryWorkflowId = (callbackId: string, n: number) => `webhook:${callbackId}:manual:${n}`;


/** The attempt's own HTTP deadline plus a few seconds for recording it; a killed worker's attempt is retried after this. */
export const attemptTimeoutMs = (config: { WEBHOOK_TIMEOUT_MS: number }) => config.WEBHOOK_TIMEOUT_MS + 5_000;

/**
 * A delivery stream: one workflow per (deal, target) that delivers the deal's events to that
 * target one after another, in outbox order. Each event keeps its own delivery record (callback
 * id), attempt rows, retry schedule and manual retry; the stream only orders them and saves a
 * workflow start and close per event.
 */
export interface StreamInput {
  /** The deal the events belong to, or, for an event without a deal, the event itself. */
  key: string;
  url: string;
  delaysMs: number[];
  attemptTimeoutMs: number;
  /** How long an empty stream waits for the deal's next event before it closes (a later event starts a new run). */
  idleMs: number;
  /** Continue-as-new after this many deliveries in one run (tests); otherwise when Temporal suggests it. */
  continueAfter?: number;
  /** Carried over by continue-as-new: events received but not delivered yet, and the callbacks already taken. */
  pending?: StreamEvent[];
  seen?: string[];
}

export interface StreamEvent {
  callbackId: string;
  eventId: string;
  eventType: string;
  /** The merchant's max_retries when the event was relayed: attempts in total. */
  maxAttempts: number;
}

export const STREAM_EVENTS_SIGNAL = 'events';

/** After these a deal's stream closes as soon as it is empty: nothing usually follows them. */
export const FINAL_EVENT_TYPES: ReadonlySet<string> = new Set([
  'deal.completed',
  'deal.cancelled',
  'deal.expired',
  'deal.failed',
  'appeal.resolved',
  'appeal.closed',
  'p2p.finance.withdrawal_failed',
]);

/** `webhooks:<deal id>:<first 16 hex of sha256(url)>`: findable from the deal, stable per target. */
export const streamWorkflowId = (key: string, urlHash: string) => `webhooks:${key}:${urlHash.slice(0, 16)}`;
