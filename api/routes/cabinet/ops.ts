/**
 * The cabinet's deals and developers routes (docs/cabinet.md): the merchant's deals, their
 * timelines and CSV export, the delivery log and its retry, a test event, the endpoint's state.
 * The spec's deal and callback routes are the servers' (HMAC); these are the people's, under
 * /cabinet, scoped to the member's merchant and checked against its role.
 */
import { defineRoute } from '../../route';
import { EXAMPLES } from '../../schemas/examples';
import { cabinetDealsExportQuery, cabinetDealsQuery, cabinetDealTimeline, testEventResponse, webhookEndpointResponse } from '../../schemas/cabinet-ops';
import { listDealsResponse } from '../../schemas/listing';
import { dealParams } from '../../schemas/deals';
import { exportMerchantDeals, listMerchantDeals } from '../../services/deal-listing';
import { getCallback, listCallbacks, retryCallback } from '../../services/callbacks';
import { cabinetDealTimeline as dealTimeline, sendTestEvent, webhookEndpointState } from '../../services/cabinet-ops';
import { z } from 'zod';
import { uuid } from '../../schemas/common';
import { actorOf, personOf, tags } from './session';
import { callbackListQuery, callbackListResponse, callbackSchema } from '../merchant/callbacks';

const AT = '2026-11-22T10:00:00.000Z';
const DELIVERY = EXAMPLES.getCallback.response;
const TIMELINE_EXAMPLE = {
  response: {
    deal: EXAMPLES.getDeal.response.deal,
    events: [{ event_id: DELIVERY.event_id, event_type: 'deal.escrow_locked', created_at: AT, dispatched_at: AT }],
    webhook_attempts: [
      {
        callback_id: DELIVERY.callback_id,
        event_id: DELIVERY.event_id,
        event_type: 'deal.escrow_locked',
        url: DELIVERY.url,
        delivery_status: 'SUCCESS',
        attempt: 1,
        status: 'SUCCESS',
        http_status: 200,
        duration_ms: 41,
        error: '',
        response_body: 'ok',
        at: AT,
      },
    ],
  },
};
const ENDPOINT_EXAMPLE = {
  response: {
    url: DELIVERY.url,
    state: 'PAUSED',
    reason: 'the last 20 attempts failed (the last: HTTP 503); deliveries wait, then one probe goes — its success resumes them',
    consecutive_failures: 20,
    last_attempt_at: AT,
    paused_until: '2026-11-22T10:00:30.000Z',
    breaker_failures: 20,
    breaker_cooldown_seconds: 30,
    key_grace_seconds: 900,
  },
};

export const cabinetOpsRoutes = [
  defineRoute(
    {
      method: 'get',
      path: '/deals',
      operationId: 'cabinetListDeals',
      example: EXAMPLES.listDeals,
      auth: 'cabinet',
      summary: "The merchant's deals, newest first, with the listing's filters and a search by deal id or client_id",
      tags,
      query: cabinetDealsQuery,
      response: listDealsResponse,
    },
    ({ identity, query }, deps) => listMerchantDeals(deps, personOf(identity).merchantId, query),
  ),
  defineRoute(
    {
      method: 'get',
      path: '/deals/export',
      operationId: 'cabinetExportDeals',
      auth: 'cabinet',
      summary: 'CSV export of the deals the same filters select (the columns of GET /deals/export)',
      tags,
      query: cabinetDealsExportQuery,
      responseContentType: 'text/csv',
    },
    async ({ identity, query }, deps, ctx) => {
      const csv = await exportMerchantDeals(deps, personOf(identity).merchantId, query);
      ctx.type = 'text/csv; charset=utf-8';
      ctx.set('Content-Disposition', 'attachment; filename="deals.csv"');
      ctx.body = csv;
    },
  ),
  defineRoute(
    {
      method: 'get',
      path: '/deals/{deal_id}',
      operationId: 'cabinetGetDeal',
      example: TIMELINE_EXAMPLE,
      auth: 'cabinet',
      summary: 'One deal with its timeline: its events and every webhook attempt with the answer; another merchant’s or an unknown id is 404',
      tags,
      params: dealParams,
      response: cabinetDealTimeline,
      errors: [404],
    },
    ({ identity, params }, deps) => dealTimeline(deps, personOf(identity), params.deal_id),
  ),
  defineRoute(
    {
      method: 'get',
      path: '/deliveries',
      operationId: 'cabinetListDeliveries',
      example: EXAMPLES.listCallbacks,
      auth: 'cabinet',
      summary: 'The delivery log: every webhook delivery, newest first (GET /callbacks for people)',
      tags,
      query: callbackListQuery,
      response: callbackListResponse,
    },
    ({ identity, query }, deps) => listCallbacks(deps, personOf(identity).merchantId, query),
  ),
  defineRoute(
    {
      method: 'post',
      path: '/deliveries/{callback_id}/retry',
      operationId: 'cabinetRetryDelivery',
      example: EXAMPLES.retryCallback,
      auth: 'cabinet',
      summary: 'Retry a delivery in ERROR or RETRY now (POST /callbacks/{callback_id}/retry for people): its event again, through its delivery workflow',
      description:
        'The answer is the delivery queued (RETRY) for its attempt; the delivery log and the deal’s timeline show the outcome. ' +
        'Other statuses and a retry within CALLBACK_RETRY_COOLDOWN_SECONDS are 400; another merchant’s or an unknown id is 404.',
      tags,
      params: z.object({ callback_id: uuid('callback_id') }),
      response: callbackSchema,
      errors: [404],
    },
    ({ identity, params }, deps) => retryCallback(deps, personOf(identity).merchantId, params.callback_id),
  ),
  defineRoute(
    {
      method: 'get',
      path: '/deliveries/{callback_id}',
      operationId: 'cabinetGetDelivery',
      example: EXAMPLES.getCallback,
      auth: 'cabinet',
      summary: 'One delivery, e.g. to follow a retry to its outcome',
      tags,
      params: z.object({ callback_id: uuid('callback_id') }),
      response: callbackSchema,
      errors: [404],
    },
    ({ identity, params }, deps) => getCallback(deps, personOf(identity).merchantId, params.callback_id),
  ),
  defineRoute(
    {
      method: 'post',
      path: '/webhook/test-event',
      operationId: 'cabinetSendTestEvent',
      example: { response: { event_id: '0a1b2c3d-4e5f-5a6b-8c7d-9e0f1a2b3c4d', event_type: 'webhook.test', url: DELIVERY.url } },
      auth: 'cabinet',
      summary: 'Send a webhook.test event to the webhook URL through the real delivery path (signed, retried, in the delivery log)',
      description: 'No webhook URL set is 400 FAILED_PRECONDITION. Audited (webhook.test_event).',
      tags,
      status: 201,
      response: testEventResponse,
      audit: { action: 'webhook.test_event', objectType: 'merchant', by: 'service' },
    },
    ({ identity, actor }, deps) => {
      const person = personOf(identity);
      return sendTestEvent(deps, person.merchantId, actorOf(actor), person.email ?? 'cabinet JWT');
    },
  ),
  defineRoute(
    {
      method: 'get',
      path: '/webhook/endpoint',
      operationId: 'cabinetGetWebhookEndpoint',
      example: ENDPOINT_EXAMPLE,
      auth: 'cabinet',
      summary: "The webhook URL's state: paused, failing or OK, and why",
      tags,
      response: webhookEndpointResponse,
    },
    ({ identity }, deps) => webhookEndpointState(deps, personOf(identity).merchantId),
  ),
];
