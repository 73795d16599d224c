/** The trader app's deal queue: the trader's deal, its list, and the bodies of its moves. */
import { z } from 'zod';
import { AMOUNT_MATCHES, PAYIN_STATUSES } from '../../domain/state/payin';
import { PAYOUT_STATUSES } from '../../domain/state/payout';
import { TRADER_DEAL_MOVES } from '../../domain/state/trader-deal-moves';
import { int64String, pageSize, pageToken, positiveAmount, timestamp } from './common';
import { fileSchema } from './files';
import { repeated } from './listing';

const DEAL_STATUSES = [...new Set([...PAYIN_STATUSES, ...PAYOUT_STATUSES])] as [string, ...string[]];

const traderDealSchema = z
  .object({
    deal_id: z.string().uuid(),
    deal_type: z.enum(['PAYIN', 'PAYOUT']),
    status: z.string().openapi({ description: 'PayIn: OrderStatus; PayOut: PayOutStatus' }),
    amount: int64String.openapi({ description: 'fiat, minor units' }),
    currency: z.string(),
    currency_exponent: z.number().int().openapi({ description: "the currency's decimal places: amounts are minor units (amount / 10^exponent in major ones)" }),
    payment_method: z.string().openapi({ description: "the payment method's slug" }),
    requisite_id: z.string().openapi({ description: 'your requisite the deal is on; empty on a payout you may take' }),
    requisite_summary: z.string().openapi({ description: 'your requisite: type, last four digits, bank; empty on a payout you may take' }),
    amount_to_pay: int64String.openapi({
      description:
        'PayIn: what the payer is asked to pay (the amount, plus the fee when the payer pays it) — a full match on confirm; PayOut: the amount to send',
    }),
    received_amount: int64String.openapi({ description: "PayIn: what you confirmed as received ('0' until then); PayOut: '0'" }),
    amount_match_status: z.enum(AMOUNT_MATCHES).openapi({ description: "PayIn: the received amount against amount_to_pay ('' until known); PayOut: ''" }),
    target_requisite: z.string().openapi({ description: "PayOut: the recipient's card, phone or account to send to; PayIn: ''" }),
    target_name: z.string().openapi({ description: "PayOut: the recipient's name" }),
    target_bank: z.string().openapi({ description: "PayOut: the recipient's bank" }),
    requisite_details: z.record(z.string(), z.string()).openapi({ description: "PayOut: the recipient's further details (iban, bank_name, …)" }),
    timer: z.enum(['', 'payment_timeout', 'assign_sla', 'transfer_sla']).openapi({
      description:
        "the deadline the deal waits on now: payment_timeout (a PayIn expires then), assign_sla (an UNASSIGNED payout expires then), transfer_sla (a MATCHED payout expires unless started); '' for none",
    }),
    expires_at: z.string().openapi({ description: "when the timer ends (RFC 3339, UTC); '' for none" }),
    bank_reference: z.string().openapi({ description: "PayOut: the bank's reference you gave on completion; '' until then" }),
    proof_file_id: z.string().openapi({ description: "PayOut: your proof file of the transfer; '' until then" }),
    not_received_at: z.string().openapi({ description: "PayIn: when you reported the payment as not received; '' when you did not" }),
    not_received_reason: z.string(),
    failure_reason: z.string().openapi({ description: 'PayOut: why it was rejected' }),
    moves: z.array(z.enum(TRADER_DEAL_MOVES)).openapi({ description: "the moves the deal's state allows you now (from the PayIn and PayOut state tables)" }),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .openapi('TraderDeal');

export const traderDealResponse = z.object({ deal: traderDealSchema }).openapi('TraderDealResponse');

export const traderDealQuery = z.object({
  deal_type: z.enum(['PAYIN', 'PAYOUT']).optional(),
  status: repeated
    .pipe(z.array(z.enum(DEAL_STATUSES, { error: `status must be one of ${DEAL_STATUSES.join(', ')}` })))
    .optional()
    .openapi({
      type: 'array',
      items: { type: 'string', enum: [...DEAL_STATUSES] },
      description: 'any of these statuses: repeated (status=A&status=B) or comma-separated',
    }),
  page_size: pageSize(200, 50),
  page_token: pageToken,
});

export const traderDealList = z
  .object({
    live: z.array(traderDealSchema).openapi({ description: 'your live deals, newest first, with their timers (on the first page only)' }),
    history: z.array(traderDealSchema).openapi({ description: 'your finished deals, newest first, one page' }),
    next_page_token: z.string().openapi({ description: "the next page of history; '' at the end" }),
  })
  .openapi('TraderDealList');

export const availablePayoutsQuery = z.object({ page_size: pageSize(200, 50) });
export const availablePayoutList = z
  .object({ data: z.array(traderDealSchema).openapi({ description: 'UNASSIGNED payouts one of your ACTIVE requisites serves, oldest first' }) })
  .openapi('TraderAvailablePayouts');

export const confirmReceivedBody = z
  .object({ received_amount: positiveAmount('received_amount').openapi({ description: 'what actually arrived, fiat minor units' }) })
  .openapi('TraderConfirmRequest');

export const notReceivedBody = z
  .object({ reason: z.string().max(500, 'reason is at most 500 characters').optional().openapi({ description: 'optional: what you saw' }) })
  .openapi('TraderNotReceivedRequest');

export const traderRejectBody = z
  .object({ reason: z.string({ error: 'reason is required' }).min(1, 'reason is required').max(500, 'reason is at most 500 characters') })
  .openapi('TraderRejectPayoutRequest');

export const payoutProofForm = z
  .object({
    bank_reference: z.string().openapi({ description: "the bank's reference of the transfer (1 to 100 characters)" }),
    file: z.string().openapi({ type: 'string', format: 'binary', description: 'a photo, screenshot or PDF of the receipt (part name `file`)' }),
  })
  .openapi('TraderPayoutProof');

export const completedPayoutResponse = z.object({ deal: traderDealSchema, file: fileSchema }).openapi('TraderCompletedPayout');
