/**
 * The V1 records of a PayIn ("incoming") and a PayOut ("outgoing"), shared by the V1 answers
 * (./payments.ts, ./withdrawals.ts) and the V1 webhook format (./webhooks.ts): V1 names, the
 * status code of the table in ./codes.ts, decimal-string amounts by the currency's exponent, numeric ISO 4217.
 */
import { minorToDecimal } from '../../domain/money';
import { v1PayinCode, v1PayoutCode, v1WithdrawalCode, type V1View } from './codes';

export interface V1DealSource {
  id: string;
  idempotency_key: string;
  status: string;
  amount: bigint;
  received_amount: bigint;
  amount_match_status: string;
  has_channel: boolean;
  client_id: string;
  payment_url: string;
  target_requisite: string;
  target_name: string;
  method_slug: string;
  /** ISO 4217 numeric code; null only for a currency without one (never a fiat deal). */
  currency_numeric: number | null;
  currency_exponent: number;
  created_at: Date;
  updated_at: Date;
}

export interface V1Incoming {
  id: string;
  payInId: string;
  status: number;
  amount: string;
  receivedAmount: string;
  currency: number | null;
  method: string;
  clientId: string;
  paymentUrl: string;
  createdAt: string;
  lastModifiedAt: string;
}

export interface V1Outgoing {
  id: string;
  payOutId: string;
  status: number;
  amount: string;
  currency: number | null;
  paymentMethod: string;
  cardNumber: string;
  fullName: string;
  createdAt: string;
  lastModifiedAt: string;
}

export function v1Incoming(d: V1DealSource, view: V1View): V1Incoming {
  return {
    id: d.id,
    payInId: d.idempotency_key,
    status: v1PayinCode({ status: d.status, amount_match_status: d.amount_match_status, has_channel: d.has_channel }, view),
    amount: minorToDecimal(d.amount, d.currency_exponent),
    receivedAmount: minorToDecimal(d.received_amount, d.currency_exponent),
    currency: d.currency_numeric,
    method: d.method_slug,
    clientId: d.client_id,
    paymentUrl: d.payment_url,
    createdAt: d.created_at.toISOString(),
    lastModifiedAt: d.updated_at.toISOString(),
  };
}

export function v1Outgoing(d: V1DealSource): V1Outgoing {
  return {
    id: d.id,
    payOutId: d.idempotency_key,
    status: v1PayoutCode(d.status),
    amount: minorToDecimal(d.amount, d.currency_exponent),
    currency: d.currency_numeric,
    paymentMethod: d.method_slug,
    cardNumber: d.target_requisite,
    fullName: d.target_name,
    createdAt: d.created_at.toISOString(),
    lastModifiedAt: d.updated_at.toISOString(),
  };
}

/**
 * The legacy V1 webhook body: the deal's V1 record with the webhook view of
 * the status code, plus the event's id and V2 event name and which record it is.
 */
export function v1WebhookBody(event: { event_id: string; event_type: string }, deal: V1DealSource, dealType: 'PAYIN' | 'PAYOUT') {
  const record = dealType === 'PAYIN' ? v1Incoming(deal, 'webhook') : v1Outgoing(deal);
  return { eventId: event.event_id, eventType: event.event_type, paymentType: dealType === 'PAYIN' ? 'incoming' : 'outgoing', ...record };
}

/** V1 webhooks are signed over a timestamp fixed at the start of the current UTC day (StartOfDay). */
export function startOfUtcDay(nowMs: number): number {
  return Math.floor(nowMs / 86_400_000) * 86_400;
}

/** A withdrawal as V2 presents it (domain/records/withdrawal-info.ts presentWithdrawal; also the webhook payload's `withdrawal`). */
export interface PresentedWithdrawal {
  withdrawal_id: string;
  status: string;
  amount: string;
  fee_usdt_cents: string;
  net_usdt_cents: string;
  address: string;
  tx_hash: string;
  idempotency_key: string;
  created_at: string;
  updated_at: string;
  completed_at: string;
}

/**
 * The 19-field V1 withdrawal profile, translated from the V2 record: amounts are USDT
 * decimals (amount includes the fee, sentAmount is what went on chain), blockchain is 1 (TRON,
 * the only chain), exchangeRate "1" (USDT to USDT), isBalanceCommission false (the fee is always
 * inside the amount). comment and callbackUrl have no V2 field: they are echoed on create only.
 */
export function v1Withdrawal(w: PresentedWithdrawal, merchantId: string, echo: { comment?: string; callbackUrl?: string } = {}) {
  return {
    id: w.withdrawal_id,
    withdrawId: w.withdrawal_id,
    userId: merchantId,
    status: v1WithdrawalCode(w.status),
    requestId: w.idempotency_key,
    blockchain: 1,
    currency: 'USDT',
    amount: minorToDecimal(BigInt(w.amount), 2),
    wallet: w.address,
    comment: echo.comment ?? '',
    isBalanceCommission: false,
    exchangeRate: '1',
    sentAmount: minorToDecimal(BigInt(w.net_usdt_cents), 2),
    commissionAmount: minorToDecimal(BigInt(w.fee_usdt_cents), 2),
    transactionHash: w.tx_hash,
    callbackUrl: echo.callbackUrl ?? '',
    createdAt: w.created_at,
    lastModifiedAt: w.updated_at,
    sentAt: w.completed_at || null,
  };
}
