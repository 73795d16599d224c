import type { Db } from '../sql';
import { Conflict, InvalidArgument, PermissionDenied } from '../../domain/errors';
import { canonicalTxHash } from '../../domain/tron/address';
import { newId } from '../../domain/ids';
import { resolveAlerts } from './alerts';
import { lockMerchantWorld } from './merchant-world';
import { lockChainCredit, postDepositCredit, postTraderTopUp } from './postings';
import { checkSandboxDepositCap, type SandboxDepositLimits } from './sandbox';
import { chainAccount } from './wallets';

export interface DepositRow {
  id: string;
  /** The owner: a merchant's deposit or a trader's (db/queries/trader-money.ts); the other is null. */
  merchant_id: string | null;
  trader_id: string | null;
  wallet_id: string;
  amount: bigint;
  tx_hash: string;
  status: string;
  created_at: Date;
  /** The merchant's world at insert (the `deposits_sandbox` trigger). */
  sandbox: boolean;
}

/**
 * Claims a tx_hash for one credit. Merchant deposits and trader top-ups share this namespace, so
 * one chain transaction is credited once, to one wallet: a repeat with the same owner and
 * amount is an idempotent replay (false), anything else a conflict. Run inside a transaction.
 */
export async function claimTxHash(
  tx: Db,
  input: { txHash: string; ownerType: 'merchant' | 'trader'; ownerId: string; walletId: string; amount: bigint },
): Promise<boolean> {
  // Every caller canonicalises first (api/schemas/common.ts txHash, the watcher's intake); a
  // hash in another form would be a second claim on the same transaction.
  if (canonicalTxHash(input.txHash) !== input.txHash) throw new InvalidArgument('tx_hash must be 64 lower-case hex characters');
  const [claimed] = await tx<{ tx_hash: string }[]>`
    insert into chain_credits (tx_hash, owner_type, owner_id, wallet_id, amount)
    values (${input.txHash}, ${input.ownerType}, ${input.ownerId}, ${input.walletId}, ${input.amount})
    on conflict (tx_hash) do nothing
    returning tx_hash`;
  if (claimed) return true;
  const [existing] = await tx<{ owner_type: string; owner_id: string; amount: bigint }[]>`
    select owner_type, owner_id, amount from chain_credits where tx_hash = ${input.txHash}`;
  if (!existing || existing.owner_type !== input.ownerType || existing.owner_id !== input.ownerId || existing.amount !== input.amount) {
    throw new Conflict('tx_hash was already recorded for another deposit');
  }
  return false;
}

/**
 * Records a confirmed TRC-20 deposit and credits the wallet's available balance, once per
 * tx_hash. A repeat with the same hash returns the first deposit; a repeat that disagrees
 * (another merchant, amount, or a trader top-up) is a conflict. Run inside a transaction.
 *
 * The merchant's world is read under its row's lock first (lockMerchantWorld: the operator's
 * world switch waits for this transaction, or this one for the switch), and the credit comes
 * from that world's chain account, resolved once: a live merchant's from `chain`, a sandbox
 * merchant's from its own play-money account. With `play` (POST /sandbox/deposits) the deposit is
 * play money by definition: a merchant that is live by now is refused (403, nothing written), and
 * the merchant's play-deposit caps are checked under the wallet's lock.
 */
export async function recordDeposit(
  tx: Db,
  input: { merchantId: string; walletId: string; amount: bigint; txHash: string; play?: SandboxDepositLimits },
): Promise<{ deposit: DepositRow; created: boolean }> {
  const world = await lockMerchantWorld(tx, input.merchantId);
  if (input.play && !world.sandbox) throw new PermissionDenied('sandbox routes are for sandbox merchants only');
  const chainId = await chainAccount(tx, world);
  await lockChainCredit(tx, chainId, input.walletId);
  const fresh = await claimTxHash(tx, {
    txHash: input.txHash,
    ownerType: 'merchant',
    ownerId: input.merchantId,
    walletId: input.walletId,
    amount: input.amount,
  });
  if (!fresh) {
    const [existing] = await tx<DepositRow[]>`select * from deposits where tx_hash = ${input.txHash}`;
    return { deposit: existing!, created: false };
  }
  // After the claim (a repeat answers the first deposit even at the cap) and under the wallet's
  // lock, which every deposit to it takes: concurrent play deposits are counted one after another.
  if (input.play) await checkSandboxDepositCap(tx, input.merchantId, input.amount, input.play);
  const [deposit] = await tx<DepositRow[]>`
    insert into deposits (id, merchant_id, wallet_id, amount, tx_hash)
    values (${newId()}, ${input.merchantId}, ${input.walletId}, ${input.amount}, ${input.txHash})
    returning *`;
  // A transaction the watcher left to an operator (deposit_needs_operator) is settled once credited.
  await resolveAlerts(tx, input.txHash);
  await postDepositCredit(tx, { depositId: deposit!.id, walletId: input.walletId, amount: input.amount, chainId, play: input.play !== undefined });
  return { deposit: deposit!, created: true };
}

/**
 * The credit of a deposit recorded earlier (a PENDING chain deposit that became final): from the
 * chain account of the world the deposit was recorded in (its `sandbox`, which the baseline
 * keeps the merchant's: a deposit row freezes the merchant's world), once.
 */
export async function creditRecordedDeposit(
  tx: Db,
  deposit: Pick<DepositRow, 'id' | 'merchant_id' | 'wallet_id' | 'sandbox'>,
  amount: bigint,
): Promise<boolean> {
  const chainId = await chainAccount(tx, { sandbox: deposit.sandbox, ...(deposit.merchant_id ? { merchantId: deposit.merchant_id } : {}) });
  await lockChainCredit(tx, chainId, deposit.wallet_id);
  return postDepositCredit(tx, { depositId: deposit.id, walletId: deposit.wallet_id, amount, chainId });
}

/**
 * Funds a trader's USDT liquidity from the chain account, once per tx_hash (operator top-up).
 * True for a new credit, false for an idempotent repeat; a mismatched repeat is a conflict.
 */
export async function creditTraderLiquidity(tx: Db, input: { traderId: string; walletId: string; amount: bigint; txHash: string }): Promise<boolean> {
  // A trader never changes worlds: its own flag names the chain account, read once.
  const [trader] = await tx<{ sandbox: boolean }[]>`select sandbox from traders where id = ${input.traderId}`;
  const chainId = await chainAccount(tx, { sandbox: trader?.sandbox === true });
  await lockChainCredit(tx, chainId, input.walletId);
  const fresh = await claimTxHash(tx, { txHash: input.txHash, ownerType: 'trader', ownerId: input.traderId, walletId: input.walletId, amount: input.amount });
  if (!fresh) return false;
  return postTraderTopUp(tx, { txHash: input.txHash, walletId: input.walletId, amount: input.amount, chainId });
}
