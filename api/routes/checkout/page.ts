/** The hosted payment page behind payment_url (/pay/{hash}) and its script. */
import { z } from 'zod';
import { NotFound } from '../../../domain/errors';
import { defineRoute } from '../../route';
import { checkoutView } from '../../services/checkout-view';
import { getCheckout } from '../../services/payins';
import { checkoutPage, checkoutScript, notFoundPage } from '../../pages/checkout-page';
import { tags } from './checkout';

export const pageRoutes = [
  defineRoute(
    {
      method: 'get',
      path: '/{hash}',
      operationId: 'getPaymentPage',
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
    { method: 'get', path: '/assets/checkout.js', operationId: 'getPaymentPageScript', auth: 'public', summary: 'Script of the payment page', tags, responseContentType: 'application/javascript' },
    (_input, _deps, ctx) => {
      ctx.type = 'application/javascript';
      ctx.set('Cache-Control', 'public, max-age=300');
      ctx.body = checkoutScript;
    },
  ),
];
