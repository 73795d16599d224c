/** The merchant's deals: PayIn and PayOut create, one deal, cancel. */
import { defineRoute, IDEMPOTENT_REPLAYED_HEADER, markReplayed } from '../../route';
import { EXAMPLES } from '../../schemas/examples';
import { merchantOf } from '../../auth/authenticate';
import { cancelBody, createPayinBody, createPayoutBody, dealParams, dealResponse, payoutResponse } from '../../schemas/deals';
import { cancelMerchantPayin, createPayin, getMerchantDeal, present } from '../../services/payins';
import { createPayout, payoutRequisiteDetails } from '../../services/payouts';

const tags = ['Deals'];

export const dealRoutes = [
  defineRoute(
    {
      method: 'post',
      path: '/deals/payin',
      operationId: 'createPayin',
      example: EXAMPLES.createPayin,
      auth: 'hmac',
      summary: 'Create a PayIn: matched to a trader and escrow-locked synchronously (status ESCROW_LOCKED)',
      description:
        'Idempotent per merchant by the body field idempotency_key: a repeat answers the deal as it is now with 200, ' +
        'whatever its body. Both the first and repeated calls answer 200; Idempotent-Replayed says which it was. When no trader can take the deal, 400 ' +
        'FAILED_PRECONDITION and nothing is created (retry later with the same key).',
      tags,
      body: createPayinBody,
      idempotent: true,
      response: dealResponse,
      responseHeaders: IDEMPOTENT_REPLAYED_HEADER,
      errors: [409],
    },
    async ({ identity, body }, deps, ctx) => {
      const { row, replayed } = await createPayin(deps, merchantOf(identity), body);
      markReplayed(ctx, replayed);
      return { deal: present(deps, row) };
    },
  ),
  defineRoute(
    {
      method: 'post',
      path: '/deals/payout',
      operationId: 'createPayout',
      example: EXAMPLES.createPayout,
      auth: 'cabinet_or_hmac',
      summary: "Create a PayOut: the merchant's USDT hold (SELL rate + payout fee) is placed at once; MATCHED or UNASSIGNED",
      description:
        'Idempotent per merchant by idempotency_key (a key used by another merchant is 409). Too little available is ' +
        '400 FAILED_PRECONDITION. payment_url is empty; target_requisite, target_name and requisite_details are echoed. ' +
        'A repeat answers the deal as it is now, whatever its body; Idempotent-Replayed says which it was.',
      tags,
      body: createPayoutBody,
      idempotent: true,
      response: payoutResponse,
      responseHeaders: IDEMPOTENT_REPLAYED_HEADER,
      errors: [409],
    },
    async ({ identity, body }, deps, ctx) => {
      const { row, replayed } = await createPayout(deps, merchantOf(identity), body);
      markReplayed(ctx, replayed);
      return { deal: { ...present(deps, row), requisite_details: payoutRequisiteDetails(deps, row), target_name: row.target_name } };
    },
  ),
  defineRoute(
    {
      method: 'get',
      path: '/deals/{deal_id}',
      operationId: 'getDeal',
      example: EXAMPLES.getDeal,
      auth: 'hmac',
      summary: 'One deal of the caller (PayIn or PayOut); foreign or unknown ids are 404',
      tags,
      params: dealParams,
      response: dealResponse,
      errors: [404],
    },
    async ({ identity, params }, deps) => ({ deal: present(deps, await getMerchantDeal(deps, merchantOf(identity), params.deal_id)) }),
  ),
  defineRoute(
    {
      method: 'post',
      path: '/deals/{deal_id}/cancel',
      operationId: 'cancelDeal',
      example: EXAMPLES.cancelDeal,
      auth: 'hmac',
      summary: 'Cancel a PayIn before payment confirmation; a repeat on CANCELLED answers 200',
      description: 'PayOut, foreign and unknown ids are 404. From PAYMENT_VERIFIED on (and from terminal states) 400.',
      tags,
      params: dealParams,
      body: cancelBody,
      bodyOptional: true,
      idempotent: true,
      response: dealResponse,
      errors: [404],
    },
    async ({ identity, params, body }, deps) => ({
      deal: present(deps, await cancelMerchantPayin(deps, merchantOf(identity), params.deal_id, body?.reason ?? '')),
    }),
  ),
];
