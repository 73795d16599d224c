/**
 * V1 ↔ V2 translation: decimal amounts ↔ minor units (by the currency's ISO 4217 exponent,
 * exact or refused), numeric ISO 4217 ↔ alphabetic codes (no fallback), deal rows → V1 records,
 * V1 filters → the status selectors of the code table.
 */
import { InvalidArgument } from '../../domain/errors';
import { decimalToMinor, minorToDecimal } from '../../domain/money';
import { payinRowsForCode, payoutStatusesForCode } from '../../domain/v1-codes';
import { v1Incoming, v1Outgoing, type V1DealSource } from '../../domain/v1-records';
import type { DealRow } from '../../db/queries/deals';
import { tenantCurrencies, v1DealExtras, type StatusSelector, type V1DealRow } from '../../db/queries/v1';
import type { AppDeps } from '../deps';
import { present } from '../services/payins';

export interface V1Currency {
  code: string;
  numeric: number;
  exponent: number;
}

/** The ACTIVE currency of the tenant with this ISO 4217 numeric code: `unknown currency code: N` otherwise. */
export async function currencyFromNumeric(deps: AppDeps, tenantId: string, numeric: number, field = 'currency'): Promise<V1Currency> {
  const row = (await tenantCurrencies(deps.sql, tenantId)).find((c) => c.numeric_code === numeric && c.status === 'ACTIVE');
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

function source(deps: AppDeps, row: DealRow, extras: Pick<V1DealRow, 'method_slug' | 'currency_numeric' | 'currency_exponent'>): V1DealSource {
  return {
    id: row.id,
    idempotency_key: row.idempotency_key,
    status: row.status,
    amount: row.amount,
    received_amount: row.received_amount,
    amount_match_status: row.amount_match_status,
    has_channel: row.requisite_id !== null,
    client_id: row.client_id,
    payment_url: present(deps, row).payment_url,
    target_requisite: row.target_requisite,
    target_name: row.target_name,
    method_slug: extras.method_slug,
    currency_numeric: extras.currency_numeric,
    currency_exponent: extras.currency_exponent,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** The V1 record of a listed row (the listing query joined the extras already). */
export const listedRecord = (deps: AppDeps, row: V1DealRow) =>
  row.deal_type === 'PAYIN' ? v1Incoming(source(deps, row, row), 'get') : v1Outgoing(source(deps, row, row));

/** The V1 record of a deal a service answered. */
export async function dealRecord(deps: AppDeps, row: DealRow) {
  const extras = await v1DealExtras(deps.sql, row);
  return row.deal_type === 'PAYIN' ? v1Incoming(source(deps, row, extras), 'get') : v1Outgoing(source(deps, row, extras));
}

function unknownStatus(code: number): never {
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
