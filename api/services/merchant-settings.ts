/** Operator-only merchant settings (contract 3: PATCH /admin/merchants/{merchant_id}). */
import type { AppDeps } from '../deps';
import { NotFound } from '../../domain/errors';
import { effectiveAutoLimit } from '../../domain/withdrawals';
import { updateMerchant, type MerchantProfileRow } from '../../db/queries/merchants';
import { presentMerchant } from '../schemas/merchant';
import { getMerchantProfile } from './merchants';

export interface MerchantSettingsPatch {
  auto_withdrawal_mode?: 'AUTO_UP_TO_LIMIT' | 'MANUAL_ONLY';
  auto_withdrawal_limit_usdt_cents?: bigint;
  rate_limit_per_minute?: number | null;
  payin_fee_bps?: number;
  payout_fee_bps?: number;
  webhook_max_retries?: number;
  signature_binding?: 'optional' | 'required';
}

const FIELDS = ['auto_withdrawal_mode', 'auto_withdrawal_limit_usdt_cents', 'rate_limit_per_minute', 'payin_fee_bps', 'payout_fee_bps', 'webhook_max_retries', 'signature_binding'] as const;

export async function patchMerchantSettings(deps: AppDeps, merchantId: string, patch: MerchantSettingsPatch): Promise<MerchantProfileRow> {
  const changes: Record<string, unknown> = {};
  for (const field of FIELDS) if (patch[field] !== undefined) changes[field] = patch[field];
  if (Object.keys(changes).length > 0) {
    if (!(await updateMerchant(deps.sql, merchantId, changes))) throw new NotFound('merchant not found');
    deps.log.info({ merchantId, changes: Object.keys(changes) }, 'merchant settings changed by an operator');
  }
  return getMerchantProfile(deps, merchantId);
}

/** The profile plus the operator-only settings. */
export function presentMerchantForOperator(row: MerchantProfileRow & { webhook_max_retries?: number }) {
  return {
    ...presentMerchant(row),
    auto_withdrawal_mode: row.auto_withdrawal_mode as 'AUTO_UP_TO_LIMIT' | 'MANUAL_ONLY',
    auto_withdrawal_limit_usdt_cents: row.auto_withdrawal_limit_usdt_cents.toString(),
    auto_withdrawal_effective_limit_usdt_cents: effectiveAutoLimit(row.auto_withdrawal_mode, row.auto_withdrawal_limit_usdt_cents).toString(),
    rate_limit_per_minute: row.rate_limit_per_minute,
    payin_fee_bps: row.payin_fee_bps,
    payout_fee_bps: row.payout_fee_bps,
    webhook_max_retries: row.webhook_max_retries ?? 5,
  };
}
