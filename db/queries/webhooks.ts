/** webhook_deliveries as the merchant sees them: the delivery history and the manual retry (spec 4.7). */
import type { Db } from '../sql';
import { cursorColumn, newestFirst, olderThan, type KeysetCursor } from './keyset';

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

/**
 * Claims a manual retry: only an ERROR or RETRY delivery of the merchant, at most once per
 * cooldown. Returns the delivery with its new manual retry count, or nothing when refused.
 */
export async function claimManualRetry(db: Db, merchantId: string, deliveryId: string, cooldownSeconds: number) {
  const [row] = await db<(DeliveryRow & { manual_retries: number })[]>`
    update webhook_deliveries set last_manual_retry_at = now(), manual_retries = manual_retries + 1
    where id = ${deliveryId} and merchant_id = ${merchantId} and status in ('ERROR', 'RETRY')
      and (last_manual_retry_at is null or last_manual_retry_at <= now() - make_interval(secs => ${cooldownSeconds}))
    returning *`;
  return row;
}

/** Why a manual retry was refused: the delivery's status and the seconds left of its cooldown. */
export async function manualRetryState(db: Db, merchantId: string, deliveryId: string, cooldownSeconds: number) {
  const [row] = await db<{ status: string; wait: number }[]>`
    select status, ceil(extract(epoch from (last_manual_retry_at + make_interval(secs => ${cooldownSeconds}) - now())))::int as wait
    from webhook_deliveries where id = ${deliveryId} and merchant_id = ${merchantId}`;
  return row;
}
