import type { Db } from '../sql';
import { eventIdFor } from '../../domain/ids';

export interface OutboxEvent {
  merchantId: string;
  /** The deal the event belongs to; null for an event of no deal (a withdrawal's). */
  dealId: string | null;
  /** What the event id is derived from, with the type and discriminator: the deal unless given (a withdrawal's id). */
  subjectId?: string;
  type: string;
  /** Makes the event id unique per occurrence (e.g. the amount version); retries reuse it. */
  discriminator: string | number;
  payload: Record<string, unknown>;
}

/** Writes an event in the caller's transaction; its id is fixed per occurrence, so a retried step writes nothing new. */
export async function writeOutboxEvent(tx: Db, event: OutboxEvent): Promise<void> {
  await tx`
    insert into outbox_events (id, merchant_id, deal_id, event_type, payload)
    values (${eventIdFor(event.subjectId ?? event.dealId!, event.type, event.discriminator)}, ${event.merchantId}, ${event.dealId},
      ${event.type}, ${tx.json(event.payload as never)})
    on conflict (id) do nothing`;
}

// ---- The outbox relay (workers/outbox-relay.ts) ----

/** pg advisory lock key of the relay ("outbox" in ASCII). */
const RELAY_LOCK = 0x6f7574626f78;

/** One relay at a time: a transaction-level lock, or false when another relay holds it. */
export async function takeRelayTurn(tx: Db): Promise<boolean> {
  const [turn] = await tx<{ ok: boolean }[]>`select pg_try_advisory_xact_lock(${RELAY_LOCK}) as ok`;
  return turn?.ok === true;
}

export interface PendingEvent {
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

/**
 * The oldest events not relayed yet, in outbox order, with what routing them needs. Locked FOR NO
 * KEY UPDATE: another transaction's foreign-key check on them (the delivery records) still passes.
 */
export function lockPendingEvents(tx: Db, limit: number): Promise<PendingEvent[]> {
  return tx<PendingEvent[]>`
    select e.id, e.merchant_id, e.deal_id, e.event_type, m.api_version, m.webhook_url, m.webhook_max_retries as max_retries, d.callback_url, d.deal_type
    from outbox_events e
    join merchants m on m.id = e.merchant_id
    left join deals d on d.id = e.deal_id
    where e.dispatched_at is null
    order by e.seq
    limit ${limit}
    for no key update of e`;
}

export async function markEventsDispatched(tx: Db, eventIds: string[]): Promise<void> {
  await tx`update outbox_events set dispatched_at = now() where id = any(${eventIds})`;
}
