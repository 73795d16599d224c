import type { Db } from '../sql';
import type { AmountMatch } from '../../domain/state/payin';
import type { IdPrefix } from '../../domain/ids';
import { justAfter, NEWEST_FIRST } from './keyset';
import { uuidIn } from './id-prefix';
import type { KeyRing } from '../../domain/crypto/key-ring';
import { openRequisiteNumbers, type RequisiteNumbers, type SealedPayoutTarget } from './requisite-secrets';

export interface DealRow {
  id: string;
  tenant_id: string;
  merchant_id: string;
  deal_type: 'PAYIN' | 'PAYOUT';
  /** The merchant's world, copied at insert (the `deals_sandbox` trigger). */
  sandbox: boolean;
  status: string;
  /** Held to one live PayIn per requisite and amount (deals_amount_guard; db/queries/matching.ts). */
  amount_guard: boolean;
  idempotency_key: string;
  amount: bigint;
  currency: string;
  client_id: string;
  payment_method_id: string;
  requisite_id: string | null;
  trader_id: string | null;
  checkout_hash: string | null;
  description: string;
  callback_url: string;
  payer_bank: string;
  is_client_commission: boolean;
  /** A PayOut's recipient number and requisite_details, sealed (db/queries/requisite-secrets.ts opens them). */
  target_sealed: string | null;
  target_tail: string | null;
  target_masked: string;
  target_name: string;
  target_bank: string;
  requisite_details_sealed: string | null;
  wallet_id: string | null;
  received_amount: bigint;
  amount_match_status: AmountMatch;
  amount_version: bigint;
  amount_usdt: bigint;
  exchange_rate_micro: bigint;
  fee_usdt: bigint;
  fee_bps: number;
  escrow_usdt: bigint;
  payment_timeout_at: Date | null;
  parent_deal_id: string | null;
  origin_appeal_id: string | null;
  cancel_reason: string;
  failure_reason: string;
  assign_deadline_at: Date | null;
  transfer_deadline_at: Date | null;
  /** A completed PayOut's proof from its trader: the bank's reference and the evidence file ('' / null when none). */
  payout_bank_reference: string;
  payout_proof_file_id: string | null;
  /** When and why the trader reported a PayIn's payment as not received (null / '' when it did not). */
  not_received_at: Date | null;
  not_received_reason: string;
  created_at: Date;
  updated_at: Date;
}

/** A deal within the caller's scope: a foreign deal is simply not found. */
export async function findMerchantDeal(db: Db, merchantId: string, dealId: string): Promise<DealRow | undefined> {
  const [row] = await db<DealRow[]>`select * from deals where id = ${dealId} and merchant_id = ${merchantId}`;
  return row;
}

export async function findDeal(db: Db, dealId: string): Promise<DealRow | undefined> {
  const [row] = await db<DealRow[]>`select * from deals where id = ${dealId}`;
  return row;
}

export async function lockDeal(tx: Db, dealId: string): Promise<DealRow | undefined> {
  const [row] = await tx<DealRow[]>`select * from deals where id = ${dealId} for no key update`;
  return row;
}

/** Whether another merchant of the tenant holds this PayOut idempotency key. */
export async function payoutKeyHeldByOther(db: Db, tenantId: string, merchantId: string, key: string): Promise<boolean> {
  const [row] = await db`
    select 1 from deals where tenant_id = ${tenantId} and deal_type = 'PAYOUT'
      and idempotency_key = ${key} and merchant_id <> ${merchantId}`;
  return row !== undefined;
}

export interface CheckoutRow extends DealRow {
  payment_method_name: string;
  requisite_type: string | null;
  /** The requisite's numbers, opened (findCheckout); '' when none. */
  card_number: string;
  phone_number: string;
  iban: string;
  holder_name: string | null;
  bank_name: string | null;
  /** The bank's name for people (banks.display_name); null when the requisite's bank is not in the catalogue. */
  bank_display_name: string | null;
  checkout_brand_name: string;
  merchant_name: string;
  success_redirect_url: string;
  fail_redirect_url: string;
  /** When the payer said they paid and when the receipt was confirmed (the first such event), if ever. */
  payment_notified_at: Date | null;
  payment_verified_at: Date | null;
  /** The payer's proofs so far (db/queries/payer-proofs.ts): submissions, receipts among them, the latest card digits. */
  proof_count: number;
  proof_receipts: number;
  proof_card_last4: string | null;
  /** Minor units per major unit of the deal's currency, as 10^exponent (the catalogue's; 2 when absent). */
  currency_exponent: number;
}

/** Everything the public payment page shows, by the 64-hex hash of payment_url: one statement (the page polls it). */
export async function findCheckout(db: Db, ring: KeyRing, hash: string): Promise<CheckoutRow | undefined> {
  if (!/^[0-9a-f]{64}$/.test(hash)) return undefined;
  const [row] = await db<(Omit<CheckoutRow, keyof RequisiteNumbers> & StoredNumbers)[]>`
    select d.*, pm.name as payment_method_name, r.requisite_type, r.card_sealed, r.phone_sealed, r.iban_sealed,
      coalesce(t.sandbox, false) as requisite_sandbox,
      r.holder_name, r.bank_name, b.display_name as bank_display_name, m.checkout_brand_name, m.name as merchant_name,
      m.success_redirect_url, m.fail_redirect_url,
      (select min(e.created_at) from outbox_events e where e.deal_id = d.id and e.event_type = 'deal.payment_notified') as payment_notified_at,
      (select min(e.created_at) from outbox_events e where e.deal_id = d.id and e.event_type = 'deal.payment_verified') as payment_verified_at,
      p.proof_count, p.proof_receipts, p.proof_card_last4,
      coalesce((select c.exponent from currencies c where c.tenant_id = d.tenant_id and c.code = d.currency), 2)::int as currency_exponent
    from deals d
    join payment_methods pm on pm.id = d.payment_method_id
    join merchants m on m.id = d.merchant_id
    left join requisites r on r.id = d.requisite_id
    left join traders t on t.id = r.trader_id
    left join banks b on b.tenant_id = d.tenant_id and b.bank_name = r.bank_name
    cross join lateral (
      select count(*)::int as proof_count, count(file_id)::int as proof_receipts,
        (array_agg(card_last4 order by slot desc) filter (where card_last4 is not null))[1] as proof_card_last4
      from payer_proofs where deal_id = d.id) p
    where d.checkout_hash = ${hash} and d.deal_type = 'PAYIN'`;
  if (!row) return undefined;
  const { card_sealed, phone_sealed, iban_sealed, requisite_sandbox, ...rest } = row;
  const numbers =
    row.requisite_id === null
      ? { card_number: '', phone_number: '', iban: '' }
      : openRequisiteNumbers(ring, {
          id: row.requisite_id,
          requisite_type: row.requisite_type,
          card_sealed,
          phone_sealed,
          iban_sealed,
          sandbox: requisite_sandbox,
        });
  return { ...rest, ...numbers };
}

/** The requisite's columns findCheckout reads sealed. */
interface StoredNumbers {
  card_sealed: string | null;
  phone_sealed: string | null;
  iban_sealed: string | null;
  requisite_sandbox: boolean;
}

/**
 * The deal's amount at an earlier amount_version (the payer's page shows old → new): version 1 is
 * the old amount of the first change, a later one the new amount of its change; undefined if unknown.
 */
export async function findAmountAtVersion(db: Db, dealId: string, version: bigint): Promise<bigint | undefined> {
  const [row] =
    version === 1n
      ? await db<{ amount: bigint }[]>`select old_amount as amount from deal_amount_changes where deal_id = ${dealId} and version = 2`
      : await db<{ amount: bigint }[]>`select new_amount as amount from deal_amount_changes where deal_id = ${dealId} and version = ${version}`;
  return row?.amount;
}

// ---- Deal steps (the activities): the one insert, the moves, the amount change ----

export interface NewDeal {
  id: string;
  tenantId: string;
  merchantId: string;
  dealType: 'PAYIN' | 'PAYOUT';
  status: string;
  idempotencyKey: string;
  amount: bigint;
  currency: string;
  paymentMethodId: string;
  requisiteId: string | null;
  traderId: string | null;
  amountUsdt: bigint;
  exchangeRateMicro: bigint;
  feeUsdt: bigint;
  feeBps: number;
  escrowUsdt: bigint;
  /** PayIn fields (the column defaults when absent). */
  clientId?: string;
  checkoutHash?: string | null;
  description?: string;
  callbackUrl?: string;
  payerBank?: string;
  isClientCommission?: boolean;
  /** PayOut fields: the recipient sealed (sealPayoutTarget). */
  target?: SealedPayoutTarget;
  targetName?: string;
  targetBank?: string;
  walletId?: string | null;
  /** A settlement deal's fields (the new deal that settles an EXPIRED one). */
  receivedAmount?: bigint;
  amountMatchStatus?: AmountMatch;
  parentDealId?: string | null;
  originAppealId?: string | null;
  /** Deadlines, in seconds from now on the database's clock; absent: none. */
  paymentTimeoutSeconds?: number;
  assignSlaSeconds?: number;
  transferSlaSeconds?: number;
}

/** When a MATCHED payout must have started (millisecond precision, as the snapshot shows it). */
const transferDeadline = (tx: Db, seconds: number) => tx`date_trunc('milliseconds', now() + make_interval(secs => ${seconds}))`;
const fromNow = (tx: Db, seconds: number | undefined) => (seconds === undefined ? null : tx`now() + make_interval(secs => ${seconds})`);

/** Every deal is created here: a PayIn, a PayOut or a settlement deal, in the caller's transaction. */
export async function insertDeal(tx: Db, d: NewDeal): Promise<DealRow> {
  const [row] = await tx<DealRow[]>`
    insert into deals (id, tenant_id, merchant_id, deal_type, status, idempotency_key, amount, currency, client_id,
      payment_method_id, requisite_id, trader_id, checkout_hash, description, callback_url, payer_bank, is_client_commission,
      target_sealed, target_tail, target_masked, target_name, target_bank, requisite_details_sealed, wallet_id,
      amount_usdt, exchange_rate_micro, fee_usdt, fee_bps, escrow_usdt, received_amount, amount_match_status,
      parent_deal_id, origin_appeal_id, payment_timeout_at, assign_deadline_at, transfer_deadline_at)
    values (${d.id}, ${d.tenantId}, ${d.merchantId}, ${d.dealType}, ${d.status}, ${d.idempotencyKey}, ${d.amount}, ${d.currency},
      ${d.clientId ?? ''}, ${d.paymentMethodId}, ${d.requisiteId}, ${d.traderId}, ${d.checkoutHash ?? null}, ${d.description ?? ''},
      ${d.callbackUrl ?? ''}, ${d.payerBank ?? ''}, ${d.isClientCommission ?? false},
      ${d.target?.target_sealed ?? null}, ${d.target?.target_tail ?? null}, ${d.target?.target_masked ?? ''}, ${d.targetName ?? ''},
      ${d.targetBank ?? ''}, ${d.target?.requisite_details_sealed ?? null}, ${d.walletId ?? null},
      ${d.amountUsdt}, ${d.exchangeRateMicro}, ${d.feeUsdt}, ${d.feeBps}, ${d.escrowUsdt}, ${d.receivedAmount ?? 0n},
      ${d.amountMatchStatus ?? ''}, ${d.parentDealId ?? null}, ${d.originAppealId ?? null},
      ${fromNow(tx, d.paymentTimeoutSeconds)}, ${fromNow(tx, d.assignSlaSeconds)},
      ${d.transferSlaSeconds === undefined ? null : transferDeadline(tx, d.transferSlaSeconds)})
    returning *`;
  return row!;
}

export type StepChanges = Partial<Record<'cancel_reason' | 'failure_reason', string>> & { requisite_id?: string; trader_id?: string };

/** A deal's move (the caller locked `row`): the new status and the columns the move sets. */
export async function setDealStatus(tx: Db, row: DealRow, to: string, changes: StepChanges = {}): Promise<DealRow> {
  const [updated] = await tx<DealRow[]>`
    update deals set status = ${to}, updated_at = now(),
      cancel_reason = ${changes.cancel_reason ?? row.cancel_reason},
      failure_reason = ${changes.failure_reason ?? row.failure_reason},
      requisite_id = ${changes.requisite_id ?? row.requisite_id},
      trader_id = ${changes.trader_id ?? row.trader_id}
    where id = ${row.id} returning *`;
  return updated!;
}

/** A payout (re)assigned to a requisite and its trader: MATCHED, with a new transfer window. */
export async function matchPayoutDeal(tx: Db, dealId: string, match: { requisiteId: string; traderId: string }, transferSlaSeconds: number): Promise<DealRow> {
  const [updated] = await tx<DealRow[]>`
    update deals set status = 'MATCHED', requisite_id = ${match.requisiteId}, trader_id = ${match.traderId},
      transfer_deadline_at = ${transferDeadline(tx, transferSlaSeconds)}, updated_at = now()
    where id = ${dealId} returning *`;
  return updated!;
}

/** What the payer paid and how it matches what they were asked. */
export async function recordReceivedAmount(tx: Db, dealId: string, received: bigint, match: AmountMatch): Promise<DealRow> {
  const [updated] = await tx<DealRow[]>`
    update deals set received_amount = ${received}, amount_match_status = ${match}, updated_at = now()
    where id = ${dealId} returning *`;
  return updated!;
}

/** The amount a change under this key set, if that key was used on the deal (a repeated amount change answers the first). */
export async function findAmountChange(db: Db, dealId: string, idempotencyKey: string): Promise<{ new_amount: bigint } | undefined> {
  const [row] = await db<{ new_amount: bigint }[]>`
    select new_amount from deal_amount_changes where deal_id = ${dealId} and idempotency_key = ${idempotencyKey}`;
  return row;
}

export interface AmountChange {
  id: string;
  idempotencyKey: string;
  operatorId: string;
  reason: string;
  newAmount: bigint;
  newAmountUsdt: bigint;
  feeUsdt: bigint;
  escrowUsdt: bigint;
  version: bigint;
  amountMatchStatus: AmountMatch;
}

/** The amount change (its audit row and the deal's new figures), in the caller's transaction. */
export async function applyAmountChange(tx: Db, row: DealRow, change: AmountChange): Promise<DealRow> {
  await tx`
    insert into deal_amount_changes (id, deal_id, idempotency_key, operator_id, reason, old_amount, new_amount,
      old_amount_usdt, new_amount_usdt, version)
    values (${change.id}, ${row.id}, ${change.idempotencyKey}, ${change.operatorId}, ${change.reason}, ${row.amount},
      ${change.newAmount}, ${row.amount_usdt}, ${change.newAmountUsdt}, ${change.version})`;
  const [updated] = await tx<DealRow[]>`
    update deals set amount = ${change.newAmount}, amount_usdt = ${change.newAmountUsdt}, fee_usdt = ${change.feeUsdt},
      escrow_usdt = ${change.escrowUsdt}, amount_version = ${change.version}, amount_match_status = ${change.amountMatchStatus}, updated_at = now()
    where id = ${row.id} returning *`;
  return updated!;
}

export interface OperatorDealFilter {
  /** A whole id or its start (domain/ids.ts). */
  dealId?: IdPrefix;
  merchantId?: IdPrefix;
  /** Any of these statuses (absent or empty: any). */
  statuses?: string[];
  dealType?: 'PAYIN' | 'PAYOUT';
  createdAfter?: Date;
  createdBefore?: Date;
}

/** A deal as the operator reads it: the row with the names of its merchant and trader and its appeal, if any. */
export type OperatorDealRow = DealRow & {
  merchant_name: string;
  trader_name: string | null;
  appeal_id: string | null;
  requisite_type: string | null;
  requisite_card_tail: string | null;
  requisite_phone_tail: string | null;
  requisite_holder: string | null;
  requisite_bank: string | null;
};

/** The orders the operator's search sorts by: a column, `-` for descending; each is a keyset on (column, id). */
export const OPERATOR_DEAL_SORTS = ['-created_at', 'created_at', '-amount', 'amount'] as const;
export type OperatorDealSort = (typeof OPERATOR_DEAL_SORTS)[number];

/** Where a page of a sorted search starts: after the last row's sort value (created_at as microsecond text, or the amount's digits) and id. */
export interface SortCursor {
  value: string;
  id: string;
}

const SORT_SQL: Record<OperatorDealSort, { column: 'created_at' | 'amount'; direction: 'asc' | 'desc'; after: '<' | '>' }> = {
  '-created_at': { column: 'created_at', direction: 'desc', after: '<' },
  created_at: { column: 'created_at', direction: 'asc', after: '>' },
  '-amount': { column: 'amount', direction: 'desc', after: '<' },
  amount: { column: 'amount', direction: 'asc', after: '>' },
};

/** The ORDER BY of a sort, its columns qualified by `table` when given (the names' join has ids of its own). */
const orderOf = (db: Db, sort: OperatorDealSort, table = '') => {
  const by = SORT_SQL[sort];
  const order = sort === '-created_at' && !table ? NEWEST_FIRST : `${table}${by.column} ${by.direction}, ${table}id ${by.direction}`;
  return db.unsafe(order);
};

function operatorDealWhere(db: Db, f: OperatorDealFilter) {
  return db`
    true
    ${f.dealId ? db`and ${uuidIn(db, 'id', f.dealId)}` : db``}
    ${f.merchantId ? db`and ${uuidIn(db, 'merchant_id', f.merchantId)}` : db``}
    ${f.statuses?.length ? db`and status = any(${f.statuses})` : db``}
    ${f.dealType ? db`and deal_type = ${f.dealType}` : db``}
    ${f.createdAfter ? db`and created_at >= ${f.createdAfter}` : db``}
    ${f.createdBefore ? db`and created_at < ${justAfter(f.createdBefore)}` : db``}`;
}

/** The names beside deals already selected (`d`): joined after the page is cut, so the listing stays one ordered range. */
const withNames = (db: Db, selected: ReturnType<Db>, sort: OperatorDealSort) => db`
  select d.*, m.name as merchant_name, t.name as trader_name, a.id as appeal_id,
    r.requisite_type, r.card_tail as requisite_card_tail, r.phone_tail as requisite_phone_tail,
    r.holder_name as requisite_holder, r.bank_name as requisite_bank
  from (${selected}) d
  join merchants m on m.id = d.merchant_id
  left join traders t on t.id = d.trader_id
  left join requisites r on r.id = d.requisite_id
  left join appeals a on a.deal_id = d.id
  order by ${orderOf(db, sort, 'd.')}`;

/**
 * Deals of every merchant for the operator's search, with names, in one of OPERATOR_DEAL_SORTS
 * (keyset pages: `sort_value` is the row's value of the sort column as text — created_at in UTC
 * with its microseconds, as keyset.ts's cursor and for the same reason — and goes back to
 * Postgres as text).
 */
export async function listOperatorDeals(db: Db, f: OperatorDealFilter, limit: number, sort: OperatorDealSort = '-created_at', after?: SortCursor) {
  const by = SORT_SQL[sort];
  const value = db.unsafe(
    by.column === 'created_at' ? `to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as sort_value` : 'amount::text as sort_value',
  );
  const continuation = !after
    ? db``
    : by.column === 'created_at'
      ? db`and (created_at, id) ${db.unsafe(by.after)} (${after.value}::text::timestamptz, ${after.id}::uuid)`
      : db`and (amount, id) ${db.unsafe(by.after)} (${after.value}::bigint, ${after.id}::uuid)`;
  return db<(OperatorDealRow & { sort_value: string })[]>`${withNames(
    db,
    db`select *, ${value} from deals where ${operatorDealWhere(db, f)} ${continuation} order by ${orderOf(db, sort)} limit ${limit}`,
    sort,
  )}`;
}

/** The same selection in the same order, every row, as a cursor of batches (the CSV export, in constant memory). */
export function streamOperatorDeals(db: Db, f: OperatorDealFilter, sort: OperatorDealSort = '-created_at', batchSize = 500) {
  return db<OperatorDealRow[]>`${withNames(db, db`select * from deals where ${operatorDealWhere(db, f)}`, sort)}`.cursor(batchSize);
}

/** One deal as the operator reads it, with names. */
export async function findOperatorDeal(db: Db, dealId: string): Promise<OperatorDealRow | undefined> {
  const [row] = await db<OperatorDealRow[]>`${withNames(db, db`select * from deals where id = ${dealId}`, '-created_at')}`;
  return row;
}
