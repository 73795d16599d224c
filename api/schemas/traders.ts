/** Traders and their requisites, as the operator creates them. */
import { z } from 'zod';
import { email } from './accounts';
import { traderAccountInvitation } from './trader-accounts';
import { creditAmount, int64String, line, lineRule, positiveAmount, timestamp, txHash, uuid } from './common';

export const REQUISITE_TYPES = ['BANK_CARD', 'SBP', 'BANK_TRANSFER', 'E_WALLET', 'SIM'] as const;
export const createTraderBody = z
  .object({
    name: z.string({ error: 'name is required' }).trim().min(1, 'name is required').max(200).superRefine(lineRule('name')),
    email: email.optional().openapi({
      description:
        "the trader's own account: invited with the trader (the link is answered once), and the trader is PENDING_APPROVAL until an " +
        'operator approves it. Without it an operator manages the trader (ACTIVE at once)',
    }),
  })
  .openapi('CreateTraderRequest');
const traderSchema = z
  .object({ trader_id: z.string().uuid(), name: z.string(), status: z.string(), wallet_id: z.string().uuid(), created_at: timestamp })
  .openapi('Trader');
export const traderResponse = z.object({ trader: traderSchema }).openapi('TraderResponse');
/** A trader's creation: with `email`, its account's invitation (the link, this once). */
export const createTraderResponse = z.object({ trader: traderSchema, account_invitation: traderAccountInvitation.optional() }).openapi('CreateTraderResult');
export const traderParams = z.object({ trader_id: uuid('trader_id') });
export const createRequisiteBody = z
  .object({
    payment_method: z.string({ error: 'payment_method is required' }).min(1, 'payment_method is required'),
    requisite_type: z.enum(REQUISITE_TYPES, { error: `requisite_type must be one of ${REQUISITE_TYPES.join(', ')}` }),
    card_number: line('card_number', 64).optional(),
    phone_number: line('phone_number', 32).optional(),
    iban: line('iban', 64).optional(),
    holder_name: z.string({ error: 'holder_name is required' }).min(1, 'holder_name is required').max(200).superRefine(lineRule('holder_name')),
    bank_name: z.string({ error: 'bank_name is required' }).min(1, 'bank_name is required').max(200).superRefine(lineRule('bank_name')),
    min_amount: positiveAmount('min_amount'),
    max_amount: positiveAmount('max_amount'),
    daily_limit: positiveAmount('daily_limit').optional(),
  })
  .refine((b) => b.max_amount >= b.min_amount, { message: 'max_amount must not be below min_amount', path: ['max_amount'], params: { code: 'max_below_min' } })
  .openapi('CreateRequisiteRequest');
/** A requisite as operators read it: here and in the console's trader listing. */
export const requisiteFields = {
  requisite_type: z.string(),
  card_number: z.string(),
  phone_number: z.string(),
  iban: z.string(),
  holder_name: z.string(),
  bank_name: z.string(),
  min_amount: int64String,
  max_amount: int64String,
};
export const requisiteResponse = z
  .object({
    requisite: z.object({
      requisite_id: z.string().uuid(),
      trader_id: z.string().uuid(),
      payment_method_id: z.string().uuid(),
      ...requisiteFields,
      daily_limit: int64String.optional(),
      status: z.string(),
      created_at: timestamp,
    }),
  })
  .openapi('RequisiteResponse');
export const traderLiquidityBody = z.object({ amount: creditAmount('amount'), tx_hash: txHash('tx_hash') }).openapi('TraderLiquidityRequest');
