import { z } from 'zod';
import { int64String, positiveAmount, timestamp, uuid } from './common';

export const dealSchema = z
  .object({
    deal_id: z.string().uuid(),
    status: z.string(),
    amount: int64String,
    currency: z.string(),
    created_at: timestamp,
    client_id: z.string(),
    deal_type: z.enum(['PAYIN', 'PAYOUT']),
    updated_at: timestamp,
    payment_url: z.string(),
    target_requisite: z.string(),
    received_amount: int64String,
    amount_match_status: z.string(),
  })
  .openapi('MerchantDealInfo');

export const dealResponse = z.object({ deal: dealSchema }).openapi('DealResponse');

export const dealParams = z.object({ deal_id: uuid('deal_id') });

const idempotencyKey = z
  .string({ error: 'idempotency_key is required' })
  .min(1, 'idempotency_key is required')
  .max(255, 'idempotency_key is at most 255 characters');

/** Spec 4.1.1. idempotency_key comes first so its message wins when several fields are wrong. */
export const createPayinBody = z
  .object({
    idempotency_key: idempotencyKey,
    amount: positiveAmount('amount'),
    currency: z.string({ error: 'currency is required' }).regex(/^[A-Z]{3}$/, 'currency must be an ISO 4217 alphabetic code'),
    payment_method_id: z.string({ error: 'payment_method_id is required' }).min(1, 'payment_method_id is required'),
    client_id: z.string().max(255).optional(),
    currency_id: z.string().uuid('currency_id must be a UUID').optional(),
    payer_bank: z.string().max(100).optional(),
    description: z.string().max(1000).optional(),
    callback_url: z.string().url('callback_url must be an absolute URL').max(2000).optional(),
    is_client_commission: z.boolean().optional(),
  })
  .openapi('CreatePayinRequest');

export const cancelBody = z.object({ reason: z.string().max(500).optional() }).openapi('CancelDealRequest');

export const reconciliationBody = z
  .object({ received_amount: positiveAmount('received_amount') })
  .openapi('ReconciliationRequest');

export const amountChangeBody = z
  .object({
    amount_fiat: positiveAmount('amount_fiat'),
    reason: z.string({ error: 'reason is required' }).min(1, 'reason is required').max(1000),
    idempotency_key: z.string({ error: 'idempotency_key is required' }).uuid('idempotency_key must be a UUID'),
    expected_amount_version: z
      .union([z.number().int().min(0), z.bigint()])
      .transform((v) => BigInt(v))
      .optional()
      .openapi({ type: 'integer', format: 'int64' }),
  })
  .openapi('AmountChangeRequest');

export const amountChangeResponse = z
  .object({ deal: dealSchema, amount_version: int64String, amount_usdt: int64String })
  .openapi('AmountChangeResponse');

export const checkoutViewSchema = z
  .object({
    status: z.string(),
    amount: int64String,
    amount_to_pay: int64String.openapi({ description: 'what the payer transfers: amount, plus the fee when the payer pays it' }),
    currency: z.string(),
    payment_method_name: z.string(),
    requisite_type: z.string(),
    card_number: z.string(),
    phone_number: z.string(),
    iban: z.string(),
    holder_name: z.string(),
    bank_name: z.string(),
    brand_name: z.string(),
    description: z.string(),
    payment_timeout_at: timestamp,
    success_redirect_url: z.string(),
    fail_redirect_url: z.string(),
  })
  .openapi('CheckoutView', { description: 'Sensitive fields (card_number, phone_number, iban, holder_name, bank_name) are empty strings in terminal states.' });

export const checkoutParams = z.object({ hash: z.string().regex(/^[0-9a-f]{64}$/, 'unknown checkout') });
