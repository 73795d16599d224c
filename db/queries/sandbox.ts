/**
 * The built-in sandbox trader: one per tenant, marked sandbox, with a requisite for
 * every payment method a sandbox deal asks for and play USDT from the tenant-wide sandbox_chain account.
 * Made on first use (and by the seed), idempotently: stable ids, `on conflict do nothing`, a keyed
 * posting. Only sandbox deals reach it (db/queries/matching.ts; the baseline's world triggers make any other
 * match impossible).
 */
import type { Db } from '../sql';
import { FailedPrecondition } from '../../domain/errors';
import { uuidV5 } from '../../domain/ids';
import { postSandboxLiquidity } from './postings';
import { ensureWallet } from './wallets';
import { sandboxRequisiteColumns } from './requisite-secrets';

const SANDBOX_NAMESPACE = '8d3b9a4e-29a1-4c55-b0d2-6e1f7a3c5d29';
/** The sandbox trader of a tenant: the same id in every deployment. */
export const sandboxTraderId = (tenantId: string) => uuidV5(`sandbox-trader\u0000${tenantId}`, SANDBOX_NAMESPACE);
const sandboxRequisiteId = (tenantId: string, paymentMethodId: string) =>
  uuidV5(`sandbox-requisite\u0000${tenantId}\u0000${paymentMethodId}`, SANDBOX_NAMESPACE);
/**
 * Play liquidity, once: 10^13 USDT in cents. PayIns take escrow from it and PayOuts pay into it;
 * the completed PayIn volume of every sandbox merchant of the tenant would have to exceed it.
 */
const SANDBOX_TRADER_LIQUIDITY = 1_000_000_000_000_000n;
const MAX_AMOUNT = 999_999_999_999_999n;

/** The sandbox trader, its wallet and liquidity (idempotent); answers the trader's id. */
async function ensureSandboxTrader(tx: Db, tenantId: string): Promise<string> {
  const traderId = sandboxTraderId(tenantId);
  const [exists] = await tx`select 1 from traders where id = ${traderId}`;
  if (!exists) {
    await tx`insert into traders (id, tenant_id, name, sandbox) values (${traderId}, ${tenantId}, 'Sandbox trader', true) on conflict do nothing`;
  }
  const wallet = await ensureWallet(tx, 'trader', traderId, 'USDT');
  if (!exists) await postSandboxLiquidity(tx, { walletId: wallet.id, amount: SANDBOX_TRADER_LIQUIDITY });
  return traderId;
}

/** The sandbox trader's virtual bank device (docs/bank-notifications.md, "Virtual bank device"): the same id in every deployment. */
export const virtualDeviceId = (tenantId: string) => uuidV5(`virtual-bank-device\u0000${tenantId}`, SANDBOX_NAMESPACE);

/**
 * The sandbox trader's virtual bank device, paired at creation with the public key derived from
 * the worker's secret (virtualDeviceKeyPair): ACTIVE, `virtual`, never silent (its messages are
 * the gateway's own). Idempotent; answers its id.
 */
async function ensureVirtualDevice(tx: Db, tenantId: string, traderId: string, publicKey: Uint8Array): Promise<string> {
  const id = virtualDeviceId(tenantId);
  await tx`
    insert into bank_devices (id, trader_id, name, status, pairing_expires_at, public_key, app_version, heartbeat_at, virtual, paired_at)
    values (${id}, ${traderId}, 'Virtual bank device (sandbox)', 'ACTIVE', now(), ${Buffer.from(publicKey)}, 'virtual', now(), true, now())
    on conflict (id) do nothing`;
  return id;
}

/**
 * The virtual device's key as paired, replaced by the one the worker's secret derives when they
 * differ (SECRETS_ENCRYPTION_KEY was rotated): the device pairs again, as a real one would.
 * Answers the device's row (trader, status), or undefined before the sandbox trader exists.
 */
export async function virtualDeviceFor(db: Db, tenantId: string, publicKey: Uint8Array) {
  const key = Buffer.from(publicKey);
  const [row] = await db<{ id: string; trader_id: string; status: string; public_key: Uint8Array }[]>`
    update bank_devices set public_key = ${key}, paired_at = now()
    where id = ${virtualDeviceId(tenantId)} and virtual and status = 'ACTIVE' and public_key <> ${key}
    returning id, trader_id, status, public_key`;
  if (row) return row;
  const [current] = await db<{ id: string; trader_id: string; status: string; public_key: Uint8Array }[]>`
    select id, trader_id, status, public_key from bank_devices where id = ${virtualDeviceId(tenantId)} and virtual`;
  return current;
}

/**
 * The sandbox trader's requisite for a payment method, made on first use and served by the
 * virtual bank device (made with it, on the key `virtualDeviceKey`); one indexed read afterwards.
 */
export async function ensureSandboxRequisite(tx: Db, tenantId: string, paymentMethodId: string, virtualDeviceKey: Uint8Array): Promise<void> {
  const requisiteId = sandboxRequisiteId(tenantId, paymentMethodId);
  const [exists] = await tx<{ device_id: string | null }[]>`select device_id from requisites where id = ${requisiteId}`;
  if (exists?.device_id) return;
  const traderId = await ensureSandboxTrader(tx, tenantId);
  const deviceId = await ensureVirtualDevice(tx, tenantId, traderId, virtualDeviceKey);
  if (exists) {
    // A requisite from before the virtual device: it now serves it.
    await tx`update requisites set device_id = ${deviceId} where id = ${requisiteId} and device_id is null`;
    return;
  }
  const [method] = await tx<{ requisite_types: string[] }[]>`select requisite_types from payment_methods where id = ${paymentMethodId}`;
  if (!method) return;
  const type = method.requisite_types[0] ?? 'BANK_CARD';
  // Its numbers are public fixtures, opened from the trader's sandbox flag (db/queries/requisite-secrets.ts): nothing to seal.
  const row = {
    id: requisiteId,
    trader_id: traderId,
    payment_method_id: paymentMethodId,
    requisite_type: type,
    ...sandboxRequisiteColumns(type),
    holder_name: 'Sandbox Trader',
    bank_name: 'sandbox',
    min_amount: 1n,
    max_amount: MAX_AMOUNT,
    device_id: deviceId,
  };
  await tx`insert into requisites ${tx(row)} on conflict do nothing`;
}

/** Requisites for every ACTIVE payment method of the tenant (the seed; the console then lists them). */
export async function ensureSandboxRequisites(tx: Db, tenantId: string, virtualDeviceKey: Uint8Array): Promise<void> {
  const methods = await tx<{ id: string }[]>`select id from payment_methods where tenant_id = ${tenantId} and status = 'ACTIVE'`;
  for (const m of methods) await ensureSandboxRequisite(tx, tenantId, m.id, virtualDeviceKey);
}

/** A sandbox merchant's play-deposit caps, USDT cents (SANDBOX_DEPOSIT_DAILY_LIMIT_USDT_CENTS, SANDBOX_DEPOSIT_TOTAL_LIMIT_USDT_CENTS). */
export interface SandboxDepositLimits {
  /** Per UTC day. */
  daily: bigint;
  /** Over the merchant's whole life. */
  total: bigint;
}

/**
 * The caps on a sandbox merchant's play deposits: what it deposited today (UTC) and in all, with
 * this amount, stays within its limits; else 400 FAILED_PRECONDITION, nothing written. Every play
 * deposit of the merchant counts (its own POST /sandbox/deposits and an operator's recorded
 * deposit alike: all of them come from its play-money account). Called by recordDeposit under the
 * merchant wallet's lock, which every deposit to it holds until its commit, so concurrent deposits
 * are counted one after another and the caps hold whatever arrives at once.
 */
export async function checkSandboxDepositCap(tx: Db, merchantId: string, amount: bigint, limits: SandboxDepositLimits): Promise<void> {
  const [sums] = await tx<{ today: bigint; total: bigint }[]>`
    select coalesce(sum(amount) filter (where created_at >= date_trunc('day', now() at time zone 'utc') at time zone 'utc'), 0)::bigint as today,
      coalesce(sum(amount), 0)::bigint as total
    from deposits where merchant_id = ${merchantId} and sandbox`;
  const { today, total } = sums!;
  if (today + amount > limits.daily) {
    throw new FailedPrecondition(
      `sandbox deposit limit exceeded: deposited today ${today}, requested ${amount}, daily limit ${limits.daily} USDT cents (the day is UTC)`,
    );
  }
  if (total + amount > limits.total) {
    throw new FailedPrecondition(`sandbox deposit limit exceeded: deposited in all ${total}, requested ${amount}, total limit ${limits.total} USDT cents`);
  }
}

/** What the virtual device's credit of a sandbox PayIn is written from: the deal's requisite (its bank, type and device) and currency. */
export async function sandboxCreditTarget(db: Db, dealId: string) {
  const [row] = await db<{ requisite_id: string; bank_name: string; requisite_type: string; device_id: string | null; currency: string; tail: string }[]>`
    select r.id as requisite_id, r.bank_name, r.requisite_type, r.device_id, d.currency,
      coalesce(nullif(r.card_tail, ''), nullif(r.phone_tail, ''), '') as tail
    from deals d join requisites r on r.id = d.requisite_id
    where d.id = ${dealId} and d.sandbox`;
  return row;
}
