import { z } from 'zod';
import { httpUrl, int64String, openEnum, line, lineRule, positiveAmount, text, textRule, timestamp, uuid } from './common';
import { AMOUNT_MATCHES, PAYIN_STATUSES, type PayinStatus } from '../../domain/state/payin';
import { PAYOUT_STATUSES, REQUISITE_DETAIL_KEYS, type PayoutStatus } from '../../domain/state/payout';

/** Every status a deal can have: the PayIn table's and the PayOut table's (domain/state/payin.ts, domain/state/payout.ts), once each. */
const DEAL_STATUSES = [...new Set([...PAYIN_STATUSES, ...PAYOUT_STATUSES])] as [PayinStatus | PayoutStatus, ...(PayinStatus | PayoutStatus)[]];
const dealStatus = openEnum(
  DEAL_STATUSES,
  `PayIn: ${PAYIN_STATUSES.join(', ')}. PayOut: ${PAYOUT_STATUSES.join(', ')}.`,
  'as a deal still in progress: read it again later',
);

export const dealSchema = z
  .object({
    deal_id: z.string().uuid(),
    status: dealStatus,
    amount: int64String,
    currency: z.string(),
    created_at: timestamp,
    client_id: z.string(),
    deal_type: z.enum(['PAYIN', 'PAYOUT']),
    updated_at: timestamp,
    payment_url: z.string(),
    target_requisite: z.string(),
    received_amount: int64String,
    amount_match_status: z
      .enum(AMOUNT_MATCHES)
      .openapi({ description: "the received amount against the deal's: '' until known, then full, partial or overpaid" }),
    parent_deal_id: z.string().uuid().optional().openapi({
      description: 'settlement deals only: the EXPIRED deal this one settles; absent on every other deal',
    }),
    origin_appeal_id: z.string().uuid().optional().openapi({
      description: 'settlement deals only: the appeal whose settlement made this deal (one per appeal); absent on every other deal',
    }),
    sandbox: z.literal(true).optional().openapi({
      description: "addition: true on a sandbox merchant's deals (see the Sandbox tag); absent on a live merchant's",
    }),
    payout_proof: z
      .object({
        bank_reference: z.string().openapi({ description: "the bank's reference of the transfer, as the trader gave it" }),
        file_id: z.string().openapi({
          description: "the trader's proof file (a receipt or a screenshot): GET /api/v1/p2p/merchant/files/{file_id}; empty when the proof has none",
        }),
      })
      .optional()
      .openapi({
        description: 'addition: on a PayOut its trader completed with a proof of the transfer (from deal.completed on); absent on every other deal',
      }),
  })
  .openapi('MerchantDealInfo', {
    description:
      'Exactly these fields on ordinary deals. Settlement deals (made by an operator settlement of an ' +
      'appeal on an EXPIRED deal) also carry parent_deal_id and origin_appeal_id; ordinary deals omit both keys. ' +
      "A sandbox merchant's deals carry sandbox: true. A PayOut completed by its trader with a proof carries payout_proof.",
  });

export const dealResponse = z.object({ deal: dealSchema }).openapi('DealResponse');

/** Operator answers add who works the deal (after a reassignment, the new trader). */
export const operatorDealResponse = z
  .object({
    deal: dealSchema.extend({
      trader_id: z.string().openapi({ description: 'the trader the deal belongs to now; empty while unassigned' }),
      requisite_id: z.string().openapi({ description: "the trader's requisite; empty while unassigned" }),
    }),
  })
  .openapi('OperatorDealResponse');

export const dealParams = z.object({ deal_id: uuid('deal_id') });

const idempotencyKey = z
  .string({ error: 'idempotency_key is required' })
  .min(1, 'idempotency_key is required')
  .max(255, 'idempotency_key is at most 255 characters')
  .superRefine(lineRule('idempotency_key'));

/** The PayIn create's body. idempotency_key comes first so its message wins when several fields are wrong. */
export const createPayinBody = z
  .object({
    idempotency_key: idempotencyKey,
    amount: positiveAmount('amount'),
    currency: z.string({ error: 'currency is required' }).regex(/^[A-Z]{3}$/, 'currency must be an ISO 4217 alphabetic code'),
    payment_method_id: z
      .string({ error: 'payment_method_id is required' })
      .min(1, 'payment_method_id is required')
      .max(100)
      .superRefine(lineRule('payment_method_id')),
    client_id: line('client_id', 255).optional(),
    currency_id: uuid('currency_id').optional(),
    payer_bank: line('payer_bank', 100).optional(),
    description: text('description', 1000).optional(),
    callback_url: httpUrl('callback_url').optional(),
    is_client_commission: z.boolean().optional(),
  })
  .openapi('CreatePayinRequest');

export const cancelBody = z.object({ reason: text('reason', 500).optional() }).openapi('CancelDealRequest');

export const reconciliationBody = z.object({ received_amount: positiveAmount('received_amount') }).openapi('ReconciliationRequest');

export const amountChangeBody = z
  .object({
    amount_fiat: positiveAmount('amount_fiat'),
    reason: z.string({ error: 'reason is required' }).min(1, 'reason is required').max(1000).superRefine(textRule('reason', false)),
    idempotency_key: uuid('idempotency_key'),
    expected_amount_version: z
      .union([z.number().int().min(0), z.bigint()])
      .transform((v) => BigInt(v))
      .optional()
      .openapi({ type: 'integer', format: 'int64' }),
  })
  .openapi('AmountChangeRequest');

export const amountChangeResponse = z.object({ deal: dealSchema, amount_version: int64String, amount_usdt: int64String }).openapi('AmountChangeResponse');

export const checkoutViewSchema = z
  .object({
    status: dealStatus,
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
    amount_version: int64String.openapi({ description: "the amount's version (1 until an operator changes the amount); the page shows a change as old → new" }),
    reference: z
      .string()
      .openapi({ description: 'the payment reference the payer quotes to support (the first 10 hex digits of the checkout hash, e.g. 7F3A9-1C2B8)' }),
    bank_display_name: z.string().openapi({ description: "the bank's name for people (bank_name is its catalogue slug); empty in terminal states" }),
    timeline: z
      .object({
        created_at: timestamp,
        payment_notified_at: z.string().openapi({ description: "RFC 3339 when the payer said they paid; '' before" }),
        payment_verified_at: z.string().openapi({ description: "RFC 3339 when the receipt was confirmed; '' before" }),
        ended_at: z.string().openapi({ description: "RFC 3339 when the deal reached its terminal state; '' while live" }),
      })
      .openapi('CheckoutTimeline'),
    payer_proof: z
      .object({
        receipts: z.number().int().openapi({ description: 'receipts the payer sent from the page' }),
        card_last4: z.string().openapi({ description: "the last 4 digits of the card the payer said they paid with; '' if none" }),
        can_add: z.boolean().openapi({ description: 'whether the page still takes proof (a few per deal; not once COMPLETED or SPAM_REJECTED)' }),
      })
      .openapi('CheckoutPayerProof'),
  })
  .openapi('CheckoutView', {
    description: 'Sensitive fields (card_number, phone_number, iban, holder_name, bank_name, bank_display_name) are empty strings in terminal states.',
  });

/**
 * "I paid" answers the CheckoutView with the contract's `{ deal }` beside it: a client written to
 * the contract reads `deal.status`, the page reads the view, and the deal carries only what the
 * page's link already identifies (no client_id, received_amount or other merchant field).
 */
export const checkoutNotifyResponseSchema = checkoutViewSchema
  .extend({
    deal: z
      .object({
        deal_id: z.string().uuid(),
        status: dealStatus,
        amount: int64String,
        currency: z.string(),
        amount_version: int64String,
      })
      .openapi('CheckoutDealSummary', { description: "the deal as the payer may see it: its id, status and amount, never the merchant's fields" }),
  })
  .openapi('CheckoutNotifyResponse');

/** What the payer sent from the page, as the operator and the merchant see it. */
export const payerProofSchema = z
  .object({
    reference: z.string().openapi({ description: "the payment reference shown to the payer; '' for a deal without a payment page" }),
    card_last4: z.string().openapi({ description: "the last 4 digits of the card the payer said they paid with (the latest given); '' if none" }),
    receipts: z.array(
      z.object({
        file_id: z.string().uuid().openapi({ description: 'download with GET /files/{file_id} (merchant) or /admin/files/{file_id} (operator)' }),
        content_type: z.string(),
        size: int64String,
        file_name: z.string(),
        created_at: timestamp,
      }),
    ),
    submitted_at: z.string().openapi({ description: "RFC 3339 of the latest submission; '' if none" }),
  })
  .openapi('PayerProof', { description: "The payer's proof of payment sent from the hosted page: receipts (image or PDF) and the card's last 4 digits." });

export const checkoutParams = z.object({ hash: z.string().regex(/^[0-9a-f]{64}$/, 'unknown checkout') });

/** The PayOut create's body. */
export const createPayoutBody = z
  .object({
    idempotency_key: idempotencyKey,
    amount: positiveAmount('amount'),
    currency: z.string({ error: 'currency is required' }).regex(/^[A-Z]{3}$/, 'currency must be an ISO 4217 alphabetic code'),
    wallet_id: uuid('wallet_id'),
    target_requisite: z
      .string({ error: 'target_requisite is required' })
      .trim()
      .min(1, 'target_requisite is required')
      .max(100)
      .superRefine(lineRule('target_requisite')),
    target_name: line('target_name', 200).optional(),
    target_bank: line('target_bank', 100).optional(),
    requisite_details: z
      .record(z.string(), z.string({ error: 'requisite_details values must be strings' }).max(200).superRefine(lineRule('requisite_details')))
      .superRefine((details, ctx) => {
        const unknown = Object.keys(details).filter((k) => !(REQUISITE_DETAIL_KEYS as readonly string[]).includes(k));
        if (unknown.length > 0) {
          ctx.addIssue({
            code: 'custom',
            params: { code: 'unknown_field' },
            message: `unknown requisite_details key(s) ${unknown.join(', ')}; allowed: ${REQUISITE_DETAIL_KEYS.join(', ')}`,
          });
        }
      })
      .optional(),
    payment_method: z.string({ error: 'payment_method is required' }).min(1, 'payment_method is required').max(100).superRefine(lineRule('payment_method')),
  })
  .openapi('CreatePayoutRequest');

export const payoutResponse = z
  .object({
    deal: dealSchema.extend({ requisite_details: z.record(z.string(), z.string()), target_name: z.string() }),
  })
  .openapi('PayoutResponse', { description: 'The create response echoes requisite_details and target_name unmasked.' });

export const rejectBody = z.object({ reason: z.string({ error: 'reason is required' }).min(1, 'reason is required').max(500) }).openapi('RejectPayoutRequest');
export const assignBody = z.object({ requisite_id: uuid('requisite_id') }).openapi('AssignPayoutRequest');
