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
  attemptsSoFar: number;
  maxAttempts: number;
}

export interface AttemptOutcome {
  ok: boolean;
  permanent: boolean;
  status: 'SUCCESS' | 'RETRY' | 'ERROR';
  httpStatus: number;
  /** Not attempted: the target host is parked (circuit open) or at its in-flight limit; come back after this. */
  retryInMs?: number;
}

export const webhookWorkflowId = (callbackId: string) => `webhook:${callbackId}`;
/** Manual retries are runs of their own, so they never race the automatic run's last moments. */
export const manualRetryWorkflowId = (callbackId: string, n: number) => `webhook:${callbackId}:manual:${n}`;


/** The attempt's own HTTP deadline plus a few seconds for recording it; a killed worker's attempt is retried after this. */
export const attemptTimeoutMs = (config: { WEBHOOK_TIMEOUT_MS: number }) => config.WEBHOOK_TIMEOUT_MS + 5_000;
