import type { Db } from '../sql';
import type { DealRow } from './deals';
import { VOLUME_EXCLUDED_STATUSES } from '../../domain/state/payout';
import { cursorColumn, justAfter, newestFirst, olderThan, type KeysetCursor } from './keyset';

/** A status, optionally narrowed: COMPLETED by reconciliation result, INITIALIZED by whether a requisite was assigned. */
export interface StatusSelector {
  status: string;
  match?: readonly string[];
  /** true: a requisite is assigned (requisite_id set); false: none. */
  channel?: boolean;
}

export interface DealFilter {
  merchantId: string;
  dealType?: 'PAYIN' | 'PAYOUT';
  /** Any of these statuses; absent or empty: any status. */
  statuses?: string[];
  /** Any of these narrowed statuses; absent: any status, empty: nothing. */
  selectors?: StatusSelector[];
  id?: string;
  /** The PayIn payer's client_id (the cabinet's search). */
  clientId?: string;
  createdAfter?: Date;
  createdBefore?: Date;
}

export type Cursor = KeysetCursor;

function selectorSql(db: Db, s: StatusSelector) {
  return db`(status = ${s.status}
    ${s.match ? db`and amount_match_status = any(${s.match as string[]})` : db``}
    ${s.channel === undefined ? db`` : s.channel ? db`and requisite_id is not null` : db`and requisite_id is null`})`;
}

function selectorsSql(db: Db, selectors: StatusSelector[] | undefined) {
  if (!selectors) return db``;
  if (selectors.length === 0) return db`and false`;
  return db`and (${selectors.map((s) => selectorSql(db, s)).reduce((a, b) => db`${a} or ${b}`)})`;
}

function where(db: Db, f: DealFilter, after?: Cursor) {
  return db`
    merchant_id = ${f.merchantId}
    ${f.dealType ? db`and deal_type = ${f.dealType}` : db``}
    ${f.id ? db`and id = ${f.id}` : db``}
    ${f.clientId ? db`and client_id = ${f.clientId}` : db``}
    ${f.statuses && f.statuses.length > 0 ? db`and status = any(${f.statuses})` : db``}
    ${selectorsSql(db, f.selectors)}
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

/** Offset pages, newest first: `skip` rows, then at most `take`; `count` is every match. */
export async function pageDeals(db: Db, f: DealFilter, skip: number, take: number): Promise<{ rows: DealRow[]; count: number }> {
  const [rows, [total]] = await Promise.all([
    db<DealRow[]>`select * from deals where ${where(db, f)} order by ${newestFirst(db)} offset ${skip} limit ${take}`,
    db<{ count: number }[]>`select count(*)::int as count from deals where ${where(db, f)}`,
  ]);
  return { rows: [...rows], count: total!.count };
}

export interface DealTotalsRow {
  method: string;
  currency: string;
  status: string;
  count: number;
  /** Sums of bigints as numeric text (a sum can pass int64). */
  amount: string;
  escrow_usdt: string;
  fee_usdt: string;
}

/** Per payment method (by slug), currency and status: how many deals and their sums of amount, escrow and fee. */
export async function dealTotals(db: Db, f: DealFilter): Promise<DealTotalsRow[]> {
  return db<DealTotalsRow[]>`
    select pm.slug as method, d.currency, d.status, count(*)::int as count,
      coalesce(sum(d.amount), 0)::text as amount,
      coalesce(sum(d.escrow_usdt), 0)::text as escrow_usdt,
      coalesce(sum(d.fee_usdt), 0)::text as fee_usdt
    from (select * from deals where ${where(db, f)}) d
    join payment_methods pm on pm.id = d.payment_method_id
    group by pm.slug, d.currency, d.status
    order by pm.slug, d.currency, d.status`;
}

/** The same selection as a cursor of batches, for streaming exports in constant memory. */
export function streamDeals(db: Db, f: DealFilter, batchSize = 1000) {
  return db<DealRow[]>`
    select id, deal_type, status, amount, currency, client_id, target_sealed, received_amount,
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
