/**
 * What the operator console reads beside the spec's routes: merchants, deals across
 * merchants, a deal's events and webhook attempts, traders with their requisites. Keyset pages
 * newest first (db/queries/keyset.ts).
 */
import type { Db } from '../sql';
import type { DealRow } from './deals';
import type { MerchantProfileRow } from './merchants';
import type { RequisiteRow } from './traders';
import { cursorColumn, justAfter, newestFirst, olderThan, type KeysetCursor } from './keyset';

export async function listMerchantsPage(db: Db, f: { search?: string; after?: KeysetCursor; limit: number }) {
  const like = f.search ? `%${f.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%` : undefined;
  return db<(MerchantProfileRow & { cursor_ts: string })[]>`
    select m.*, ${cursorColumn(db)},
      coalesce((select w.available from wallets w where w.owner_type = 'merchant' and w.owner_id = m.id and w.currency = 'USDT'), 0)::bigint as usdt_available,
      coalesce((select w.frozen from wallets w where w.owner_type = 'merchant' and w.owner_id = m.id and w.currency = 'USDT'), 0)::bigint as usdt_frozen,
      (select token from api_keys k where k.merchant_id = m.id and k.superseded_at is null) as api_token
    from merchants m
    where true
      ${like ? db`and (m.name ilike ${like} or m.email ilike ${like} or m.id::text = ${f.search!})` : db``}
      ${olderThan(db, f.after)}
    order by ${newestFirst(db)} limit ${f.limit}`;
}

export interface OperatorDealFilter {
  dealId?: string;
  merchantId?: string;
  status?: string;
  createdAfter?: Date;
  createdBefore?: Date;
}

export async function listOperatorDeals(db: Db, f: OperatorDealFilter, limit: number, after?: KeysetCursor) {
  return db<(DealRow & { cursor_ts: string })[]>`
    select *, ${cursorColumn(db)} from deals
    where true
      ${f.dealId ? db`and id = ${f.dealId}` : db``}
      ${f.merchantId ? db`and merchant_id = ${f.merchantId}` : db``}
      ${f.status ? db`and status = ${f.status}` : db``}
      ${f.createdAfter ? db`and created_at >= ${f.createdAfter}` : db``}
      ${f.createdBefore ? db`and created_at < ${justAfter(f.createdBefore)}` : db``}
      ${olderThan(db, after)}
    order by ${newestFirst(db)} limit ${limit}`;
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

export interface DealAttemptRow {
  callback_id: string;
  event_id: string;
  event_type: string;
  url: string;
  delivery_status: string;
  attempt: number | null;
  status: string | null;
  http_status: number | null;
  duration_ms: number | null;
  error: string | null;
  at: Date;
}

/** Every webhook delivery of a deal and each of its attempts, oldest first (a delivery not yet tried appears once, attempt null). */
export function dealWebhookAttempts(db: Db, dealId: string) {
  return db<DealAttemptRow[]>`
    select d.id as callback_id, d.event_id, d.event_type, d.url, d.status as delivery_status,
      a.attempt, a.status, a.http_status, a.duration_ms, a.error, coalesce(a.created_at, d.created_at) as at
    from webhook_deliveries d
    left join webhook_attempts a on a.callback_id = d.id
    where d.merchant_id = (select merchant_id from deals where id = ${dealId}) and d.deal_id = ${dealId}
    order by at, a.attempt nulls first limit 1000`;
}

export async function listTradersPage(db: Db, f: { after?: KeysetCursor; limit: number }) {
  return db<{ id: string; name: string; status: string; created_at: Date; cursor_ts: string; available: bigint; frozen: bigint }[]>`
    select t.id, t.name, t.status, t.created_at, ${cursorColumn(db)},
      coalesce((select w.available from wallets w where w.owner_type = 'trader' and w.owner_id = t.id and w.currency = 'USDT'), 0)::bigint as available,
      coalesce((select w.frozen from wallets w where w.owner_type = 'trader' and w.owner_id = t.id and w.currency = 'USDT'), 0)::bigint as frozen
    from traders t
    where true ${olderThan(db, f.after)}
    order by ${newestFirst(db)} limit ${f.limit}`;
}

export function requisitesOf(db: Db, traderIds: string[]) {
  if (traderIds.length === 0) return Promise.resolve([] as (RequisiteRow & { payment_method: string })[]);
  return db<(RequisiteRow & { payment_method: string })[]>`
    select r.*, coalesce(p.slug, '') as payment_method from requisites r
    left join payment_methods p on p.id = r.payment_method_id
    where r.trader_id = any(${traderIds}) order by r.created_at`;
}
