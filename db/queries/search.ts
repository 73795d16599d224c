/**
 * The operator's search box (api/services/search.ts): each kind of object looked up by what the
 * operator typed, read as every term it can be — an id's start, a card or phone tail, an amount, a
 * name, an email, a client id. Every branch reads one index (db/migrations/00002_console_search.sql)
 * and is limited on its own, newest first; a kind's hits are then merged, each with why it matched.
 */
import type { IdPrefix } from '../../domain/ids';
import type { Db } from '../sql';
import { uuidIn } from './id-prefix';

export interface SearchTerms {
  /** The start of an id (at least 4 hex digits) or a whole one. */
  id?: IdPrefix;
  /** Four digits: the end of a card or phone number. */
  tail?: string;
  /** A decimal amount in major units (digits, optionally a point and up to 4 decimals). */
  amount?: string;
  /** The same amount in minor units for each currency exponent it is whole at (0…4): what the amount index is read with. */
  amountMinor?: bigint[];
  /** Lower-cased text of at least 2 characters: the start of a name or email, a whole client id, a withdrawal address. */
  text?: string;
  /** A whole TRON transaction id (64 hex digits). */
  txHash?: string;
}

/**
 * Branches as `select id, matched` subqueries, glued with union all and merged per id with every
 * reason it matched (`id, matched[]`); `null` when none applies.
 */
function hitsOf(db: Db, branches: (ReturnType<Db> | false | undefined | '')[]) {
  const parts = branches.filter((b): b is ReturnType<Db> => Boolean(b));
  if (parts.length === 0) return null;
  const union = parts.map((part) => db`(${part})`).reduce((a, b) => db`${a} union all ${b}`);
  return db`(select id, array_agg(distinct matched order by matched) as matched from (${union}) x group by id)`;
}

/** `lower(column) collate "C"` starts with `prefix`: one range of the expression index, then the exact check. */
const startsWith = (db: Db, column: string, prefix: string) =>
  db`(lower(${db.unsafe(column)}) collate "C" >= ${prefix} and lower(${db.unsafe(column)}) collate "C" < ${prefix} || chr(1114111)
      and starts_with(lower(${db.unsafe(column)}), ${prefix}))`;

export interface DealHit {
  id: string;
  deal_type: string;
  status: string;
  amount: bigint;
  currency: string;
  client_id: string;
  merchant_id: string;
  merchant_name: string;
  sandbox: boolean;
  created_at: Date;
  matched: string[];
}

export async function searchDeals(db: Db, t: SearchTerms, limit: number): Promise<DealHit[]> {
  const hits = hitsOf(db, [
    t.id && db`select id, 'id' as matched from deals where ${uuidIn(db, 'id', t.id)} order by created_at desc limit ${limit}`,
    t.tail &&
      db`select d.id, 'trader card or phone tail' as matched from requisites r
         cross join lateral (select id from deals where requisite_id = r.id order by created_at desc limit ${limit}) d
         where r.card_tail = ${t.tail} or r.phone_tail = ${t.tail}`,
    t.tail && db`select id, 'recipient tail' as matched from deals where target_tail = ${t.tail} order by created_at desc limit ${limit}`,
    t.tail && db`select deal_id as id, 'payer card tail' as matched from payer_proofs where card_last4 = ${t.tail} limit ${limit}`,
    t.amountMinor &&
      t.amountMinor.length > 0 &&
      db`select d.id, 'amount' as matched from deals d
         left join currencies c on c.tenant_id = d.tenant_id and c.code = d.currency
         where d.amount = any(${t.amountMinor.map(String)}::bigint[])
           and d.amount::numeric = ${t.amount!}::numeric * 10 ^ coalesce(c.exponent, 2)
         order by d.created_at desc limit ${limit}`,
    t.text && db`select id, 'client id' as matched from deals where client_id = ${t.text} order by created_at desc limit ${limit}`,
  ]);
  if (!hits) return [];
  return db<DealHit[]>`
    select d.id, d.deal_type, d.status, d.amount, d.currency, d.client_id, d.merchant_id, m.name as merchant_name, d.sandbox,
      d.created_at, h.matched
    from ${hits} h
    join deals d on d.id = h.id
    join merchants m on m.id = d.merchant_id
    order by d.created_at desc, d.id desc
    limit ${limit}`;
}

export interface AppealHit {
  id: string;
  deal_id: string;
  status: string;
  merchant_id: string;
  merchant_name: string;
  created_at: Date;
  matched: string[];
}

/** Appeals by their id, their deal's id, or the deals the same search found (`dealIds`). */
export async function searchAppeals(db: Db, t: SearchTerms, dealIds: string[], limit: number): Promise<AppealHit[]> {
  const hits = hitsOf(db, [
    t.id && db`select id, 'id' as matched from appeals where ${uuidIn(db, 'id', t.id)} order by created_at desc limit ${limit}`,
    t.id && db`select id, 'deal id' as matched from appeals where ${uuidIn(db, 'deal_id', t.id)} limit ${limit}`,
    dealIds.length > 0 && db`select id, 'its deal' as matched from appeals where deal_id = any(${dealIds}::uuid[])`,
  ]);
  if (!hits) return [];
  return db<AppealHit[]>`
    select a.id, a.deal_id, a.status, a.merchant_id, m.name as merchant_name, a.created_at, h.matched
    from ${hits} h
    join appeals a on a.id = h.id
    join merchants m on m.id = a.merchant_id
    order by a.created_at desc, a.id desc
    limit ${limit}`;
}

export interface WithdrawalHit {
  id: string;
  status: string;
  amount: bigint;
  address: string;
  tx_hash: string;
  merchant_id: string;
  merchant_name: string;
  created_at: Date;
  matched: string[];
}

/** Withdrawals by id, amount (USDT: two decimals), address or transaction id. */
export async function searchWithdrawals(db: Db, t: SearchTerms & { usdtCents?: bigint; address?: string }, limit: number): Promise<WithdrawalHit[]> {
  const hits = hitsOf(db, [
    t.id && db`select id, 'id' as matched from withdrawals where ${uuidIn(db, 'id', t.id)} order by created_at desc limit ${limit}`,
    t.usdtCents !== undefined && db`select id, 'amount' as matched from withdrawals where amount = ${t.usdtCents} order by created_at desc limit ${limit}`,
    t.address && db`select id, 'address' as matched from withdrawals where address = ${t.address} order by created_at desc limit ${limit}`,
    t.txHash && db`select id, 'transaction id' as matched from withdrawals where tx_hash = ${t.txHash} limit ${limit}`,
  ]);
  if (!hits) return [];
  return db<WithdrawalHit[]>`
    select w.id, w.status, w.amount, w.address, w.tx_hash, w.merchant_id, m.name as merchant_name, w.created_at, h.matched
    from ${hits} h
    join withdrawals w on w.id = h.id
    join merchants m on m.id = w.merchant_id
    order by w.created_at desc, w.id desc
    limit ${limit}`;
}

export interface MerchantHit {
  id: string;
  name: string;
  email: string;
  status: string;
  sandbox: boolean;
  matched: string[];
}

export async function searchMerchants(db: Db, t: SearchTerms, limit: number): Promise<MerchantHit[]> {
  const hits = hitsOf(db, [
    t.id && db`select id, 'id' as matched from merchants where ${uuidIn(db, 'id', t.id)} limit ${limit}`,
    t.text && db`select id, 'name' as matched from merchants where ${startsWith(db, 'name', t.text)} limit ${limit}`,
    t.text && db`select id, 'email' as matched from merchants where ${startsWith(db, 'email', t.text)} limit ${limit}`,
  ]);
  if (!hits) return [];
  return db<MerchantHit[]>`
    select m.id, m.name, m.email, m.status, m.sandbox, h.matched
    from ${hits} h
    join merchants m on m.id = h.id
    order by m.name, m.id
    limit ${limit}`;
}

export interface TraderHit {
  id: string;
  name: string;
  status: string;
  matched: string[];
}

/** Traders by id, name, or a requisite's card or phone tail. */
export async function searchTraders(db: Db, t: SearchTerms, limit: number): Promise<TraderHit[]> {
  const hits = hitsOf(db, [
    t.id && db`select id, 'id' as matched from traders where ${uuidIn(db, 'id', t.id)} limit ${limit}`,
    t.text && db`select id, 'name' as matched from traders where ${startsWith(db, 'name', t.text)} limit ${limit}`,
    t.tail && db`select trader_id as id, 'requisite tail' as matched from requisites where card_tail = ${t.tail} or phone_tail = ${t.tail} limit ${limit}`,
  ]);
  if (!hits) return [];
  return db<TraderHit[]>`
    select tr.id, tr.name, tr.status, h.matched
    from ${hits} h
    join traders tr on tr.id = h.id
    order by tr.name, tr.id
    limit ${limit}`;
}

export interface OperatorHit {
  id: string;
  email: string;
  role: string;
  disabled: boolean;
  matched: string[];
}

export async function searchOperators(db: Db, t: SearchTerms, limit: number): Promise<OperatorHit[]> {
  const hits = hitsOf(db, [
    t.id && db`select id, 'id' as matched from accounts where ${uuidIn(db, 'id', t.id)} and party = 'operator' limit ${limit}`,
    t.text &&
      db`select id, 'email' as matched from accounts
         where email collate "C" >= ${t.text} and email collate "C" < ${t.text} || chr(1114111) and starts_with(email, ${t.text})
           and party = 'operator' limit ${limit}`,
  ]);
  if (!hits) return [];
  return db<OperatorHit[]>`
    select o.id, o.email, o.role, o.disabled_at is not null as disabled, h.matched
    from ${hits} h
    join accounts o on o.id = h.id
    order by o.email
    limit ${limit}`;
}
