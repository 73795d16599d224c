/** The payer's checkout API (spec 4.1.1, contract 6), by the deal's checkout hash: the view, cancel, "I paid". */
import { defineRoute } from '../../route';
import { checkoutParams, checkoutViewSchema, dealResponse } from '../../schemas/deals';
import { checkoutView } from '../../services/checkout-view';
import { cancelCheckout, getCheckout, notifyCheckoutPayment, present } from '../../services/payins';

export const tags = ['Checkout (payer)'];

export const checkoutRoutes = [
  defineRoute(
    {
      method: 'get',
      path: '/{hash}',
      operationId: 'getCheckout',
      auth: 'public',
      summary: 'CheckoutView of the payment page (the object itself, no wrapper); unknown hash 404',
      tags,
      params: checkoutParams,
      response: checkoutViewSchema,
      errors: [404],
    },
    async ({ params }, deps) => checkoutView(await getCheckout(deps, params.hash)),
  ),
  defineRoute(
    {
      method: 'post',
      path: '/{hash}/cancel',
      operationId: 'cancelCheckout',
      auth: 'public',
      summary: 'The payer cancels: CANCELLED (holds released); 409 for a terminal deal, 200 again on CANCELLED',
      tags,
      params: checkoutParams,
      response: checkoutViewSchema,
      errors: [404, 409],
    },
    async ({ params }, deps) => checkoutView(await cancelCheckout(deps, params.hash)),
  ),
  defineRoute(
    {
      method: 'post',
      path: '/{hash}/notify-payment',
      operationId: 'notifyPayment',
      auth: 'public',
      summary: "The payer pressed 'I paid': ESCROW_LOCKED → PAYMENT_NOTIFIED; a repeat is 400 FAILED_PRECONDITION",
      tags,
      params: checkoutParams,
      response: dealResponse,
      errors: [404],
    },
    async ({ params }, deps) => ({ deal: present(deps, await notifyCheckoutPayment(deps, params.hash)) }),
  ),
];
