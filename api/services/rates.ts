/** Exchange rates: the BUY and SELL rate of a fiat currency, micro-units of fiat per 1 USDT. */
import type { AppDeps } from '../deps';
import { InvalidArgument, NotFound } from '../../domain/errors';
import { findCurrency, listCurrencies, lockRate, upsertRate } from '../../db/queries/catalog';
import { insertAudit } from '../../db/queries/audit';
import type { AuditActor } from '../../domain/audit';
import { DEFAULT_TENANT_ID } from '../../db/queries/merchants';

export async function setRate(deps: AppDeps, currency: string, buyMicro: bigint, sellMicro: bigint, actor?: AuditActor) {
  const known = await findCurrency(deps.sql, DEFAULT_TENANT_ID, currency);
  if (!known) throw new NotFound(`unknown currency ${currency}`);
  if (currency === 'USDT') throw new InvalidArgument('USDT has no rate against itself');
  const row = await deps.sql.begin(async (tx) => {
    const before = await lockRate(tx, DEFAULT_TENANT_ID, currency);
    const after = await upsertRate(tx, DEFAULT_TENANT_ID, currency, buyMicro, sellMicro);
    if (actor) {
      await insertAudit(tx, actor, {
        action: 'rate.set',
        objectType: 'rate',
        objectId: currency,
        before: before ?? null,
        after: { buy_rate_micro: after.buy_rate_micro, sell_rate_micro: after.sell_rate_micro },
      });
    }
    return after;
  });
  return {
    currency: row.currency_code,
    buy_rate_micro: row.buy_rate_micro.toString(),
    sell_rate_micro: row.sell_rate_micro.toString(),
    updated_at: row.updated_at.toISOString(),
  };
}

/** The tenant's currencies, every status (a deal keeps its currency after it is deactivated). */
export async function listTenantCurrencies(deps: AppDeps) {
  const rows = await listCurrencies(deps.sql, DEFAULT_TENANT_ID);
  return rows.map((r) => ({ code: r.code, name: r.name, exponent: r.exponent, status: r.status }));
}
