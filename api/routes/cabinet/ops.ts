/**
 * The cabinet's deals and developers routes (docs/cabinet.md): the merchant's deals, their
 * timelines and CSV export, the delivery log and its retry, a test event, the endpoint's state.
 * The spec's deal and callback routes are the servers' (HMAC); these are the people's, under
 * /cabinet, scoped to the member's merchant and checked against its role.
 */
import { defineRoute } from '../../route';
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

export const cabinetOpsRoutes = [
  defineRoute(
    {
      method: 'get',
      path: '/deals',
      operationId: 'cabinetListDeals',
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
      auth: 'cabinet',
      summary: "The webhook URL's state: paused, failing or OK, and why",
      tags,
      response: webhookEndpointResponse,
    },
    ({ identity }, deps) => webhookEndpointState(deps, personOf(identity).merchantId),
  ),
];
