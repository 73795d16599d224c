import { z } from 'zod';
import { dealSchema } from './deals';
import { pageSize, rfc3339 } from './common';

/** A repeated query parameter (a=x&a=y) or a comma-separated one, deduplicated. */
export const repeated = z
  .union([z.string(), z.array(z.string())])
  .transform((v) => [
    ...new Set(
      (Array.isArray(v) ? v : [v])
        .flatMap((s) => s.split(','))
        .map((s) => s.trim())
        .filter(Boolean),
    ),
  ])
  .openapi({ type: 'array', items: { type: 'string' } });

export const dealFilterQuery = z.object({
  deal_type: z.string().optional().openapi({ description: 'PAYIN or PAYOUT; omitted means both; any other value gives an empty page' }),
  statuses: repeated.optional().openapi({ description: 'repeated (statuses=A&statuses=B) or comma-separated; unknown values match nothing' }),
  created_after: rfc3339('created_after').optional().openapi({ description: 'inclusive lower bound' }),
  created_before: rfc3339('created_before').optional().openapi({ description: 'inclusive upper bound' }),
  merchant_id: z.string().optional().openapi({ description: 'advisory; ignored (scope comes from the signed identity)' }),
});

export const listDealsQuery = dealFilterQuery.extend({
  page_size: pageSize(250, 50),
  page_token: z.string().optional().openapi({ description: 'opaque cursor from next_page_token' }),
});

export const listDealsResponse = z
  .object({ data: z.array(dealSchema), next_page_token: z.string() })
  .openapi('DealList', { description: 'An empty next_page_token means the last page.' });

export const turnoverQuery = z.object({
  created_after: rfc3339('created_after').optional().openapi({ description: 'inclusive; default created_before − 30 days' }),
  created_before: rfc3339('created_before').optional().openapi({ description: 'inclusive; default now' }),
});

export const turnoverResponse = z
  .object({
    data: z.array(
      z.object({
        date: z.string().openapi({ example: '2026-11-22' }),
        deal_type: z.enum(['PAYIN', 'PAYOUT']),
        currency: z.string(),
        count: z.number().int(),
        amount: z.string().openapi({ description: 'int64 minor units as a string' }),
      }),
    ),
    next_page_token: z.string(),
  })
  .openapi('Turnover', { description: 'Daily UTC buckets; EXPIRED, SPAM_REJECTED and FAILED deals are excluded.' });
