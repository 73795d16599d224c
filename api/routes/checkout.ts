import { z } from 'zod';
import { defineRoute } from '../route';
import { NotFound } from '../../domain/errors';
import { checkoutParams, checkoutViewSchema, dealResponse } from '../schemas/deals';
import { checkoutView } from '../services/checkout-view';
import { cancelCheckout, getCheckout, notifyCheckoutPayment, present } from '../services/payins';
import { checkoutPage, checkoutScript, notFoundPage } from '../pages/checkout-page';

const CHECKOUT = '/api/v1/p2p/checkout';
const tags = ['Checkout (payer)'];

export const checkoutRoutes = [
  defineRoute(
    {
      method: 'get',
      path: `${CHECKOUT}/{hash}`,
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
      path: `${CHECKOUT}/{hash}/cancel`,
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
      path: `${CHECKOUT}/{hash}/notify-payment`,
      auth: 'public',
      summary: "The payer pressed 'I paid': ESCROW_LOCKED → PAYMENT_NOTIFIED; a repeat is 400 FAILED_PRECONDITION",
      tags,
      params: checkoutParams,
      response: dealResponse,
      errors: [404],
    },
    async ({ params }, deps) => ({ deal: present(deps, await notifyCheckoutPayment(deps, params.hash)) }),
  ),
  defineRoute(
    {
      method: 'get',
      path: '/pay/{hash}',
      auth: 'public',
      summary: 'The hosted payment page (HTML) behind payment_url',
      tags,
      params: z.object({ hash: z.string() }),
      responseContentType: 'text/html',
      replies: { 404: 'unknown hash: an HTML page saying so' },
    },
    async (_input, deps, ctx) => {
      const hash = String(ctx.params.hash ?? '');
      ctx.type = 'text/html; charset=utf-8';
      ctx.set('Content-Security-Policy', "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:");
      ctx.set('Referrer-Policy', 'no-referrer');
      try {
        ctx.body = checkoutPage(hash, checkoutView(await getCheckout(deps, hash)));
      } catch (error) {
        if (!(error instanceof NotFound)) throw error;
        ctx.status = 404;
        ctx.body = notFoundPage();
      }
    },
  ),
  defineRoute(
    { method: 'get', path: '/pay/assets/checkout.js', auth: 'public', summary: 'Script of the payment page', tags, responseContentType: 'application/javascript' },
    (_input, _deps, ctx) => {
      ctx.type = 'application/javascript';
      ctx.set('Cache-Control', 'public, max-age=300');
      ctx.body = checkoutScript;
    },
  ),
];
