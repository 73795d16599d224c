/**
 * The merchant's TRC-20 deposit history and the intake a chain watcher reports to.
 *
 * Statuses: PENDING (seen on chain, not yet final: nothing credited) and CONFIRMED (final: the
 * amount was credited to `available`, once, under ledger key deposit:<id>). The operator's
 * POST /admin/deposits records CONFIRMED deposits directly (it stands in for the watcher).
 */
import type { Db } from '../sql';
import { Conflict, InvalidArgument } from '../../domain/errors';
import { canonicalTxHash } from '../../domain/tron';
import { newId } from '../../domain/ids';
import { claimTxHash, recordDeposit, type DepositRow } from './deposits';
import { postDepositCredit } from './postings';
import { depositAddressOwner } from './deposit-addresses';
import { ensureWallet } from './wallets';
import { cursorColumn, newestFirst, olderThan, type KeysetCursor } from './keyset';

export interface WalletDepositRow extends DepositRow {
  address: string;
  confirmations: number;
  confirmed_at: Date | null;
  cursor_ts: string;
}

export async function listMerchantDeposits(
  db: Db,
  merchantId: string,
  page: { after?: KeysetCursor; limit: number },
): Promise<WalletDepositRow[]> {
  return db<WalletDepositRow[]>`
    select *, ${cursorColumn(db)}
    from deposits
    where merchant_id = ${merchantId}
      ${olderThan(db, page.after)}
    order by ${newestFirst(db)}
    limit ${page.limit}`;
}

/** What a chain watcher saw: a TRC-20 USDT transfer to one of our addresses. */
export interface ObservedDeposit {
  txHash: string;
  toAddress: string;
  /** USDT cents. */
  amount: bigint;
  confirmations: number;
}

export type IntakeResult = { kind: 'not_ours' } | { kind: 'recorded'; deposit: DepositRow; credited: boolean };

/**
 * Records what a watcher reports, idempotently by tx_hash: a transfer to an address the gateway
 * never issued is ignored; one below `requiredConfirmations` is kept PENDING; reaching them makes
 * it CONFIRMED and credits available exactly once. The same hash with another merchant or amount
 * is a conflict (a watcher bug or a reorg: an operator must look). Run inside a transaction.
 */
export async function ingestObservedDeposit(tx: Db, observed: ObservedDeposit, requiredConfirmations: number): Promise<IntakeResult> {
  const owner = await depositAddressOwner(tx, observed.toAddress);
  if (!owner) return { kind: 'not_ours' };
  // One chain transaction, one claim: the hash in canonical form, whatever the watcher wrote.
  const txHash = canonicalTxHash(observed.txHash);
  if (txHash === undefined) throw new InvalidArgument(`the watcher reported a malformed tx_hash: ${observed.txHash.slice(0, 100)}`);
  const seen = { ...observed, txHash };
  const wallet = await ensureWallet(tx, 'merchant', owner.merchant_id, 'USDT');
  const final = seen.confirmations >= requiredConfirmations;

  const [existing] = await tx<WalletDepositRow[]>`select *, '' as cursor_ts from deposits where tx_hash = ${seen.txHash} for update`;
  if (existing && (existing.merchant_id !== owner.merchant_id || existing.amount !== seen.amount)) {
    throw new Conflict('tx_hash was already recorded for another deposit');
  }
  if (!existing && !final) {
    // The tx_hash is reserved for this merchant at first sighting (one namespace with trader top-ups).
    await claimTxHash(tx, { txHash: seen.txHash, ownerType: 'merchant', ownerId: owner.merchant_id, walletId: wallet.id, amount: seen.amount });
    const [row] = await tx<DepositRow[]>`
      insert into deposits (id, merchant_id, wallet_id, amount, tx_hash, status, address, confirmations)
      values (${newId()}, ${owner.merchant_id}, ${wallet.id}, ${seen.amount}, ${seen.txHash}, 'PENDING', ${seen.toAddress}, ${seen.confirmations})
      on conflict do nothing returning *`;
    if (!row) throw new Conflict('deposit was recorded concurrently; report it again');
    return { kind: 'recorded', deposit: row, credited: false };
  }
  if (!existing) {
    const { deposit, created } = await recordDeposit(tx, { merchantId: owner.merchant_id, walletId: wallet.id, amount: seen.amount, txHash: seen.txHash });
    await tx`update deposits set address = ${seen.toAddress}, confirmations = ${seen.confirmations}, confirmed_at = coalesce(confirmed_at, now()) where id = ${deposit.id}`;
    return { kind: 'recorded', deposit, credited: created };
  }
  if (existing.status === 'PENDING' && final) {
    const [row] = await tx<DepositRow[]>`
      update deposits set status = 'CONFIRMED', confirmations = ${seen.confirmations}, confirmed_at = now()
      where id = ${existing.id} returning *`;
    const credited = await postDepositCredit(tx, { depositId: existing.id, walletId: existing.wallet_id, amount: seen.amount });
    return { kind: 'recorded', deposit: row!, credited };
  }
  await tx`update deposits set confirmations = greatest(confirmations, ${seen.confirmations}) where id = ${existing.id}`;
  return { kind: 'recorded', deposit: existing, credited: false };
}
