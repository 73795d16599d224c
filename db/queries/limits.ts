import type { Db } from '../sql';
import { FailedPrecondition, InvalidArgument } from '../../domain/errors';
import { VOLUME_EXCLUDED_STATUSES } from '../../domain/payout';

export interface MerchantLimits {
  deal_min_amount: bigint | null;
  deal_max_amount: bigint | null;
  daily_deal_amount_limit: bigint | null;
}

/** Per-deal bounds (spec 8): 400 INVALID_ARGUMENT. */
export function checkDealBounds(limits: MerchantLimits, amount: bigint): void {
  if (limits.deal_min_amount !== null && amount < limits.deal_min_amount) {
    throw new InvalidArgument(`amount ${amount} is below the merchant minimum ${limits.deal_min_amount}`);
  }
  if (limits.deal_max_amount !== null && amount > limits.deal_max_amount) {
    throw new InvalidArgument(`amount ${amount} is above the merchant maximum ${limits.deal_max_amount}`);
  }
}

/**
 * The UTC-day cap on PayIn plus PayOut volume (amounts in minor units, as the spec counts them),
 * excluding EXPIRED, SPAM_REJECTED and FAILED. Called inside the creating transaction: it locks
 * the merchant row first, so two concurrent creates cannot both slip under the cap.
 */
export async function checkDailyCap(tx: Db, merchantId: string, amount: bigint): Promise<void> {
  const [merchant] = await tx<MerchantLimits[]>`
    select deal_min_amount, deal_max_amount, daily_deal_amount_limit from merchants where id = ${merchantId}`;
  if (!merchant || merchant.daily_deal_amount_limit === null) return;
  await tx`select id from merchants where id = ${merchantId} for update`;
  const [today] = await tx<{ volume: bigint }[]>`
    select coalesce(sum(amount), 0)::bigint as volume from deals
    where merchant_id = ${merchantId}
      and created_at >= date_trunc('day', now() at time zone 'utc') at time zone 'utc'
      and status <> all(${VOLUME_EXCLUDED_STATUSES as unknown as string[]})`;
  const cap = merchant.daily_deal_amount_limit;
  if (today!.volume + amount > cap) {
    throw new FailedPrecondition(
      `daily deal volume limit exceeded: today's volume ${today!.volume}, requested ${amount}, daily limit ${cap}`,
    );
  }
}
