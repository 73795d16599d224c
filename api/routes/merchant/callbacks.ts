/** The merchant's webhook deliveries: the history and the manual retry. */
import { z } from 'zod';
import { defineRoute } from '../../route';
import { EXAMPLES } from '../../schemas/examples';
import { merchantOf } from '../../auth/authenticate';
import { openEnum, timestamp, uuid } from '../../schemas/common';
import { getCallback, listCallbacks, retryCallback } from '../../services/callbacks';

const tags = ['Webhooks'];

export const callbackSchema = z
  .object({
    callback_id: z.string().uuid(),
    deal_id: z.string(),
    event_id: z.string().uuid(),
    event_type: z.string(),
    url: z.string(),
    status: openEnum(['PENDING', 'SUCCESS', 'RETRY', 'ERROR'], 'What each means: see CallbackDelivery.', 'as a delivery not settled yet'),
    attempts: z.number().int(),
    http_status: z.number().int().openapi({ description: 'status of the last attempt; 0 when none answered' }),
    response_body: z.string().openapi({ description: 'body of the last answer, cut to 2048 bytes' }),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .openapi('CallbackDelivery', {
    description:
      'One delivery of one event to one target. PENDING: not attempted yet; SUCCESS: delivered; RETRY: an attempt is ' +
      'coming (failed and another automatic attempt is scheduled, or a manual retry is queued); ERROR: no more automatic attempts.',
  });

export const callbackListQuery = z.object({
  deal_id: uuid('deal_id').optional().openapi({ description: 'only deliveries of this deal' }),
  page_size: z.coerce.number().int().min(0).optional().openapi({ type: 'integer', description: 'default 50, clamped to 250' }),
  page_token: z.string().optional(),
});

export const callbackListResponse = z.object({ data: z.array(callbackSchema), next_page_token: z.string() }).openapi('CallbackList');

const list = (path: string, operationId: string) =>
  defineRoute(
    {
      method: 'get',
      path,
      operationId,
      example: EXAMPLES.listCallbacks,
      auth: 'hmac',
      summary: 'Webhook delivery history, newest first',
      tags,
      query: callbackListQuery,
      response: callbackListResponse,
    },
    ({ identity, query }, deps) => listCallbacks(deps, merchantOf(identity).merchantId, query),
  );

export const callbackRoutes = [
  list('/callbacks', 'listCallbacks'),
  defineRoute(
    {
      method: 'post',
      path: '/callbacks/{callback_id}/retry',
      operationId: 'retryCallback',
      example: EXAMPLES.retryCallback,
      auth: 'hmac',
      summary: 'Retry a delivery in ERROR or RETRY now (one attempt); at most once per CALLBACK_RETRY_COOLDOWN_SECONDS',
      description:
        'The answer says the retry was accepted: the delivery as it is now, queued for its attempt — status RETRY (an ' +
        "attempt is coming), whatever it was before. It is not the attempt's outcome: follow the delivery with " +
        'GET /callbacks/{callback_id} (getCallback) until it is SUCCESS, or ERROR again if the attempt failed and no ' +
        'automatic attempts are left (a delivery that was RETRY stays RETRY for its automatic schedule). ' +
        'Other statuses and a retry within the cooldown are 400 FAILED_PRECONDITION; unknown or foreign ids 404. ' +
        'Single-use signatures: a repeat would deliver again, so an HMAC signature is accepted once on this route (another delivery is another route).',
      tags,
      singleUse: 'route',
      params: z.object({ callback_id: uuid('callback_id') }),
      response: callbackSchema,
      responseDescription: 'Accepted: the delivery queued (RETRY) for the attempt',
      errors: [404],
    },
    ({ identity, params }, deps) => retryCallback(deps, merchantOf(identity).merchantId, params.callback_id),
  ),
  defineRoute(
    {
      method: 'get',
      path: '/callbacks/{callback_id}',
      operationId: 'getCallback',
      example: EXAMPLES.getCallback,
      auth: 'hmac',
      summary: 'One webhook delivery of the caller, e.g. to follow a manual retry to its outcome',
      description: 'Foreign and unknown ids are 404; an id that is not a UUID is 400.',
      tags,
      params: z.object({ callback_id: uuid('callback_id') }),
      response: callbackSchema,
      errors: [404],
    },
    ({ identity, params }, deps) => getCallback(deps, merchantOf(identity).merchantId, params.callback_id),
  ),
];

/** The history's older path, directly under /api/v1/p2p. */
export const callbackMirrors = [list('/callbacks', 'listCallbacksLegacy')];
