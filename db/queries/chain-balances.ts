/** On-chain balances read from the TRON node, cached with their age (the profile's trc20_* fields, the hot wallet). */
import type { Db } from '../sql';

export async function saveChainBalance(db: Db, b: { address: string; usdtUnits: bigint; trxSun: bigint }): Promise<void> {
  await db`
    insert into chain_balances (address, usdt_units, trx_sun, refreshed_at)
    values (${b.address}, ${b.usdtUnits}, ${b.trxSun}, now())
    on conflict (address) do update set usdt_units = excluded.usdt_units, trx_sun = excluded.trx_sun, refreshed_at = excluded.refreshed_at`;
}

/**
 * Merchants' current deposit addresses whose balance was never read or is older than
 * `maxAgeSeconds`, plus `also` (addresses that just received something), oldest first.
 */
export async function staleBalanceAddresses(db: Db, maxAgeSeconds: number, limit: number, also: readonly string[] = []): Promise<string[]> {
  const rows = await db<{ address: string }[]>`
    select m.trc20_address as address
    from merchants m
    left join chain_balances b on b.address = m.trc20_address
    where m.trc20_address <> ''
      and (b.address is null or b.refreshed_at < now() - ${maxAgeSeconds} * interval '1 second' or m.trc20_address = any(${also as string[]}))
    order by b.refreshed_at nulls first
    limit ${limit}`;
  return rows.map((r) => r.address);
}

/** True when the address's balance was never read or is older than `maxAgeSeconds`. */
export async function isBalanceStale(db: Db, address: string, maxAgeSeconds: number): Promise<boolean> {
  const [row] = await db<{ fresh: boolean }[]>`
    select refreshed_at >= now() - ${maxAgeSeconds} * interval '1 second' as fresh from chain_balances where address = ${address}`;
  return !row?.fresh;
}
