import type { AppDeps } from '../deps';

export interface BankRow {
  id: string;
  bank_name: string;
  display_name: string;
  country: string;
  currencies: string[];
  methods: string[];
}

export interface BankFilter {
  /** ISO 3166-1 alpha-2, any case. */
  country?: string;
  /** ISO 4217 alphabetic, any case. */
  currency?: string;
  /** bank_name or display_name, case-insensitive. */
  bankName?: string;
  /** a RequisiteType the bank serves (BANK_CARD, SBP …), case-insensitive. */
  method?: string;
}

/** ACTIVE banks of the tenant (spec 4.4), for the V2 catalog and the V1 banks list alike. */
export async function listBanks(deps: AppDeps, tenantId: string, f: BankFilter = {}): Promise<BankRow[]> {
  const sql = deps.sql;
  const rows = await sql<BankRow[]>`
    select id, bank_name, display_name, country, currencies, methods from banks
    where tenant_id = ${tenantId} and status = 'ACTIVE'
      ${f.country ? sql`and country = ${f.country.toUpperCase()}` : sql``}
      ${f.currency ? sql`and ${f.currency.toUpperCase()} = any(currencies)` : sql``}
      ${f.bankName ? sql`and (lower(bank_name) = lower(${f.bankName}) or lower(display_name) = lower(${f.bankName}))` : sql``}
      ${f.method ? sql`and ${f.method.toUpperCase()} = any(methods)` : sql``}
    order by country, bank_name`;
  return [...rows];
}
