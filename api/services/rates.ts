/** Exchange rates (contract 3): the BUY and SELL rate of a fiat currency, micro-units of fiat per 1 USDT. */
import type { AppDeps } from '../deps';
import { InvalidArgument, NotFound } from '../../domain/errors';
import { findCurrency, upsertRate } from '../../db/queries/catalog';
import { DEFAULT_TENANT_ID } from '../../db/queries/merchants';

export async function setRate(deps: AppDeps, currency: string, buyMicro: bigint, sellMicro: bigint) {
  const known = await findCurrency(deps.sql, DEFAULT_TENANT_ID, currency);
  if (!known) throw new NotFound(`unknown currency ${currency}`);
  if (currency === 'USDT') throw new InvalidArgument('USDT has no rate against itself');
  const row = await upsertRate(deps.sql, DEFAULT_TENANT_ID, currency, buyMicro, sellMicro);
  return {
    currency: row.currency_code,
    buy_rate_micro: row.buy_rate_micro.toString(),
    sell_rate_micro: row.sell_rate_micro.toString(),
    updated_at: row.updated_at.toISOString(),
  };
}
