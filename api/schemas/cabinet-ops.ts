/** The cabinet's deals and developers routes (api/routes/cabinet/ops.ts). */
import { z } from 'zod';
import { timestamp, uuid } from './common';
import { dealSchema } from './deals';
import { listDealsQuery } from './listing';

/** The listing's filters, and the cabinet's search: one deal by id, or one payer's deals by client_id. */
export const cabinetDealsQuery = listDealsQuery.extend({
  deal_id: uuid('deal_id').optional().openapi({ description: 'only this deal' }),
  client_id: z.string().max(255).optional().openapi({ description: "only the deals of this payer (a PayIn's client_id)" }),
});

export const cabinetDealsExportQuery = cabinetDealsQuery.omit({ page_size: true, page_token: true });

export const cabinetDealTimeline = z
  .object({
    deal: dealSchema,
    events: z.array(
      z.object({
        event_id: z.string().uuid(),
        event_type: z.string(),
        created_at: timestamp,
        dispatched_at: z.string().openapi({ description: 'when the relay handed it to the delivery stream; empty until then' }),
      }),
    ),
    webhook_attempts: z.array(
      z.object({
        callback_id: z.string().uuid(),
        event_id: z.string().uuid(),
        event_type: z.string(),
        url: z.string(),
        delivery_status: z.enum(['PENDING', 'SUCCESS', 'RETRY', 'ERROR']),
        attempt: z.number().int().openapi({ description: '0: the delivery is not tried yet' }),
        status: z.string().openapi({ description: "the attempt's outcome: SUCCESS, RETRY or ERROR; empty when not tried" }),
        http_status: z.number().int().openapi({ description: '0 when nothing answered' }),
        duration_ms: z.number().int(),
        error: z.string(),
        response_body: z.string().openapi({ description: "the receiver's answer, cut to 2048 bytes" }),
        at: timestamp,
      }),
    ),
  })
  .openapi('CabinetDealTimeline', { description: 'A deal, its events and every attempt of its webhook deliveries, oldest first.' });

export const testEventResponse = z
  .object({ event_id: z.string().uuid(), event_type: z.literal('webhook.test'), url: z.string() })
  .openapi('CabinetTestEvent', { description: 'The event written: the delivery log shows its delivery within moments.' });

export const webhookEndpointResponse = z
  .object({
    url: z.string(),
    state: z.enum(['NO_URL', 'UNUSED', 'OK', 'FAILING', 'PAUSED', 'DISABLED']),
    reason: z.string().openapi({ description: 'why, in words' }),
    consecutive_failures: z.number().int(),
    last_attempt_at: z.string(),
    paused_until: z.string().openapi({ description: 'PAUSED: when the one probe may go; empty otherwise' }),
    breaker_failures: z.number().int().openapi({ description: 'failures in a row that pause the endpoint' }),
    breaker_cooldown_seconds: z.number().int(),
    key_grace_seconds: z.number().int().openapi({ description: 'after a key rotation the old pair keeps working this long (MERCHANT_KEY_GRACE_PERIOD)' }),
  })
  .openapi('CabinetWebhookEndpoint', {
    description:
      "The webhook URL's state as its latest attempts show it (the breaker itself is each delivery worker's): PAUSED after " +
      'breaker_failures failures in a row, until paused_until; FAILING when the last attempt failed; OK; UNUSED; NO_URL; DISABLED (the kill-switch).',
  });
