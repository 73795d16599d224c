/** The PayOut quote: the hold a PayOut will take, shown before it is sent (the cabinet's PayOut form). */
import { defineRoute } from '../../route';
import { merchantOf } from '../../auth/authenticate';
import { payoutQuoteQuery, payoutQuoteResponse } from '../../schemas/payout-quote';
import { quotePayout } from '../../services/payouts';

export const payoutQuoteRoutes = [
  defineRoute(
    {
      method: 'get',
      path: '/deals/payout/quote',
      operationId: 'quotePayout',
      auth: 'cabinet_or_hmac',
      summary: "Quote a PayOut: the USDT hold (amount at the SELL rate now + the payout fee) and the wallet's available balance",
      description:
        'Reads only. Refuses as the create would for the same amount and currency: outside the per-deal bounds 400 INVALID_ARGUMENT, ' +
        'an unknown currency 400 INVALID_ARGUMENT, no rate 400 FAILED_PRECONDITION.',
      tags: ['Deals'],
      query: payoutQuoteQuery,
      response: payoutQuoteResponse,
      example: {
        request: { amount: '150000', currency: 'RUB' },
        response: {
          amount: '150000',
          currency: 'RUB',
          rate_micro: '95000000',
          amount_usdt_cents: '1579',
          fee_usdt_cents: '32',
          hold_usdt_cents: '1611',
          available_usdt_cents: '1250000',
        },
      },
    },
    ({ identity, query }, deps) => quotePayout(deps, merchantOf(identity), query),
  ),
];
