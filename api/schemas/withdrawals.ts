/** USDT withdrawals: the fee quote, withdraw, the history and the operator's queue. */
import { z } from 'zod';
import { bulkIds, bulkResult } from './bulk';
import { idOrPrefix, int64String, openEnum, positiveAmount, timestamp, uuid } from './common';
import { INT64_MAX } from '../../domain/money';
import { WITHDRAWAL_STATUSES } from '../../domain/state/withdrawals';
import { pageQuery, tronAddress } from './wallet';

/** A positive int64 in a query string: digits only, never rounded (1.5 is refused). */
export const positiveQueryAmount = (field: string) =>
  z
    .string({ error: `${field} is required` })
    .regex(/^\d+$/, `${field} must be a positive integer (USDT cents)`)
    .transform((v) => BigInt(v))
    .refine((v) => v > 0n, { message: `${field} must be greater than 0`, params: { code: 'too_small' } })
    .refine((v) => v <= INT64_MAX, { message: `${field} is out of the int64 range`, params: { code: 'out_of_range' } })
    .openapi({ type: 'string', format: 'int64', example: '150000' });
const repeated = z
  .union([z.string(), z.array(z.string())])
  .transform((v) =>
    (Array.isArray(v) ? v : [v])
      .flatMap((s) => s.split(','))
      .map((s) => s.trim())
      .filter(Boolean),
  )
  .openapi({ type: 'array', items: { type: 'string' } });
export const withdrawalListQuery = pageQuery.extend({
  status: repeated.optional().openapi({
    description: `repeated or comma-separated: ${WITHDRAWAL_STATUSES.join(', ')}; unknown values match nothing`,
  }),
});
/** The operator's queue filters: the list and its export take the same. */
export const operatorWithdrawalFilters = z.object({
  status: withdrawalListQuery.shape.status,
  merchant_id: idOrPrefix('merchant_id').optional(),
  withdrawal_id: idOrPrefix('withdrawal_id').optional(),
});
export const operatorWithdrawalListQuery = withdrawalListQuery.extend({
  merchant_id: idOrPrefix('merchant_id').optional(),
  withdrawal_id: idOrPrefix('withdrawal_id').optional(),
});
export const feeQuery = z.object({ amount: positiveQueryAmount('amount') });
export const feeQuoteResponse = z
  .object({
    amount: int64String.openapi({ description: 'what leaves the balance, USDT cents' }),
    fee_usdt_cents: int64String,
    net_usdt_cents: int64String.openapi({ description: 'what arrives at the address: amount − fee' }),
  })
  .openapi('WithdrawFeeQuote', {
    description: 'fee = WITHDRAWAL_FEE_USDT_CENTS + amount × WITHDRAWAL_FEE_BPS / 10000 (half-even); net = amount − fee.',
  });
export const withdrawBody = z
  .object({
    address: tronAddress.optional().openapi({
      description: "mainnet TRON address; when omitted, the profile's withdrawal_address (which must then be a valid TRON address)",
    }),
    amount: positiveAmount('amount').openapi({ type: 'integer', format: 'int64', description: 'USDT cents, including the fee' }),
    idempotency_key: z.string().max(200).optional().openapi({
      description:
        'accepted and echoed, not required and not used for de-duplication: the server derives the key from (merchant, address, amount, current fee)',
    }),
  })
  .openapi('WithdrawRequest');
export const withdrawalSchema = z
  .object({
    withdrawal_id: z.string().uuid(),
    status: openEnum(WITHDRAWAL_STATUSES, `One of ${WITHDRAWAL_STATUSES.join(', ')}.`, 'as a withdrawal still in progress'),
    currency: z.literal('USDT'),
    amount: int64String,
    fee_usdt_cents: int64String,
    net_usdt_cents: int64String,
    address: z.string(),
    tx_hash: z.string().openapi({ description: 'TRON transaction id once sent; empty before' }),
    idempotency_key: z.string(),
    processing: z.enum(['AUTO', 'MANUAL']).openapi({ description: 'AUTO: within the auto-withdrawal limit; MANUAL: through the operator queue' }),
    cancel_reason: z.string(),
    created_at: timestamp,
    updated_at: timestamp,
    approved_at: z.string(),
    completed_at: z.string(),
    cancelled_at: z.string(),
    sandbox: z.literal(true).optional().openapi({
      description: "addition: true on a sandbox merchant's withdrawals (see the Sandbox tag); absent on a live merchant's",
    }),
  })
  .openapi('Withdrawal', { description: "Unset times are empty strings. A sandbox merchant's withdrawals carry sandbox: true." });
export const withdrawalListResponse = z
  .object({ data: z.array(withdrawalSchema), next_page_token: z.string() })
  .openapi('WithdrawalList', { description: 'Newest first, one row per withdrawal. An empty next_page_token means the last page.' });
export const operatorWithdrawalSchema = withdrawalSchema
  .extend({
    owner_type: z.enum(['merchant', 'trader']).openapi({ description: "addition: whose USDT it is: a merchant's or a trader's (owner_id, owner_name)" }),
    owner_id: z.string().uuid(),
    owner_name: z.string(),
    merchant_id: z.string().openapi({ description: "the merchant's id; empty on a trader's withdrawal (trader_id)" }),
    merchant_name: z.string(),
    trader_id: z.string().openapi({ description: "addition: the trader's id on a trader's withdrawal; empty on a merchant's" }),
    broadcast_attempts: z.number().int(),
    broadcast_started_at: z.string(),
    last_broadcast_error: z.string(),
    approved_by: z.string(),
    approved_by_name: z.string().openapi({ description: "the approving console account's email, or the operator JWT's sub; empty before" }),
    cancelled_by: z.string(),
    cancelled_by_name: z.string().openapi({ description: "the cancelling console account's email, or the operator JWT's sub; empty before" }),
    approvals: z
      .array(
        z.object({
          approver: z.string().openapi({ description: '`<operator_account|operator_jwt>:<id or sub>`' }),
          approver_name: z.string().openapi({ description: "the console account's email, or the operator JWT's sub" }),
          role: z.string(),
          at: z.string(),
          counts: z.boolean().openapi({
            description:
              'addition: whether it counts toward a four-eyes release now — an enabled console account of a role that may approve (finance, admin); an approver disabled or demoted since does not',
          }),
        }),
      )
      .openapi({ description: 'four-eyes: the approvals recorded so far, oldest first' }),
    approvals_required: z.number().int().openapi({ description: '2 above WITHDRAWAL_FOUR_EYES_ABOVE_USDT_CENTS, else 1' }),
  })
  .openapi('OperatorWithdrawal');
export const operatorWithdrawalListResponse = z
  .object({ data: z.array(operatorWithdrawalSchema), next_page_token: z.string() })
  .openapi('OperatorWithdrawalList');
export const withdrawalParams = z.object({ withdrawal_id: uuid('withdrawal_id') });
export const cancelWithdrawalBody = z.object({ reason: z.string().max(500).optional() }).openapi('CancelWithdrawalRequest');

export const bulkApproveBody = z
  .object({ withdrawal_ids: bulkIds('withdrawal_ids') })
  .strict()
  .openapi('BulkApproveWithdrawals');
export const bulkCancelBody = z
  .object({ withdrawal_ids: bulkIds('withdrawal_ids'), reason: z.string().max(500).optional() })
  .strict()
  .openapi('BulkCancelWithdrawals');
export const bulkApproveResponse = bulkResult('BulkApproveWithdrawalsResult', ['released', 'approval_recorded']);
export const bulkCancelResponse = bulkResult('BulkCancelWithdrawalsResult', ['cancelled']);
