/** The tenant's catalogs (spec 4.4): payment methods, currencies and banks, for V2 and the V1 adapter alike. */
import type { AppDeps } from '../deps';
import * as catalog from '../../db/queries/catalog';
import type { BankFilter, BankRow, PaymentMethodRow, TenantCurrencyRow } from '../../db/queries/catalog';

export type { BankFilter, BankRow, PaymentMethodRow, TenantCurrencyRow };

/** ACTIVE banks of the tenant, filtered by country, currency, name and requisite type. */
export const listBanks = (deps: AppDeps, tenantId: string, f: BankFilter = {}): Promise<BankRow[]> => catalog.listBanks(deps.sql, tenantId, f);

/** ACTIVE payment methods of the tenant, by slug. */
export const listPaymentMethods = (deps: AppDeps, tenantId: string): Promise<PaymentMethodRow[]> =>
  catalog.listPaymentMethods(deps.sql, tenantId, 'ACTIVE');

/** ACTIVE currencies of the tenant, by code. */
export const listCurrencies = (deps: AppDeps, tenantId: string): Promise<TenantCurrencyRow[]> => catalog.listCurrencies(deps.sql, tenantId, 'ACTIVE');

/**
 * Every payment method and currency of the tenant whatever its status, by id and code: what a
 * stored deal may refer to (a method or currency retired since is still the deal's).
 */
export async function catalogOf(deps: AppDeps, tenantId: string) {
  const [methods, currencies] = await Promise.all([catalog.listPaymentMethods(deps.sql, tenantId), catalog.listCurrencies(deps.sql, tenantId)]);
  return { methods: new Map(methods.map((m) => [m.id, m])), currencies: new Map(currencies.map((c) => [c.code, c])) };
}
