/**
 * The world (sandbox or live) a merchant's money write happens in, read under a lock on the
 * merchant's row that the operator's world switch conflicts with (docs/reliability.md, "Worlds").
 *
 * The switch (PATCH /admin/merchants/{id} `sandbox`) updates the row, which takes FOR NO KEY
 * UPDATE on it, and the `merchants_sandbox_change` trigger then refuses it when the merchant has any money
 * history. A write that can be the merchant's first money — a deposit of any kind, a deal or a
 * withdrawal create — takes FOR SHARE on the row first and keeps it to its commit: FOR SHARE
 * conflicts with the switch's lock but not with another FOR SHARE, so such writes of one merchant
 * still run side by side, while a switch waits for them (and then sees their rows) or they wait
 * for the switch (and then read the new world). Every later write acts on an object whose world
 * was fixed at its insert (the deal's, withdrawal's or deposit's `sandbox`) and whose existence
 * makes the switch refuse, so it needs no lock of its own.
 *
 * The lock comes before any wallet lock of the transaction (the one order: merchant row, then
 * wallets by id), as the switch's own update of the merchant's wallets does.
 */
import type { Db } from '../sql';
import { NotFound } from '../../domain/errors';

export interface MerchantWorld {
  merchantId: string;
  sandbox: boolean;
}

/** The merchant's world, its row share-locked until the transaction ends. */
export async function lockMerchantWorld(tx: Db, merchantId: string): Promise<MerchantWorld> {
  const [row] = await tx<{ sandbox: boolean }[]>`select sandbox from merchants where id = ${merchantId} for share`;
  if (!row) throw new NotFound('merchant not found');
  return { merchantId, sandbox: row.sandbox };
}

/**
 * A deal create's lock: FOR SHARE, unless the merchant has a daily cap, whose check
 * (checkDailyCap) locks the row FOR NO KEY UPDATE to serialise the creates it counts — then
 * that lock is taken at once, so a create never upgrades from SHARE (two creates upgrading
 * would deadlock). The cap is read by the locking statement itself: an operator's concurrent
 * change of the cap is seen after its commit (the row is re-checked), so the mode always
 * matches what the create reads next.
 */
export async function lockMerchantForCreate(tx: Db, merchantId: string): Promise<MerchantWorld> {
  const [shared] = await tx<{ sandbox: boolean }[]>`
    select sandbox from merchants where id = ${merchantId} and daily_deal_amount_limit is null for share`;
  if (shared) return { merchantId, sandbox: shared.sandbox };
  const [capped] = await tx<{ sandbox: boolean }[]>`select sandbox from merchants where id = ${merchantId} for no key update`;
  if (!capped) throw new NotFound('merchant not found');
  return { merchantId, sandbox: capped.sandbox };
}
