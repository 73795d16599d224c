import type { AppDeps } from '../deps';
import { assertWebhookTarget } from './webhook-target';
import { InvalidArgument } from '../../domain/errors';
import { lockMerchantLimits, updateMerchant, type MerchantProfileRow } from '../../db/queries/merchants';
import { getMerchantProfile } from './merchants';

export interface ProfilePatch {
  name?: string;
  webhook_url?: string;
  withdrawal_address?: string;
  success_redirect_url?: string;
  fail_redirect_url?: string;
  checkout_brand_name?: string;
  finance_chat_id?: string;
  appeal_chat_id?: string;
  ip_whitelist?: string[];
  deal_min_amount?: bigint;
  deal_max_amount?: bigint;
  daily_deal_amount_limit?: bigint;
}

const TEXT_FIELDS = ['name', 'webhook_url', 'withdrawal_address', 'success_redirect_url', 'fail_redirect_url', 'checkout_brand_name', 'finance_chat_id', 'appeal_chat_id'] as const;
const LIMIT_FIELDS = ['deal_min_amount', 'deal_max_amount', 'daily_deal_amount_limit'] as const;

/** PATCH my-merchant (spec 4.3): one row update under a lock, so min/max are checked against what is stored. */
export async function patchProfile(deps: AppDeps, merchantId: string, patch: ProfilePatch): Promise<MerchantProfileRow> {
  if (patch.webhook_url) await assertWebhookTarget(deps.config, 'webhook_url', patch.webhook_url);
  await deps.sql.begin(async (tx) => {
    const current = await lockMerchantLimits(tx, merchantId);
    const changes: Record<string, unknown> = {};
    for (const field of TEXT_FIELDS) if (patch[field] !== undefined) changes[field] = patch[field];
    if (patch.ip_whitelist !== undefined) changes.ip_whitelist = patch.ip_whitelist;
    for (const field of LIMIT_FIELDS) {
      const value = patch[field];
      if (value !== undefined) changes[field] = value === 0n ? null : value;
    }
    const min = 'deal_min_amount' in changes ? (changes.deal_min_amount as bigint | null) : current!.deal_min_amount;
    const max = 'deal_max_amount' in changes ? (changes.deal_max_amount as bigint | null) : current!.deal_max_amount;
    if (min !== null && max !== null && max < min) {
      throw new InvalidArgument(`deal_max_amount ${max} is below deal_min_amount ${min}`, [
        { field: 'deal_max_amount', message: 'below the minimum', code: 'max_below_min' },
      ]);
    }
    if (Object.keys(changes).length === 0) return;
    await updateMerchant(tx, merchantId, changes);
  });
  return getMerchantProfile(deps, merchantId);
}
