/**
 * A trader's deals (the trader app's queue): its own deals, live first, and the UNASSIGNED payouts
 * it may take; the columns of its moves (a payout's proof, a PayIn reported not received).
 */
import type { Db } from '../sql';
import type { DealRow } from './deals';
import type { KeysetCursor } from './keyset';
import { newId } from '../../domain/ids';

/** What the trader's queue shows of a deal: the deal, its requisite and the payment method's slug. */
export interface TraderDealRow extends DealRow {
  method_slug: string;
  requisite_summary: string;
  currency_exponent: number;
}

const QUEUE_COLUMNS = (db: Db) => db`
  d.*, coalesce(pm.slug, '') as method_slug,
  coalesce((select c.exponent from currencies c where c.tenant_id = d.tenant_id and c.code = d.currency), 2)::int as currency_exponent,
  coalesce(nullif(concat_ws(' ', r.requisite_type,
    case when r.card_number <> '' then '•' || right(r.card_number, 4) when r.phone_number <> '' then '•' || right(r.phone_number, 4)
         when r.iban <> '' then '•' || right(r.iban, 4) end, r.bank_name), ''), '') as requisite_summary`;

/** The trader's deal, or undefined for another trader's and an unknown id alike. */
export async function findTraderDeal(db: Db, traderId: string, dealId: string): Promise<TraderDealRow | undefined> {
  const [row] = await db<TraderDealRow[]>`
    select ${QUEUE_COLUMNS(db)} from deals d
    left join payment_methods pm on pm.id = d.payment_method_id
    left join requisites r on r.id = d.requisite_id
    where d.id = ${dealId} and d.trader_id = ${traderId}`;
  return row;
}

/**
 * One page of the trader's deals: live ones (`live`) or finished ones, newest first, by type and
 * statuses. Live deals are few (the trader's capacity), history pages on (created_at, id).
 */
export async function listTraderDeals(
  db: Db,
  f: {
    traderId: string;
    live: boolean;
    terminal: readonly string[];
    dealType?: 'PAYIN' | 'PAYOUT' | undefined;
    statuses?: string[] | undefined;
    /** The page's start (db/queries/keyset.ts: the timestamp goes as text, keeping its microseconds). */
    before?: KeysetCursor | undefined;
    limit: number;
  },
): Promise<(TraderDealRow & { cursor_ts: string })[]> {
  return db<(TraderDealRow & { cursor_ts: string })[]>`
    select ${QUEUE_COLUMNS(db)}, to_char(d.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as cursor_ts
    from deals d
    left join payment_methods pm on pm.id = d.payment_method_id
    left join requisites r on r.id = d.requisite_id
    where d.trader_id = ${f.traderId}
      and ${f.live ? db`d.status <> all(${f.terminal as string[]})` : db`d.status = any(${f.terminal as string[]})`}
      ${f.dealType ? db`and d.deal_type = ${f.dealType}` : db``}
      ${f.statuses?.length ? db`and d.status = any(${f.statuses})` : db``}
      ${f.before ? db`and (d.created_at, d.id) < (${f.before.createdAt}::text::timestamptz, ${f.before.id}::uuid)` : db``}
    order by d.created_at desc, d.id desc
    limit ${f.limit}`;
}

/**
 * The UNASSIGNED payouts of the trader's world that one of its ACTIVE requisites can serve (the
 * payout's payment method, its amount within the requisite's bounds), oldest first: what the
 * trader may take. `dealId` narrows it to one payout (the take's own check).
 */
export async function takeablePayouts(db: Db, traderId: string, options: { dealId?: string; limit: number }): Promise<TraderDealRow[]> {
  return db<TraderDealRow[]>`
    select ${QUEUE_COLUMNS(db)} from deals d
    join traders t on t.id = ${traderId} and t.status = 'ACTIVE'
    left join payment_methods pm on pm.id = d.payment_method_id
    left join requisites r on false
    where d.status = 'UNASSIGNED' and d.deal_type = 'PAYOUT' and d.sandbox = t.sandbox and d.tenant_id = t.tenant_id
      ${options.dealId ? db`and d.id = ${options.dealId}` : db``}
      and exists (select 1 from requisites q where q.trader_id = t.id and q.status = 'ACTIVE'
        and q.payment_method_id = d.payment_method_id and d.amount between q.min_amount and q.max_amount)
    order by d.created_at, d.id
    limit ${options.limit}`;
}

/** The trader's ACTIVE requisite that serves the payout (the smallest range first); undefined when none does. */
export async function servingRequisite(db: Db, traderId: string, deal: Pick<DealRow, 'payment_method_id' | 'amount'>): Promise<{ id: string } | undefined> {
  const [row] = await db<{ id: string }[]>`
    select q.id from requisites q join traders t on t.id = q.trader_id and t.status = 'ACTIVE'
    where q.trader_id = ${traderId} and q.status = 'ACTIVE' and q.payment_method_id = ${deal.payment_method_id}
      and ${deal.amount} between q.min_amount and q.max_amount
    order by q.max_amount - q.min_amount, q.id
    limit 1`;
  return row;
}

/** A completed payout's proof, set in its completion's transaction (the caller locked the deal). */
export async function setPayoutProof(tx: Db, dealId: string, proof: { bankReference: string; fileId: string | null }): Promise<void> {
  await tx`
    update deals set payout_bank_reference = ${proof.bankReference}, payout_proof_file_id = ${proof.fileId}
    where id = ${dealId}`;
}

/** The trader's report that a PayIn's payment did not arrive (the first report's time stays). */
export async function recordNotReceived(tx: Db, dealId: string, reason: string): Promise<DealRow> {
  const [row] = await tx<DealRow[]>`
    update deals set not_received_at = coalesce(not_received_at, now()), not_received_reason = ${reason}, updated_at = now()
    where id = ${dealId} returning *`;
  return row!;
}

/** The operator alert of a PayIn its trader reported as not received: one per deal (GET /admin/alerts); true when this call raised it. */
export async function raiseNotReceivedAlert(tx: Db, dealId: string, reason: string): Promise<boolean> {
  const message = `the trader reports the payment as not received${reason ? `: ${reason}` : ''}; the deal waits for its expiry, an appeal or an operator`;
  const rows = await tx`
    insert into operator_alerts (id, kind, deal_id, message)
    values (${newId()}, 'payin_not_received', ${dealId}, ${message})
    on conflict (kind, deal_id) do nothing
    returning id`;
  return rows.length > 0;
}
