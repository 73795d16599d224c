/** Exchange rates: micro-units of fiat per 1 USDT. */
import { z } from 'zod';
import { int64String, positiveAmount, timestamp } from './common';

export const rateParams = z.object({ currency: z.string().regex(/^[A-Z]{3,5}$/, 'currency must be an ISO 4217 code') });
export const rateBody = z
  .object({
    buy_rate_micro: positiveAmount('buy_rate_micro'),
    sell_rate_micro: positiveAmount('sell_rate_micro'),
  })
  .openapi('PutRateRequest');
export const rateResponse = z
  .object({
    rate: z.object({
      currency: z.string(),
      buy_rate_micro: int64String,
      sell_rate_micro: int64String,
      updated_at: timestamp,
    }),
  })
  .openapi('RateResponse');
