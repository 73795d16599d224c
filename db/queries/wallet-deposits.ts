/**
 * The merchant's TRC-20 deposit history and the intake a chain watcher reports to.
 *
 * Statuses: PENDING (seen on chain, not yet final: nothing credited), CONFIRMED (final: the
 * amount was credited to `available`, once, under ledger key deposit:<id>, and
 * p2p.finance.deposit_confirmed written to the outbox) and DROPPED (gone from the chain before it
 * was final: never credited; chain-watch.ts). The operator's POST /admin/deposits records
 * CONFIRMED deposits directly (it stands in for the watcher; no event).
 */
import type { Db } from '../sql';
import { Conflict, InvalidArgument } from '../../domain/errors';
import { canonicalTxHash } from '../../domain/tron/address';
import { newId } from '../../domain/ids';
import { DEPOSIT_CONFIRMED_EVENT, presentDeposit } from '../../domain/records/deposit-info';
import { claimTxHash, creditRecordedDeposit, recordDeposit, type DepositRow } from './deposits';
import { writeOutboxEvent } from './outbox';
import { depositAddressOwner } from './deposit-addresses';
import { lockMerchantWorld } from './merchant-world';
import { ensureWallet } from './wallets';
import { cursorColumn, newestFirst, olderThan, type KeysetCursor } from './keyset';
import { recordTraderChainDeposit, settleSecurityHold } from './trader-money';

export interface WalletDepositRow extends DepositRow {
  address: string;
  confirmations: number;
  confirmed_at: Date | null;
  /** The exact on-chain amount (6 decimals) of a deposit the watcher saw; `amount` is its whole cents. */
  chain_units: bigint | null;
  /** The transfer's block time, as the indexer reported it. */
  block_at: Date | null;
  dropped_at: Date | null;
  cursor_ts: string;
}

export async function listMerchantDeposits(db: Db, merchantId: string, page: { after?: KeysetCursor; limit: number }): Promise<WalletDepositRow[]> {
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
  /** The exact on-chain amount (USDT units, 6 decimals) when it is not a whole number of cents. */
  chainUnits?: bigint;
  /** The block time of the transfer (ms since the epoch). */
  blockAt?: number;
}

export type IntakeResult = { kind: 'not_ours' } | { kind: 'recorded'; deposit: DepositRow; credited: boolean };

/** The deposit became CONFIRMED (credited): the merchant's event, in the same transaction (also the sandbox deposit's). */
export async function depositConfirmed(tx: Db, depositId: string): Promise<DepositRow> {
  const [row] = await tx<WalletDepositRow[]>`select *, '' as cursor_ts from deposits where id = ${depositId}`;
  await writeOutboxEvent(tx, {
    // Only a merchant's deposit is confirmed here (a trader's has no event).
    merchantId: row!.merchant_id!,
    dealId: null,
    subjectId: row!.id,
    type: DEPOSIT_CONFIRMED_EVENT,
    discriminator: 'CONFIRMED',
    payload: { deposit: presentDeposit(row!) },
  });
  return row!;
}

/**
 * Records what a watcher reports, idempotently by tx_hash: a transfer to an address the gateway
 * never issued is ignored; one below `requiredConfirmations` is kept PENDING; reaching them makes
 * it CONFIRMED, credits available exactly once and writes p2p.finance.deposit_confirmed. The same
 * hash with another merchant or amount is a conflict (a watcher bug or a reorg: an operator must
 * look). A DROPPED deposit seen on chain again (its transaction made it into a block after all,
 * before its expiration) is PENDING or CONFIRMED again under the claim it kept. Run inside a
 * transaction.
 */
export async function ingestObservedDeposit(tx: Db, observed: ObservedDeposit, requiredConfirmations: number): Promise<IntakeResult> {
  const owner = await depositAddressOwner(tx, observed.toAddress);
  if (!owner) return { kind: 'not_ours' };
  // One chain transaction, one claim: the hash in canonical form, whatever the watcher wrote.
  const txHash = canonicalTxHash(observed.txHash);
  if (txHash === undefined) throw new InvalidArgument(`the watcher reported a malformed tx_hash: ${observed.txHash.slice(0, 100)}`);
  const seen = { ...observed, txHash };
  if (owner.trader_id) return ingestTraderDeposit(tx, owner.trader_id, seen, requiredConfirmations);
  const merchantId = owner.merchant_id!;
  // A first sighting may be the merchant's first money: its world is settled before the row is
  // written (the operator's world switch waits, or has committed; docs/reliability.md, "Worlds").
  await lockMerchantWorld(tx, merchantId);
  const wallet = await ensureWallet(tx, 'merchant', merchantId, 'USDT');
  const final = seen.confirmations >= requiredConfirmations;
  const chainUnits = seen.chainUnits ?? null;
  const blockAt = seen.blockAt === undefined ? null : new Date(seen.blockAt);

  const [existing] = await tx<WalletDepositRow[]>`select *, '' as cursor_ts from deposits where tx_hash = ${seen.txHash} for no key update`;
  if (existing && (existing.merchant_id !== merchantId || existing.amount !== seen.amount)) {
    throw new Conflict('tx_hash was already recorded for another deposit');
  }
  if (!existing && !final) {
    // The tx_hash is reserved for this merchant at first sighting (one namespace with trader top-ups).
    await claimTxHash(tx, { txHash: seen.txHash, ownerType: 'merchant', ownerId: merchantId, walletId: wallet.id, amount: seen.amount });
    const [row] = await tx<DepositRow[]>`
      insert into deposits (id, merchant_id, wallet_id, amount, tx_hash, status, address, confirmations, chain_units, block_at)
      values (${newId()}, ${merchantId}, ${wallet.id}, ${seen.amount}, ${seen.txHash}, 'PENDING', ${seen.toAddress}, ${seen.confirmations}, ${chainUnits}, ${blockAt})
      on conflict do nothing returning *`;
    if (!row) throw new Conflict('deposit was recorded concurrently; report it again');
    return { kind: 'recorded', deposit: row, credited: false };
  }
  if (!existing) {
    const { deposit, created } = await recordDeposit(tx, { merchantId: merchantId, walletId: wallet.id, amount: seen.amount, txHash: seen.txHash });
    await tx`
      update deposits set address = ${seen.toAddress}, confirmations = ${seen.confirmations}, confirmed_at = coalesce(confirmed_at, now()),
        chain_units = coalesce(chain_units, ${chainUnits}), block_at = coalesce(block_at, ${blockAt})
      where id = ${deposit.id}`;
    return { kind: 'recorded', deposit: created ? await depositConfirmed(tx, deposit.id) : deposit, credited: created };
  }
  if ((existing.status === 'PENDING' || existing.status === 'DROPPED') && final) {
    await tx`
      update deposits set status = 'CONFIRMED', confirmations = ${seen.confirmations}, confirmed_at = now(), dropped_at = null,
        chain_units = coalesce(${chainUnits}, chain_units), block_at = coalesce(${blockAt}, block_at)
      where id = ${existing.id}`;
    const credited = await creditRecordedDeposit(tx, existing, seen.amount);
    return { kind: 'recorded', deposit: await depositConfirmed(tx, existing.id), credited };
  }
  if (existing.status === 'DROPPED') {
    await tx`update deposits set status = 'PENDING', dropped_at = null, confirmations = ${seen.confirmations} where id = ${existing.id}`;
    return { kind: 'recorded', deposit: { ...existing, status: 'PENDING' }, credited: false };
  }
  await tx`update deposits set confirmations = greatest(confirmations, ${seen.confirmations}) where id = ${existing.id}`;
  return { kind: 'recorded', deposit: existing, credited: false };
}

/**
 * The same intake for a trader's address: PENDING at first sighting, CONFIRMED and credited once
 * when final (recordTraderChainDeposit: the credit, then the security hold topped up from it),
 * DROPPED revived. No webhook: a trader has no endpoint.
 */
async function ingestTraderDeposit(tx: Db, traderId: string, seen: ObservedDeposit, requiredConfirmations: number): Promise<IntakeResult> {
  const wallet = await ensureWallet(tx, 'trader', traderId, 'USDT');
  const final = seen.confirmations >= requiredConfirmations;
  const chainUnits = seen.chainUnits ?? null;
  const blockAt = seen.blockAt === undefined ? null : new Date(seen.blockAt);
  const [existing] = await tx<WalletDepositRow[]>`select *, '' as cursor_ts from deposits where tx_hash = ${seen.txHash} for no key update`;
  if (existing && (existing.trader_id !== traderId || existing.amount !== seen.amount)) {
    throw new Conflict('tx_hash was already recorded for another deposit');
  }
  if (!existing && !final) {
    await claimTxHash(tx, { txHash: seen.txHash, ownerType: 'trader', ownerId: traderId, walletId: wallet.id, amount: seen.amount });
    const [row] = await tx<DepositRow[]>`
      insert into deposits (id, trader_id, wallet_id, amount, tx_hash, status, address, confirmations, chain_units, block_at)
      values (${newId()}, ${traderId}, ${wallet.id}, ${seen.amount}, ${seen.txHash}, 'PENDING', ${seen.toAddress}, ${seen.confirmations}, ${chainUnits}, ${blockAt})
      on conflict do nothing returning *`;
    if (!row) throw new Conflict('deposit was recorded concurrently; report it again');
    return { kind: 'recorded', deposit: row, credited: false };
  }
  if (!existing) {
    const { deposit, created } = await recordTraderChainDeposit(tx, { traderId, walletId: wallet.id, amount: seen.amount, txHash: seen.txHash });
    await tx`
      update deposits set address = ${seen.toAddress}, confirmations = ${seen.confirmations}, confirmed_at = coalesce(confirmed_at, now()),
        chain_units = coalesce(chain_units, ${chainUnits}), block_at = coalesce(block_at, ${blockAt})
      where id = ${deposit.id}`;
    return { kind: 'recorded', deposit, credited: created };
  }
  if ((existing.status === 'PENDING' || existing.status === 'DROPPED') && final) {
    await tx`
      update deposits set status = 'CONFIRMED', confirmations = ${seen.confirmations}, confirmed_at = now(), dropped_at = null,
        chain_units = coalesce(${chainUnits}, chain_units), block_at = coalesce(${blockAt}, block_at)
      where id = ${existing.id}`;
    const credited = await creditRecordedDeposit(tx, existing, seen.amount);
    if (credited) await settleSecurityHold(tx, traderId);
    return { kind: 'recorded', deposit: { ...existing, status: 'CONFIRMED' }, credited };
  }
  if (existing.status === 'DROPPED') {
    await tx`update deposits set status = 'PENDING', dropped_at = null, confirmations = ${seen.confirmations} where id = ${existing.id}`;
    return { kind: 'recorded', deposit: { ...existing, status: 'PENDING' }, credited: false };
  }
  await tx`update deposits set confirmations = greatest(confirmations, ${seen.confirmations}) where id = ${existing.id}`;
  return { kind: 'recorded', deposit: existing, credited: false };
}
