/**
 * The gauges read from Postgres (config/metrics.ts `dbGauges`), exported by the worker processes
 * that poll the deals queue. Computed here only: one statement (db/queries/metrics.ts) under a
 * short statement timeout, cached for DB_GAUGE_CACHE_MS and shared by concurrent scrapes, so any
 * number of Prometheus servers scraping costs each process one statement per cache period.
 */
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { tronHotWalletKey, type Config } from '../config';
import { dbGauges, type DbGaugeValues } from '../config/metrics';
import { readGaugeRow } from '../db/queries/metrics';
import type { Sql } from '../db/sql';
import { tronAddressFromPrivateKey } from '../domain/tron/address';
import { parsePrivateKey, USDT_UNITS_PER_CENT } from '../domain/tron/transaction';

/** Scrapes within this long share one read (Prometheus scrapes every 15 s or so). */
const DB_GAUGE_CACHE_MS = 10_000;
/** A scrape must answer quickly: a slower read is cut and the last values stay. */
const STATEMENT_TIMEOUT_MS = 2_000;

export function registerDbGauges(deps: { sql: Sql; config: Config; log: Logger; registry: Registry }) {
  const hotWallet = deps.config.CHAIN_ADAPTER === 'trongrid' ? tronAddressFromPrivateKey(parsePrivateKey(tronHotWalletKey(deps.config))) : undefined;
  let cached: { at: number; values: Promise<DbGaugeValues | undefined> } | undefined;
  const read = (): Promise<DbGaugeValues | undefined> => {
    const now = Date.now();
    if (cached && now - cached.at < DB_GAUGE_CACHE_MS) return cached.values;
    const values = readGaugeRow(deps.sql, hotWallet, STATEMENT_TIMEOUT_MS).then(
      (row): DbGaugeValues => ({
        withdrawals: row.withdrawals.map((w) => ({ status: w.status, world: w.world, count: w.count, oldestAgeSeconds: Math.max(0, w.oldest_age_seconds) })),
        alerts: row.alerts,
        hotWallet: row.hot_wallet
          ? {
              usdtCents: Number(BigInt(row.hot_wallet.usdt_units) / USDT_UNITS_PER_CENT),
              trx: Number(BigInt(row.hot_wallet.trx_sun)) / 1e6,
              ageSeconds: Math.max(0, row.hot_wallet.age_seconds),
            }
          : undefined,
      }),
      (error: unknown) => {
        deps.log.warn({ err: error }, 'metrics: reading the gauges from Postgres failed');
        cached = undefined; // the next scrape tries again
        return undefined;
      },
    );
    cached = { at: now, values };
    return values;
  };
  return dbGauges(deps.registry, read);
}
