/**
 * What the gateway's gauges read from Postgres (config/metrics.ts `dbGauges`, cached by
 * workers/db-gauges.ts): the waiting withdrawals per status and world and the oldest one's age,
 * the open operator alerts per kind and world, and the hot wallet's cached balances. One
 * statement, in a transaction bounded by a short statement timeout, so a slow database costs a
 * scrape a gap, never a pile-up. Each part reads an index: withdrawals_live /
 * withdrawals_by_status, operator_alerts_open, the chain_balances primary key.
 *
 * The world: a sandbox merchant's withdrawal is play money and an alert on a sandbox
 * deal is play work — counted under world="sandbox", never in the live figures the alert rules
 * read (a withdrawal's `sandbox` and a deal's are the merchant's, fixed at insert; an alert without
 * a deal — a deposit needing a hand, the hot wallet — is live).
 */
import { limitTransaction, type Sql } from '../sql';

type World = 'live' | 'sandbox';

export interface GaugeRow {
  withdrawals: { status: string; world: World; count: number; oldest_age_seconds: number }[];
  alerts: { kind: string; world: World; count: number }[];
  hot_wallet: { usdt_units: string; trx_sun: string; age_seconds: number } | null;
}

export async function readGaugeRow(sql: Sql, hotWallet: string | undefined, timeoutMs: number): Promise<GaugeRow> {
  return sql.begin(async (tx) => {
    await limitTransaction(tx, timeoutMs);
    const [row] = await tx<GaugeRow[]>`
      select
        (select coalesce(json_agg(w), '[]'::json) from (
          select status, case when sandbox then 'sandbox' else 'live' end as world, count(*)::int as count,
            extract(epoch from now() - min(created_at))::float8 as oldest_age_seconds
          from withdrawals where status in ('PENDING', 'PENDING_MANUAL', 'APPROVED') group by status, sandbox) w) as withdrawals,
        (select coalesce(json_agg(a), '[]'::json) from (
          select o.kind, case when coalesce(d.sandbox, false) then 'sandbox' else 'live' end as world, count(*)::int as count
          from operator_alerts o left join deals d on d.id = o.deal_id
          where o.resolved_at is null group by 1, 2) a) as alerts,
        (select json_build_object('usdt_units', usdt_units::text, 'trx_sun', trx_sun::text,
                  'age_seconds', extract(epoch from now() - refreshed_at)::float8)
         from chain_balances where address = ${hotWallet ?? ''}) as hot_wallet`;
    return row!;
  }) as Promise<GaugeRow>;
}
