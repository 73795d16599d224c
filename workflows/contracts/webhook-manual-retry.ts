/**
 * The manual retry's contract: one run per retry, `webhook:<callback_id>:manual:<n>`,
 * on the webhook task queue, making exactly one attempt now.
 */
import { webhooksTaskQueue } from './task-queues';

export const webhookManualRetryWorkflowType = 'webhookManualRetryWorkflow';
export type WebhookManualRetryWorkflow = (input: ManualRetryInput) => Promise<'SUCCESS' | 'ERROR'>;
export const webhookManualRetryTaskQueue = webhooksTaskQueue;

export interface ManualRetryInput {
  callbackId: string;
  eventId: string;
  url: string;
  /** The automatic schedule (WEBHOOK_RETRY_DELAYS, ms), for reference: a manual retry makes one attempt. */
  delaysMs: number[];
  /** Deadline of the HTTP attempt activity: WEBHOOK_TIMEOUT_MS plus room for its two short queries. */
  attemptTimeoutMs: number;
  /** The n-th manual retry of the delivery: its attempt key is `manual:<n>`. */
  manualRetry: number;
  /**
   * The delivery was ERROR when the retry was claimed (the claim queued it as RETRY): no automatic
   * run is left to decide, so a failed attempt — or a run that could not make one — ends it ERROR.
   */
  afterError: boolean;
}

/** Manual retries are runs of their own, so they never race the automatic run's last moments. */
export const manualRetryWorkflowId = (callbackId: string, n: number) => `webhook:${callbackId}:manual:${n}`;
