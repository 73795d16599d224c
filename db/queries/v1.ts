/**
 * Read paths of the V1 adapter (spec 4.9): offset pages of one deal type with V1 filters, and
 * the per-method statistics, computed here in SQL from the deals. The status selection comes
 * from the code table (domain/v1-codes.ts) as (status, condition) pairs.
 */
import type { Db } from '../sql';
import type { DealRow } from './deals';
import type { WithdrawalRow } from './withdrawals';

/** One selected (status, condition) pair: COMPLETED by reconciliation result, INITIALIZED by channel. */
export interface StatusSelector {
  status: string;
  match?: readonly string[];
  channel?: boolean;
}

export interface V1DealFilter {
  merchantId: string;
  dealType: 'PAYIN' | 'PAYOUT';
  /** undefined: any status; []: nothing. */
  selectors?: StatusSelector[];
  id?: string;
  startDate?: Date;
  endDate?: Date;
}

export type V1DealRow = DealRow & { method_slug: string; currency_numeric: number | null; currency_exponent: number };

/** Shown times have milliseconds, stored ones microseconds: an inclusive end covers its millisecond. */
const justAfter = (d: Date) => new Date(d.getTime() + 1);

function selectorSql(db: Db, s: StatusSelector) {
  return db`(d.status = ${s.status}
    ${s.match ? db`and d.amount_match_status = any(${s.match as string[]})` : db``}
    ${s.channel === undefined ? db`` : s.channel ? db`and d.requisite_id is not null` : db`and d.requisite_id is null`})`;
}

function where(db: Db, f: V1DealFilter) {
  const selectors = f.selectors?.map((s) => selectorSql(db, s));
  return db`
    d.merchant_id = ${f.merchantId} and d.deal_type = ${f.dealType}
    ${f.id ? db`and d.id = ${f.id}` : db``}
    ${f.startDate ? db`and d.created_at >= ${f.startDate}` : db``}
    ${f.endDate ? db`and d.created_at < ${justAfter(f.endDate)}` : db``}
    ${selectors ? (selectors.length === 0 ? db`and false` : db`and (${selectors.reduce((a, b) => db`${a} or ${b}`)})`) : db``}`;
}

const DEAL_COLUMNS = (db: Db) => db`d.*, pm.slug as method_slug, c.numeric_code as currency_numeric, c.exponent as currency_exponent`;
const JOINS = (db: Db) => db`
  join payment_methods pm on pm.id = d.payment_method_id
  join currencies c on c.tenant_id = d.tenant_id and c.code = d.currency`;

/** Newest first, `skip` then `take`; `count` is every match. */
export async function listV1Deals(db: Db, f: V1DealFilter, skip: number, take: number): Promise<{ rows: V1DealRow[]; count: number }> {
  const [rows, [total]] = await Promise.all([
    db<V1DealRow[]>`
      select ${DEAL_COLUMNS(db)} from deals d ${JOINS(db)}
      where ${where(db, f)}
      order by d.created_at desc, d.id desc offset ${skip} limit ${take}`,
    db<{ count: number }[]>`select count(*)::int as count from deals d where ${where(db, f)}`,
  ]);
  return { rows: [...rows], count: total!.count };
}

/** Money sums come back as numeric text (a sum of bigints can pass int64); the adapter formats them exactly. */
export interface IncomingStatsRow {
  method: string;
  currency_numeric: number | null;
  currency_exponent: number;
  conversion_percent: string;
  payments_count: number;
  paid_count: number;
  timeout_count: number;
  cancelled_count: number;
  returned_count: number;
  disput_count: number;
  payments_amount: string;
  paid_amount: string;
  to_balance_amount: string;
  commission_amount: string;
}

/**
 * Per payment method over the creation window (inclusive): counts per outcome — paid COMPLETED,
 * timeout EXPIRED, cancelled CANCELLED + SPAM_REJECTED, returned REFUND_PENDING, disputed
 * APPEALED + SOFT_DISPUTED — fiat sums, and in USDT cents what completed deals credited the
 * merchant (escrow − fee, the ledger's payin_complete posting) and the fee.
 * conversionPercent = paid / all × 100, two decimals.
 */
export async function incomingStatistics(db: Db, merchantId: string, from?: Date, to?: Date): Promise<IncomingStatsRow[]> {
  return db<IncomingStatsRow[]>`
    select pm.slug as method, c.numeric_code as currency_numeric, c.exponent as currency_exponent,
      round(100.0 * count(*) filter (where d.status = 'COMPLETED') / count(*), 2)::text as conversion_percent,
      count(*)::int as payments_count,
      count(*) filter (where d.status = 'COMPLETED')::int as paid_count,
      count(*) filter (where d.status = 'EXPIRED')::int as timeout_count,
      count(*) filter (where d.status in ('CANCELLED', 'SPAM_REJECTED'))::int as cancelled_count,
      count(*) filter (where d.status = 'REFUND_PENDING')::int as returned_count,
      count(*) filter (where d.status in ('APPEALED', 'SOFT_DISPUTED'))::int as disput_count,
      coalesce(sum(d.amount), 0)::text as payments_amount,
      coalesce(sum(d.amount) filter (where d.status = 'COMPLETED'), 0)::text as paid_amount,
      coalesce(sum(d.escrow_usdt - d.fee_usdt) filter (where d.status = 'COMPLETED'), 0)::text as to_balance_amount,
      coalesce(sum(d.fee_usdt) filter (where d.status = 'COMPLETED'), 0)::text as commission_amount
    from deals d ${JOINS(db)}
    where ${where(db, { merchantId, dealType: 'PAYIN', startDate: from, endDate: to })}
    group by pm.slug, c.numeric_code, c.exponent
    order by pm.slug`;
}

export interface OutgoingStatsRow {
  method: string;
  currency_numeric: number | null;
  currency_exponent: number;
  conversion_percent: string;
  payments_count: number;
  sent_count: number;
  cancelled_count: number;
  disput_count: number;
  payments_amount: string;
  sent_amount: string;
  from_balance_amount: string;
  commission_amount: string;
}

/**
 * Per payment method: sent COMPLETED, cancelled FAILED + EXPIRED, disputed 0 (a PayOut has no
 * dispute state); in USDT cents what completed payouts debited (the hold: amount at the SELL
 * rate + fee) and the fee.
 */
export async function outgoingStatistics(db: Db, merchantId: string, from?: Date, to?: Date): Promise<OutgoingStatsRow[]> {
  return db<OutgoingStatsRow[]>`
    select pm.slug as method, c.numeric_code as currency_numeric, c.exponent as currency_exponent,
      round(100.0 * count(*) filter (where d.status = 'COMPLETED') / count(*), 2)::text as conversion_percent,
      count(*)::int as payments_count,
      count(*) filter (where d.status = 'COMPLETED')::int as sent_count,
      count(*) filter (where d.status in ('FAILED', 'EXPIRED'))::int as cancelled_count,
      0 as disput_count,
      coalesce(sum(d.amount), 0)::text as payments_amount,
      coalesce(sum(d.amount) filter (where d.status = 'COMPLETED'), 0)::text as sent_amount,
      coalesce(sum(d.escrow_usdt) filter (where d.status = 'COMPLETED'), 0)::text as from_balance_amount,
      coalesce(sum(d.fee_usdt) filter (where d.status = 'COMPLETED'), 0)::text as commission_amount
    from deals d ${JOINS(db)}
    where ${where(db, { merchantId, dealType: 'PAYOUT', startDate: from, endDate: to })}
    group by pm.slug, c.numeric_code, c.exponent
    order by pm.slug`;
}

export async function tenantCurrencies(db: Db, tenantId: string) {
  return db<{ code: string; numeric_code: number | null; exponent: number; status: string }[]>`
    select code, numeric_code, exponent, status from currencies where tenant_id = ${tenantId}`;
}

/** What a V1 record shows of a deal beyond its row: the method's slug and the currency's numeric code and exponent. */
export async function v1DealExtras(db: Db, row: Pick<DealRow, 'tenant_id' | 'payment_method_id' | 'currency'>) {
  const [extras] = await db<{ method_slug: string; currency_numeric: number | null; currency_exponent: number }[]>`
    select pm.slug as method_slug, c.numeric_code as currency_numeric, c.exponent as currency_exponent
    from payment_methods pm join currencies c on c.tenant_id = ${row.tenant_id} and c.code = ${row.currency}
    where pm.id = ${row.payment_method_id}`;
  if (!extras) throw new Error(`deal references an unknown method or currency (${row.currency})`);
  return extras;
}

export interface V1WithdrawalFilter {
  merchantId: string;
  /** undefined: any status. */
  statuses?: string[];
  startDate?: Date;
  endDate?: Date;
}

function withdrawalWhere(db: Db, f: V1WithdrawalFilter) {
  return db`
    merchant_id = ${f.merchantId}
    ${f.statuses ? db`and status = any(${f.statuses})` : db``}
    ${f.startDate ? db`and created_at >= ${f.startDate}` : db``}
    ${f.endDate ? db`and created_at < ${justAfter(f.endDate)}` : db``}`;
}

/** The merchant's withdrawals newest first, `skip` then `take`; `count` is every match. */
export async function listV1Withdrawals(db: Db, f: V1WithdrawalFilter, skip: number, take: number) {
  const [rows, [total]] = await Promise.all([
    db<WithdrawalRow[]>`select * from withdrawals where ${withdrawalWhere(db, f)} order by created_at desc, id desc offset ${skip} limit ${take}`,
    db<{ count: number }[]>`select count(*)::int as count from withdrawals where ${withdrawalWhere(db, f)}`,
  ]);
  return { rows: [...rows], count: total!.count };
}

export interface V1DisputeRow {
  id: string;
  deal_id: string;
  status: string;
  reason: string;
  file_ids: string[];
  resolution_note: string;
  resolved_at: Date | null;
  created_at: Date;
  updated_at: Date;
  receipt_type: string | null;
  receipt_url: string | null;
  description: string | null;
  client_comment: string | null;
  merchant_comment: string | null;
  /** The arbiter's latest message and its first file, if any. */
  admin_body: string | null;
  admin_file_id: string | null;
}

const DISPUTE_SELECT = (db: Db) => db`
  select a.id, a.deal_id, a.status, a.reason, a.file_ids, a.resolution_note, a.resolved_at, a.created_at, a.updated_at,
    v.receipt_type, v.receipt_url, v.description, v.client_comment, v.merchant_comment,
    adm.body as admin_body, adm.file_ids[1] as admin_file_id
  from appeals a
  left join v1_disputes v on v.appeal_id = a.id
  left join lateral (
    select body, file_ids from appeal_messages m where m.appeal_id = a.id and m.sender_role = 'ADMIN' order by seq desc limit 1
  ) adm on true`;

export async function insertV1Dispute(db: Db, row: { appealId: string; receiptType: string; receiptUrl: string; description: string; clientComment: string; merchantComment: string }) {
  await db`
    insert into v1_disputes (appeal_id, receipt_type, receipt_url, description, client_comment, merchant_comment)
    values (${row.appealId}, ${row.receiptType}, ${row.receiptUrl}, ${row.description}, ${row.clientComment}, ${row.merchantComment})
    on conflict (appeal_id) do nothing`;
}

export async function findV1Dispute(db: Db, merchantId: string, appealId: string): Promise<V1DisputeRow | undefined> {
  const [row] = await db<V1DisputeRow[]>`${DISPUTE_SELECT(db)} where a.id = ${appealId} and a.merchant_id = ${merchantId}`;
  return row;
}

export async function listV1Disputes(db: Db, f: V1WithdrawalFilter, skip: number, take: number) {
  const cond = db`
    a.merchant_id = ${f.merchantId}
    ${f.statuses ? db`and a.status = any(${f.statuses})` : db``}
    ${f.startDate ? db`and a.created_at >= ${f.startDate}` : db``}
    ${f.endDate ? db`and a.created_at < ${justAfter(f.endDate)}` : db``}`;
  const [rows, [total]] = await Promise.all([
    db<V1DisputeRow[]>`${DISPUTE_SELECT(db)} where ${cond} order by a.created_at desc, a.id desc offset ${skip} limit ${take}`,
    db<{ count: number }[]>`select count(*)::int as count from appeals a where ${cond}`,
  ]);
  return { rows: [...rows], count: total!.count };
}
