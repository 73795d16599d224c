/** Requisites a trader manages, their limits, the operators' approval, and the trader's presence. */
import { z } from 'zod';
import { REQUISITE_STATUSES } from '../../domain/state/requisites';
import { int64String, line, lineRule, positiveAmount, timestamp, uuid } from './common';
import { REQUISITE_TYPES } from './traders';

const count = (field: string, max: number) =>
  z
    .number({ error: `${field} must be an integer` })
    .int(`${field} must be an integer`)
    .min(1, `${field} must be at least 1`)
    .max(max, `${field} is at most ${max}`);

/** The limits a requisite takes; each absent or null is no limit (cooldown 0: none). */
const limitFields = {
  daily_limit: z
    .union([positiveAmount('daily_limit'), z.null()])
    .optional()
    .openapi({ description: 'volume per UTC day, minor units' }),
  daily_count_limit: count('daily_count_limit', 100_000).nullable().optional().openapi({ description: 'deals per UTC day' }),
  monthly_limit: z
    .union([positiveAmount('monthly_limit'), z.null()])
    .optional()
    .openapi({ description: 'volume per UTC calendar month, minor units' }),
  max_live_deals: count('max_live_deals', 10_000).nullable().optional().openapi({ description: 'deals on it at once that are not final yet' }),
  cooldown_seconds: z
    .number({ error: 'cooldown_seconds must be an integer' })
    .int('cooldown_seconds must be an integer')
    .min(0, 'cooldown_seconds must not be negative')
    .max(86_400, 'cooldown_seconds is at most 86400')
    .optional()
    .openapi({ description: 'seconds after a deal before the next one may be matched to it' }),
};

const holderName = z.string({ error: 'holder_name is required' }).min(1, 'holder_name is required').max(200).superRefine(lineRule('holder_name'));
const bankName = z.string({ error: 'bank_name is required' }).min(1, 'bank_name is required').max(200).superRefine(lineRule('bank_name'));

export const createTraderRequisiteBody = z
  .object({
    payment_method: z.string({ error: 'payment_method is required' }).min(1, 'payment_method is required'),
    requisite_type: z.enum(REQUISITE_TYPES, { error: `requisite_type must be one of ${REQUISITE_TYPES.join(', ')}` }),
    card_number: line('card_number', 64).optional(),
    phone_number: line('phone_number', 32).optional(),
    iban: line('iban', 64).optional(),
    holder_name: holderName,
    bank_name: bankName,
    min_amount: positiveAmount('min_amount'),
    max_amount: positiveAmount('max_amount'),
    ...limitFields,
  })
  .refine((b) => b.max_amount >= b.min_amount, { message: 'max_amount must not be below min_amount', path: ['max_amount'], params: { code: 'max_below_min' } })
  .openapi('CreateTraderRequisiteRequest');

export const updateTraderRequisiteBody = z
  .object({
    card_number: line('card_number', 64).optional(),
    phone_number: line('phone_number', 32).optional(),
    iban: line('iban', 64).optional(),
    holder_name: holderName.optional(),
    bank_name: bankName.optional(),
    min_amount: positiveAmount('min_amount').optional(),
    max_amount: positiveAmount('max_amount').optional(),
    ...limitFields,
  })
  .strict()
  .openapi('UpdateTraderRequisiteRequest', {
    description: 'New payment details (card, phone, IBAN, holder, bank) send the requisite back to approval; limits alone do not.',
  });

export const requisiteIdParams = z.object({ requisite_id: uuid('requisite_id') });

const traderRequisite = z
  .object({
    requisite_id: z.string().uuid(),
    trader_id: z.string().uuid(),
    payment_method: z.string(),
    currency: z.string().openapi({ description: 'the currency of its payment method: the limits are in its minor units' }),
    requisite_type: z.string(),
    card_number: z.string(),
    phone_number: z.string(),
    iban: z.string(),
    holder_name: z.string(),
    bank_name: z.string(),
    status: z.enum(REQUISITE_STATUSES),
    rejection_reason: z.string().openapi({ description: "the operator's reason when REJECTED, else empty" }),
    added_by: z.enum(['operator', 'trader']),
    limits: z.object({
      min_amount: int64String,
      max_amount: int64String,
      daily_limit: z.union([int64String, z.null()]),
      daily_count_limit: z.number().int().nullable(),
      monthly_limit: z.union([int64String, z.null()]),
      max_live_deals: z.number().int().nullable(),
      cooldown_seconds: z.number().int(),
    }),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .openapi('TraderRequisite');

export const traderRequisiteResponse = z.object({ requisite: traderRequisite }).openapi('TraderRequisiteResponse');
export const traderRequisiteList = z
  .object({
    data: z.array(traderRequisite),
    payment_methods: z
      .array(z.object({ slug: z.string(), name: z.string(), currency: z.string(), exponent: z.number().int(), requisite_types: z.array(z.string()) }))
      .openapi({ description: 'the methods a requisite may be added for, with the exponent of their currency (minor units per major)' }),
  })
  .openapi('TraderRequisiteList');
export const pendingRequisiteList = z.object({ data: z.array(traderRequisite.extend({ trader_name: z.string() })) }).openapi('PendingRequisiteList');
export const rejectRequisiteBody = z
  .object({ reason: z.string({ error: 'reason is required' }).trim().min(1, 'reason is required').max(500).superRefine(lineRule('reason')) })
  .openapi('RejectRequisiteRequest');

const clock = (field: string) => z.string({ error: `${field} is required` }).regex(/^([01]\d|2[0-3]):[0-5]\d$/, `${field} must be HH:MM (24 h)`);
const workingHours = z
  .object({
    timezone: z.string({ error: 'timezone is required' }).min(1, 'timezone is required').max(64).openapi({ example: 'Europe/Moscow' }),
    from: clock('from').openapi({ example: '09:00' }),
    to: clock('to').openapi({ example: '21:00' }),
  })
  .refine((h) => h.from !== h.to, { message: 'from and to must differ', path: ['to'] })
  .openapi('TraderWorkingHours', { description: "In the trader's IANA time zone; from later than to spans midnight." });

export const updatePresenceBody = z
  .object({
    online: z.boolean({ error: 'online must be true or false' }).optional(),
    working_hours: workingHours.nullable().optional().openapi({ description: 'null clears them (matched at any hour while online)' }),
  })
  .strict()
  .openapi('UpdateTraderPresenceRequest');

export const presenceResponse = z
  .object({
    presence: z.object({
      online: z.boolean(),
      heartbeat_at: timestamp.nullable(),
      online_at: timestamp.nullable(),
      offline_reason: z
        .enum(['manual', 'heartbeat_lost'])
        .nullable()
        .openapi({ description: 'why it is offline: its own toggle, or paused after its app fell silent' }),
      offline_at: timestamp.nullable(),
      working_hours: workingHours.nullable(),
      within_working_hours: z.boolean(),
      matchable: z.boolean().openapi({ description: 'online and within its working hours: new deals may reach it' }),
      heartbeat_timeout_seconds: z.number().int(),
    }),
  })
  .openapi('TraderPresenceResponse');
