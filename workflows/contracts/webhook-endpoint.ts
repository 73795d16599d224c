/**
 * The endpoint stream's contract: one long-lived workflow per merchant endpoint
 * (merchant + target URL), `webhooks:endpoint:<merchant>:<sha256(url)[0:16]>`, Signal-With-Start
 * by the outbox relay on the webhook task queue. It keeps a lane per deal: each deal's events are
 * delivered in outbox order, each to its end before the next, while the lanes of different deals
 * go side by side — their first attempts batched into one local activity. A deal costs no
 * workflow start of its own, and deals created together are delivered together. Each event keeps
 * its delivery record (callback id), attempt rows, retry schedule and manual retry; per-deal
 * search is in Postgres (`GET /callbacks?deal_id=`). Names are a wire protocol.
 */
import type { SearchAttributePair } from '@temporalio/common';
import { defineSignal } from '@temporalio/workflow';
import { MerchantIdKey } from './search-attributes';
import { webhooksTaskQueue } from './task-queues';

export const webhookEndpointWorkflowType = 'webhookEndpointWorkflow';
/** Answers how many events the run delivered. */
export type WebhookEndpointWorkflow = (input: EndpointInput) => Promise<number>;
export const webhookEndpointTaskQueue = webhooksTaskQueue;

/** One event to deliver: its delivery record (callback id) and the attempts it may take. */
export interface StreamEvent {
  callbackId: string;
  eventId: string;
  eventType: string;
  /** The merchant's max_retries when the event was relayed: attempts in total. */
  maxAttempts: number;
}

/** An event for a lane: the deal's id, or the event's own for an event of no deal. */
export interface EndpointEvent extends StreamEvent {
  lane: string;
}

/** Where a lane's head stands in its retry schedule (carried by continue-as-new). */
export interface HeadRetry {
  /** The attempt to make next (its key is `auto:<attempt>`). */
  attempt: number;
  /** Workflow time (ms) at which that attempt is due: it never goes earlier. */
  dueAt: number;
  /** How much later than dueAt it may go, to share a wake-up with other heads due about then (absent: 0). */
  slackMs?: number;
}

/**
 * The endpoint's own pause (its circuit open, or its in-flight cap full): the whole stream waits
 * until `until`, then one head goes as the probe; an attempt the endpoint takes ends the pause.
 * `streak` counts the pauses in a row: each doubles (endpointWait), at most an hour.
 */
export interface EndpointPause {
  until: number;
  streak: number;
}

export interface CarriedLane {
  lane: string;
  events: StreamEvent[];
  /** The head event's progress when it was mid-schedule; absent: its first attempt is next. */
  retry?: HeadRetry;
}

export interface EndpointInput {
  merchantId: string;
  url: string;
  delaysMs: number[];
  attemptTimeoutMs: number;
  /** How long a stream without lanes waits for the next event before it closes (a later event starts a new run). */
  idleMs: number;
  /** Continue-as-new after this many deliveries in one run (tests); otherwise when Temporal suggests it. */
  continueAfter?: number;
  /** Carried over by continue-as-new: the lanes with their events and head progress, and the callbacks already taken. */
  lanes?: CarriedLane[];
  seen?: string[];
  pause?: EndpointPause;
  /** The task queue of the automatic retries' activities (its dispatch rate is capped); absent: the stream's own. */
  retryTaskQueue?: string;
}

/** Lanes whose first attempts deliverWebhookGroups sends at once (the endpoint's own cap still applies). */
export const FIRST_ATTEMPT_LANES_AT_ONCE = 8;

/** Heads whose retries due together go in one deliverWebhookGroups activity: one round of it (FIRST_ATTEMPT_LANES_AT_ONCE at a time). */
export const RETRIES_PER_BATCH = 8;

/**
 * How much later than its pause a retry may go to share a wake-up (one timer, one workflow task,
 * one activity) with the stream's other heads due about then: a tenth of the pause, at most this.
 * Never earlier: the spec's pauses are minimums.
 */
export const RETRY_SLACK_MAX_MS = 5_000;
export const retrySlackMs = (pauseMs: number) => Math.min(RETRY_SLACK_MAX_MS, Math.floor(pauseMs / 10));

/**
 * The deadline of one deliverWebhookGroups call: its groups run FIRST_ATTEMPT_LANES_AT_ONCE at a
 * time, each attempt bounded by attemptTimeoutMs — rounds × the longest group, plus one round for
 * the uneven finish of a shared pool.
 */
export const firstAttemptsDeadlineMs = (attemptTimeoutMs: number, groupLengths: number[]) =>
  attemptTimeoutMs * Math.max(...groupLengths) * (Math.ceil(groupLengths.length / FIRST_ATTEMPT_LANES_AT_ONCE) + 1);

/** The relay hands the stream its events, in outbox order, with this signal. */
export const endpointEventsSignal = defineSignal<[EndpointEvent[]]>('endpoint-events');

/** `webhooks:endpoint:<merchant id>:<first 16 hex of sha256(url)>`: one per merchant endpoint. */
export const endpointWorkflowId = (merchantId: string, urlHash: string) => `webhooks:endpoint:${merchantId}:${urlHash.slice(0, 16)}`;

/** Findable in the Temporal UI by the merchant; a deal's deliveries are listed from Postgres. */
export const endpointSearchAttributes = (merchantId: string): SearchAttributePair[] => [{ key: MerchantIdKey, value: merchantId }];
