/** The tenant's catalogs: payment methods, currencies and banks, for V2 and the V1 adapter alike. */
import type { AppDeps } from '../deps';
import * as catalog from '../../db/queries/catalog';
import type { BankFilter, BankRow, PaymentMethodRow, TenantCurrencyRow } from '../../db/queries/catalog';

export type { BankFilter, BankRow, PaymentMethodRow, TenantCurrencyRow };

/** ACTIVE banks of the tenant, filtered by country, currency, name and requisite type. */
export const listBanks = (deps: AppDeps, tenantId: string, f: BankFilter = {}): Promise<BankRow[]> => catalog.listBanks(deps.sql, tenantId, f);

/** The tenant's payment methods by slug: those of `status` (the catalog shows ACTIVE ones), or all — a stored deal may name a retired one. */
export const listPaymentMethods = (deps: AppDeps, tenantId: string, status?: 'ACTIVE'): Promise<PaymentMethodRow[]> =>
  catalog.listPaymentMethods(deps.sql, tenantId, status);

/** The tenant's currencies by code: those of `status`, or all. */
export const listCurrencies = (deps: AppDeps, tenantId: string, status?: 'ACTIVE'): Promise<TenantCurrencyRow[]> =>
  catalog.listCurrencies(deps.sql, tenantId, status);
