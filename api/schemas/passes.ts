import { z } from 'zod';
import { int64String, openEnum, positiveAmount, timestamp } from './common';
import { REQUISITE_TYPES } from './traders';
import { UUID_RE } from '../../domain/ids';

/** An optional filter: absent or "" means any. */
const optionalUuid = (field: string, hint = '') =>
  z
    .string({ error: `${field} must be a UUID` })
    .refine((v) => v === '' || UUID_RE.test(v), { message: `${field} must be a UUID${hint}`, params: { code: 'invalid_format' } })
    .optional()
    .transform((v) => (v ? v.toLowerCase() : undefined))
    .openapi({ type: 'string', format: 'uuid', description: 'empty or absent: any' });

export const createPassBody = z
  .object({
    amount: positiveAmount('amount'),
    currency_id: optionalUuid('currency_id'),
    requisite_type: z
      .union([z.literal(''), z.enum(REQUISITE_TYPES)], { error: `requisite_type must be one of ${REQUISITE_TYPES.join(', ')}` })
      .optional()
      .transform((v) => v || undefined)
      .openapi({ type: 'string', enum: [...REQUISITE_TYPES], description: 'empty or absent: any' }),
    payment_method_id: optionalUuid('payment_method_id', ' (a slug is not resolved here; use the id from GET /payment-methods)'),
    provider_id: optionalUuid('provider_id'),
  })
  .openapi('CreatePassRequest');

const passSchema = z
  .object({
    pass_id: z.string().uuid(),
    tenant_id: z.string().uuid(),
    merchant_id: z.string().uuid(),
    provider_id: z.string().openapi({ description: 'the trader the pass routes to; empty: any' }),
    amount: int64String,
    currency_id: z.string(),
    payment_method_id: z.string(),
    requisite_type: z.string(),
    status: openEnum(['ACTIVE', 'USED', 'EXPIRED'], 'ACTIVE: may still reserve a PayIn; USED: reserved one; EXPIRED: past expires_at unused.', 'as not usable'),
    expires_at: timestamp,
    used_deal_id: z.string().openapi({ description: 'the PayIn that reserved the pass; empty until USED' }),
    created_at: timestamp,
  })
  .openapi('Pass');

export const passResponse = z.object({ pass: passSchema }).openapi('PassResponse');
export const passListResponse = z.object({ data: z.array(passSchema), next_page_token: z.string() }).openapi('PassList');

export const listPassesQuery = z.object({
  status: z
    .union([z.string(), z.array(z.string())])
    .transform((v) =>
      (Array.isArray(v) ? v : [v])
        .flatMap((s) => s.split(','))
        .map((s) => s.trim())
        .filter(Boolean),
    )
    .optional()
    .openapi({ type: 'array', items: { type: 'string' }, description: 'ACTIVE, USED, EXPIRED; unknown values match nothing' }),
  page_size: z.coerce
    .number()
    .int('page_size must be an integer')
    .min(0, 'page_size must not be negative')
    .optional()
    .openapi({ type: 'integer', description: 'default 20, clamped to 100' }),
  page_token: z.string().optional(),
});
