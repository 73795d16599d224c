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
  await db`
    insert into wallets (id, owner_type, owner_id, currency) values (${newId()}, ${ownerType}, ${ownerId}, ${currency})
    on conflict do nothing`;
  const [row] = await db<WalletRow[]>`
    select id, currency, available, frozen, pending_credits from wallets
    where owner_type = ${ownerType} and owner_id = ${ownerId} and currency = ${currency}`;
  return row!;
}

/**
 * System accounts stand for the world outside the ledger: 'chain' (TRC-20 deposits and
 * withdrawals) and 'platform_fees'. Only system accounts may go negative.
 */
export async function ensureSystemWallet(db: Db, code: 'chain' | 'platform_fees', currency: string): Promise<string> {
  await db`
    insert into wallets (id, owner_type, system_code, currency) values (${newId()}, 'system', ${code}, ${currency})
    on conflict do nothing`;
  const [row] = await db<{ id: string }[]>`
    select id from wallets where system_code = ${code} and currency = ${currency}`;
  return row!.id;
}

export async function walletsOf(db: Db, ownerType: OwnerType, ownerId: string): Promise<WalletRow[]> {
  return db<WalletRow[]>`
    select id, currency, available, frozen, pending_credits from wallets
    where owner_type = ${ownerType} and owner_id = ${ownerId} order by currency`;
}
