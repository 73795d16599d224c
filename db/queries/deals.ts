import type { Db } from '../sql';
import type { AmountMatch } from '../../domain/payin';

export interface DealRow {
  id: string;
  tenant_id: string;
  merchant_id: string;
  deal_type: 'PAYIN' | 'PAYOUT';
  status: string;
  idempotency_key: string;
  amount: bigint;
  currency: string;
  client_id: string;
  payment_method_id: string;
  requisite_id: string | null;
  trader_id: string | null;
  checkout_hash: string | null;
  description: string;
  callback_url: string;
  payer_bank: string;
  is_client_commission: boolean;
  target_requisite: string;
  target_name: string;
  target_bank: string;
  requisite_details: Record<string, string>;
  wallet_id: string | null;
  received_amount: bigint;
  amount_match_status: AmountMatch;
  amount_version: bigint;
  amount_usdt: bigint;
  exchange_rate_micro: bigint;
  fee_usdt: bigint;
  fee_bps: number;
  escrow_usdt: bigint;
  payment_timeout_at: Date | null;
  parent_deal_id: string | null;
  origin_appeal_id: string | null;
  cancel_reason: string;
  failure_reason: string;
  assign_deadline_at: Date | null;
  transfer_deadline_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

/** A deal within the caller's scope: a foreign deal is simply not found. */
export async function findMerchantDeal(db: Db, merchantId: string, dealId: string): Promise<DealRow | undefined> {
  const [row] = await db<DealRow[]>`select * from deals where id = ${dealId} and merchant_id = ${merchantId}`;
  return row;
}

export async function findDeal(db: Db, dealId: string): Promise<DealRow | undefined> {
  const [row] = await db<DealRow[]>`select * from deals where id = ${dealId}`;
  return row;
}

export async function lockDeal(tx: Db, dealId: string): Promise<DealRow | undefined> {
  const [row] = await tx<DealRow[]>`select * from deals where id = ${dealId} for update`;
  return row;
}

/**
 * The merchant's own deal under an idempotency key (spec 4.8). Settlement deals (origin_appeal_id
 * set) are outside the merchant's key space (index deals_merchant_key): never answered here.
 */
export async function findDealByKey(db: Db, merchantId: string, dealType: 'PAYIN' | 'PAYOUT', key: string) {
  const [row] = await db<DealRow[]>`
    select * from deals
    where merchant_id = ${merchantId} and deal_type = ${dealType} and idempotency_key = ${key} and origin_appeal_id is null`;
  return row;
}

/** Whether another merchant of the tenant holds this PayOut idempotency key. */
export async function payoutKeyHeldByOther(db: Db, tenantId: string, merchantId: string, key: string): Promise<boolean> {
  const [row] = await db`
    select 1 from deals where tenant_id = ${tenantId} and deal_type = 'PAYOUT'
      and idempotency_key = ${key} and merchant_id <> ${merchantId}`;
  return row !== undefined;
}

/** The amount an operator amount change set under this idempotency key, if one was made. */
export async function findAmountChange(db: Db, dealId: string, idempotencyKey: string): Promise<{ new_amount: bigint } | undefined> {
  const [row] = await db<{ new_amount: bigint }[]>`
    select new_amount from deal_amount_changes where deal_id = ${dealId} and idempotency_key = ${idempotencyKey}`;
  return row;
}

export interface CheckoutRow extends DealRow {
  payment_method_name: string;
  requisite_type: string | null;
  card_number: string | null;
  phone_number: string | null;
  iban: string | null;
  holder_name: string | null;
  bank_name: string | null;
  checkout_brand_name: string;
  merchant_name: string;
  success_redirect_url: string;
  fail_redirect_url: string;
}

/** Everything the public payment page shows, by the 64-hex hash of payment_url. */
export async function findCheckout(db: Db, hash: string): Promise<CheckoutRow | undefined> {
  if (!/^[0-9a-f]{64}$/.test(hash)) return undefined;
  const [row] = await db<CheckoutRow[]>`
    select d.*, pm.name as payment_method_name, r.requisite_type, r.card_number, r.phone_number, r.iban,
      r.holder_name, r.bank_name, m.checkout_brand_name, m.name as merchant_name,
      m.success_redirect_url, m.fail_redirect_url
    from deals d
    join payment_methods pm on pm.id = d.payment_method_id
    join merchants m on m.id = d.merchant_id
    left join requisites r on r.id = d.requisite_id
    where d.checkout_hash = ${hash} and d.deal_type = 'PAYIN'`;
  return row;
}
