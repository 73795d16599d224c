/** Exchange rates: the BUY and SELL rate of a fiat currency against USDT. */
import { defineRoute } from '../../route';
import { rateBody, rateParams, rateResponse } from '../../schemas/rates';
import { setRate } from '../../services/rates';

const tags = ['Operator'];

export const rateRoutes = [
  defineRoute(
    {
      method: 'put',
      path: '/rates/{currency}',
      operationId: 'adminSetRate',
      auth: 'operator',
      summary: 'Set the BUY and SELL rate of a fiat currency (micro-units of fiat per 1 USDT)',
      tags,
      params: rateParams,
      body: rateBody,
      response: rateResponse,
      errors: [404],
      audit: { action: 'rate.set', objectType: 'rate', by: 'service' },
    },
    async ({ params, body, actor }, deps) => ({ rate: await setRate(deps, params.currency, body.buy_rate_micro, body.sell_rate_micro, actor) }),
  ),
];
