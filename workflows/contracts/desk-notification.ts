/**
 * The desk hook's delivery: one run per desk event, `desk-hook:<event id>`, on the webhook task
 * queue, which POSTs the event to DESK_HOOK_URL until it is taken (a 2xx) or the attempts run out.
 * The relay (workers/desk-relay.ts) starts it with REJECT_DUPLICATE: an event is sent by one run.
 */
import { webhooksTaskQueue } from './task-queues';

export const deskNotificationWorkflowType = 'deskNotificationWorkflow';
export type DeskNotificationWorkflow = (input: DeskNotificationInput) => Promise<'DELIVERED'>;
export const deskNotificationTaskQueue = webhooksTaskQueue;

export interface DeskNotificationInput {
  /** desk_events.id as digits. */
  eventId: string;
  /** Attempts at most (DESK_HOOK_MAX_ATTEMPTS): 5 s, doubling up to 10 min between them. */
  maxAttempts: number;
  /** Deadline of one attempt's activity: WEBHOOK_TIMEOUT_MS and a margin. */
  attemptTimeoutMs: number;
}

export const deskNotificationWorkflowId = (eventId: string | bigint) => `desk-hook:${eventId}`;
