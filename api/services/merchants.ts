/**
 * Merchants: create, the profile the merchant reads and patches, the
 * operator-only settings, the kill-switch, key pairs.
 */
import type { AppDeps } from '../deps';
import { assertWebhookTarget } from './webhook-target';
import { FailedPrecondition, InvalidArgument, NotFound } from '../../domain/errors';
import { autoLimitRefusal, effectiveAutoLimit } from '../../domain/state/withdrawals';
import {
  findMerchantProfile,
  findMerchantSettingsSnapshot,
  insertMerchant,
  listMerchantsPage,
  lockKillSwitch,
  lockMerchantLimits,
  setMerchantDisabled,
  toggleMerchantDisabled,
  updateMerchant,
  type MerchantProfileRow,
  type NewMerchant,
} from '../../db/queries/merchants';
import { replaceKeyPair, type IssuedKeyPair } from '../../db/queries/api-keys';
import { presentMerchant } from '../schemas/merchant';
import type { AuditActor } from '../../domain/audit';
import { insertAudit } from '../../db/queries/audit';
import type { Db } from '../../db/sql';
import { clampPageSize, cursorOf, keysetPage } from './page-token';
import { deliverInvitation, makeInvitation, presentInvitation } from './invitations';

export async function getMerchantProfile(deps: AppDeps, merchantId: string): Promise<MerchantProfileRow> {
  const row = await findMerchantProfile(deps.sql, merchantId);
  if (!row) throw new NotFound('merchant not found');
  return row;
}

/**
 * Creates a merchant (audited), and with `ownerEmail` invites its first owner to the cabinet in
 * the same transaction (both or neither); the invitation's link is answered once.
 */
export async function createMerchant(
  deps: AppDeps,
  input: NewMerchant,
  actor?: AuditActor,
  ownerEmail?: string,
): Promise<{ merchant: MerchantProfileRow; ownerInvitation?: ReturnType<typeof presentInvitation> & { invite_url: string } }> {
  if (input.webhook_url) await assertWebhookTarget(deps.config, 'webhook_url', input.webhook_url);
  if (ownerEmail !== undefined && !actor) throw new InvalidArgument('an owner is invited by an operator');
  const { id, invitation } = await deps.sql.begin(async (tx) => {
    const merchantId = await insertMerchant(tx, {
      ...input,
      auto_withdrawal_limit_usdt_cents: input.auto_withdrawal_limit_usdt_cents ?? deps.config.AUTO_WITHDRAWAL_LIMIT_USDT_CENTS,
    });
    if (actor)
      await insertAudit(tx, actor, { action: 'merchant.create', objectType: 'merchant', objectId: merchantId, after: await operatorView(tx, merchantId) });
    const made =
      ownerEmail !== undefined && actor
        ? await makeInvitation(tx, deps, { party: 'merchant', merchantId }, { email: ownerEmail, role: 'owner' }, actor)
        : undefined;
    return { id: merchantId, invitation: made };
  });
  if (invitation) await deliverInvitation(deps, invitation, input.name);
  return {
    merchant: await getMerchantProfile(deps, id),
    ...(invitation ? { ownerInvitation: { ...presentInvitation(invitation.invitation, deps.now()), invite_url: invitation.link } } : {}),
  };
}

/** What the audit trail keeps of a merchant: its operator view (no secrets, no balances). */
async function operatorView(db: Db, merchantId: string) {
  const row = await findMerchantProfile(db, merchantId);
  if (!row) return null;
  const {
    usdt_available: _a,
    usdt_frozen: _f,
    api_token: _t,
    chain_usdt_units: _u,
    chain_trx_sun: _s,
    chain_balances_at: _c,
    ...rest
  } = row as MerchantProfileRow & Record<string, unknown>;
  return rest;
}

/** Issue (operator) and rotation (merchant) both make a new current pair; the old pair keeps its grace window. */
export async function replaceMerchantKeys(
  deps: AppDeps,
  merchantId: string,
  actor?: AuditActor,
  action: 'merchant.keys_issue' | 'merchant.keys_rotate' = 'merchant.keys_issue',
): Promise<IssuedKeyPair> {
  const pair = await deps.sql.begin(async (tx) => {
    const issued = await replaceKeyPair(tx, deps.secretBox, merchantId, deps.config.MERCHANT_KEY_GRACE_PERIOD);
    // The token is public (it names the pair); the secret never reaches the trail.
    if (issued && actor) await insertAudit(tx, actor, { action, objectType: 'merchant', objectId: merchantId, after: { token: issued.token } });
    return issued;
  });
  if (!pair) throw new NotFound('merchant not found');
  deps.log.info({ merchantId }, 'merchant key pair replaced');
  return pair;
}

export interface KillSwitchState {
  merchant_id: string;
  disabled: boolean;
  /** RFC 3339 while the switch is on; null once cleared (clearing the switch nullifies it). */
  disabled_at: string | null;
}

function present(row: { id: string; disabled_at: Date | null } | undefined): KillSwitchState {
  if (!row) throw new NotFound('merchant not found');
  return { merchant_id: row.id, disabled: row.disabled_at !== null, disabled_at: row.disabled_at?.toISOString() ?? null };
}

/** A kill-switch move and its audit row in one transaction. */
function killSwitchMove(
  deps: AppDeps,
  merchantId: string,
  action: string,
  actor: AuditActor | undefined,
  run: (tx: Db) => Promise<{ id: string; disabled_at: Date | null } | undefined>,
) {
  return deps.sql.begin(async (tx) => {
    const before = actor ? await lockKillSwitch(tx, merchantId) : undefined;
    const row = await run(tx);
    if (row && actor) {
      const after = await lockKillSwitch(tx, merchantId);
      await insertAudit(tx, actor, { action, objectType: 'merchant', objectId: merchantId, before, after });
    }
    return row;
  });
}

export async function toggleKillSwitch(deps: AppDeps, merchantId: string, actor?: AuditActor): Promise<KillSwitchState> {
  const state = present(await killSwitchMove(deps, merchantId, 'merchant.kill_switch_toggle', actor, (tx) => toggleMerchantDisabled(tx, merchantId)));
  deps.log.info({ merchantId, disabled: state.disabled }, 'merchant kill-switch toggled');
  return state;
}

export async function setKillSwitch(deps: AppDeps, merchantId: string, disabled: boolean, reason?: string, actor?: AuditActor) {
  const action = disabled ? 'merchant.disable' : 'merchant.enable';
  const state = present(await killSwitchMove(deps, merchantId, action, actor, (tx) => setMerchantDisabled(tx, merchantId, disabled, reason)));
  deps.log.info({ merchantId, disabled }, 'merchant kill-switch set');
  return state;
}

// ---- The profile: what the merchant may change (cabinet) ----

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

const TEXT_FIELDS = [
  'name',
  'webhook_url',
  'withdrawal_address',
  'success_redirect_url',
  'fail_redirect_url',
  'checkout_brand_name',
  'finance_chat_id',
  'appeal_chat_id',
] as const;
const LIMIT_FIELDS = ['deal_min_amount', 'deal_max_amount', 'daily_deal_amount_limit'] as const;

/**
 * The changes of the IP whitelist and the deal limits (0 removes a limit), checked against what is
 * stored (max not below min): the merchant's PATCH and the operator's use the same rule.
 */
function accessAndLimitChanges(
  patch: Pick<ProfilePatch, 'ip_whitelist' | (typeof LIMIT_FIELDS)[number]>,
  current: { deal_min_amount: bigint | null; deal_max_amount: bigint | null },
) {
  const changes: Record<string, unknown> = {};
  if (patch.ip_whitelist !== undefined) changes.ip_whitelist = patch.ip_whitelist;
  for (const field of LIMIT_FIELDS) {
    const value = patch[field];
    if (value !== undefined) changes[field] = value === 0n ? null : value;
  }
  const min = 'deal_min_amount' in changes ? (changes.deal_min_amount as bigint | null) : current.deal_min_amount;
  const max = 'deal_max_amount' in changes ? (changes.deal_max_amount as bigint | null) : current.deal_max_amount;
  if (min !== null && max !== null && max < min) {
    throw new InvalidArgument(`deal_max_amount ${max} is below deal_min_amount ${min}`, [
      { field: 'deal_max_amount', message: 'below the minimum', code: 'max_below_min' },
    ]);
  }
  return changes;
}

/** PATCH my-merchant: one row update under a lock, so min/max are checked against what is stored. */
/**
 * The merchant's own profile change. A person's (the cabinet JWT, a member's session: `actor`) is
 * audited in its transaction with the changed fields before and after; the HMAC pair never
 * reaches here (the route is the cabinet's).
 */
export async function patchProfile(deps: AppDeps, merchantId: string, patch: ProfilePatch, actor?: AuditActor): Promise<MerchantProfileRow> {
  if (patch.webhook_url) await assertWebhookTarget(deps.config, 'webhook_url', patch.webhook_url);
  await deps.sql.begin(async (tx) => {
    const current = await lockMerchantLimits(tx, merchantId);
    const changes: Record<string, unknown> = {};
    for (const field of TEXT_FIELDS) if (patch[field] !== undefined) changes[field] = patch[field];
    Object.assign(changes, accessAndLimitChanges(patch, current!));
    if (Object.keys(changes).length === 0) return;
    const before = actor ? await findMerchantProfile(tx, merchantId) : undefined;
    await updateMerchant(tx, merchantId, changes);
    if (actor) {
      const after = await findMerchantProfile(tx, merchantId);
      const fields = (row: MerchantProfileRow | undefined) =>
        Object.fromEntries(Object.keys(changes).map((key) => [key, (row as unknown as Record<string, unknown> | undefined)?.[key] ?? null]));
      await insertAudit(tx, actor, {
        action: 'merchant.update_profile',
        objectType: 'merchant',
        objectId: merchantId,
        before: fields(before),
        after: fields(after),
      });
    }
  });
  return getMerchantProfile(deps, merchantId);
}

// ---- Operator-only settings (PATCH /admin/merchants/{merchant_id}) ----

export interface MerchantSettingsPatch {
  auto_withdrawal_mode?: 'AUTO_UP_TO_LIMIT' | 'MANUAL_ONLY';
  auto_withdrawal_limit_usdt_cents?: bigint;
  rate_limit_per_minute?: number | null;
  payin_fee_bps?: number;
  payout_fee_bps?: number;
  webhook_max_retries?: number;
  signature_binding?: 'optional' | 'required';
  /** What the merchant also sets in its cabinet, by the same rules. */
  ip_whitelist?: string[];
  deal_min_amount?: bigint;
  deal_max_amount?: bigint;
  daily_deal_amount_limit?: bigint;
  /** Only while the merchant has no deals, withdrawals or ledger entries (the baseline's `merchants_sandbox_change` trigger owns the rule). */
  sandbox?: boolean;
}

const FIELDS = [
  'auto_withdrawal_mode',
  'auto_withdrawal_limit_usdt_cents',
  'rate_limit_per_minute',
  'payin_fee_bps',
  'payout_fee_bps',
  'webhook_max_retries',
  'signature_binding',
  'sandbox',
] as const;

/** The refusal of the `merchants_sandbox_change` trigger (SQLSTATE P0029) as the API answers it. */
const sandboxChangeRefused = (error: unknown) =>
  (error as { code?: string }).code === 'P0029'
    ? new FailedPrecondition('sandbox can only change while the merchant has no deals, withdrawals or balance history')
    : error;

export async function patchMerchantSettings(deps: AppDeps, merchantId: string, patch: MerchantSettingsPatch, actor?: AuditActor): Promise<MerchantProfileRow> {
  const autoLimit =
    patch.auto_withdrawal_limit_usdt_cents === undefined
      ? undefined
      : autoLimitRefusal(patch.auto_withdrawal_limit_usdt_cents, deps.config.WITHDRAWAL_FOUR_EYES_ABOVE_USDT_CENTS);
  if (autoLimit) throw new InvalidArgument(autoLimit, [{ field: 'auto_withdrawal_limit_usdt_cents', message: 'above the four-eyes amount', code: 'too_big' }]);
  const settings: Record<string, unknown> = {};
  for (const field of FIELDS) if (patch[field] !== undefined) settings[field] = patch[field];
  const touchesLimits = patch.ip_whitelist !== undefined || LIMIT_FIELDS.some((f) => patch[f] !== undefined);
  if (Object.keys(settings).length > 0 || touchesLimits) {
    await deps.sql
      .begin(async (tx) => {
        const current = await lockMerchantLimits(tx, merchantId);
        if (!current) throw new NotFound('merchant not found');
        const changes = { ...settings, ...accessAndLimitChanges(patch, current) };
        const before = actor ? await findMerchantSettingsSnapshot(tx, merchantId) : undefined;
        if (!(await updateMerchant(tx, merchantId, changes))) throw new NotFound('merchant not found');
        if (actor)
          await insertAudit(tx, actor, {
            action: 'merchant.update_settings',
            objectType: 'merchant',
            objectId: merchantId,
            before,
            after: await findMerchantSettingsSnapshot(tx, merchantId),
          });
      })
      .catch((error) => {
        throw sandboxChangeRefused(error);
      });
    deps.log.info({ merchantId, changes: Object.keys(patch) }, 'merchant settings changed by an operator');
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

/** The operator console's list of merchants, newest first, optionally matching a name, email or id. */
export async function listMerchantsForOperator(deps: AppDeps, q: { search?: string; page_size?: number; page_token?: string }) {
  const scope = `console:merchants:${q.search ?? ''}`;
  const size = clampPageSize(q.page_size, 50, 200);
  const rows = await listMerchantsPage(deps.sql, { search: q.search, after: cursorOf(deps, scope, q.page_token), limit: size + 1 });
  const page = keysetPage(deps, scope, rows, size);
  return { data: page.rows.map((row) => presentMerchantForOperator(row)), next_page_token: page.next_page_token };
}

export async function getMerchantForOperator(deps: AppDeps, merchantId: string) {
  return { merchant: presentMerchantForOperator(await getMerchantProfile(deps, merchantId)) };
}
