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
 * withdrawals) and 'platform_fees', each with its play-money twin: 'sandbox_chain'
 * (the sandbox trader's liquidity) and 'sandbox_platform_fees'. Only system accounts may go
 * negative.
 */
export type SystemCode = 'chain' | 'platform_fees' | 'sandbox_chain' | 'sandbox_platform_fees';

export async function ensureSystemWallet(db: Db, code: SystemCode, currency: string): Promise<string> {
  const find = () => db<{ id: string }[]>`select id from wallets where system_code = ${code} and currency = ${currency} and owner_id is null`;
  const [existing] = await find();
  if (existing) return existing.id;
  await db`
    insert into wallets (id, owner_type, system_code, currency) values (${newId()}, 'system', ${code}, ${currency})
    on conflict do nothing`;
  const [row] = await find();
  return row!.id;
}

/** The code of a sandbox merchant's own play-money account (the `wallets_system_owner` check). */
const MERCHANT_PLAY_ACCOUNT = 'sandbox_merchant_chain';

/**
 * A sandbox merchant's own play-money account: its play deposits come from it and its
 * withdrawals go back to it, so one merchant's play money is bounded by its own deposit caps and
 * no shared account runs towards the bigint limit. A system wallet (it may go negative), sandbox
 * by its code, owned by the merchant.
 */
async function ensurePlayAccount(db: Db, merchantId: string, currency: string): Promise<string> {
  const find = () => db<{ id: string }[]>`
    select id from wallets where owner_type = 'system' and owner_id = ${merchantId} and currency = ${currency}`;
  const [existing] = await find();
  if (existing) return existing.id;
  await db`
    insert into wallets (id, owner_type, owner_id, system_code, currency)
    values (${newId()}, 'system', ${merchantId}, ${MERCHANT_PLAY_ACCOUNT}, ${currency})
    on conflict do nothing`;
  const [row] = await find();
  return row!.id;
}

/**
 * The world a posting happens in, read once per transaction: from the merchant's row under its
 * lock (db/queries/merchant-world.ts) for a first money write, else from the object the posting
 * is about (a deal's, withdrawal's or deposit's `sandbox`, fixed at its insert). A sandbox world
 * with a merchant is that merchant's; without one (the sandbox trader's liquidity) the tenant-wide
 * play world's.
 */
export interface PostingWorld {
  sandbox: boolean;
  merchantId?: string;
}

/**
 * The chain account of a world: 'chain' for live money, the merchant's own play-money account
 * for a sandbox merchant, 'sandbox_chain' for the sandbox trader. Resolved once per transaction
 * and handed to the postings, never re-read per statement from a wallet's flag.
 */
export function chainAccount(db: Db, world: PostingWorld, currency = 'USDT'): Promise<string> {
  if (!world.sandbox) return ensureSystemWallet(db, 'chain', currency);
  return world.merchantId ? ensurePlayAccount(db, world.merchantId, currency) : ensureSystemWallet(db, 'sandbox_chain', currency);
}

/** The platform's fee account of a world: play fees never reach the real one. */
export function platformAccount(db: Db, world: Pick<PostingWorld, 'sandbox'>, currency = 'USDT'): Promise<string> {
  return ensureSystemWallet(db, world.sandbox ? 'sandbox_platform_fees' : 'platform_fees', currency);
}

export async function walletsOf(db: Db, ownerType: OwnerType, ownerId: string): Promise<WalletRow[]> {
  return db<WalletRow[]>`
    select id, currency, available, frozen, pending_credits from wallets
    where owner_type = ${ownerType} and owner_id = ${ownerId} order by currency`;
}

/**
 * Locks wallets for the rest of the transaction in the one global order (by id), with the lock a
 * posting takes (postLedger): a transaction that moves money on several wallets in more than one
 * posting takes them all first, so it never holds one while waiting for another out of order.
 */
export async function lockWallets(tx: Db, walletIds: string[]): Promise<void> {
  await lockWalletWorlds(tx, walletIds);
}

/** lockWallets, answering each locked wallet's world (a credit checks it meets the world it was resolved for). */
export async function lockWalletWorlds(tx: Db, walletIds: string[]): Promise<Map<string, boolean>> {
  const rows = await tx<{ id: string; sandbox: boolean }[]>`
    select id, sandbox from wallets where id = any(${[...new Set(walletIds)].sort()}::uuid[]) order by id for no key update`;
  return new Map(rows.map((r) => [r.id, r.sandbox]));
}

/** The wallet's available balance, its row locked for the rest of the transaction (a hold follows); undefined: no such wallet. */
export async function lockAvailable(tx: Db, walletId: string): Promise<bigint | undefined> {
  const [row] = await tx<{ available: bigint }[]>`select available from wallets where id = ${walletId} for no key update`;
  return row?.available;
}
