import type { Db } from '../sql';
import { Conflict } from '../../domain/errors';
import { newId } from '../../domain/ids';
import { postLedger } from './ledger';
import { ensureSystemWallet } from './wallets';

export interface DepositRow {
  id: string;
  merchant_id: string;
  wallet_id: string;
  amount: bigint;
  tx_hash: string;
  status: string;
  created_at: Date;
}

/**
 * Records a confirmed TRC-20 deposit and credits the wallet's available balance, once per
 * tx_hash. A repeat with the same hash returns the first deposit; a repeat that disagrees
 * (another merchant or amount) is a conflict. Run inside a transaction.
 */
export async function recordDeposit(
  tx: Db,
  input: { merchantId: string; walletId: string; amount: bigint; txHash: string },
): Promise<{ deposit: DepositRow; created: boolean }> {
  const inserted = await tx<DepositRow[]>`
    insert into deposits (id, merchant_id, wallet_id, amount, tx_hash)
    values (${newId()}, ${input.merchantId}, ${input.walletId}, ${input.amount}, ${input.txHash})
    on conflict (tx_hash) do nothing
    returning *`;
  if (inserted[0]) {
    const chain = await ensureSystemWallet(tx, 'chain', 'USDT');
    await postLedger(tx, {
      key: `deposit:${inserted[0].id}`,
      kind: 'deposit',
      refType: 'deposit',
      refId: inserted[0].id,
      entries: [
        { walletId: chain, bucket: 'available', amount: -input.amount },
        { walletId: input.walletId, bucket: 'available', amount: input.amount },
      ],
    });
    return { deposit: inserted[0], created: true };
  }
  const [existing] = await tx<DepositRow[]>`select * from deposits where tx_hash = ${input.txHash}`;
  if (!existing || existing.merchant_id !== input.merchantId || existing.amount !== input.amount) {
    throw new Conflict('tx_hash was already recorded for another deposit');
  }
  return { deposit: existing, created: false };
}

/** Funds a trader's USDT liquidity from the chain account, once per tx_hash (operator top-up). */
export async function creditTraderLiquidity(tx: Db, input: { walletId: string; amount: bigint; txHash: string }): Promise<boolean> {
  const chain = await ensureSystemWallet(tx, 'chain', 'USDT');
  return postLedger(tx, {
    key: `trader-deposit:${input.txHash}`,
    kind: 'trader_deposit',
    refType: 'wallet',
    refId: input.walletId,
    entries: [
      { walletId: chain, bucket: 'available', amount: -input.amount },
      { walletId: input.walletId, bucket: 'available', amount: input.amount },
    ],
  });
}
