/**
 * Outbox relay: every committed event becomes one webhook delivery workflow per target. The
 * workflow id is fixed by (event, target) and duplicates are rejected, so a crash between starting
 * workflows and marking events dispatched neither loses nor doubles a delivery: the next pass
 * starts what is missing and skips what already exists. Several relays share the work through
 * FOR UPDATE SKIP LOCKED. Woken by LISTEN/NOTIFY; polls as a fallback.
 */
import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import type { Logger } from 'pino';
import type { Config } from '../config';
import type { Sql } from '../db/sql';
import { callbackIdFor } from '../domain/ids';
import { attemptTimeoutMs, webhookWorkflowId, type DeliveryInput } from '../workflows/contracts/webhook-delivery';
import { DealIdKey, MerchantIdKey } from '../workflows/contracts/search-attributes';

const BATCH = 100;

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

/**
 * eagerStart: the client shares the NativeConnection of a worker polling the webhook queue in
 * this process, so the server hands the first workflow task back in the start response
 * (no matching round trip, no poll).
 */
export async function relayOutboxBatch(deps: { sql: Sql; client: Client; config: Config; eagerStart?: boolean }): Promise<number> {
  return deps.sql.begin(async (tx) => {
    const events = await tx<PendingEvent[]>`
      select e.id, e.merchant_id, e.deal_id, e.event_type, m.api_version, m.webhook_url, m.webhook_max_retries as max_retries, d.callback_url, d.deal_type
      from outbox_events e
      join merchants m on m.id = e.merchant_id
      left join deals d on d.id = e.deal_id
      where e.dispatched_at is null
      order by e.created_at
      limit ${BATCH}
      for no key update of e skip locked`;
    // deal.amount_changed is V2-only (spec 6, 9): V1 merchants never receive it.
    const deliveries = events
      .map((e) => ({ e, url: webhookTarget(e) }))
      .filter(({ e, url }) => url && !(e.api_version === 'v1' && e.event_type === 'deal.amount_changed'))
      .map(({ e, url }) => ({ e, url, callbackId: callbackIdFor(e.id, url) }));
    // The delivery records are created here, in one statement for the batch, so each delivery
    // workflow skips its prepare step (a local activity and two queries). They are committed
    // (outside the batch's transaction) before any workflow starts: an eagerly started delivery
    // runs its first attempt at once. Idempotent: a rerun after a crash finds the rows there.
    // (The batch locks its events FOR NO KEY UPDATE, which lets this insert's foreign-key check pass.)
    if (deliveries.length > 0) {
      await deps.sql`
        insert into webhook_deliveries (id, merchant_id, deal_id, event_id, event_type, url)
        select x.id, e.merchant_id, e.deal_id, e.id, e.event_type, x.url
        from unnest(${deliveries.map((d) => d.callbackId)}::uuid[], ${deliveries.map((d) => d.e.id)}::uuid[], ${deliveries.map((d) => d.url)}::text[]) as x(id, event_id, url)
        join outbox_events e on e.id = x.event_id
        on conflict do nothing`;
    }
    await Promise.all(
      deliveries.map(async ({ e, url, callbackId }) => {
        const input: DeliveryInput = {
          callbackId,
          eventId: e.id,
          url,
          delaysMs: deps.config.WEBHOOK_RETRY_DELAYS,
          attemptTimeoutMs: attemptTimeoutMs(deps.config),
          maxAttempts: e.max_retries,
        };
        try {
          await deps.client.workflow.start('webhookDeliveryWorkflow', {
            workflowId: webhookWorkflowId(callbackId),
            taskQueue: deps.config.WEBHOOK_TASK_QUEUE,
            args: [input],
            workflowIdReusePolicy: 'REJECT_DUPLICATE',
            // Findable in the Temporal UI by the deal and the merchant, like the deal's own workflow.
            typedSearchAttributes: [
              { key: MerchantIdKey, value: e.merchant_id },
              ...(e.deal_id ? [{ key: DealIdKey, value: e.deal_id }] : []),
            ],
            ...(deps.eagerStart ? { requestEagerStart: true } : {}),
          });
        } catch (error) {
          if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
        }
      }),
    );
    if (events.length > 0) await tx`update outbox_events set dispatched_at = now() where id = any(${events.map((e) => e.id)})`;
    return events.length;
  });
}

export async function startOutboxRelay(deps: { sql: Sql; client: Client; config: Config; log: Logger; eagerStart?: boolean }) {
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
