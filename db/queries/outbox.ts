import type { Db } from '../sql';
import type { EventType } from '../../domain/events/event-types';
import { eventIdFor } from '../../domain/ids';

export interface OutboxEvent {
  merchantId: string;
  /** The deal the event belongs to; null for an event of no deal (a withdrawal's). */
  dealId: string | null;
  /** What the event id is derived from, with the type and discriminator: the deal unless given (a withdrawal's id). */
  subjectId?: string;
  /** One of the listed types (domain/events/event-types.ts): an unlisted type cannot be written. */
  type: EventType;
  /** Makes the event id unique per occurrence (e.g. the amount version); retries reuse it. */
  discriminator: string | number;
  payload: Record<string, unknown>;
}

/**
 * Writes events in the caller's transaction, in the given order (their `seq`), in one statement;
 * an event's id is fixed per occurrence, so a retried step writes nothing new.
 */
export async function writeOutboxEvents(tx: Db, events: OutboxEvent[]): Promise<void> {
  if (events.length === 0) return;
  const rows = events.map((event) => ({
    id: eventIdFor(event.subjectId ?? event.dealId!, event.type, event.discriminator),
    merchant_id: event.merchantId,
    deal_id: event.dealId,
    event_type: event.type,
    payload: event.payload,
  }));
  await tx`
    insert into outbox_events (id, merchant_id, deal_id, event_type, payload)
    select (x.r->>'id')::uuid, (x.r->>'merchant_id')::uuid, (x.r->>'deal_id')::uuid, x.r->>'event_type', x.r->'payload'
    from jsonb_array_elements(${tx.json(rows as never)}) with ordinality as x(r, n)
    order by x.n
    on conflict (id) do nothing`;
}

/** One event (see writeOutboxEvents). */
export const writeOutboxEvent = (tx: Db, event: OutboxEvent) => writeOutboxEvents(tx, [event]);

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
  /** The deal's world (sandbox or live); null for an event of no deal. */
  sandbox: boolean | null;
}

/**
 * The oldest events not relayed yet, in outbox order, with what routing them needs. Locked FOR NO
 * KEY UPDATE: another transaction's foreign-key check on them (the delivery records) still passes.
 */
export function lockPendingEvents(tx: Db, limit: number): Promise<PendingEvent[]> {
  return tx<PendingEvent[]>`
    select e.id, e.merchant_id, e.deal_id, e.event_type, m.api_version, m.webhook_url, m.webhook_max_retries as max_retries, d.callback_url, d.deal_type, d.sandbox
    from outbox_events e
    join merchants m on m.id = e.merchant_id
    left join deals d on d.id = e.deal_id
    where e.dispatched_at is null
    order by e.seq
    limit ${limit}
    for no key update of e`;
}

/**
 * Marks a relay batch dispatched and gives its events their feed positions, in seq order, after
 * the largest given so far. Runs in the relay's transaction, under its advisory lock: one turn at
 * a time, each committed before the next begins, so positions become visible in order (the feed
 * never skips one, which seq alone cannot promise: outbox_events.feed_position). An event handed on again
 * (a dispatch undone by hand) keeps the position it had; positions need not be dense.
 */
export async function markEventsDispatched(tx: Db, eventIds: string[]): Promise<void> {
  await tx`
    update outbox_events e
    set dispatched_at = now(), feed_position = coalesce(e.feed_position, b.base + b.n)
    from (
      select id, row_number() over (order by seq) as n,
        (select coalesce(max(feed_position), 0) from outbox_events) as base
      from outbox_events where id = any(${eventIds})
    ) b
    where e.id = b.id`;
}

// ---- The merchant's events feed (api/services/events.ts) ----

export interface FeedEventRow {
  /** Feed position as digits (a bigint). */
  position: string;
  event_id: string;
  event_type: string;
  created_at: Date;
  payload: Record<string, unknown>;
}

/**
 * One page of the merchant's events after a feed position, oldest first, optionally only some
 * types; and the merchant's largest position (its horizon) in the same snapshot, '0' when it has
 * none: a page that is not full has read everything up to it.
 */
export async function listMerchantEvents(
  db: Db,
  merchantId: string,
  q: { after: bigint; types?: string[]; limit: number },
): Promise<{ rows: FeedEventRow[]; horizon: string }> {
  const typeFilter = q.types && q.types.length > 0 ? db`and event_type = any(${q.types})` : db``;
  const rows = await db<Array<Partial<FeedEventRow> & { horizon: string }>>`
    select h.horizon, p.position, p.event_id, p.event_type, p.created_at, p.payload
    from (select coalesce(max(feed_position), 0)::text as horizon from outbox_events
          where merchant_id = ${merchantId} and feed_position is not null) h
    left join lateral (
      select feed_position::text as position, id as event_id, event_type, created_at, payload
      from outbox_events
      where merchant_id = ${merchantId} and feed_position > ${q.after.toString()}::bigint ${typeFilter}
      order by feed_position
      limit ${q.limit}
    ) p on true
    order by p.position::bigint`;
  return {
    horizon: rows[0]?.horizon ?? '0',
    rows: rows.filter((r): r is FeedEventRow & { horizon: string } => r.position != null).map(({ horizon: _h, ...r }) => r),
  };
}

export interface DealEventRow {
  id: string;
  event_type: string;
  payload: unknown;
  created_at: Date;
  dispatched_at: Date | null;
}

/** A deal's events, oldest first (at most 500). */
export function dealEvents(db: Db, dealId: string) {
  return db<DealEventRow[]>`
    select id, event_type, payload, created_at, dispatched_at from outbox_events
    where deal_id = ${dealId} order by created_at, seq limit 500`;
}
