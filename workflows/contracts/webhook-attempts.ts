/**
 * A webhook delivery's attempts — what the attempt activities take and answer, the retry schedule
 * and the waits for a parked or busy endpoint — shared by the endpoint stream
 * (contracts/webhook-endpoint.ts) and the manual retry (contracts/webhook-manual-retry.ts).
 */
export interface AttemptInput {
  callbackId: string;
  /** `auto:<n>` or `manual:<n>`: an attempt recorded under this key is not made again. */
  attemptKey: string;
  /** The last automatic attempt: a failure ends the delivery in ERROR. */
  final: boolean;
  manual: boolean;
  /** A manual attempt on a delivery the retry found ERROR: a failure ends it ERROR again (absent: false). */
  afterError?: boolean;
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
   * cap over all endpoints of its host) is other endpoints' doing.
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

/** Retries of the delivery activities' infrastructure failures (a database or worker hiccup), without a limit. */
export const WEBHOOK_ATTEMPT_RETRY = { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds' } as const;

/** The pause after failed attempt n (1-based): WEBHOOK_RETRY_DELAYS[n − 1], the last one repeated. */
export const retryDelayMs = (delaysMs: number[], attempt: number) => delaysMs[Math.min(attempt - 1, delaysMs.length - 1)] ?? 0;

/** The attempt's own HTTP deadline plus a few seconds for recording it; a killed worker's attempt is retried after this. */
export const attemptTimeoutMs = (config: { WEBHOOK_TIMEOUT_MS: number }) => config.WEBHOOK_TIMEOUT_MS + 5_000;
