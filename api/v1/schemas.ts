/** zod schemas of the V1 wire: validation at the edge, and the V1 part of the OpenAPI document. */
import { z } from 'zod';
import { httpUrl, line, rfc3339, text, uuid } from '../schemas/common';
import { tronAddress } from '../schemas/wallet';
import { v1Envelope, v1ListOf } from './envelope';

/** A V1 amount: a decimal string ("1500.50"); a JSON integer is taken as its digits. Converted by the currency's exponent later. */
const decimalAmount = (field: string) =>
  z
    .union([z.string(), z.number().int(), z.bigint()], { error: `${field} must be a decimal string such as "1500.50"` })
    .transform((v) => String(v))
    .refine((v) => /^\d{1,19}(\.\d{1,18})?$/.test(v), { message: `${field} must be a decimal string such as "1500.50"`, params: { code: 'invalid_amount' } })
    .openapi({ type: 'string', example: '1500.50', description: 'decimal string in major units, exact for the currency (never rounded)' });

/**
 * A non-negative integer sent as a JSON integer or a digit string (legacy clients send both),
 * with one message for every wrong shape.
 */
const integerish = (message: string, maxDigits = 9) =>
  z.unknown().transform((v, ctx) => {
    if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 && String(v).length <= maxDigits) return v;
    if (typeof v === 'string' && new RegExp(`^\\d{1,${maxDigits}}$`).test(v)) return Number(v);
    ctx.addIssue({ code: 'custom', message, params: { code: 'invalid_value' } });
    return z.NEVER;
  });

/** ISO 4217 numeric code (643 for RUB), as a JSON integer or a digit string. */
const numericCurrency = (field: string) =>
  integerish(`${field} must be a numeric ISO 4217 code such as 643`).openapi({ type: 'integer', example: 643, description: 'ISO 4217 numeric code' });

const required = (field: string, max = 255) =>
  z
    .string({ error: `${field} is required` })
    .min(1, `${field} is required`)
    .pipe(line(field, max));

/** A small non-negative integer given as a JSON integer or digit string. */
const count = (field: string, min: number, max: number) =>
  integerish(`${field} must be an integer between ${min} and ${max}`)
    .refine((v) => v >= min && v <= max, { message: `${field} must be between ${min} and ${max}`, params: { code: 'out_of_range' } })
    .openapi({ type: 'integer', minimum: min, maximum: max });

const salt = line('salt', 255).optional().openapi({ description: 'signed (last payload field); not stored' });

export const incomingCreateBody = z
  .object({
    payInId: required('payInId').openapi({ description: 'the merchant id of the payment; becomes idempotency_key' }),
    amount: decimalAmount('amount'),
    currency: numericCurrency('currency'),
    method: required('method', 100).openapi({ description: 'payment method slug or id (GET /api/v1/p2p/merchant/payment-methods)' }),
    clientId: line('clientId', 255).optional(),
    salt,
    successUrl: line('successUrl', 2000).optional().openapi({ description: 'ignored: redirects are merchant settings' }),
    failUrl: line('failUrl', 2000).optional().openapi({ description: 'ignored: redirects are merchant settings' }),
  })
  .openapi('V1IncomingCreate');

export const outgoingCreateBody = z
  .object({
    payOutId: required('payOutId').openapi({ description: 'becomes idempotency_key' }),
    amount: decimalAmount('amount'),
    currency: numericCurrency('currency'),
    paymentMethod: required('paymentMethod', 100).openapi({ description: 'payment method slug or id' }),
    cardNumber: required('cardNumber', 100).openapi({ description: 'the recipient requisite: becomes target_requisite' }),
    fullName: line('fullName', 200).optional().openapi({ description: 'becomes target_name' }),
    salt,
  })
  .openapi('V1OutgoingCreate');

const listFilters = {
  status: integerish('status must be a numeric V1 status code')
    .optional()
    .openapi({ type: 'integer', description: 'V1 status code (the V1 code table); an unknown code is 400' }),
  skip: count('skip', 0, 1_000_000_000).optional(),
  take: count('take', 1, 100).optional(),
  startDate: rfc3339('startDate').optional(),
  endDate: rfc3339('endDate').optional(),
};

export const incomingListBody = z.object({ ...listFilters, id: uuid('id').optional() }).openapi('V1IncomingListRequest');
export const outgoingListBody = z.object(listFilters).openapi('V1OutgoingListRequest');
export const statisticsBody = z.object({ startDate: rfc3339('startDate').optional(), endDate: rfc3339('endDate').optional() }).openapi('V1StatisticsRequest');
export const banksListBody = z
  .object({
    country: z
      .string()
      .regex(/^[A-Za-z]{2}$/, 'country must be an ISO 3166-1 alpha-2 code')
      .optional(),
    bankName: line('bankName', 100).optional(),
    methodName: line('methodName', 50).optional(),
    skip: count('skip', 0, 1_000_000_000).optional(),
    take: count('take', 1, 100).optional(),
  })
  .openapi('V1BanksListRequest');

export const idParams = z.object({ id: uuid('id') });

const incomingRecord = z
  .object({
    id: z.string().uuid(),
    payInId: z.string(),
    status: z.number().int().openapi({ description: 'V1 PayIn code (GET view: REFUND_PENDING is 32)' }),
    amount: z.string().openapi({ example: '1500.50' }),
    receivedAmount: z.string().openapi({ example: '0.00' }),
    currency: z.number().int().nullable().openapi({ example: 643 }),
    method: z.string().openapi({ example: 'card-rub' }),
    clientId: z.string(),
    paymentUrl: z.string(),
    createdAt: z.string(),
    lastModifiedAt: z.string(),
  })
  .openapi('V1Incoming');

const outgoingRecord = z
  .object({
    id: z.string().uuid(),
    payOutId: z.string(),
    status: z.number().int().openapi({ description: 'V1 PayOut code: 1 waiting, 40 PROCESSING, 10 COMPLETED, 30 FAILED/EXPIRED' }),
    amount: z.string(),
    currency: z.number().int().nullable(),
    paymentMethod: z.string(),
    cardNumber: z.string(),
    fullName: z.string(),
    createdAt: z.string(),
    lastModifiedAt: z.string(),
  })
  .openapi('V1Outgoing');

const incomingStatistics = z
  .object({
    method: z.string(),
    conversionPercent: z.string().openapi({ example: '66.67', description: 'paid / all × 100, two decimals' }),
    paymentsCount: z.number().int(),
    paymentsPaidCount: z.number().int(),
    paymentsTimeoutCount: z.number().int(),
    paymentsCancelledCount: z.number().int(),
    paymentsReturnedCount: z.number().int(),
    paymentsDisputCount: z.number().int(),
    paymentsCurrency: z.number().int().nullable(),
    paymentsAmount: z.string(),
    paymentsPaidAmount: z.string(),
    balanceCurrency: z.string().openapi({ example: 'USDT' }),
    paymentsToBalanceAmount: z.string(),
    paymentsCommissionAmount: z.string(),
  })
  .openapi('V1IncomingStatistics');

const outgoingStatistics = z
  .object({
    method: z.string(),
    conversionPercent: z.string(),
    paymentsCount: z.number().int(),
    paymentsSentCount: z.number().int(),
    paymentsCancelledCount: z.number().int(),
    paymentsDisputCount: z.number().int(),
    paymentsCurrency: z.number().int().nullable(),
    paymentsAmount: z.string(),
    paymentsSentAmount: z.string(),
    balanceCurrency: z.string(),
    paymentsFromBalanceAmount: z.string(),
    paymentsCommissionAmount: z.string(),
  })
  .openapi('V1OutgoingStatistics');

const bankRecord = z
  .object({
    id: z.string().uuid(),
    country: z.string(),
    bankName: z.string(),
    methodNames: z.array(z.string()),
    currencies: z.array(z.number().int()),
  })
  .openapi('V1Bank');

export const incomingResponse = v1Envelope(incomingRecord, 'V1IncomingResponse');
export const outgoingResponse = v1Envelope(outgoingRecord, 'V1OutgoingResponse');
export const incomingListResponse = v1Envelope(v1ListOf(incomingRecord), 'V1IncomingList');
export const outgoingListResponse = v1Envelope(v1ListOf(outgoingRecord), 'V1OutgoingList');
export const incomingStatisticsResponse = v1Envelope(z.object({ statistics: z.array(incomingStatistics) }), 'V1IncomingStatisticsReport');
export const outgoingStatisticsResponse = v1Envelope(z.object({ statistics: z.array(outgoingStatistics) }), 'V1OutgoingStatisticsReport');
export const banksListResponse = v1Envelope(v1ListOf(bankRecord), 'V1BanksList');

const webhookMeta = {
  eventId: z.string().uuid().openapi({ description: 'stable across retries; also in the X-Event-Id header' }),
  eventType: z.string().openapi({ example: 'deal.completed', description: 'the V2 event name (deal.amount_changed is never sent to V1 merchants)' }),
};
/**
 * The legacy V1 webhook bodies, documented inline in the document's `webhooks` (api/v1/openapi.ts),
 * not as components: oapi-codegen prunes a component only the `webhooks` reference, then refers
 * to it. POSTed to the merchant's webhook_url with headers MERCHANT, TIMESTAMP (start of the
 * current UTC day, Unix seconds) and SIGNATURE = hex HMAC-SHA512(secret, "<TIMESTAMP>;<raw body>").
 */
export const v1WebhookIncoming = incomingRecord
  .extend({
    ...webhookMeta,
    paymentType: z.literal('incoming'),
    status: z.number().int().openapi({ description: 'V1 PayIn code, webhook view (REFUND_PENDING is 16)' }),
  })
  .openapi({ description: 'Legacy V1 webhook of a PayIn event.' });
export const v1WebhookOutgoing = outgoingRecord
  .extend({ ...webhookMeta, paymentType: z.literal('outgoing') })
  .openapi({ description: 'Legacy V1 webhook of a PayOut event (30 for FAILED and EXPIRED).' });

/** The V1 withdraw body. `wallet` is required, `address` its alias (`wallet` wins); both are checked as mainnet TRON addresses. */
export const withdrawCreateBody = z
  .object({
    requestId: required('requestId').openapi({
      description:
        'the key of the withdrawal, unique per merchant: a repeat with the same amount and wallet answers it, another amount or wallet is 409 (stored as idempotency_key)',
    }),
    amount: decimalAmount('amount').openapi({ description: 'USDT, fee included, at most 2 fraction digits', example: '100.00' }),
    blockchain: z
      .union([z.number().int(), z.string().max(20)], { error: 'blockchain must be 1' })
      .optional()
      .openapi({ description: 'treated as 1 (TRON), the only chain' }),
    wallet: tronAddress.optional().openapi({ description: 'mainnet TRON address (required; alias address)' }),
    address: tronAddress.optional().openapi({ description: 'legacy alias of wallet' }),
    comment: text('comment', 1000).optional().openapi({ description: 'echoed in the create answer; not stored' }),
    isBalanceCommission: z
      .boolean({ error: 'isBalanceCommission must be a boolean' })
      .optional()
      .openapi({ description: 'false only: the fee is always taken from the amount (true is 400)' }),
    salt,
    callbackUrl: httpUrl('callbackUrl').optional().openapi({ description: 'echoed in the create answer; withdrawal events go to the webhook_url' }),
  })
  .superRefine((b, ctx) => {
    if (b.wallet === undefined && b.address === undefined)
      ctx.addIssue({ code: 'custom', path: ['wallet'], message: 'wallet is required', params: { code: 'required' } });
  })
  .openapi('V1WithdrawCreate');

export const withdrawListBody = z.object(listFilters).openapi('V1WithdrawListRequest');

const withdrawalRecord = z
  .object({
    id: z.string().uuid(),
    withdrawId: z.string().uuid(),
    userId: z.string().uuid().openapi({ description: 'the merchant id' }),
    status: z.number().int().openapi({ description: 'V1 withdrawal code: 1 waiting, 2 approved, 3 sent, 4 cancelled' }),
    requestId: z.string(),
    blockchain: z.number().int().openapi({ example: 1 }),
    currency: z.string().openapi({ example: 'USDT' }),
    amount: z.string().openapi({ example: '100.00', description: 'fee included' }),
    wallet: z.string(),
    comment: z.string(),
    isBalanceCommission: z.boolean(),
    exchangeRate: z.string().openapi({ example: '1' }),
    sentAmount: z.string().openapi({ description: 'what goes on chain: amount − commission' }),
    commissionAmount: z.string(),
    transactionHash: z.string(),
    callbackUrl: z.string(),
    createdAt: z.string(),
    lastModifiedAt: z.string(),
    sentAt: z.string().nullable(),
  })
  .openapi('V1Withdrawal');

export const withdrawalResponse = v1Envelope(withdrawalRecord, 'V1WithdrawalResponse');
export const withdrawalListResponse = v1Envelope(v1ListOf(withdrawalRecord), 'V1WithdrawalList');

/** The V1 dispute create: the fields are echoed back; `comment` is the legacy alias of merchantComment, `proofImageBase64` becomes an evidence file. */
export const disputeCreateBody = z
  .object({
    paymentId: uuid('paymentId').openapi({ description: 'the PayIn (deal id) the dispute is about' }),
    receiptType: line('receiptType', 100).optional(),
    receiptUrl: httpUrl('receiptUrl').optional(),
    description: text('description', 4000).optional(),
    clientComment: text('clientComment', 4000).optional(),
    merchantComment: text('merchantComment', 4000).optional(),
    comment: text('comment', 4000).optional().openapi({ description: 'legacy alias of merchantComment (merchantComment wins)' }),
    proofImageBase64: z
      .string({ error: 'proofImageBase64 must be a base64 string' })
      .regex(/^(?:data:[\w.+/-]+;base64,)?(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/, 'proofImageBase64 must be base64')
      .optional()
      .openapi({ description: 'the receipt (PDF, PNG, JPEG, WEBP or text), base64; stored as an evidence file of the appeal' }),
  })
  .openapi('V1DisputeCreate');

export const disputeListBody = z.object(listFilters).openapi('V1DisputeListRequest');

const disputeListFields = {
  disputId: z.string().uuid().openapi({ description: 'the appeal id' }),
  status: z.number().int().openapi({ description: '1 OPEN, 2 IN_REVIEW, 3 REOPENED, 4 RESOLVED_MERCHANT, 5 RESOLVED_TRADER, 6 CLOSED' }),
  paymentId: z.string().uuid(),
  clientComment: z.string(),
  merchantComment: z.string(),
  traderComment: z.string(),
  adminComment: z.string().openapi({ description: "the resolution note, else the arbiter's latest message" }),
  description: z.string(),
  createdAt: z.string(),
  lastModifiedAt: z.string(),
  finalizedAt: z.string().nullable(),
};
const disputeListRecord = z.object(disputeListFields).openapi('V1DisputeListItem');
const disputeRecord = z
  .object({
    ...disputeListFields,
    receiptFileBody: z.string().openapi({ description: 'base64 of the receipt file; empty when none' }),
    receiptFileType: z.string(),
    receiptFileUrl: z.string().openapi({ description: 'receiptUrl as sent, else the evidence file path' }),
    answerFileBody: z.string().openapi({ description: "base64 of the first file of the arbiter's latest message" }),
    answerFileType: z.string(),
    answerFileUrl: z.string(),
  })
  .openapi('V1Dispute');
export const disputeResponse = v1Envelope(disputeRecord, 'V1DisputeResponse');
export const disputeListResponse = v1Envelope(v1ListOf(disputeListRecord), 'V1DisputeList');
