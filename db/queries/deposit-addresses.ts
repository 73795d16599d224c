import type { Db } from '../sql';
import { newId } from '../../domain/ids';

export interface DepositAddressRow {
  id: string;
  /** The owner: a merchant (its current address is its highest index) or a trader (one address); the other is null. */
  merchant_id: string | null;
  trader_id: string | null;
  address: string;
  derivation_index: number;
  created_at: Date;
}

/** The merchant's current deposit address: the one with the highest index. */
export async function currentDepositAddress(db: Db, merchantId: string): Promise<DepositAddressRow | undefined> {
  const [row] = await db<DepositAddressRow[]>`
    select * from deposit_addresses where merchant_id = ${merchantId} order by derivation_index desc limit 1`;
  return row;
}

/** Which merchant or trader an address (current or rotated) belongs to: a chain watcher attributes deposits by it. */
export async function depositAddressOwner(db: Db, address: string): Promise<DepositAddressRow | undefined> {
  const [row] = await db<DepositAddressRow[]>`select * from deposit_addresses where address = ${address}`;
  return row;
}

/**
 * Takes the next BIP44 index, derives its address and makes it the merchant's current one (also
 * shown as trc20_address in the profile). Earlier addresses stay on record. Run in a transaction.
 */
export async function addDepositAddress(tx: Db, merchantId: string, derive: (index: number) => string): Promise<DepositAddressRow | undefined> {
  // Concurrent rotations of one merchant take turns, so trc20_address always names the highest index.
  const [merchant] = await tx`select id from merchants where id = ${merchantId} for no key update`;
  if (!merchant) return undefined;
  const [next] = await tx<{ index: number }[]>`select nextval('deposit_address_index')::int as index`;
  const index = next!.index;
  const address = derive(index);
  const [row] = await tx<DepositAddressRow[]>`
    insert into deposit_addresses (id, merchant_id, address, derivation_index)
    values (${newId()}, ${merchantId}, ${address}, ${index}) returning *`;
  await tx`update merchants set trc20_address = ${address}, updated_at = now() where id = ${merchantId}`;
  return row!;
}

/** The trader's deposit address, if it has one. */
async function traderDepositAddress(db: Db, traderId: string): Promise<DepositAddressRow | undefined> {
  const [row] = await db<DepositAddressRow[]>`select * from deposit_addresses where trader_id = ${traderId}`;
  return row;
}

/**
 * The trader's deposit address, made at its first request from the next BIP44 index of the one
 * sequence merchants' addresses take (so no address is ever derived twice). A trader keeps it for
 * good. Concurrent first requests take turns on the trader's row: one address. Run in a transaction.
 */
export async function ensureTraderDepositAddress(tx: Db, traderId: string, derive: (index: number) => string): Promise<DepositAddressRow | undefined> {
  const [trader] = await tx`select id from traders where id = ${traderId} for no key update`;
  if (!trader) return undefined;
  const existing = await traderDepositAddress(tx, traderId);
  if (existing) return existing;
  const [next] = await tx<{ index: number }[]>`select nextval('deposit_address_index')::int as index`;
  const index = next!.index;
  const [row] = await tx<DepositAddressRow[]>`
    insert into deposit_addresses (id, trader_id, address, derivation_index)
    values (${newId()}, ${traderId}, ${derive(index)}, ${index}) returning *`;
  return row!;
}
