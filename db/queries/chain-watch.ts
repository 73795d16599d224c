/**
 * What the deposit watcher (the chain-watch workflow's pass, CHAIN_ADAPTER=trongrid) reads and
 * keeps: which addresses to poll, its cursor per address, the deposits still PENDING, DROPPED.
 */
import type { Db } from '../sql';
import type { WalletDepositRow } from './wallet-deposits';

export interface WatchedAddress {
  address: string;
  /** The address's owner: a merchant's or a trader's (the other is null). */
  merchant_id: string | null;
  trader_id: string | null;
  /** ms since the epoch: no transfer to it can be older. */
  created_ms: number;
  /** ms: block time of the newest confirmed transfer taken in (0: none yet). */
  cursor_ms: number;
}

/**
 * The addresses of this pass: every merchant's current address, every trader's (one each, never
 * rotated), every address with a PENDING
 * deposit or activity (a deposit, or created) in the last 7 days — and the quiet rotated ones
 * whose last look is older than `coldSeconds`. Least recently polled first, at most `limit`.
 */
export function addressesToWatch(db: Db, coldSeconds: number, limit: number): Promise<WatchedAddress[]> {
  return db<WatchedAddress[]>`
    select d.address, d.merchant_id, d.trader_id,
      (extract(epoch from d.created_at) * 1000)::float8 as created_ms,
      coalesce(c.confirmed_cursor_ms, 0)::float8 as cursor_ms
    from deposit_addresses d
    left join merchants m on m.id = d.merchant_id
    left join chain_watch_addresses c on c.address = d.address
    where m.trc20_address = d.address
      or d.trader_id is not null
      or d.created_at > now() - interval '7 days'
      or c.polled_at is null
      or c.polled_at < now() - ${coldSeconds} * interval '1 second'
      or exists (select 1 from deposits x where x.address = d.address and (x.status = 'PENDING' or x.created_at > now() - interval '7 days'))
    order by c.polled_at nulls first, d.created_at
    limit ${limit}`;
}

/** After a pass over the address: when it looked, and the cursor (never moves back). */
export async function saveWatchCursor(db: Db, address: string, cursorMs: number): Promise<void> {
  await db`
    insert into chain_watch_addresses (address, confirmed_cursor_ms, polled_at)
    values (${address}, ${Math.floor(cursorMs)}, now())
    on conflict (address) do update
    set confirmed_cursor_ms = greatest(chain_watch_addresses.confirmed_cursor_ms, excluded.confirmed_cursor_ms), polled_at = excluded.polled_at`;
}

/** The PENDING deposits to an address. */
export function pendingDepositsTo(db: Db, address: string): Promise<WalletDepositRow[]> {
  return db<WalletDepositRow[]>`select *, '' as cursor_ts from deposits where address = ${address} and status = 'PENDING' order by created_at`;
}

/** Status of each recorded deposit among these tx hashes. */
export async function depositStatuses(db: Db, txHashes: readonly string[]): Promise<Map<string, string>> {
  if (txHashes.length === 0) return new Map();
  const rows = await db<{ tx_hash: string; status: string }[]>`select tx_hash, status from deposits where tx_hash = any(${txHashes as string[]})`;
  return new Map(rows.map((r) => [r.tx_hash, r.status]));
}

/**
 * A PENDING deposit whose transfer left the chain: DROPPED, never credited. It keeps its
 * chain_credits claim, so if that same transaction does reach the chain later (possible until its
 * expiration) it can only be this deposit, credited once (ingestObservedDeposit revives it).
 */
export async function markDepositDropped(db: Db, depositId: string): Promise<boolean> {
  const rows = await db`update deposits set status = 'DROPPED', dropped_at = now() where id = ${depositId} and status = 'PENDING' returning id`;
  return rows.length > 0;
}

/** Which of these addresses are deposit addresses of the gateway. */
export async function ownedDepositAddresses(db: Db, addresses: readonly string[]): Promise<Set<string>> {
  if (addresses.length === 0) return new Set();
  const rows = await db<{ address: string }[]>`select address from deposit_addresses where address = any(${addresses as string[]})`;
  return new Set(rows.map((r) => r.address));
}
