/**
 * The trader's deal queue under /api/v1/p2p/trader: its deals (live first, with their timers), the
 * payouts it may take, and its moves — each an update of the deal's workflow with the trader as
 * the actor (api/services/trader-deals.ts).
 */
import { traderOf } from '../../auth/authenticate';
import { defineRoute } from '../../route';
import { dealParams } from '../../schemas/deals';
import {
  availablePayoutList,
  availablePayoutsQuery,
  completedPayoutResponse,
  confirmReceivedBody,
  notReceivedBody,
  payoutProofForm,
  traderDealList,
  traderDealQuery,
  traderDealResponse,
  traderRejectBody,
} from '../../schemas/trader-deals';
import {
  availablePayouts,
  completeOwnPayout,
  confirmReceived,
  listOwnDeals,
  ownDeal,
  presentTraderDeal,
  rejectOwnPayout,
  reportNotReceived,
  startOwnPayout,
  takePayout,
} from '../../services/trader-deals';

const tags = ['Trader: deals'];
/** A trader's move is audited in its step's transaction: the actor rides the workflow update. */
const inStep = (action: string) => ({ action, objectType: 'deal', by: 'service' as const });
const REFUSAL = "409: the deal's state does not allow the move (the state table's words, e.g. `payout is COMPLETED`); 404: not your deal.";

export const traderDealRoutes = [
  defineRoute(
    {
      method: 'get',
      path: '/deals',
      operationId: 'traderListDeals',
      auth: 'trader',
      summary: 'Your deals: every live one with its timer (expires_at), then your history, newest first; by type and statuses',
      tags,
      query: traderDealQuery,
      response: traderDealList,
    },
    ({ query, identity }, deps) => listOwnDeals(deps, traderOf(identity).traderId, query),
  ),
  defineRoute(
    {
      method: 'get',
      path: '/payouts/available',
      operationId: 'traderListAvailablePayouts',
      auth: 'trader',
      summary: 'UNASSIGNED payouts you may take: one of your ACTIVE requisites serves their payment method and amount; oldest first',
      tags,
      query: availablePayoutsQuery,
      response: availablePayoutList,
    },
    ({ query, identity }, deps) => availablePayouts(deps, traderOf(identity).traderId, query.page_size),
  ),
  defineRoute(
    {
      method: 'get',
      path: '/deals/{deal_id}',
      operationId: 'traderGetDeal',
      auth: 'trader',
      summary: 'One of your deals, with the moves its state allows you now',
      tags,
      params: dealParams,
      response: traderDealResponse,
      errors: [404],
    },
    async ({ params, identity }, deps) => ({ deal: presentTraderDeal(await ownDeal(deps, traderOf(identity).traderId, params.deal_id)) }),
  ),
  defineRoute(
    {
      method: 'post',
      path: '/deals/{deal_id}/confirm',
      operationId: 'traderConfirmPayin',
      auth: 'trader',
      summary: 'PayIn: you received the payment — the amount that arrived is recorded and the receipt confirmed',
      description:
        'received_amount against amount_to_pay sets amount_match_status: full completes the deal (COMPLETED); partial or overpaid leaves it ' +
        `PAYMENT_VERIFIED for an operator. From ESCROW_LOCKED or PAYMENT_NOTIFIED only. ${REFUSAL}`,
      tags,
      params: dealParams,
      body: confirmReceivedBody,
      response: traderDealResponse,
      errors: [404, 409],
      audit: inStep('deal.confirm'),
    },
    async ({ params, body, identity, actor }, deps) => ({
      deal: await confirmReceived(deps, traderOf(identity).traderId, params.deal_id, body.received_amount, actor),
    }),
  ),
  defineRoute(
    {
      method: 'post',
      path: '/deals/{deal_id}/not-received',
      operationId: 'traderReportPayinNotReceived',
      auth: 'trader',
      summary: 'PayIn: the payment did not arrive — recorded with an operator alert; the deal stays as it is',
      description:
        'No state of a PayIn means "not received": the deal keeps its status and waits for its expiry (EXPIRED, the escrow back to you), ' +
        `an appeal or an operator; not_received_at and not_received_reason show the report. From ESCROW_LOCKED or PAYMENT_NOTIFIED only. ${REFUSAL}`,
      tags,
      params: dealParams,
      body: notReceivedBody,
      bodyOptional: true,
      response: traderDealResponse,
      errors: [404, 409],
      audit: inStep('deal.not_received'),
    },
    async ({ params, body, identity, actor }, deps) => ({
      deal: await reportNotReceived(deps, traderOf(identity).traderId, params.deal_id, body?.reason ?? '', actor),
    }),
  ),
  defineRoute(
    {
      method: 'post',
      path: '/deals/{deal_id}/take',
      operationId: 'traderTakePayout',
      auth: 'trader',
      summary: 'PayOut: take an UNASSIGNED payout you may serve — MATCHED to your requisite, its transfer window starts',
      description:
        'Of concurrent takers exactly one wins; the others get 409 `payout is MATCHED`. A payout none of your ACTIVE requisites serves is 404. ' +
        'Taking one you took already answers it.',
      tags,
      params: dealParams,
      response: traderDealResponse,
      errors: [404, 409],
      audit: inStep('payout.take'),
    },
    async ({ params, identity, actor }, deps) => ({ deal: await takePayout(deps, traderOf(identity).traderId, params.deal_id, actor) }),
  ),
  defineRoute(
    {
      method: 'post',
      path: '/deals/{deal_id}/start',
      operationId: 'traderStartPayout',
      auth: 'trader',
      summary: 'PayOut: you start the transfer — MATCHED → PROCESSING',
      description: REFUSAL,
      tags,
      params: dealParams,
      response: traderDealResponse,
      errors: [404, 409],
      audit: inStep('payout.start'),
    },
    async ({ params, identity, actor }, deps) => ({ deal: await startOwnPayout(deps, traderOf(identity).traderId, params.deal_id, actor) }),
  ),
  defineRoute(
    {
      method: 'post',
      path: '/deals/{deal_id}/complete',
      operationId: 'traderCompletePayout',
      auth: 'trader',
      summary: "PayOut: the transfer was sent — PROCESSING → COMPLETED with its proof (the bank's reference and a receipt file)",
      description:
        'multipart/form-data: the field `bank_reference` (1 to 100 characters) and the file in the part `file` — a photo, screenshot or PDF ' +
        '(PNG, JPEG, WEBP or PDF, sniffed from the bytes; at most EVIDENCE_MAX_BYTES). The move is checked before the file is stored. The ' +
        "merchant's deal and its deal.completed webhook then carry payout_proof { bank_reference, file_id }, and the merchant may download the file. " +
        REFUSAL,
      tags,
      params: dealParams,
      multipartBody: payoutProofForm,
      response: completedPayoutResponse,
      errors: [404, 409, 413],
      audit: inStep('payout.complete'),
    },
    async ({ params, identity, actor }, deps, ctx) =>
      completeOwnPayout(deps, traderOf(identity).traderId, params.deal_id, { raw: ctx.state.rawBody, contentType: ctx.get('Content-Type') }, actor),
  ),
  defineRoute(
    {
      method: 'post',
      path: '/deals/{deal_id}/reject',
      operationId: 'traderRejectPayout',
      auth: 'trader',
      summary: "PayOut: the transfer failed or cannot be made — PROCESSING → FAILED, the merchant's hold returned",
      description: REFUSAL,
      tags,
      params: dealParams,
      body: traderRejectBody,
      response: traderDealResponse,
      errors: [404, 409],
      audit: inStep('payout.reject'),
    },
    async ({ params, body, identity, actor }, deps) => ({
      deal: await rejectOwnPayout(deps, traderOf(identity).traderId, params.deal_id, body.reason, actor),
    }),
  ),
];
