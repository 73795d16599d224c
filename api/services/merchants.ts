import type { AppDeps } from '../deps';
import { assertWebhookTarget } from './webhook-target';
import { NotFound } from '../../domain/errors';
import {
  findMerchantProfile,
  insertMerchant,
  setMerchantDisabled,
  toggleMerchantDisabled,
  type MerchantProfileRow,
  type NewMerchant,
} from '../../db/queries/merchants';
import { replaceKeyPair, type IssuedKeyPair } from '../../db/queries/api-keys';

export async function getMerchantProfile(deps: AppDeps, merchantId: string): Promise<MerchantProfileRow> {
  const row = await findMerchantProfile(deps.sql, merchantId);
  if (!row) throw new NotFound('merchant not found');
  return row;
}

export async function createMerchant(deps: AppDeps, input: NewMerchant): Promise<MerchantProfileRow> {
  if (input.webhook_url) await assertWebhookTarget(deps.config, 'webhook_url', input.webhook_url);
  const id = await deps.sql.begin((tx) =>
    insertMerchant(tx, { ...input, auto_withdrawal_limit_usdt_cents: input.auto_withdrawal_limit_usdt_cents ?? deps.config.AUTO_WITHDRAWAL_LIMIT_USDT_CENTS }),
  );
  return getMerchantProfile(deps, id);
}

/** Issue (operator) and rotation (merchant) both make a new current pair; the old pair keeps its grace window. */
export async function replaceMerchantKeys(deps: AppDeps, merchantId: string): Promise<IssuedKeyPair> {
  const pair = await deps.sql.begin((tx) =>
    replaceKeyPair(tx, deps.secretBox, merchantId, deps.config.MERCHANT_KEY_GRACE_PERIOD),
  );
  if (!pair) throw new NotFound('merchant not found');
  deps.log.info({ merchantId }, 'merchant key pair replaced');
  return pair;
}

export interface KillSwitchState {
  merchant_id: string;
  disabled: boolean;
  /** RFC 3339 while the switch is on; null once cleared (spec 3.4: clearing nullifies it). */
  disabled_at: string | null;
}

function present(row: { id: string; disabled_at: Date | null } | undefined): KillSwitchState {
  if (!row) throw new NotFound('merchant not found');
  return { merchant_id: row.id, disabled: row.disabled_at !== null, disabled_at: row.disabled_at?.toISOString() ?? null };
}

export async function toggleKillSwitch(deps: AppDeps, merchantId: string): Promise<KillSwitchState> {
  const state = present(await toggleMerchantDisabled(deps.sql, merchantId));
  deps.log.info({ merchantId, disabled: state.disabled }, 'merchant kill-switch toggled');
  return state;
}

export async function setKillSwitch(deps: AppDeps, merchantId: string, disabled: boolean, reason?: string) {
  const state = present(await setMerchantDisabled(deps.sql, merchantId, disabled, reason));
  deps.log.info({ merchantId, disabled }, 'merchant kill-switch set');
  return state;
}
