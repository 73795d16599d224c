/**
 * Outbox relay: every committed event goes to the delivery stream of its deal and target (one
 * workflow per (deal, target), `webhooks:<deal>:<target>`), which delivers the deal's events in
 * order. Each event × target keeps its own delivery record, created here, whose callback id is
 * fixed by (event, target): a crash between signalling and marking events dispatched neither
 * loses nor doubles a delivery (the next pass signals again; the stream takes a callback once,
 * and an attempt on an ended delivery sends nothing). Relays in several worker processes take
 * turns (a transaction-level advisory lock), so one deal's events are always signalled in outbox
 * order. Woken by LISTEN/NOTIFY; polls as a fallback.
 */
import { createHash } from 'node:crypto';
import type { Client } from '@temporalio/client';
import type { Logger } from 'pino';
import type { Config } from '../config';
import type { Sql } from '../db/sql';
import { callbackIdFor } from '../domain/ids';
import { attemptTimeoutMs, STREAM_EVENTS_SIGNAL, streamWorkflowId, type StreamEvent, type StreamInput } from '../workflows/contracts/webhook-delivery';
import { DealIdKey, MerchantIdKey } from '../workflows/contracts/search-attributes';

const BATCH = 100;
/** pg advisory lock key of the relay ("outbox" in ASCII). */
const RELAY_LOCK = 0x6f7574626f78;

interface PendingEvent {
  id: string;
  merchant_id: string;
  deal_id: string | null;
  max_retries: number;
  event_type: string;
  api_version: 'v1' | 'v2';
  webhook_url: string;
  callback_url: string | null;
  deal_type: string | null;
}

/** Spec 6: the deal's callback_url for a PayIn when set, else the merchant's webhook_url. */
export function webhookTarget(e: Pick<PendingEvent, 'webhook_url' | 'callback_url' | 'deal_type'>): string {
  return (e.deal_type === 'PAYIN' && e.callback_url) || e.webhook_url;
}

const urlHash = (url: string) => createHash('sha256').update(url).digest('hex');

interface Stream {
  workflowId: string;
  merchantId: string;
  dealId: string | null;
  input: StreamInput;
  events: StreamEvent[];
}

export async function relayOutboxBatch(deps: { sql: Sql; client: Client; config: Config }): Promise<number> {
  return deps.sql.begin(async (tx) => {
    // One relay at a time: a second one would take a deal's later events while the first still
    // holds its earlier ones, and signal them first.
    const [turn] = await tx<{ ok: boolean }[]>`select pg_try_advisory_xact_lock(${RELAY_LOCK}) as ok`;
    if (!turn?.ok) return 0;
    const events = await tx<PendingEvent[]>`
      select e.id, e.merchant_id, e.deal_id, e.event_type, m.api_version, m.webhook_url, m.webhook_max_retries as max_retries, d.callback_url, d.deal_type
      from outbox_events e
      join merchants m on m.id = e.merchant_id
      left join deals d on d.id = e.deal_id
      where e.dispatched_at is null
      order by e.seq
      limit ${BATCH}
      for no key update of e`;
    // deal.amount_changed is V2-only (spec 6, 9): V1 merchants never receive it.
    const deliveries = events
      .map((e) => ({ e, url: webhookTarget(e) }))
      .filter(({ e, url }) => url && !(e.api_version === 'v1' && e.event_type === 'deal.amount_changed'))
      .map(({ e, url }) => ({ e, url, callbackId: callbackIdFor(e.id, url) }));
    // The delivery records are created here, in one statement for the batch, and committed
    // (outside the batch's transaction) before any stream is signalled, so a stream's first
    // attempt finds its record. Idempotent: a rerun after a crash finds the rows there.
    // (The batch locks its events FOR NO KEY UPDATE, which lets this insert's foreign-key check pass.)
    if (deliveries.length > 0) {
      await deps.sql`
        insert into webhook_deliveries (id, merchant_id, deal_id, event_id, event_type, url)
        select x.id, e.merchant_id, e.deal_id, e.id, e.event_type, x.url
        from unnest(${deliveries.map((d) => d.callbackId)}::uuid[], ${deliveries.map((d) => d.e.id)}::uuid[], ${deliveries.map((d) => d.url)}::text[]) as x(id, event_id, url)
        join outbox_events e on e.id = x.event_id
        on conflict do nothing`;
    }
    // Group by stream, keeping outbox order inside each: one signal per stream per batch.
    const streams = new Map<string, Stream>();
    for (const { e, url, callbackId } of deliveries) {
      const key = e.deal_id ?? e.id;
      const workflowId = streamWorkflowId(key, urlHash(url));
      let stream = streams.get(workflowId);
      if (!stream) {
        stream = {
          workflowId,
          merchantId: e.merchant_id,
          dealId: e.deal_id,
          input: {
            key,
            url,
            delaysMs: deps.config.WEBHOOK_RETRY_DELAYS,
            attemptTimeoutMs: attemptTimeoutMs(deps.config),
            // An event without a deal is a stream of one: it closes once delivered.
            idleMs: e.deal_id ? deps.config.WEBHOOK_STREAM_IDLE_SECONDS * 1000 : 0,
          },
          events: [],
        };
        streams.set(workflowId, stream);
      }
      stream.events.push({ callbackId, eventId: e.id, eventType: e.event_type, maxAttempts: e.max_retries });
    }
    await Promise.all(
      [...streams.values()].map((stream) =>
        // Starts the stream if it is not running (again, after an earlier run closed), then
        // hands it the events; Temporal keeps a workflow's signals in the order they arrive.
        deps.client.workflow.signalWithStart('webhookStreamWorkflow', {
          workflowId: stream.workflowId,
          taskQueue: deps.config.WEBHOOK_TASK_QUEUE,
          args: [stream.input],
          signal: STREAM_EVENTS_SIGNAL,
          signalArgs: [stream.events],
          // Findable in the Temporal UI by the deal and the merchant, like the deal's own workflow.
          typedSearchAttributes: [
            { key: MerchantIdKey, value: stream.merchantId },
            ...(stream.dealId ? [{ key: DealIdKey, value: stream.dealId }] : []),
          ],
        }),
      ),
    );
    if (events.length > 0) await tx`update outbox_events set dispatched_at = now() where id = any(${events.map((e) => e.id)})`;
    return events.length;
  });
}

export async function startOutboxRelay(deps: { sql: Sql; client: Client; config: Config; log: Logger }) {
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
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, deps.config.OUTBOX_POLL_MS);
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
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
