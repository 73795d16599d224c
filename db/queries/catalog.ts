import type { Db } from '../sql';

export interface PaymentMethodRow {
  id: string;
  slug: string;
  name: string;
  currency_code: string;
  requisite_types: string[];
  status: string;
}

export interface CurrencyRow {
  id: string;
  code: string;
  numeric_code: number;
  name: string;
  exponent: number;
}

export async function findCurrency(db: Db, tenantId: string, code: string): Promise<CurrencyRow | undefined> {
  const [row] = await db<CurrencyRow[]>`
    select id, code, numeric_code, name, exponent from currencies
    where tenant_id = ${tenantId} and code = ${code} and status = 'ACTIVE'`;
  return row;
}

export async function upsertRate(db: Db, tenantId: string, currency: string, buyMicro: bigint, sellMicro: bigint) {
  const [row] = await db<{ currency_code: string; buy_rate_micro: bigint; sell_rate_micro: bigint; updated_at: Date }[]>`
    insert into rates (tenant_id, currency_code, buy_rate_micro, sell_rate_micro)
    values (${tenantId}, ${currency}, ${buyMicro}, ${sellMicro})
    on conflict (tenant_id, currency_code) do update
      set buy_rate_micro = excluded.buy_rate_micro, sell_rate_micro = excluded.sell_rate_micro, updated_at = now()
    returning currency_code, buy_rate_micro, sell_rate_micro, updated_at`;
  return row!;
}

/** Resolves a payment method by UUID or slug within the tenant (ACTIVE only). */
export async function findPaymentMethod(db: Db, tenantId: string, idOrSlug: string): Promise<PaymentMethodRow | undefined> {
  const isUuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(idOrSlug);
  const [row] = await db<PaymentMethodRow[]>`
    select id, slug, name, currency_code, requisite_types, status from payment_methods
    where tenant_id = ${tenantId} and status = 'ACTIVE'
      and ${isUuid ? db`id = ${idOrSlug}::uuid` : db`slug = ${idOrSlug}`}`;
  return row;
}

export interface RateRow {
  buy_rate_micro: bigint;
  sell_rate_micro: bigint;
}

/** The tenant's exchange rate of a currency (BUY for PayIns, SELL for PayOuts), if one is set. */
export async function findRate(db: Db, tenantId: string, currency: string): Promise<RateRow | undefined> {
  const [row] = await db<RateRow[]>`
    select buy_rate_micro, sell_rate_micro from rates where tenant_id = ${tenantId} and currency_code = ${currency}`;
  return row;
}

/** A currency's exponent whatever its status (a live deal keeps its currency after it is deactivated). */
export async function currencyExponent(db: Db, tenantId: string, code: string): Promise<number | undefined> {
  const [row] = await db<{ exponent: number }[]>`select exponent from currencies where tenant_id = ${tenantId} and code = ${code}`;
  return row?.exponent;
}
