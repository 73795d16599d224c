/**
 * Outbox relay: every committed event goes to its merchant endpoint's delivery stream (one
 * workflow per merchant + target, `webhooks:endpoint:<merchant>:<target>`), which delivers each
 * deal's events in order in a lane of its own (workflows/webhook-endpoint.ts). Each event × target
 * keeps its own delivery record, created here, whose callback id is fixed by (event, target): a
 * crash between signalling and marking events dispatched neither loses nor doubles a delivery
 * (the next pass signals again; the stream takes a callback once, and an attempt on an ended
 * delivery sends nothing). Relays in several worker processes take turns (a transaction-level
 * advisory lock), so one deal's events are always signalled in outbox order. Woken by
 * LISTEN/NOTIFY; polls as a fallback.
 */
import { createHash } from 'node:crypto';
import type { Client } from '@temporalio/client';
import type { Logger } from 'pino';
import type { Config } from '../config';
import { DEAL_FINISH_EVENTS, type WorkerMetrics } from '../config/metrics';
import type { Sql } from '../db/sql';
import { callbackIdFor } from '../domain/ids';
import type { WebhookFormats } from '../domain/events/webhook-formats';
import { lockPendingEvents, markEventsDispatched, takeRelayTurn, type PendingEvent } from '../db/queries/outbox';
import { insertDeliveries } from '../db/queries/webhooks';
import { attemptTimeoutMs } from '../workflows/contracts/webhook-attempts';
import {
  endpointEventsSignal,
  endpointSearchAttributes,
  endpointWorkflowId,
  webhookEndpointTaskQueue,
  webhookEndpointWorkflowType,
  type EndpointEvent,
  type EndpointInput,
  type WebhookEndpointWorkflow,
} from '../workflows/contracts/webhook-endpoint';
import { webhookRetriesTaskQueue } from '../workflows/contracts/task-queues';

const BATCH = 100;

/** The deal's callback_url for a PayIn when set, else the merchant's webhook_url. */
function webhookTarget(e: Pick<PendingEvent, 'webhook_url' | 'callback_url' | 'deal_type'>): string {
  return (e.deal_type === 'PAYIN' && e.callback_url) || e.webhook_url;
}

const urlHash = (url: string) => createHash('sha256').update(url).digest('hex');

interface EndpointStream {
  workflowId: string;
  input: EndpointInput;
  events: EndpointEvent[];
}

type RelayDeps = { sql: Sql; client: Client; config: Config; webhookFormats: WebhookFormats; metrics?: WorkerMetrics };

/**
 * Deals created and finished, counted from a batch's events once it committed: each event is
 * dispatched by one committed batch, so each is counted once (a transaction retried by db/sql.ts
 * counts only its last, committed run). An event handed on again by hand would count again.
 */
function countDealEvents(metrics: WorkerMetrics, events: PendingEvent[]): void {
  for (const e of events) {
    if (e.deal_type !== 'PAYIN' && e.deal_type !== 'PAYOUT') continue;
    const type = e.deal_type === 'PAYIN' ? 'payin' : 'payout';
    const world = e.sandbox ? 'sandbox' : 'live';
    if (e.event_type === 'deal.created') metrics.dealsCreated.inc({ type, world });
    const outcome = DEAL_FINISH_EVENTS[type].get(e.event_type);
    if (outcome) metrics.dealsFinished.inc({ type, outcome, world });
  }
}

async function relayOutboxBatch(deps: RelayDeps): Promise<number> {
  const events = await relayOutboxEvents(deps);
  if (deps.metrics) countDealEvents(deps.metrics, events);
  return events.length;
}

async function relayOutboxEvents(deps: RelayDeps): Promise<PendingEvent[]> {
  return deps.sql.begin(async (tx) => {
    // One relay at a time: a second one would take a deal's later events while the first still
    // holds its earlier ones, and signal them first.
    if (!(await takeRelayTurn(tx))) return [];
    const events = await lockPendingEvents(tx, BATCH);
    // The merchant's webhook format says which events it receives (V2-only events such as
    // deal.amount_changed never reach a format without them): no delivery for the rest.
    const deliveries = events
      .map((e) => ({ e, url: webhookTarget(e) }))
      .filter(({ e, url }) => url && deps.webhookFormats.of(e.api_version).receives(e.event_type))
      .map(({ e, url }) => ({ e, url, callbackId: callbackIdFor(e.id, url) }));
    // The delivery records are created here, in one statement for the batch, and committed
    // (outside the batch's transaction) before any stream is signalled, so a stream's first
    // attempt finds its record. Idempotent: a rerun after a crash finds the rows there.
    // (The batch locks its events FOR NO KEY UPDATE, which lets this insert's foreign-key check pass.)
    if (deliveries.length > 0) {
      await insertDeliveries(
        deps.sql,
        deliveries.map((d) => ({ callbackId: d.callbackId, eventId: d.e.id, url: d.url })),
      );
    }
    // Group by stream, keeping outbox order inside each: one signal per stream per batch. Every
    // event goes to its merchant endpoint's stream, in a lane of its deal (or of its own).
    const endpoints = new Map<string, EndpointStream>();
    for (const { e, url, callbackId } of deliveries) {
      const event = { callbackId, eventId: e.id, eventType: e.event_type, maxAttempts: e.max_retries };
      const key = e.deal_id ?? e.id;
      const workflowId = endpointWorkflowId(e.merchant_id, urlHash(url));
      const endpoint = endpoints.get(workflowId) ?? {
        workflowId,
        input: {
          merchantId: e.merchant_id,
          url,
          delaysMs: deps.config.WEBHOOK_RETRY_DELAYS,
          attemptTimeoutMs: attemptTimeoutMs(deps.config),
          idleMs: deps.config.WEBHOOK_STREAM_IDLE_SECONDS * 1000,
          retryTaskQueue: webhookRetriesTaskQueue(deps.config),
        },
        events: [],
      };
      endpoint.events.push({ ...event, lane: key });
      endpoints.set(workflowId, endpoint);
    }
    // Starts the stream if it is not running (again, after an earlier run closed), then hands it
    // the events; Temporal keeps a workflow's signals in the order they arrive.
    await Promise.all(
      [...endpoints.values()].map((endpoint) =>
        deps.client.workflow.signalWithStart<WebhookEndpointWorkflow, [EndpointEvent[]]>(webhookEndpointWorkflowType, {
          workflowId: endpoint.workflowId,
          taskQueue: webhookEndpointTaskQueue(deps.config),
          args: [endpoint.input],
          signal: endpointEventsSignal,
          signalArgs: [endpoint.events],
          typedSearchAttributes: endpointSearchAttributes(endpoint.input.merchantId),
        }),
      ),
    );
    if (events.length > 0)
      await markEventsDispatched(
        tx,
        events.map((e) => e.id),
      );
    return events;
  }) as Promise<PendingEvent[]>;
}

export async function startOutboxRelay(deps: RelayDeps & { log: Logger }) {
  let stopped = false;
  let wake: () => void = () => {};
  const listener = await deps.sql.listen('outbox_events', () => wake());
  const loop = (async () => {
    while (!stopped) {
      let relayed = 0;
      try {
        relayed = await relayOutboxBatch(deps);
      } catch (error) {
        deps.log.error({ err: error }, 'outbox relay pass failed; retrying');
      }
      if (relayed < BATCH && !stopped) {
        const woken = await new Promise<boolean>((resolve) => {
          const timer = setTimeout(() => resolve(false), deps.config.OUTBOX_POLL_MS);
          wake = () => {
            clearTimeout(timer);
            resolve(true);
          };
        });
        // Woken by a commit: let the commits of the next moments join this pass.
        if (woken && !stopped && deps.config.OUTBOX_COALESCE_MS > 0) await new Promise((r) => setTimeout(r, deps.config.OUTBOX_COALESCE_MS));
      }
    }
  })();
  return {
    async stop() {
      stopped = true;
      wake();
      await loop;
      await listener.unlisten();
    },
  };
}
