import type { Db } from '../sql';
import { newId } from '../../domain/ids';

export type OwnerType = 'merchant' | 'trader';

export interface WalletRow {
  id: string;
  currency: string;
  available: bigint;
  frozen: bigint;
  pending_credits: bigint;
}

/** Provisions (idempotently) the wallet of an owner in a currency and returns it. */
export async function ensureWallet(db: Db, ownerType: OwnerType, ownerId: string, currency: string): Promise<WalletRow> {
  const find = () => db<WalletRow[]>`
    select id, currency, available, frozen, pending_credits from wallets
    where owner_type = ${ownerType} and owner_id = ${ownerId} and currency = ${currency}`;
  // Money steps call this on every move: the wallet nearly always exists, so look before inserting.
  const [existing] = await find();
  if (existing) return existing;
  await db`
    insert into wallets (id, owner_type, owner_id, currency) values (${newId()}, ${ownerType}, ${ownerId}, ${currency})
    on conflict do nothing`;
  const [row] = await find();
  return row!;
}

/**
 * System accounts stand for the world outside the ledger: 'chain' (TRC-20 deposits and
 * withdrawals) and 'platform_fees'. Only system accounts may go negative.
 */
export type SystemCode = 'chain' | 'platform_fees' | 'sandbox_chain' | 'sandbox_platform_fees';

export async function ensureSystemWallet(db: Db, code: SystemCode, currency: string): Promise<string> {
  const find = () => db<{ id: string }[]>`select id from wallets where system_code = ${code} and currency = ${currency}`;
  const [existing] = await find();
  if (existing) return existing.id;
  await db`
    insert into wallets (id, owner_type, system_code, currency) values (${newId()}, 'system', ${code}, ${currency})
    on conflict do nothing`;
  const [row] = await find();
  return row!.id;
}

export async function walletsOf(db: Db, ownerType: OwnerType, ownerId: string): Promise<WalletRow[]> {
  return db<WalletRow[]>`
    select id, currency, available, frozen, pending_credits from wallets
    where owner_type = ${ownerType} and owner_id = ${ownerId} order by currency`;
}

/**
 * The system account of a wallet's world (issue 29): `chain` or `platform_fees` beside a live
 * wallet, `sandbox_chain` or `sandbox_platform_fees` beside a sandbox one — in one round trip, as
 * ensureSystemWallet's own look-up, so a posting costs nothing more. Play money never reaches a
 * live system account.
 */
export async function systemWalletBeside(db: Db, code: 'chain' | 'platform_fees', walletId: string): Promise<string> {
  const [row] = await db<{ id: string | null; sandbox: boolean }[]>`
    select w.sandbox, (select s.id from wallets s where s.system_code = case when w.sandbox then 'sandbox_' || ${code} else ${code} end
      and s.currency = w.currency) as id
    from wallets w where w.id = ${walletId}`;
  if (row?.id) return row.id;
  const [wallet] = await db<{ currency: string }[]>`select currency from wallets where id = ${walletId}`;
  return ensureSystemWallet(db, row?.sandbox ? (`sandbox_${code}` as SystemCode) : code, wallet?.currency ?? 'USDT');
}

/** Whether a wallet holds play money (issue 29). */
export async function isSandboxWallet(db: Db, walletId: string): Promise<boolean> {
  const [row] = await db<{ sandbox: boolean }[]>`select sandbox from wallets where id = ${walletId}`;
  return row?.sandbox === true;
}

/**
 * Locks wallets for the rest of the transaction in the one global order (by id), with the lock a
 * posting takes (postLedger): a transaction that moves money on several wallets in more than one
 * posting takes them all first, so it never holds one while waiting for another out of order.
 */
export async function lockWallets(tx: Db, walletIds: string[]): Promise<void> {
  await tx`select id from wallets where id = any(${[...new Set(walletIds)].sort()}::uuid[]) order by id for no key update`;
}

/** The wallet's available balance, its row locked for the rest of the transaction (a hold follows); undefined: no such wallet. */
export async function lockAvailable(tx: Db, walletId: string): Promise<bigint | undefined> {
  const [row] = await tx<{ available: bigint }[]>`select available from wallets where id = ${walletId} for no key update`;
  return row?.available;
}
