import type { Db } from '../sql';
import { UUID_RE } from '../../domain/ids';
import { FailedPrecondition, InvalidArgument, NotFound } from '../../domain/errors';
import { fiatToUsdtCents } from '../../domain/money';
import { checkDealBounds } from '../../domain/limits';

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

const isUuid = (value: string) => UUID_RE.test(value);

/** An ACTIVE currency of the tenant by its ISO 4217 alphabetic code or its id (UUID). */
export async function findCurrency(db: Db, tenantId: string, codeOrId: string): Promise<CurrencyRow | undefined> {
  const [row] = await db<CurrencyRow[]>`
    select id, code, numeric_code, name, exponent from currencies
    where tenant_id = ${tenantId} and status = 'ACTIVE'
      and ${isUuid(codeOrId) ? db`id = ${codeOrId}::uuid` : db`code = ${codeOrId}`}`;
  return row;
}

export interface TenantCurrencyRow {
  id: string;
  code: string;
  name: string;
  /** ISO 4217 numeric code; null for a currency without one (USDT). */
  numeric_code: number | null;
  exponent: number;
  status: string;
}

/** The tenant's currencies by code: those of `status`, or all. */
export async function listCurrencies(db: Db, tenantId: string, status?: string): Promise<TenantCurrencyRow[]> {
  return db<TenantCurrencyRow[]>`
    select id, code, name, numeric_code, exponent, status from currencies
    where tenant_id = ${tenantId} ${status ? db`and status = ${status}` : db``}
    order by code`;
}

/** The tenant's payment methods by slug: those of `status`, or all. */
export async function listPaymentMethods(db: Db, tenantId: string, status?: string): Promise<PaymentMethodRow[]> {
  return db<PaymentMethodRow[]>`
    select id, slug, name, currency_code, requisite_types, status from payment_methods
    where tenant_id = ${tenantId} ${status ? db`and status = ${status}` : db``}
    order by slug`;
}

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

/** ACTIVE banks of the tenant by country and name. */
export async function listBanks(db: Db, tenantId: string, f: BankFilter = {}): Promise<BankRow[]> {
  return db<BankRow[]>`
    select id, bank_name, display_name, country, currencies, methods from banks
    where tenant_id = ${tenantId} and status = 'ACTIVE'
      ${f.country ? db`and country = ${f.country.toUpperCase()}` : db``}
      ${f.currency ? db`and ${f.currency.toUpperCase()} = any(currencies)` : db``}
      ${f.bankName ? db`and (lower(bank_name) = lower(${f.bankName}) or lower(display_name) = lower(${f.bankName}))` : db``}
      ${f.method ? db`and ${f.method.toUpperCase()} = any(methods)` : db``}
    order by country, bank_name`;
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
  const [row] = await db<PaymentMethodRow[]>`
    select id, slug, name, currency_code, requisite_types, status from payment_methods
    where tenant_id = ${tenantId} and status = 'ACTIVE'
      and ${isUuid(idOrSlug) ? db`id = ${idOrSlug}::uuid` : db`slug = ${idOrSlug}`}`;
  return row;
}

export interface NewDealTerms {
  /** The merchant's fees; null when there is no such merchant. */
  payin_fee_bps: number | null;
  payout_fee_bps: number | null;
  /** Its UTC-day volume cap (db/queries/limits.ts checkDailyCap); null when none. */
  daily_deal_amount_limit: bigint | null;
  /** Its per-deal bounds (domain/limits.ts checkDealBounds); null when none. */
  deal_min_amount: bigint | null;
  deal_max_amount: bigint | null;
  currency_id: string | null;
  currency_exponent: number | null;
  buy_rate_micro: bigint | null;
  sell_rate_micro: bigint | null;
  /** Whether the merchant is a sandbox merchant; null when there is no such merchant. */
  sandbox: boolean | null;
}

/**
 * What a new deal is priced with, in one round trip: the merchant's fees and daily cap, the
 * ACTIVE currency and its rate (quoteNewDeal below). Each part is null when missing.
 */
export async function findNewDealTerms(db: Db, tenantId: string, merchantId: string, currency: string): Promise<NewDealTerms> {
  const [row] = await db<NewDealTerms[]>`
    select m.payin_fee_bps, m.payout_fee_bps, m.daily_deal_amount_limit, m.deal_min_amount, m.deal_max_amount, m.sandbox,
      c.id as currency_id, c.exponent as currency_exponent, r.buy_rate_micro, r.sell_rate_micro
    from (select 1) one
    left join merchants m on m.id = ${merchantId}
    left join currencies c on c.tenant_id = ${tenantId} and c.status = 'ACTIVE' and c.code = ${currency}
    left join rates r on r.tenant_id = ${tenantId} and r.currency_code = ${currency}`;
  return row!;
}

/** A currency's exponent whatever its status (a live deal keeps its currency after it is deactivated). */
export async function currencyExponent(db: Db, tenantId: string, code: string): Promise<number | undefined> {
  const [row] = await db<{ exponent: number }[]>`select exponent from currencies where tenant_id = ${tenantId} and code = ${code}`;
  return row?.exponent;
}

/** A currency's rate under its row's lock (what the audit trail keeps as `before`). */
export async function lockRate(db: Db, tenantId: string, currency: string) {
  const [row] = await db<{ buy_rate_micro: bigint; sell_rate_micro: bigint }[]>`
    select buy_rate_micro, sell_rate_micro from rates where tenant_id = ${tenantId} and currency_code = ${currency} for update`;
  return row;
}

/**
 * What a new deal is worth, fixed at creation: the merchant's fees, the currency and
 * its rate now — a PayIn at the BUY rate, a PayOut at the SELL rate — and the amount in USDT cents.
 */
export async function quoteNewDeal(tx: Db, input: { tenantId: string; merchantId: string; currency: string; amount: string }, side: 'buy' | 'sell') {
  const amount = BigInt(input.amount);
  const terms = await findNewDealTerms(tx, input.tenantId, input.merchantId, input.currency);
  if (terms.payin_fee_bps === null || terms.payout_fee_bps === null) throw new NotFound('merchant not found');
  // The owner of the per-deal bounds (the API checks them with the same function first, to refuse before a workflow starts).
  checkDealBounds(terms, amount);
  if (terms.currency_id === null || terms.currency_exponent === null) throw new InvalidArgument(`unknown currency ${input.currency}`);
  const rateMicro = side === 'buy' ? terms.buy_rate_micro : terms.sell_rate_micro;
  if (rateMicro === null) throw new FailedPrecondition(`no exchange rate is set for ${input.currency}`);
  const amountUsdt = fiatToUsdtCents(amount, terms.currency_exponent, rateMicro);
  if (amountUsdt <= 0n) throw new InvalidArgument('amount is too small: it converts to 0 USDT cents');
  return {
    amount,
    merchant: { payin_fee_bps: terms.payin_fee_bps, payout_fee_bps: terms.payout_fee_bps },
    currency: { id: terms.currency_id },
    dailyLimit: terms.daily_deal_amount_limit,
    sandbox: terms.sandbox === true,
    rateMicro,
    amountUsdt,
  };
}
