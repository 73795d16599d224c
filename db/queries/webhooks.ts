/**
 * Webhook deliveries and their attempts: one delivery record per event × target (its callback id),
 * one attempt row per HTTP attempt. The relay creates the records, the delivery activity reads
 * what an attempt needs and records its outcome; the merchant reads the history and asks for a
 * manual retry.
 */
import type { WebhookEvent } from '../../domain/events/webhook-formats';
import type { Db } from '../sql';
import { cursorColumn, newestFirst, olderThan, type KeysetCursor } from './keyset';

/** The delivery records of a relay batch, in one statement; a rerun after a crash finds them there. */
export async function insertDeliveries(db: Db, deliveries: { callbackId: string; eventId: string; url: string }[]): Promise<void> {
  await db`
    insert into webhook_deliveries (id, merchant_id, deal_id, event_id, event_type, url)
    select x.id, e.merchant_id, e.deal_id, e.id, e.event_type, x.url
    from unnest(${deliveries.map((d) => d.callbackId)}::uuid[], ${deliveries.map((d) => d.eventId)}::uuid[], ${deliveries.map((d) => d.url)}::text[]) as x(id, event_id, url)
    join outbox_events e on e.id = x.event_id
    on conflict do nothing`;
}

/** An event as its webhook format renders it (domain/events/webhook-formats.ts), with its merchant's api_version. */
interface DeliveryEventRow extends WebhookEvent {
  api_version: 'v1' | 'v2';
}

export interface AttemptContext extends DeliveryEventRow {
  url: string;
  status: string;
  /** This attempt key was recorded already (an earlier try of the activity). */
  done: boolean;
  /**
   * The key pairs whose secrets sign the attempt: the merchant's current pair first, then any
   * superseded pair still inside its grace window (both sign during a rotation). Empty: no secret.
   */
  signing_keys: Array<{ id: string; secret_sealed: string }>;
}

/**
 * One read: the event as the envelope needs it, whether this attempt was recorded already, and
 * the secrets that sign it — the merchant's current pair, read as the attempt starts, so a
 * rotation applies to every attempt after it, plus the pairs still in their grace window.
 * Undefined: no such delivery.
 */
export async function findAttemptContext(db: Db, callbackId: string, attemptKey: string): Promise<AttemptContext | undefined> {
  const [row] = await db<AttemptContext[]>`
    select e.id as event_id, e.event_type, e.created_at, e.payload, m.api_version, d.url, d.merchant_id, d.status,
      dl.deal_type, dl.idempotency_key, dl.requisite_id, dl.target_name,
      pm.slug as method_slug, c.numeric_code as currency_numeric, c.exponent as currency_exponent,
      exists (select 1 from webhook_attempts a where a.callback_id = d.id and a.attempt_key = ${attemptKey}) as done,
      ks.signing_keys
    from webhook_deliveries d join outbox_events e on e.id = d.event_id join merchants m on m.id = d.merchant_id
      left join deals dl on dl.id = e.deal_id
      left join payment_methods pm on pm.id = dl.payment_method_id
      left join currencies c on c.tenant_id = dl.tenant_id and c.code = dl.currency
      cross join lateral (
        select coalesce(json_agg(json_build_object('id', k.id, 'secret_sealed', k.secret_sealed)
                 order by k.superseded_at desc nulls first), '[]'::json) as signing_keys
        from (
          select id, secret_sealed, superseded_at from api_keys where merchant_id = d.merchant_id and superseded_at is null
          union all
          select id, secret_sealed, superseded_at from api_keys
          where merchant_id = d.merchant_id and superseded_at is not null and grace_until > now()
        ) k
      ) ks
    where d.id = ${callbackId}`;
  return row;
}

export type DeliveryStatus = 'SUCCESS' | 'RETRY' | 'ERROR';

export interface AttemptRecord {
  callbackId: string;
  attemptKey: string;
  ok: boolean;
  manual: boolean;
  /**
   * A manual attempt on a delivery that was ERROR when the retry was claimed (the claim queued it
   * as RETRY, claimManualRetry): no automatic run is left, so its failure ends it ERROR again.
   */
  afterError?: boolean;
  /** The last automatic attempt, or a permanent failure: a failure ends the delivery in ERROR. */
  last: boolean;
  httpStatus: number | null;
  durationMs: number;
  responseBody: string;
  error: string;
  /** The send time the signature covers (unix seconds). */
  signedAt: number;
}

/**
 * The attempt row and the delivery's new state in one statement (atomic; the UPDATE's row lock
 * orders it against a concurrent manual attempt). The delivery's status after an attempt:
 * SUCCESS once any attempt succeeded; a failed manual attempt leaves RETRY or ERROR as it was
 * (the automatic run, if alive, decides) — ERROR when the retry found it ERROR (`afterError`); a failed automatic one leaves RETRY, or ERROR when it
 * was the last. A repeated attempt key fails the statement (unique), changing nothing.
 * Undefined: the delivery vanished.
 */
export async function recordAttempt(db: Db, a: AttemptRecord): Promise<{ status: DeliveryStatus } | undefined> {
  const [row] = await db<{ status: DeliveryStatus }[]>`
    with d as (
      update webhook_deliveries set
        status = case
          when status = 'SUCCESS' or ${a.ok}::boolean then 'SUCCESS'
          when ${a.manual}::boolean then case when status = 'RETRY' and not ${a.afterError ?? false}::boolean then 'RETRY' else 'ERROR' end
          when ${a.last}::boolean then 'ERROR'
          else 'RETRY' end,
        attempts = attempts + 1, http_status = ${a.httpStatus}, response_body = ${a.responseBody},
        last_error = ${a.error}, updated_at = now()
      where id = ${a.callbackId}
      returning attempts, status
    ), recorded as (
      insert into webhook_attempts (callback_id, attempt, attempt_key, status, http_status, duration_ms, response_body, error, signed_at)
      select ${a.callbackId}::uuid, d.attempts, ${a.attemptKey}::text, case when ${a.ok}::boolean then 'SUCCESS' when d.status = 'ERROR' then 'ERROR' else 'RETRY' end,
        ${a.httpStatus}::int, ${a.durationMs}::int, ${a.responseBody}::text, ${a.error}::text, ${a.signedAt}::bigint
      from d
    )
    select status from d`;
  return row;
}

/** A delivery given up (it ends ERROR, listed and retryable by hand); one that already ended keeps its status. */
export async function giveUpDelivery(db: Db, callbackId: string, lastError: string): Promise<void> {
  await db`
    update webhook_deliveries set status = 'ERROR', last_error = ${lastError}, updated_at = now()
    where id = ${callbackId} and status in ('PENDING', 'RETRY')`;
}

// The merchant's view: its deliveries and their attempts.

export interface DeliveryRow {
  id: string;
  deal_id: string | null;
  event_id: string;
  event_type: string;
  url: string;
  status: string;
  attempts: number;
  http_status: number | null;
  response_body: string;
  created_at: Date;
  updated_at: Date;
}

export type ListedDelivery = DeliveryRow & { cursor_ts: string };

/** The merchant's deliveries newest first (keyset, db/queries/keyset.ts), optionally of one deal. */
export async function listDeliveries(db: Db, merchantId: string, f: { dealId?: string; after?: KeysetCursor; limit: number }): Promise<ListedDelivery[]> {
  return db<ListedDelivery[]>`
    select *, ${cursorColumn(db)}
    from webhook_deliveries
    where merchant_id = ${merchantId}
      ${f.dealId ? db`and deal_id = ${f.dealId}` : db``}
      ${olderThan(db, f.after)}
    order by ${newestFirst(db)}
    limit ${f.limit}`;
}

/** One delivery of the merchant (GET /callbacks/{callback_id}); a foreign id is none. */
export async function findMerchantDelivery(db: Db, merchantId: string, deliveryId: string): Promise<DeliveryRow | undefined> {
  const [row] = await db<DeliveryRow[]>`select * from webhook_deliveries where id = ${deliveryId} and merchant_id = ${merchantId}`;
  return row;
}

/**
 * Claims a manual retry: only an ERROR or RETRY delivery of the merchant, at most once per
 * cooldown. The delivery is queued: RETRY (an attempt is coming) until the retry's attempt
 * records its outcome. Returns the delivery with its new manual retry count and the status it
 * had before (`previous_status`), or nothing when refused.
 */
export async function claimManualRetry(db: Db, merchantId: string, deliveryId: string, cooldownSeconds: number) {
  const [row] = await db<(DeliveryRow & { manual_retries: number; previous_status: string })[]>`
    update webhook_deliveries w set last_manual_retry_at = now(), manual_retries = w.manual_retries + 1, status = 'RETRY', updated_at = now()
    from (select id, status from webhook_deliveries where id = ${deliveryId} for update) prev
    where w.id = prev.id and w.merchant_id = ${merchantId} and w.status in ('ERROR', 'RETRY')
      and (w.last_manual_retry_at is null or w.last_manual_retry_at <= now() - make_interval(secs => ${cooldownSeconds}))
    returning w.*, prev.status as previous_status`;
  return row;
}

/** A claimed manual retry whose run could not be started: a delivery it queued from ERROR is ERROR again. */
export async function unqueueManualRetry(db: Db, deliveryId: string): Promise<void> {
  await db`update webhook_deliveries set status = 'ERROR', updated_at = now() where id = ${deliveryId} and status = 'RETRY'`;
}

/** Why a manual retry was refused: the delivery's status and the seconds left of its cooldown. */
export async function manualRetryState(db: Db, merchantId: string, deliveryId: string, cooldownSeconds: number) {
  const [row] = await db<{ status: string; wait: number }[]>`
    select status, ceil(extract(epoch from (last_manual_retry_at + make_interval(secs => ${cooldownSeconds}) - now())))::int as wait
    from webhook_deliveries where id = ${deliveryId} and merchant_id = ${merchantId}`;
  return row;
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
  /** The answer's body of the attempt, cut to 2048 bytes; null for a delivery not yet tried. */
  response_body: string | null;
  at: Date;
}

/** Every webhook delivery of a deal and each of its attempts, oldest first (a delivery not yet tried appears once, attempt null). */
export function dealWebhookAttempts(db: Db, dealId: string) {
  return db<DealAttemptRow[]>`
    select d.id as callback_id, d.event_id, d.event_type, d.url, d.status as delivery_status,
      a.attempt, a.status, a.http_status, a.duration_ms, a.error, a.response_body, coalesce(a.created_at, d.created_at) as at
    from webhook_deliveries d
    left join webhook_attempts a on a.callback_id = d.id
    where d.merchant_id = (select merchant_id from deals where id = ${dealId}) and d.deal_id = ${dealId}
    order by at, a.attempt nulls first limit 1000`;
}

export interface EndpointAttemptRow {
  status: string;
  http_status: number | null;
  error: string;
  created_at: Date;
}

/**
 * The latest attempts (newest first) to one endpoint of the merchant: what its breaker has seen.
 * Bounded: it reads the endpoint's 200 newest deliveries along webhook_deliveries_listing.
 */
export function latestEndpointAttempts(db: Db, merchantId: string, url: string, limit: number) {
  return db<EndpointAttemptRow[]>`
    with recent as (
      select id from webhook_deliveries where merchant_id = ${merchantId} and url = ${url}
      order by created_at desc, id desc limit 200
    )
    select a.status, a.http_status, a.error, a.created_at
    from webhook_attempts a where a.callback_id in (select id from recent)
    order by a.created_at desc limit ${limit}`;
}
