/** The PayOut quote: the hold a PayOut of an amount will take, asked before the PayOut is sent. */
import { z } from 'zod';
import { int64String } from './common';
import { positiveQueryAmount } from './withdrawals';

export const payoutQuoteQuery = z.object({
  amount: positiveQueryAmount('amount').openapi({ description: 'the PayOut amount in minor units of currency' }),
  currency: z.string({ error: 'currency is required' }).regex(/^[A-Z]{3}$/, 'currency must be an ISO 4217 alphabetic code'),
});

export const payoutQuoteResponse = z
  .object({
    amount: int64String.openapi({ description: 'the PayOut amount, minor units of currency' }),
    currency: z.string(),
    rate_micro: int64String.openapi({ description: 'the SELL rate now: units of currency per USDT, × 10^6' }),
    amount_usdt_cents: int64String.openapi({ description: 'the amount at that rate' }),
    fee_usdt_cents: int64String.openapi({ description: "the merchant's payout fee on it" }),
    hold_usdt_cents: int64String.openapi({ description: 'what moves available → frozen when the PayOut is created: amount_usdt_cents + fee_usdt_cents' }),
    available_usdt_cents: int64String.openapi({ description: "the USDT wallet's available balance now (0 without a wallet)" }),
  })
  .openapi('PayoutQuote', {
    description:
      'The hold a PayOut of this amount would take at the rate now. The PayOut fixes its own rate when it is created, so its hold ' +
      'is the one its answer and GET /balance show; a rate change in between changes it.',
  });
