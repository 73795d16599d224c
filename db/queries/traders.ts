import type { Db } from '../sql';
import { newId } from '../../domain/ids';
import type { KeyRing } from '../../domain/crypto/key-ring';
import { ensureWallet } from './wallets';
import { openRequisiteNumbers, sealRequisiteNumbers, type RequisiteNumbers, type SealedRequisiteNumbers } from './requisite-secrets';
import { cursorColumn, newestFirst, olderThan, type KeysetCursor } from './keyset';

/** A trader: ACTIVE when an operator manages it, PENDING_APPROVAL when invited to work through its own account. */
export async function insertTrader(tx: Db, tenantId: string, name: string, status: 'ACTIVE' | 'PENDING_APPROVAL' = 'ACTIVE') {
  const id = newId();
  const [row] = await tx<{ id: string; name: string; status: string; created_at: Date }[]>`
    insert into traders (id, tenant_id, name, status) values (${id}, ${tenantId}, ${name}, ${status})
    returning id, name, status, created_at`;
  await ensureWallet(tx, 'trader', id, 'USDT');
  return row!;
}

export interface NewRequisite {
  trader_id: string;
  payment_method_id: string;
  requisite_type: string;
  card_number: string;
  phone_number: string;
  iban: string;
  holder_name: string;
  bank_name: string;
  min_amount: bigint;
  max_amount: bigint;
  daily_limit: bigint | null;
  /** The limits the matcher honours beyond daily_limit (db/queries/matching.ts); absent: none. */
  daily_count_limit?: number | null;
  monthly_limit?: bigint | null;
  max_live_deals?: number | null;
  cooldown_seconds?: number;
  /** An operator's requisite is ACTIVE at once; a trader's waits for approval (PENDING_APPROVAL). */
  added_by?: 'operator' | 'trader';
}

export interface RequisiteRow extends NewRequisite {
  id: string;
  status: string;
  daily_count_limit: number | null;
  monthly_limit: bigint | null;
  max_live_deals: number | null;
  cooldown_seconds: number;
  added_by: 'operator' | 'trader';
  rejection_reason: string;
  reviewed_at: Date | null;
  updated_at: Date;
  created_at: Date;
}

/** A requisite's row as stored: its numbers sealed (db/queries/requisite-secrets.ts), their tails and mask beside them. */
export type StoredRequisiteRow = Omit<RequisiteRow, keyof RequisiteNumbers> & SealedRequisiteNumbers & { sandbox?: boolean };

/** A stored requisite with its numbers opened, as the people who may see them read it. */
export const opened = <T extends StoredRequisiteRow>(ring: KeyRing, row: T) => ({ ...row, ...openRequisiteNumbers(ring, row) });

export async function insertRequisite(db: Db, ring: KeyRing, input: NewRequisite): Promise<RequisiteRow> {
  const id = newId();
  const { card_number, phone_number, iban, added_by, ...rest } = input;
  const addedBy = added_by ?? 'operator';
  const [row] = await db<StoredRequisiteRow[]>`
    insert into requisites ${db({
      id,
      ...rest,
      daily_count_limit: input.daily_count_limit ?? null,
      monthly_limit: input.monthly_limit ?? null,
      max_live_deals: input.max_live_deals ?? null,
      cooldown_seconds: input.cooldown_seconds ?? 0,
      added_by: addedBy,
      status: addedBy === 'trader' ? 'PENDING_APPROVAL' : 'ACTIVE',
      ...sealRequisiteNumbers(ring, id, { card_number, phone_number, iban }),
    })}
    returning *`;
  return opened(ring, row!);
}

export async function findTrader(db: Db, traderId: string, options: { lock?: boolean } = {}) {
  const [row] = await db<{ id: string; tenant_id: string; name: string; status: string; sandbox: boolean; created_at: Date }[]>`
    select id, tenant_id, name, status, sandbox, created_at from traders where id = ${traderId} ${options.lock ? db`for update` : db``}`;
  return row;
}

/** An invited trader becomes ACTIVE: the matcher may take it from now on. */
export async function approveTrader(tx: Db, traderId: string, approvedBy: string) {
  await tx`update traders set status = 'ACTIVE', approved_at = now(), approved_by = ${approvedBy} where id = ${traderId}`;
}

/** The accounts of a trader (the trader app's people), oldest first. */
export function traderAccounts(db: Db, traderId: string) {
  return db<{ id: string; email: string; disabled_at: Date | null; removed_at: Date | null; totp_secret_sealed: string | null }[]>`
    select id, email, disabled_at, removed_at, totp_secret_sealed from accounts where party = 'trader' and trader_id = ${traderId} order by created_at`;
}

/** A requisite as an operator's assignment needs it (its trader, method and status). */
export async function findRequisite(
  db: Db,
  requisiteId: string,
): Promise<{ id: string; trader_id: string; payment_method_id: string; status: string; sandbox: boolean } | undefined> {
  const [row] = await db<{ id: string; trader_id: string; payment_method_id: string; status: string; sandbox: boolean }[]>`
    select r.id, r.trader_id, r.payment_method_id, r.status, t.sandbox from requisites r join traders t on t.id = r.trader_id
    where r.id = ${requisiteId}`;
  return row;
}

/** Traders with their USDT balances for the operator, newest first (keyset pages). */
export async function listTradersPage(db: Db, f: { after?: KeysetCursor; limit: number }) {
  return db<
    {
      id: string;
      name: string;
      status: string;
      created_at: Date;
      cursor_ts: string;
      available: bigint;
      frozen: bigint;
      self_managed: boolean;
      online: boolean;
      offline_reason: string;
      heartbeat_at: Date | null;
    }[]
  >`
    select t.id, t.name, t.status, t.created_at, ${cursorColumn(db)}, t.online, t.offline_reason, t.heartbeat_at,
      exists (select 1 from accounts a where a.trader_id = t.id and a.party = 'trader') as self_managed,
      coalesce((select w.available from wallets w where w.owner_type = 'trader' and w.owner_id = t.id and w.currency = 'USDT'), 0)::bigint as available,
      coalesce((select w.frozen from wallets w where w.owner_type = 'trader' and w.owner_id = t.id and w.currency = 'USDT'), 0)::bigint as frozen
    from traders t
    where true ${olderThan(db, f.after)}
    order by ${newestFirst(db)} limit ${f.limit}`;
}

export async function requisitesOf(db: Db, ring: KeyRing, traderIds: string[]) {
  if (traderIds.length === 0) return [] as (RequisiteRow & { payment_method: string })[];
  const rows = await db<(StoredRequisiteRow & { payment_method: string })[]>`
    select r.*, coalesce(p.slug, '') as payment_method, t.sandbox from requisites r
    join traders t on t.id = r.trader_id
    left join payment_methods p on p.id = r.payment_method_id
    where r.trader_id = any(${traderIds}) order by r.created_at`;
  return rows.map((row) => opened(ring, row));
}

/** The names of these traders, by id. */
export async function traderNames(db: Db, ids: readonly string[]): Promise<Map<string, string>> {
  const unique = [...new Set(ids)].filter(Boolean);
  if (unique.length === 0) return new Map();
  const rows = await db<{ id: string; name: string }[]>`select id, name from traders where id = any(${unique}::uuid[])`;
  return new Map(rows.map((r) => [r.id, r.name]));
}
