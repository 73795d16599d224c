import type { Db } from '../sql';
import { FailedPrecondition } from '../../domain/errors';
import type { DealBounds } from '../../domain/limits';
import { VOLUME_EXCLUDED_STATUSES } from '../../domain/state/payout';

interface MerchantLimits extends DealBounds {
  daily_deal_amount_limit: bigint | null;
}

/**
 * The UTC-day cap on PayIn plus PayOut volume (amounts in minor units, as the spec counts them),
 * excluding EXPIRED, SPAM_REJECTED and FAILED. Called inside the creating transaction with the cap
 * the deal was priced with (null: none, nothing to check); it locks the merchant row first, so two
 * concurrent creates cannot both slip under the cap.
 */
export async function checkDailyCap(tx: Db, merchantId: string, amount: bigint, dailyLimit: bigint | null): Promise<void> {
  if (dailyLimit === null) return;
  // Locked, then read again: the cap an operator may just have changed is the one that counts.
  const [merchant] = await tx<MerchantLimits[]>`
    select deal_min_amount, deal_max_amount, daily_deal_amount_limit from merchants where id = ${merchantId} for no key update`;
  if (!merchant || merchant.daily_deal_amount_limit === null) return;
  const [today] = await tx<{ volume: bigint }[]>`
    select coalesce(sum(amount), 0)::bigint as volume from deals
    where merchant_id = ${merchantId}
      and created_at >= date_trunc('day', now() at time zone 'utc') at time zone 'utc'
      and status <> all(${VOLUME_EXCLUDED_STATUSES as unknown as string[]})`;
  const cap = merchant.daily_deal_amount_limit;
  if (today!.volume + amount > cap) {
    throw new FailedPrecondition(`daily deal volume limit exceeded: today's volume ${today!.volume}, requested ${amount}, daily limit ${cap}`);
  }
}
