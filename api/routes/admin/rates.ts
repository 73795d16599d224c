/** Currencies and exchange rates: the tenant's currencies, the BUY and SELL rate of a fiat currency against USDT. */
import { z } from 'zod';
import { defineRoute } from '../../route';
import { rateBody, rateParams, rateResponse } from '../../schemas/rates';
import { listTenantCurrencies, setRate } from '../../services/rates';

const tags = ['Operator'];

export const rateRoutes = [
  defineRoute(
    {
      method: 'get',
      path: '/currencies',
      operationId: 'adminListCurrencies',
      auth: 'operator',
      summary: "The tenant's currencies (USDT among them) with their exponents: how many minor units make a major one",
      description: 'The console enters and shows amounts in major units with their currency by these exponents.',
      tags,
      response: z
        .object({
          data: z.array(z.object({ code: z.string(), name: z.string(), exponent: z.number().int().min(0).max(4), status: z.string() })),
        })
        .openapi('CurrencyList'),
    },
    async (_input, deps) => ({ data: await listTenantCurrencies(deps) }),
  ),
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
