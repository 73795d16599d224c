import type { Db } from '../sql';
import type { DealRow } from './deals';
import { VOLUME_EXCLUDED_STATUSES } from '../../domain/payout';
import { cursorColumn, newestFirst, olderThan, type KeysetCursor } from './keyset';

export interface DealFilter {
  merchantId: string;
  dealType?: 'PAYIN' | 'PAYOUT';
  statuses?: string[];
  createdAfter?: Date;
  createdBefore?: Date;
}

export type Cursor = KeysetCursor;

/**
 * Deals are stored with microseconds but shown with milliseconds, so an inclusive upper bound
 * covers its whole millisecond: `created_before` = a deal's own shown created_at includes it.
 */
const justAfter = (d: Date) => new Date(d.getTime() + 1);

function where(db: Db, f: DealFilter, after?: Cursor) {
  return db`
    merchant_id = ${f.merchantId}
    ${f.dealType ? db`and deal_type = ${f.dealType}` : db``}
    ${f.statuses && f.statuses.length > 0 ? db`and status = any(${f.statuses})` : db``}
    ${f.createdAfter ? db`and created_at >= ${f.createdAfter}` : db``}
    ${f.createdBefore ? db`and created_at < ${justAfter(f.createdBefore)}` : db``}
    ${olderThan(db, after)}`;
}

export type ListedDeal = DealRow & { cursor_ts: string };

/**
 * Newest first, keyset-paginated on (created_at, id): stable while new deals arrive. Without a
 * status filter one ordered scan of (merchant_id[, deal_type], created_at, id) serves any page.
 * With one, each (deal_type, status) pair is its own ordered range of deals_listing_by_status,
 * limited, and the ranges are merged — a rare or absent status costs nothing to find.
 */
export async function listDeals(db: Db, f: DealFilter, limit: number, after?: Cursor): Promise<ListedDeal[]> {
  if (!f.statuses || f.statuses.length === 0) {
    return db<ListedDeal[]>`
      select *, ${cursorColumn(db)} from deals where ${where(db, f, after)}
      order by ${newestFirst(db)} limit ${limit}`;
  }
  const types = f.dealType ? [f.dealType] : (['PAYIN', 'PAYOUT'] as const);
  const ranges = types.flatMap((dealType) =>
    f.statuses!.map(
      (status) => db`(
        select *, ${cursorColumn(db)} from deals
        where ${where(db, { ...f, dealType, statuses: undefined }, after)} and status = ${status}
        order by ${newestFirst(db)} limit ${limit})`,
    ),
  );
  const union = ranges.reduce((acc, range) => db`${acc} union all ${range}`);
  return db<ListedDeal[]>`select * from (${union}) merged order by ${newestFirst(db)} limit ${limit}`;
}

/** The same selection as a cursor of batches, for streaming exports in constant memory. */
export function streamDeals(db: Db, f: DealFilter, batchSize = 1000) {
  return db<DealRow[]>`
    select id, deal_type, status, amount, currency, client_id, target_requisite, received_amount,
      amount_match_status, checkout_hash, created_at, updated_at
    from deals where ${where(db, f)}
    order by ${newestFirst(db)}`.cursor(batchSize);
}

export interface TurnoverRow {
  date: string;
  deal_type: string;
  currency: string;
  count: number;
  amount: bigint;
}

/** Daily UTC buckets of volume, excluding EXPIRED, SPAM_REJECTED and FAILED. */
export async function turnover(db: Db, merchantId: string, from: Date, to: Date): Promise<TurnoverRow[]> {
  return db<TurnoverRow[]>`
    select to_char(created_at at time zone 'UTC', 'YYYY-MM-DD') as date, deal_type, currency,
      count(*)::int as count, sum(amount)::bigint as amount
    from deals
    where merchant_id = ${merchantId} and created_at >= ${from} and created_at < ${justAfter(to)}
      and status <> all(${VOLUME_EXCLUDED_STATUSES as unknown as string[]})
    group by 1, 2, 3
    order by 1, 2, 3`;
}
