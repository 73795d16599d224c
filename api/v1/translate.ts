/**
 * V1 ↔ V2 translation: decimal amounts ↔ minor units (by the currency's ISO 4217 exponent,
 * exact or refused), numeric ISO 4217 ↔ alphabetic codes (no fallback), deal rows → V1 records,
 * V1 filters → the status selectors of the code table, deal totals → V1 statistics. Pure
 * functions, no deps: what needs the database (the tenant's catalog, the deal as V2 presents it)
 * the routes read first and hand in.
 */
import { InvalidArgument } from '../../domain/errors';
import type { MerchantDealInfo } from '../../domain/records/deal-info';
import { decimalToMinor, minorToDecimal } from '../../domain/money';
import type { DealRow } from '../../db/queries/deals';
import type { PaymentMethodRow, TenantCurrencyRow } from '../services/catalog';
import type { DealTotalsRow, StatusSelector } from '../services/deal-listing';
import { payinRowsForCode, payoutStatusesForCode } from './codes';
import { v1Incoming, v1Outgoing, type V1DealSource } from './records';

export interface V1Currency {
  code: string;
  numeric: number;
  exponent: number;
}

/** The ACTIVE currency of the tenant (its catalog) with this ISO 4217 numeric code: `unknown currency code: N` otherwise. */
export function currencyFromNumeric(catalog: V1Catalog, numeric: number, field = 'currency'): V1Currency {
  const row = [...catalog.currencies.values()].find((c) => c.numeric_code === numeric && c.status === 'ACTIVE');
  if (!row) {
    throw new InvalidArgument(`unknown currency code: ${numeric}`, [{ field, message: `unknown currency code: ${numeric}`, code: 'unknown_currency' }]);
  }
  return { code: row.code, numeric, exponent: row.exponent };
}

/** A V1 decimal amount in minor units of the currency; more precision than the currency has is refused, never rounded. */
export function toMinor(text: string, currency: Pick<V1Currency, 'code' | 'exponent'>, field = 'amount'): bigint {
  const minor = decimalToMinor(text, currency.exponent);
  if (minor === undefined || minor <= 0n) {
    const message = `${field} must be a positive decimal with at most ${currency.exponent} fraction digits for ${currency.code} (e.g. "${minorToDecimal(150050n, currency.exponent)}")`;
    throw new InvalidArgument(message, [{ field, message, code: 'invalid_amount' }]);
  }
  return minor;
}

/**
 * What V1 records show of a deal beyond its row — the method's slug, the currency's numeric code
 * and exponent — for every method and currency of the tenant, whatever their status now (a deal
 * keeps the method and currency it was made with). Also where a create finds its currency.
 */
export interface V1Catalog {
  methods: Map<string, PaymentMethodRow>;
  currencies: Map<string, TenantCurrencyRow>;
}

/** The tenant's payment methods and currencies (all of them, in the catalog's order) as a V1Catalog. */
export function v1Catalog(methods: PaymentMethodRow[], currencies: TenantCurrencyRow[]): V1Catalog {
  return { methods: new Map(methods.map((m) => [m.id, m])), currencies: new Map(currencies.map((c) => [c.code, c])) };
}

/** The deal as V2 presents it (api/services/payins.ts present): what V1 takes from it beyond the row. */
export type PresentedDeal = Pick<MerchantDealInfo, 'payment_url' | 'target_requisite'>;

function source(catalog: V1Catalog, row: DealRow, presented: PresentedDeal): V1DealSource {
  const method = catalog.methods.get(row.payment_method_id);
  const currency = catalog.currencies.get(row.currency);
  if (!method || !currency) throw new Error(`deal references an unknown method or currency (${row.currency})`);
  return {
    id: row.id,
    idempotency_key: row.idempotency_key,
    status: row.status,
    amount: row.amount,
    received_amount: row.received_amount,
    amount_match_status: row.amount_match_status,
    has_channel: row.requisite_id !== null,
    client_id: row.client_id,
    payment_url: presented.payment_url,
    target_requisite: presented.target_requisite,
    target_name: row.target_name,
    method_slug: method.slug,
    currency_numeric: currency.numeric_code,
    currency_exponent: currency.exponent,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** The V1 record of a deal: incoming (PayIn) or outgoing (PayOut). */
export const dealRecord = (catalog: V1Catalog, row: DealRow, presented: PresentedDeal) =>
  row.deal_type === 'PAYIN' ? v1Incoming(source(catalog, row, presented), 'get') : v1Outgoing(source(catalog, row, presented));

/** `unknown status code: N` (400) for a V1 status filter the code table does not have. */
export function unknownStatus(code: number): never {
  throw new InvalidArgument(`unknown status code: ${code}`, [{ field: 'status', message: `unknown status code: ${code}`, code: 'unknown_status' }]);
}

/** A V1 status filter as selectors of the code table; an unknown code is 400. */
export function selectorsFor(dealType: 'PAYIN' | 'PAYOUT', code: number | undefined): StatusSelector[] | undefined {
  if (code === undefined) return undefined;
  if (dealType === 'PAYIN') {
    const rows = payinRowsForCode(code) ?? unknownStatus(code);
    return rows.map((r) => ({ status: r.status, match: r.match, channel: r.channel }));
  }
  const statuses = payoutStatusesForCode(code) ?? unknownStatus(code);
  return statuses.map((status) => ({ status }));
}

/** USDT cents as a V1 decimal (balance amounts). */
export const usdt = (cents: bigint | string) => minorToDecimal(BigInt(cents), 2);
/** A fiat sum in minor units as a V1 decimal. */
export const fiat = (minor: bigint | string, exponent: number) => minorToDecimal(BigInt(minor), exponent);

/** part / all × 100 with two decimals, half away from zero (Postgres's round(numeric, 2)); all > 0. */
export function percent(part: number, all: number): string {
  const hundredths = (20_000n * BigInt(part) + BigInt(all)) / (2n * BigInt(all));
  return `${hundredths / 100n}.${String(hundredths % 100n).padStart(2, '0')}`;
}

/** One V1 statistics line: the deals of one payment method and currency, counted and summed by status. */
export interface MethodStatistics {
  method: string;
  currency: TenantCurrencyRow;
  count: number;
  amount: bigint;
  /** By status: how many deals and their sums. */
  byStatus: Map<string, { count: number; amount: bigint; escrowUsdt: bigint; feeUsdt: bigint }>;
}

/**
 * Deal totals per (method, currency, status) as one line per method and currency (ISO 4217
 * numeric code and exponent), in the totals' order — by method slug. A currency the tenant does
 * not know has no numeric code to show: its deals are left out.
 */
export function statisticsLines(totals: DealTotalsRow[], catalog: V1Catalog): MethodStatistics[] {
  const lines = new Map<string, MethodStatistics>();
  for (const t of totals) {
    const currency = catalog.currencies.get(t.currency);
    if (!currency) continue;
    const key = `${t.method}\u0000${currency.numeric_code}\u0000${currency.exponent}`;
    let line = lines.get(key);
    if (!line) {
      line = { method: t.method, currency, count: 0, amount: 0n, byStatus: new Map() };
      lines.set(key, line);
    }
    const sums = line.byStatus.get(t.status) ?? { count: 0, amount: 0n, escrowUsdt: 0n, feeUsdt: 0n };
    line.byStatus.set(t.status, {
      count: sums.count + t.count,
      amount: sums.amount + BigInt(t.amount),
      escrowUsdt: sums.escrowUsdt + BigInt(t.escrow_usdt),
      feeUsdt: sums.feeUsdt + BigInt(t.fee_usdt),
    });
    line.count += t.count;
    line.amount += BigInt(t.amount);
  }
  return [...lines.values()];
}

/** How many deals of a line are in any of these statuses, and their sums. */
export function inStatuses(line: MethodStatistics, statuses: string[]) {
  const sum = { count: 0, amount: 0n, escrowUsdt: 0n, feeUsdt: 0n };
  for (const status of statuses) {
    const s = line.byStatus.get(status);
    if (!s) continue;
    sum.count += s.count;
    sum.amount += s.amount;
    sum.escrowUsdt += s.escrowUsdt;
    sum.feeUsdt += s.feeUsdt;
  }
  return sum;
}
