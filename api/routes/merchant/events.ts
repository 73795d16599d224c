/** The merchant's events feed: what its webhooks carried, to read again or reconcile from. */
import { z } from 'zod';
import { registry } from '../../openapi';
import { defineRoute } from '../../route';
import { merchantOf } from '../../auth/authenticate';
import { eventFeedQuery, eventFeedResponse, webhookEventSchema } from '../../schemas/events';
import { listEvents } from '../../services/events';
import { EXAMPLE_DEAL } from '../../schemas/examples';

export const eventRoutes = [
  defineRoute(
    {
      method: 'get',
      path: '/events',
      operationId: 'listEvents',
      auth: 'cabinet_or_hmac',
      summary: "The merchant's events, oldest first in the order they were emitted, with the payloads of its webhooks",
      description:
        'Every event emitted for the caller (deal, appeal and withdrawal events, whatever its api_version and webhook ' +
        'target), in the V2 webhook envelope, oldest first in outbox order: a merchant whose endpoint was down reconciles ' +
        'from here. An event appears once the relay has handed it on (within moments of its commit). ' +
        '**Paging differs from the listings:** next_page_token is never empty. A page with fewer events than page_size ' +
        '(an empty page included) is the end of the feed for now; keep its next_page_token — a later request with it ' +
        'answers only the events emitted since (resume after downtime). A token is bound to the merchant (another ' +
        "merchant's token is 400 invalid page_token) and not to the filter: `types` may change between requests, " +
        'and the token moves past the events of other types it read.',
      tags: ['Events'],
      query: eventFeedQuery,
      response: eventFeedResponse,
      example: {
        response: {
          data: [
            {
              event_id: '7d6f3a8e-1c2b-5d4e-9f0a-1b2c3d4e5f60',
              type: 'deal.created',
              created_at: '2026-11-22T10:00:00.000Z',
              deal: { ...EXAMPLE_DEAL, status: 'INITIALIZED', payment_url: '', amount_version: '1' },
            },
            {
              event_id: '0a1b2c3d-4e5f-5a6b-8c7d-9e0f1a2b3c4d',
              type: 'deal.escrow_locked',
              created_at: '2026-11-22T10:00:00.000Z',
              deal: { ...EXAMPLE_DEAL, amount_version: '1' },
            },
          ],
          next_page_token: 'eyJwIjoiMTIifQ.Q2hhbmdlZEV4YW1wbGU',
        },
      },
    },
    ({ identity, query }, deps) => listEvents(deps, merchantOf(identity).merchantId, query),
  ),
];

/**
 * The V2 webhook itself (OpenAPI 3.1 `webhooks`): what the gateway POSTs to the merchant's
 * webhook_url (or a PayIn's callback_url), signed twice — the spec's X-Signature and Standard
 * Webhooks (activities/webhooks.ts).
 */
registry.registerWebhook({
  method: 'post',
  path: 'event',
  operationId: 'eventWebhook',
  summary: "V2 webhook: one event, POSTed to the merchant's webhook_url (or the PayIn's callback_url)",
  description:
    'The body is the event in the V2 envelope, the same as an item of GET /events. Two signatures over the same bytes: ' +
    'X-Signature `t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>` (the HMAC key is the secret string as ' +
    'issued; Stripe-compatible), and Standard Webhooks (standardwebhooks.com): webhook-signature `v1,<base64 ' +
    'HMAC-SHA256(key, "<webhook-id>.<webhook-timestamp>.<raw body>")>` where the key is the bytes the secret encodes ' +
    "(`whsec_` + base64; the standardwebhooks libraries take the secret as issued). During a key rotation's grace window " +
    'the new and the old secret both sign: two v1= entries in X-Signature, two space-separated signatures in ' +
    'webhook-signature, the new first. Verify within 5 minutes of the timestamp, compare in constant time, and process ' +
    'each event_id once (delivery is at least once). The merchant SDK (verifyWebhook) checks both.',
  tags: ['Webhooks'],
  // The receiver checks the signatures with its signing secret; no API credential is involved.
  security: [],
  request: {
    headers: z.object({
      'X-Timestamp': z.string().openapi({ description: 'send time, unix seconds', example: '1763805600' }),
      'X-Signature': z.string().openapi({ description: '`t=<X-Timestamp>,v1=<hex>`, plus `,v1=<hex>` of the old secret during a rotation' }),
      'X-Event-Id': z.string().uuid().openapi({ description: 'the event_id of the body' }),
      'webhook-id': z.string().openapi({ description: 'Standard Webhooks message id: the event_id (stable across retries)' }),
      'webhook-timestamp': z.string().openapi({ description: 'Standard Webhooks timestamp: the send time, unix seconds' }),
      'webhook-signature': z.string().openapi({ description: '`v1,<base64>`, plus ` v1,<base64>` of the old secret (space-separated) during a rotation' }),
    }),
    body: {
      required: true,
      content: {
        'application/json': {
          schema: webhookEventSchema,
          example: {
            event_id: '7d6f3a8e-1c2b-5d4e-9f0a-1b2c3d4e5f60',
            type: 'deal.completed',
            created_at: '2026-11-22T10:06:00.000Z',
            deal: {
              ...EXAMPLE_DEAL,
              status: 'COMPLETED',
              received_amount: '150000',
              amount_match_status: 'full',
              updated_at: '2026-11-22T10:06:00.000Z',
              amount_version: '1',
            },
          },
        },
      },
    },
  },
  responses: {
    200: { description: 'any answer below 400 (3xx included) acknowledges the event' },
    default: { description: 'an answer of 400 or more, or none within WEBHOOK_TIMEOUT_MS, is retried (WEBHOOK_RETRY_DELAYS)' },
  },
});
