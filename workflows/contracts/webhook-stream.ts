/**
 * The delivery stream's contract: one workflow per (deal, target), `webhooks:<deal>:<target>`,
 * started by the outbox relay (Signal-With-Start) on the webhook task queue. It delivers the
 * deal's events to that target one after another, in outbox order. Each event keeps its own
 * delivery record (callback id), attempt rows, retry schedule and manual retry; the stream only
 * orders them and saves a workflow start and close per event. Names are a wire protocol.
 */
import type { SearchAttributePair } from '@temporalio/common';
import { defineSignal } from '@temporalio/workflow';
import { DealIdKey, MerchantIdKey } from './search-attributes';
import { webhooksTaskQueue } from './task-queues';

export const webhookStreamWorkflowType = 'webhookStreamWorkflow';
/** Answers how many events the run delivered. */
export type WebhookStreamWorkflow = (input: StreamInput) => Promise<number>;
export const webhookStreamTaskQueue = webhooksTaskQueue;
/** The revision the relay starts streams with (StreamInput.revision). */
export const STREAM_REVISION = 2;

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
  /**
   * The stream revision the run was started with; absent: 1. From 2 on (issue 21) the queued
   * events' first attempts run as a local activity, answered in the workflow task that asked.
   * Continue-as-new carries it, so a run keeps the behaviour it began with.
   */
  revision?: number;
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

/** The relay hands a stream its events (in outbox order) with this signal. */
export const streamEventsSignal = defineSignal<[StreamEvent[]]>('events');

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

/** Findable in the Temporal UI by the deal and the merchant, like the deal's own workflow. */
export const streamSearchAttributes = (stream: { merchantId: string; dealId: string | null }): SearchAttributePair[] => [
  { key: MerchantIdKey, value: stream.merchantId },
  ...(stream.dealId ? [{ key: DealIdKey, value: stream.dealId }] : []),
];
