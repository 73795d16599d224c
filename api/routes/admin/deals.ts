/** The operator's commands on deals: PayOut moves, PayIn reconciliation and confirmation, amount changes. */
import { z } from 'zod';
import { OPERATOR_DEAL_MOVES } from '../../../domain/state/operator-deal-moves';
import { operatorOf } from '../../auth/authenticate';
import { defineRoute, sendCsv } from '../../route';
import { idOrPrefix, pageSize, pageToken, rfc3339, timestamp } from '../../schemas/common';
import { repeated } from '../../schemas/listing';
import { PAYIN_STATUSES } from '../../../domain/state/payin';
import { PAYOUT_STATUSES } from '../../../domain/state/payout';
import type { AppDeps } from '../../deps';
import type { AuditActor } from '../../../domain/audit';
import type { DealRow } from '../../../db/queries/deals';
import { ROUTING_REASONS } from '../../../domain/routing';
import {
  amountChangeBody,
  amountChangeResponse,
  assignBody,
  dealParams,
  dealSchema,
  operatorDealResponse,
  payerProofSchema,
  reconciliationBody,
  rejectBody,
} from '../../schemas/deals';
import { dealTimeline, exportDeals, OPERATOR_DEAL_SORTS, searchDeals } from '../../services/deals';
import { dealBankNotification } from '../../schemas/bank-devices';
import { assignPayout, completePayout, rejectPayout, startPayout } from '../../services/payouts';
import { changePayinAmountByOperator, completePayinByOperator, confirmPayinByOperator, presentForOperator, reconcilePayin } from '../../services/payins';

const tags = ['Operator: deals'];

/** A deal's routing decision as the console shows it (api/services/deals.ts routingView). */
const routingCandidateSchema = z.object({
  requisite_id: z.string(),
  trader_id: z.string(),
  trader_name: z.string().openapi({ description: "the trader's name when the deal was routed" }),
  score: z.number().int().openapi({ description: 'its routing score then, 0..1000 (500: no history yet)' }),
  same_bank: z.boolean().openapi({ description: "its bank is the payer's (PayIn) or the recipient's (PayOut)" }),
  chosen: z.boolean(),
});
const routingDecisionSchema = z
  .object({
    chosen: z.object({
      requisite_id: z.string(),
      requisite_summary: z.string().openapi({ description: 'type, last four digits, bank' }),
      trader_id: z.string(),
      trader_name: z.string(),
      score: z.number().int(),
    }),
    reason: z.enum(ROUTING_REASONS),
    reason_text: z.string().openapi({ description: 'the reason in words, with the scores compared' }),
    explored: z.boolean().openapi({ description: 'the create explored: candidates in random order (the same bank still first)' }),
    candidates: z.array(routingCandidateSchema).openapi({ description: 'up to 20, in the order the matcher tried them' }),
    decided_at: timestamp,
  })
  .openapi('RoutingDecision', {
    description:
      'why the deal went to its requisite: the candidates the matcher saw with their routing scores and the reason of its choice; null for a deal routed before decisions were recorded or a PayOut no trader took yet',
  });
/** Every deal status, PayIn's and PayOut's (the state tables'). */
const DEAL_STATUSES = [...new Set([...PAYIN_STATUSES, ...PAYOUT_STATUSES])] as [string, ...string[]];
/** The console's reads of this aggregate keep the console's tag in the API document. */
const consoleTags = ['Operator: console'];

const consoleDeal = dealSchema
  .extend({
    merchant_id: z.string().uuid(),
    merchant_name: z.string(),
    trader_id: z.string(),
    trader_name: z.string().openapi({ description: 'empty while unassigned' }),
    requisite_id: z.string(),
    requisite_summary: z.string().openapi({ description: "the trader's requisite: type, last four digits, holder, bank; empty while unassigned" }),
    appeal_id: z.string().openapi({ description: "the deal's appeal, or empty" }),
    target_name: z.string().openapi({ description: "a PayOut's recipient (target_requisite is their card or phone); empty on a PayIn" }),
    target_bank: z.string().openapi({ description: "a PayOut's recipient's bank; empty on a PayIn" }),
  })
  .openapi('ConsoleDeal');

/** The operator's deal filters: the list and its export take the same. */
const dealFilters = z.object({
  deal_id: idOrPrefix('deal_id').optional(),
  merchant_id: idOrPrefix('merchant_id').optional(),
  status: repeated
    .pipe(z.array(z.enum(DEAL_STATUSES, { error: `status must be one of ${DEAL_STATUSES.join(', ')}` })))
    .optional()
    .openapi({
      type: 'array',
      items: { type: 'string', enum: [...DEAL_STATUSES] },
      description: 'any of these statuses (PayIn and PayOut): repeated (status=A&status=B) or comma-separated',
    }),
  deal_type: z.enum(['PAYIN', 'PAYOUT']).optional(),
  sort: z
    .enum(OPERATOR_DEAL_SORTS)
    .default('-created_at')
    .openapi({ description: 'the order: created_at or amount, ascending, or descending with a leading "-" (default -created_at: newest first)' }),
  created_after: rfc3339('created_after').optional().openapi({ description: 'inclusive' }),
  created_before: rfc3339('created_before').optional().openapi({ description: 'inclusive' }),
});

/** Deal moves are audited in their step's transaction: the actor rides the workflow update. */
const inStep = (action: string) => ({ action, objectType: 'deal', by: 'service' as const });

const payoutAction = (action: string, operationId: string, summary: string, run: (deps: AppDeps, dealId: string, actor?: AuditActor) => Promise<DealRow>) =>
  defineRoute(
    {
      method: 'post',
      path: `/deals/{deal_id}/payout/${action}`,
      operationId,
      auth: 'operator',
      summary,
      tags,
      params: dealParams,
      response: operatorDealResponse,
      errors: [404],
      audit: inStep(`payout.${action}`),
    },
    async ({ params, actor }, deps) => ({ deal: presentForOperator(deps, await run(deps, params.deal_id, actor)) }),
  );

export const dealRoutes = [
  defineRoute(
    {
      method: 'get',
      path: '/deals',
      operationId: 'adminSearchDeals',
      auth: 'operator',
      summary:
        'Deals of every merchant with their merchant, trader and appeal: by id or its start, merchant, statuses, type and creation time, in the order asked (newest first by default)',
      description: 'Keyset pages in every order: next_page_token serves the same filter and sort only. Times are UTC (RFC 3339; an offset is honoured).',
      tags: consoleTags,
      query: dealFilters.extend({ page_size: pageSize(200, 50), page_token: pageToken }),
      response: z.object({ data: z.array(consoleDeal), next_page_token: z.string() }).openapi('ConsoleDealList'),
    },
    ({ query }, deps) => searchDeals(deps, query),
  ),
  defineRoute(
    {
      method: 'get',
      path: '/deals/export',
      operationId: 'adminExportDeals',
      auth: 'operator',
      summary: "CSV of every deal the list's filters select, in the list's order; the file is named for the filters",
      description:
        'The filters and sort of GET /deals (ids or their starts, statuses, type, creation window), no paging: the whole selection, streamed in ' +
        'constant memory. Columns: ' +
        'deal_id, deal_type, status, amount, currency, merchant_id, merchant_name, trader_id, trader_name, client_id, ' +
        'target_requisite, received_amount, amount_match_status, appeal_id, parent_deal_id, created_at, updated_at (amounts in ' +
        'minor units). RFC 4180; a cell starting with =, +, -, @, tab or CR is prefixed with a single quote.',
      tags: consoleTags,
      query: dealFilters,
      responseContentType: 'text/csv',
    },
    async ({ query }, deps, ctx) => sendCsv(ctx, await exportDeals(deps, query)),
  ),
  defineRoute(
    {
      method: 'get',
      path: '/deals/{deal_id}',
      operationId: 'adminGetDealTimeline',
      auth: 'operator',
      summary: "A deal with its timeline: its events, every webhook attempt, and its workflow's link in the Temporal UI",
      description: 'workflow.ui_url is built from TEMPORAL_UI_URL and TEMPORAL_NAMESPACE; empty when TEMPORAL_UI_URL is empty.',
      tags: consoleTags,
      params: dealParams,
      response: z
        .object({
          deal: consoleDeal,
          workflow: z.object({ workflow_id: z.string(), namespace: z.string(), ui_url: z.string() }),
          operator_moves: z.array(z.enum(OPERATOR_DEAL_MOVES)).openapi({
            description: "the operator moves the deal's state allows now (from the PayIn and PayOut state tables); the console offers only these",
          }),
          move_outcomes: z
            .array(
              z.object({
                move: z.enum(OPERATOR_DEAL_MOVES),
                status_after: z.string().openapi({ description: "the deal's status after the move (its status now when the move leaves it)" }),
                status_after_full_match: z.string().openapi({
                  description: "reconcile: the status after when the recorded amount is full_match_amount (a verified deal then completes); '' for other moves",
                }),
                full_match_amount: z.string().openapi({ description: "reconcile: the full amount to pay, minor units; '' for other moves" }),
                money: z.string().openapi({ description: 'what happens to the money, as the state table says it' }),
              }),
            )
            .openapi({ description: 'what each move of operator_moves does, from the same state tables (the console words its confirmation from it)' }),
          payer_proof: payerProofSchema,
          // Null: a deal routed before decisions were recorded, or a PayOut no trader took yet.
          routing: routingDecisionSchema.nullable(),
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
          bank_notification: dealBankNotification,
        })
        .openapi('ConsoleDealTimeline'),
      errors: [404],
    },
    ({ params }, deps) => dealTimeline(deps, params.deal_id),
  ),
  payoutAction('start', 'adminStartPayout', 'The trader starts the transfer: MATCHED → PROCESSING', startPayout),
  payoutAction('complete', 'adminCompletePayout', 'The transfer succeeded: PROCESSING → COMPLETED (hold debited)', completePayout),
  defineRoute(
    {
      method: 'post',
      path: '/deals/{deal_id}/payout/reject',
      operationId: 'adminRejectPayout',
      auth: 'operator',
      summary: 'The transfer was rejected: PROCESSING → FAILED (hold returned)',
      tags,
      params: dealParams,
      body: rejectBody,
      response: operatorDealResponse,
      errors: [404],
      audit: inStep('payout.reject'),
    },
    async ({ params, body, actor }, deps) => ({ deal: presentForOperator(deps, await rejectPayout(deps, params.deal_id, body.reason, actor)) }),
  ),
  defineRoute(
    {
      method: 'post',
      path: '/deals/{deal_id}/payout/assign',
      operationId: 'adminAssignPayout',
      auth: 'operator',
      summary: 'Manual assignment (admin override): UNASSIGNED or MATCHED → MATCHED to the given requisite',
      tags,
      params: dealParams,
      body: assignBody,
      response: operatorDealResponse,
      errors: [404],
      audit: inStep('payout.assign'),
    },
    async ({ params, body, actor }, deps) => ({ deal: presentForOperator(deps, await assignPayout(deps, params.deal_id, body.requisite_id, actor)) }),
  ),
  defineRoute(
    {
      method: 'post',
      path: '/deals/{deal_id}/reconciliation',
      operationId: 'adminReconcileDeal',
      auth: 'operator',
      summary: 'Report the amount actually received: sets received_amount and amount_match_status (full, partial, overpaid)',
      tags,
      params: dealParams,
      body: reconciliationBody,
      response: operatorDealResponse,
      errors: [404],
      audit: inStep('deal.reconcile'),
    },
    async ({ params, body, actor }, deps) => ({ deal: presentForOperator(deps, await reconcilePayin(deps, params.deal_id, body.received_amount, actor)) }),
  ),
  defineRoute(
    {
      method: 'post',
      path: '/deals/{deal_id}/confirm',
      operationId: 'adminConfirmDeal',
      auth: 'operator',
      summary: 'The trader confirmed receipt: PAYMENT_VERIFIED, then COMPLETED unless reconciliation was partial or overpaid',
      tags,
      params: dealParams,
      response: operatorDealResponse,
      errors: [404],
      audit: inStep('deal.confirm'),
    },
    async ({ params, actor }, deps) => ({ deal: presentForOperator(deps, await confirmPayinByOperator(deps, params.deal_id, actor)) }),
  ),
  defineRoute(
    {
      method: 'post',
      path: '/deals/{deal_id}/complete',
      operationId: 'adminCompleteDeal',
      auth: 'operator',
      summary: 'Complete a PAYMENT_VERIFIED deal whose autocompletion was blocked',
      tags,
      params: dealParams,
      response: operatorDealResponse,
      errors: [404],
      audit: inStep('deal.complete'),
    },
    async ({ params, actor }, deps) => ({ deal: presentForOperator(deps, await completePayinByOperator(deps, params.deal_id, actor)) }),
  ),
];

/** The amount change at its spec path directly under /api/v1/p2p. */
export const dealP2pRoutes = [
  defineRoute(
    {
      method: 'post',
      path: '/deals/{deal_id}/amount',
      operationId: 'changeDealAmount',
      auth: 'operator',
      summary: 'Operator amount change: amount_version + 1, escrow recreated, audit row, deal.amount_changed',
      description:
        'Answers { deal, amount_version, amount_usdt }. Same idempotency_key and amount: a replay with the current deal. ' +
        'Same key with another amount, or a stale expected_amount_version: 409. From PAYMENT_VERIFIED on: 400.',
      tags,
      params: dealParams,
      body: amountChangeBody,
      response: amountChangeResponse,
      errors: [404, 409],
      audit: inStep('deal.amount_change'),
    },
    async ({ params, body, identity, actor }, deps) => {
      const row = await changePayinAmountByOperator(deps, params.deal_id, {
        amountFiat: body.amount_fiat.toString(),
        reason: body.reason,
        idempotencyKey: body.idempotency_key,
        expectedAmountVersion: (body.expected_amount_version ?? 0n).toString(),
        operatorId: operatorOf(identity).operatorId,
        ...(actor ? { actor } : {}),
      });
      return { deal: presentForOperator(deps, row), amount_version: row.amount_version.toString(), amount_usdt: row.amount_usdt.toString() };
    },
  ),
];
