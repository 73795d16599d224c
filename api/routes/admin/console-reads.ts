/**
 * The operator console's reads beside the spec's operator routes: merchants, deals
 * across merchants with their timeline (events, webhook attempts, the workflow in the Temporal
 * UI), traders with their requisites. Every role may read them (domain/operator-roles.ts).
 */
import { OPERATOR_DEAL_MOVES } from '../../../domain/operator-deal-moves';
import { z } from 'zod';
import { defineRoute } from '../../route';
import { int64String, line, pageSize, rfc3339, timestamp, uuid } from '../../schemas/common';
import { dealSchema, dealParams, payerProofSchema } from '../../schemas/deals';
import { requisiteFields } from '../../schemas/traders';
import { dealTimeline, getMerchantForOperator, listMerchantsForOperator, listTradersForOperator, searchDeals } from '../../services/console-reads';
import { operatorMerchantResponse } from './merchants';

const tags = ['Operator: console'];
const pageToken = z.string().optional().openapi({ description: 'opaque cursor from next_page_token (valid with the same filters)' });
const merchantParams = z.object({ merchant_id: uuid('merchant_id') });
const operatorMerchant = operatorMerchantResponse.shape.merchant;

const consoleDeal = dealSchema.extend({ merchant_id: z.string().uuid(), trader_id: z.string(), requisite_id: z.string() }).openapi('ConsoleDeal');

export const consoleReadRoutes = [
  defineRoute(
    {
      method: 'get',
      path: '/merchants',
      operationId: 'adminListMerchants',
      auth: 'operator',
      summary: 'Merchants, newest first, optionally matching a name, email or id',
      tags,
      query: z.object({ search: line('search', 200).optional(), page_size: pageSize(200, 50), page_token: pageToken }),
      response: z.object({ data: z.array(operatorMerchant), next_page_token: z.string() }).openapi('OperatorMerchantList'),
    },
    ({ query }, deps) => listMerchantsForOperator(deps, query),
  ),
  defineRoute(
    {
      method: 'get',
      path: '/merchants/{merchant_id}',
      operationId: 'adminGetMerchant',
      auth: 'operator',
      summary: "A merchant's profile, limits and settings as the operator sees them",
      tags,
      params: merchantParams,
      response: operatorMerchantResponse,
      errors: [404],
    },
    ({ params }, deps) => getMerchantForOperator(deps, params.merchant_id),
  ),
  defineRoute(
    {
      method: 'get',
      path: '/deals',
      operationId: 'adminSearchDeals',
      auth: 'operator',
      summary: 'Deals of every merchant, newest first: by id, merchant, status and creation time',
      tags,
      query: z.object({
        deal_id: uuid('deal_id').optional(),
        merchant_id: uuid('merchant_id').optional(),
        status: line('status', 64).optional(),
        created_after: rfc3339('created_after').optional().openapi({ description: 'inclusive' }),
        created_before: rfc3339('created_before').optional().openapi({ description: 'inclusive' }),
        page_size: pageSize(200, 50),
        page_token: pageToken,
      }),
      response: z.object({ data: z.array(consoleDeal), next_page_token: z.string() }).openapi('ConsoleDealList'),
    },
    ({ query }, deps) => searchDeals(deps, query),
  ),
  defineRoute(
    {
      method: 'get',
      path: '/deals/{deal_id}',
      operationId: 'adminGetDealTimeline',
      auth: 'operator',
      summary: "A deal with its timeline: its events, every webhook attempt, and its workflow's link in the Temporal UI",
      description: 'workflow.ui_url is built from TEMPORAL_UI_URL and TEMPORAL_NAMESPACE; empty when TEMPORAL_UI_URL is empty.',
      tags,
      params: dealParams,
      response: z
        .object({
          deal: consoleDeal,
          workflow: z.object({ workflow_id: z.string(), namespace: z.string(), ui_url: z.string() }),
          operator_moves: z.array(z.enum(OPERATOR_DEAL_MOVES)).openapi({
            description: "the operator moves the deal's state allows now (from the PayIn and PayOut state tables); the console offers only these",
          }),
          payer_proof: payerProofSchema,
          events: z.array(z.object({ event_id: z.string(), event_type: z.string(), created_at: timestamp, dispatched_at: z.string(), payload: z.unknown() })),
          webhook_attempts: z.array(
            z.object({
              callback_id: z.string(),
              event_id: z.string(),
              event_type: z.string(),
              url: z.string(),
              delivery_status: z.string(),
              attempt: z.number().int().openapi({ description: '0: not tried yet' }),
              status: z.string(),
              http_status: z.number().int(),
              duration_ms: z.number().int(),
              error: z.string(),
              at: timestamp,
            }),
          ),
        })
        .openapi('ConsoleDealTimeline'),
      errors: [404],
    },
    ({ params }, deps) => dealTimeline(deps, params.deal_id),
  ),
  defineRoute(
    {
      method: 'get',
      path: '/traders',
      operationId: 'adminListTraders',
      auth: 'operator',
      summary: 'Traders, newest first, each with its USDT balance and requisites',
      tags,
      query: z.object({ page_size: pageSize(200, 50), page_token: pageToken }),
      response: z
        .object({
          data: z.array(
            z.object({
              trader_id: z.string(),
              name: z.string(),
              status: z.string(),
              balance_usdt: int64String,
              frozen_usdt: int64String,
              created_at: timestamp,
              requisites: z.array(
                z.object({
                  requisite_id: z.string(),
                  payment_method: z.string(),
                  ...requisiteFields,
                  daily_limit: z.string(),
                  status: z.string(),
                }),
              ),
            }),
          ),
          next_page_token: z.string(),
        })
        .openapi('ConsoleTraderList'),
    },
    ({ query }, deps) => listTradersForOperator(deps, query),
  ),
];
