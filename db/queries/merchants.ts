import type { Db } from '../sql';
import type { PaymentMethodRow } from './catalog';
import { idPrefix, newId, UUID_RE } from '../../domain/ids';
import { ensureWallet } from './wallets';
import { cursorColumn, newestFirst, olderThan, type KeysetCursor } from './keyset';
import { uuidIn } from './id-prefix';

export const DEFAULT_TENANT_ID = '00000000-0000-4000-8000-000000000001';

interface MerchantRow {
  id: string;
  tenant_id: string;
  name: string;
  email: string;
  status: string;
  moderation_status: string;
  kill_switch_reason: string;
  disabled_at: Date | null;
  api_version: 'v1' | 'v2';
  webhook_url: string;
  project_url: string;
  checkout_brand_name: string;
  success_redirect_url: string;
  fail_redirect_url: string;
  finance_chat_id: string;
  appeal_chat_id: string;
  ip_whitelist: string[];
  withdrawal_address: string;
  trc20_address: string;
  rate_limit_per_minute: number | null;
  payin_fee_bps: number;
  payout_fee_bps: number;
  deal_min_amount: bigint | null;
  deal_max_amount: bigint | null;
  daily_deal_amount_limit: bigint | null;
  auto_withdrawal_mode: string;
  auto_withdrawal_limit_usdt_cents: bigint;
  signature_binding: 'optional' | 'required';
  /** A sandbox merchant (play money, the sandbox trader). */
  sandbox: boolean;
  created_at: Date;
  updated_at: Date;
}

/** A merchant with the figures its profile shows: USDT wallet and current API token. */
export interface MerchantProfileRow extends MerchantRow {
  usdt_available: bigint;
  usdt_frozen: bigint;
  api_token: string | null;
  /** The current deposit address's on-chain balances as last read (chain_balances); null when never read (the simulator). */
  chain_usdt_units?: bigint | null;
  chain_trx_sun?: bigint | null;
  chain_balances_at?: Date | null;
}

export async function findMerchantProfile(db: Db, merchantId: string): Promise<MerchantProfileRow | undefined> {
  const [row] = await db<MerchantProfileRow[]>`
    select m.*, coalesce(w.available, 0)::bigint as usdt_available, coalesce(w.frozen, 0)::bigint as usdt_frozen,
      (select token from api_keys k where k.merchant_id = m.id and k.superseded_at is null) as api_token,
      b.usdt_units as chain_usdt_units, b.trx_sun as chain_trx_sun, b.refreshed_at as chain_balances_at
    from merchants m
    left join wallets w on w.owner_type = 'merchant' and w.owner_id = m.id and w.currency = 'USDT'
    left join chain_balances b on b.address = m.trc20_address and m.trc20_address <> ''
    where m.id = ${merchantId}`;
  return row;
}

export interface NewMerchant {
  name: string;
  email: string;
  webhook_url: string;
  api_version: 'v1' | 'v2';
  rate_limit_per_minute: number | null;
  payin_fee_bps: number;
  payout_fee_bps: number;
  /** New merchants start in AUTO_UP_TO_LIMIT with AUTO_WITHDRAWAL_LIMIT_USDT_CENTS (column default otherwise). */
  auto_withdrawal_limit_usdt_cents?: bigint;
  /** A sandbox merchant (its wallet is made sandbox with it: the `wallets_sandbox` trigger). */
  sandbox?: boolean;
}

/** Creates the merchant with its USDT wallet provisioned. Run inside a transaction. */
export async function insertMerchant(tx: Db, input: NewMerchant, tenantId = DEFAULT_TENANT_ID): Promise<string> {
  const id = newId();
  await tx`
    insert into merchants ${tx(
      { id, tenant_id: tenantId, ...input, checkout_brand_name: input.name },
      'id',
      'tenant_id',
      'name',
      'email',
      'webhook_url',
      'api_version',
      'rate_limit_per_minute',
      'payin_fee_bps',
      'payout_fee_bps',
      'checkout_brand_name',
      ...(input.auto_withdrawal_limit_usdt_cents !== undefined ? (['auto_withdrawal_limit_usdt_cents'] as const) : []),
      ...(input.sandbox !== undefined ? (['sandbox'] as const) : []),
    )}`;
  await ensureWallet(tx, 'merchant', id, 'USDT');
  return id;
}

/** The merchant's deal limits, its row locked until the transaction ends (a profile change checks min ≤ max against them). */
export async function lockMerchantLimits(tx: Db, merchantId: string) {
  const [row] = await tx<{ deal_min_amount: bigint | null; deal_max_amount: bigint | null }[]>`
    select deal_min_amount, deal_max_amount from merchants where id = ${merchantId} for no key update`;
  return row;
}

/** Sets the given columns (names chosen by the caller, never by user input); false when there is no such merchant. */
export async function updateMerchant(db: Db, merchantId: string, changes: Record<string, unknown>): Promise<boolean> {
  const columns = Object.keys(changes) as [string, ...string[]];
  const [row] = await db`
    update merchants set ${db(changes as Record<string, string>, ...columns)}, updated_at = now()
    where id = ${merchantId} returning id`;
  return row !== undefined;
}

/** Turns the kill-switch on (disabled_at = now) or off (null). Returns the new state. */
export async function setMerchantDisabled(db: Db, merchantId: string, disabled: boolean, reason = '') {
  const [row] = await db<{ id: string; disabled_at: Date | null }[]>`
    update merchants
    set disabled_at = case when ${disabled} then coalesce(disabled_at, now()) else null end,
        kill_switch_reason = case when ${disabled} then ${reason} else '' end,
        updated_at = now()
    where id = ${merchantId}
    returning id, disabled_at`;
  return row;
}

/** Flips the kill-switch atomically (the row lock makes concurrent toggles alternate). */
export async function toggleMerchantDisabled(db: Db, merchantId: string) {
  const [row] = await db<{ id: string; disabled_at: Date | null }[]>`
    update merchants
    set disabled_at = case when disabled_at is null then now() else null end,
        kill_switch_reason = '', updated_at = now()
    where id = ${merchantId}
    returning id, disabled_at`;
  return row;
}

interface CreatePreconditions {
  deal_min_amount: bigint | null;
  deal_max_amount: bigint | null;
  daily_deal_amount_limit: bigint | null;
  webhook_url: string;
  has_key: boolean;
}

export interface CreateContext {
  /** The merchant's limits and webhook setup; undefined when there is no such merchant. */
  merchant: CreatePreconditions | undefined;
  /** The ACTIVE payment method by id or slug, undefined when unknown. */
  method: PaymentMethodRow | undefined;
  /** When the method is unknown: the slugs of the tenant's ACTIVE methods, by slug (what the refusal lists); else empty. */
  allowed_slugs: string[];
  /** The id of the ACTIVE currency `currency`, null when none. */
  currency_id: string | null;
  /** Postgres's clock now, RFC 3339 with microseconds (the pass race stamp, db/queries/passes.ts). */
  arrived_at: string;
}

/**
 * What a deal create checks before it starts the workflow, in one round trip: the
 * merchant's limits and webhook setup, the payment method, the currency's id and the arrival stamp.
 */
export async function findCreateContext(db: Db, q: { tenantId: string; merchantId: string; method: string; currency: string }): Promise<CreateContext> {
  const isUuid = UUID_RE.test(q.method);
  const [row] = await db<Record<string, unknown>[]>`
    select to_char(clock_timestamp() at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as arrived_at,
      m.id as merchant_id, m.deal_min_amount, m.deal_max_amount, m.daily_deal_amount_limit, m.webhook_url,
      exists (select 1 from api_keys k where k.merchant_id = m.id and k.superseded_at is null) as has_key,
      pm.id as pm_id, pm.slug as pm_slug, pm.name as pm_name, pm.currency_code as pm_currency_code, pm.requisite_types as pm_requisite_types, pm.status as pm_status,
      c.id as currency_id,
      case when pm.id is null then array(select slug from payment_methods where tenant_id = ${q.tenantId} and status = 'ACTIVE' order by slug) end as allowed_slugs
    from (select 1) one
    left join merchants m on m.id = ${q.merchantId}
    left join payment_methods pm on pm.tenant_id = ${q.tenantId} and pm.status = 'ACTIVE'
      and ${isUuid ? db`pm.id = ${q.method}::uuid` : db`pm.slug = ${q.method}`}
    left join currencies c on c.tenant_id = ${q.tenantId} and c.status = 'ACTIVE' and c.code = ${q.currency}`;
  const r = row!;
  return {
    arrived_at: r.arrived_at as string,
    merchant: r.merchant_id
      ? {
          deal_min_amount: r.deal_min_amount as bigint | null,
          deal_max_amount: r.deal_max_amount as bigint | null,
          daily_deal_amount_limit: r.daily_deal_amount_limit as bigint | null,
          webhook_url: r.webhook_url as string,
          has_key: r.has_key as boolean,
        }
      : undefined,
    method: r.pm_id
      ? {
          id: r.pm_id as string,
          slug: r.pm_slug as string,
          name: r.pm_name as string,
          currency_code: r.pm_currency_code as string,
          requisite_types: r.pm_requisite_types as string[],
          status: r.pm_status as string,
        }
      : undefined,
    currency_id: (r.currency_id as string | null) ?? null,
    allowed_slugs: (r.allowed_slugs as string[] | null) ?? [],
  };
}

// ---- What the deal and withdrawal steps read of a merchant ----

/** The profile's withdrawal_address ('' when unset or the merchant is unknown). */
export async function findWithdrawalAddress(db: Db, merchantId: string): Promise<string> {
  const [row] = await db<{ withdrawal_address: string | null }[]>`select withdrawal_address from merchants where id = ${merchantId}`;
  return row?.withdrawal_address ?? '';
}

/** The merchant's auto-withdrawal mode and limit. */
export async function findWithdrawalSettings(
  db: Db,
  merchantId: string,
): Promise<{ auto_withdrawal_mode: string; auto_withdrawal_limit_usdt_cents: bigint } | undefined> {
  const [row] = await db<{ auto_withdrawal_mode: string; auto_withdrawal_limit_usdt_cents: bigint }[]>`
    select auto_withdrawal_mode, auto_withdrawal_limit_usdt_cents from merchants where id = ${merchantId}`;
  return row;
}

/** The operator-only settings (what the audit trail keeps of a settings change). */
export async function findMerchantSettingsSnapshot(db: Db, merchantId: string) {
  const [row] = await db`
    select auto_withdrawal_mode, auto_withdrawal_limit_usdt_cents, rate_limit_per_minute, payin_fee_bps, payout_fee_bps,
      webhook_max_retries, signature_binding, sandbox, ip_whitelist, deal_min_amount, deal_max_amount, daily_deal_amount_limit
    from merchants where id = ${merchantId}`;
  return row;
}

/** The kill-switch under the row's lock (what the audit trail keeps of a kill-switch move). */
export async function lockKillSwitch(db: Db, merchantId: string) {
  const [row] = await db<{ disabled_at: Date | null; kill_switch_reason: string }[]>`
    select disabled_at, kill_switch_reason from merchants where id = ${merchantId} for no key update`;
  return row;
}

/** Merchants for the operator, newest first (keyset pages, db/queries/keyset.ts), optionally matching a name, email, id or an id's start. */
export async function listMerchantsPage(db: Db, f: { search?: string; after?: KeysetCursor; limit: number }) {
  const like = f.search ? `%${f.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%` : undefined;
  // An id or the start of one (the 8 hex digits the console shows) also finds the merchant.
  const id = f.search ? idPrefix(f.search) : undefined;
  return db<(MerchantProfileRow & { cursor_ts: string })[]>`
    select m.*, ${cursorColumn(db)},
      coalesce((select w.available from wallets w where w.owner_type = 'merchant' and w.owner_id = m.id and w.currency = 'USDT'), 0)::bigint as usdt_available,
      coalesce((select w.frozen from wallets w where w.owner_type = 'merchant' and w.owner_id = m.id and w.currency = 'USDT'), 0)::bigint as usdt_frozen,
      (select token from api_keys k where k.merchant_id = m.id and k.superseded_at is null) as api_token
    from merchants m
    where true
      ${like ? db`and (m.name ilike ${like} or m.email ilike ${like} ${id ? db`or ${uuidIn(db, 'm.id', id)}` : db``})` : db``}
      ${olderThan(db, f.after)}
    order by ${newestFirst(db)} limit ${f.limit}`;
}

/** The names of these merchants, by id (the operator's lists show names, not ids). */
export async function merchantNames(db: Db, ids: readonly string[]): Promise<Map<string, string>> {
  const unique = [...new Set(ids)].filter(Boolean);
  if (unique.length === 0) return new Map();
  const rows = await db<{ id: string; name: string }[]>`select id, name from merchants where id = any(${unique}::uuid[])`;
  return new Map(rows.map((r) => [r.id, r.name]));
}
