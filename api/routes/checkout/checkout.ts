/**
 * The payer's checkout API, by the deal's checkout hash: the view, cancel,
 * "I paid" — each answering the CheckoutView ("I paid" with the deal's id and status beside it, never the merchant's deal), none of it cached,
 * framed or indexed.
 */
import { defineRoute } from '../../route';
import { checkoutNotifyResponseSchema, checkoutParams, checkoutViewSchema } from '../../schemas/deals';
import { checkoutView } from '../../services/checkout-view';
import { cancelCheckout, getCheckout, notifyCheckoutPayment } from '../../services/payins';
import { payerPrivateHeaders } from '../../pages/payer/headers';

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
    async ({ params }, deps, ctx) => {
      payerPrivateHeaders(ctx);
      return checkoutView(await getCheckout(deps, params.hash));
    },
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
    async ({ params }, deps, ctx) => {
      payerPrivateHeaders(ctx);
      return checkoutView(await cancelCheckout(deps, params.hash));
    },
  ),
  defineRoute(
    {
      method: 'post',
      path: '/{hash}/notify-payment',
      operationId: 'notifyPayment',
      auth: 'public',
      summary: "The payer pressed 'I paid': ESCROW_LOCKED → PAYMENT_NOTIFIED; a repeat is 400 FAILED_PRECONDITION",
      description:
        'Answers the CheckoutView as it is after the move (as GET and cancel do) with `deal` beside it, the resulting deal as ' +
        "the contract's operator moves answer it but holding only its id, status and amount: a public caller holding only the " +
        "page's link never receives the merchant's deal object (client_id, received_amount, …).",
      tags,
      params: checkoutParams,
      response: checkoutNotifyResponseSchema,
      errors: [404],
    },
    async ({ params }, deps, ctx) => {
      payerPrivateHeaders(ctx);
      const row = await notifyCheckoutPayment(deps, params.hash);
      const view = checkoutView(row);
      return { ...view, deal: { deal_id: row.id, status: view.status, amount: view.amount, currency: view.currency, amount_version: view.amount_version } };
    },
  ),
];
