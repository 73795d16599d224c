/**
 * Every money movement of the gateway, one posting each, applied by postLedger (ledger.ts) in the
 * caller's transaction. A posting's key is the idempotency key of its ledger transaction: a retried
 * step posts nothing twice. The keys are stored in existing rows — never change one.
 *
 * | posting                 | key                                   | kind                 | entries                                                        |
 * |-------------------------|---------------------------------------|----------------------|----------------------------------------------------------------|
 * | postEscrowLock          | deal:<id>:escrow:v<version>           | escrow_lock          | trader available −escrow, frozen +escrow                        |
 * | postEscrowRelease       | deal:<id>:release                     | escrow_release       | trader frozen −escrow, available +escrow                        |
 * |   (amount change)       | deal:<id>:escrow-release:v<version>   | escrow_release       | the same, for the version replaced                              |
 * | postPayinCompletion     | deal:<id>:complete                    | payin_complete       | trader frozen −escrow; merchant pending +net; platform pending +fee |
 * | postFeeDistribution     | deal:<id>:fee-distribution            | fee_distribution     | merchant pending −net, available +net; platform pending −fee, available +fee |
 * | postPayoutHold          | deal:<id>:hold                        | payout_hold          | merchant available −hold, frozen +hold (hold = amount_usdt + fee) |
 * | postPayoutRelease       | deal:<id>:release                     | payout_hold_release  | merchant frozen −hold, available +hold                          |
 * | postPayoutCompletion    | deal:<id>:complete                    | payout_complete      | merchant frozen −hold; trader available +amount_usdt; platform available +fee |
 * | postWithdrawalHold      | withdrawal:<id>:hold                  | withdrawal_hold      | owner available −amount, frozen +amount (a merchant or a trader) |
 * | postWithdrawalRelease   | withdrawal:<id>:release               | withdrawal_release   | merchant frozen −amount, available +amount                      |
 * | postWithdrawalCompletion| withdrawal:<id>:complete              | withdrawal_complete  | merchant frozen −amount; chain available +net; platform available +fee |
 * | postDepositCredit       | deposit:<deposit id>                  | deposit              | chain available −amount; merchant available +amount             |
 * |   (a sandbox deposit)   | deposit:<deposit id>                  | sandbox_deposit      | the merchant's play account −amount; merchant available +amount |
 * | postTraderTopUp         | trader-deposit:<tx_hash>              | trader_deposit       | chain available −amount; trader available +amount               |
 * | postSandboxLiquidity    | sandbox-liquidity:<wallet id>         | sandbox_liquidity    | sandbox_chain available −amount; sandbox trader available +amount |
 *
 * System accounts are per world: a sandbox posting meets play accounts — a sandbox
 * merchant's own play-money account (its deposits and withdrawals), sandbox_chain (the sandbox
 * trader's liquidity), sandbox_platform_fees — never chain or platform_fees. The world is the
 * posting's object's (a deal's or withdrawal's `sandbox`, fixed at its insert) or, for a credit
 * from the chain, the one the caller read under the merchant's lock: resolved once per
 * transaction (chainAccount, platformAccount) and passed in, never re-read from a wallet's flag
 * between statements (docs/reliability.md, "Worlds").
 *
 * A settlement deal (the new deal that settles an EXPIRED one) is an escrow lock (version 1) on the parent's trader followed by
 * the PayIn completion, under the settlement deal's own id (postSettlement: its three wallets
 * locked first, in id order).
 */
import type { Db } from '../sql';
import { postLedger, type LedgerEntry } from './ledger';
import { FailedPrecondition, NotFound } from '../../domain/errors';
import { chainAccount, ensureWallet, lockWalletWorlds, lockWallets, platformAccount } from './wallets';

/** A hold inside one wallet: `lock` moves available → frozen, `release` frozen → available. */
function hold(walletId: string, amount: bigint, direction: 'lock' | 'release'): LedgerEntry[] {
  const sign = direction === 'lock' ? 1n : -1n;
  return [
    { walletId, bucket: 'available', amount: -sign * amount },
    { walletId, bucket: 'frozen', amount: sign * amount },
  ];
}

const merchantWallet = async (tx: Db, merchantId: string) => (await ensureWallet(tx, 'merchant', merchantId, 'USDT')).id;

// ---- PayIn escrow (the trader's USDT) ----

/** The trader's USDT for one amount version of a deal: available → frozen. */
export function postEscrowLock(tx: Db, deal: { dealId: string; version: bigint; traderWalletId: string; amount: bigint }): Promise<boolean> {
  return postLedger(tx, {
    key: `deal:${deal.dealId}:escrow:v${deal.version}`,
    kind: 'escrow_lock',
    refType: 'deal',
    refId: deal.dealId,
    entries: hold(deal.traderWalletId, deal.amount, 'lock'),
  });
}

/**
 * The escrow back to the trader: frozen → available. `step` names the release in the key:
 * 'release' (cancel, expiry, appeal rejected) or `escrow-release:v<n>` (an amount change).
 */
export function postEscrowRelease(tx: Db, deal: { id: string; escrow_usdt: bigint }, traderWalletId: string, step: string): Promise<boolean> {
  return postLedger(tx, {
    key: `deal:${deal.id}:${step}`,
    kind: 'escrow_release',
    refType: 'deal',
    refId: deal.id,
    entries: hold(traderWalletId, deal.escrow_usdt, 'release'),
  });
}

/**
 * The completion money path: the trader's frozen escrow becomes the merchant's pending credit
 * (escrow − fee) and the platform's pending fee. Trader confirmation, an appeal resolved
 * SATISFIED and a settlement deal all complete through it.
 */
export async function postPayinCompletion(
  tx: Db,
  deal: { id: string; merchant_id: string; escrow_usdt: bigint; fee_usdt: bigint; sandbox: boolean },
  traderWalletId: string,
  platform?: string,
): Promise<boolean> {
  const merchant = await merchantWallet(tx, deal.merchant_id);
  platform ??= await platformAccount(tx, deal);
  return postLedger(tx, {
    key: `deal:${deal.id}:complete`,
    kind: 'payin_complete',
    refType: 'deal',
    refId: deal.id,
    entries: [
      { walletId: traderWalletId, bucket: 'frozen', amount: -deal.escrow_usdt },
      { walletId: merchant, bucket: 'pending_credits', amount: deal.escrow_usdt - deal.fee_usdt },
      { walletId: platform, bucket: 'pending_credits', amount: deal.fee_usdt },
    ],
  });
}

/**
 * A settlement deal's money: its escrow locked on the parent's trader, then the
 * completion — two postings, so the trader's, the merchant's and the platform's wallets are
 * locked first, in id order (lockWallets). A trader short of USDT fails the first posting
 * (FailedPrecondition 'insufficient balance').
 */
export async function postSettlement(
  tx: Db,
  deal: { id: string; merchant_id: string; escrow_usdt: bigint; fee_usdt: bigint; sandbox: boolean },
  traderWalletId: string,
): Promise<void> {
  const platform = await platformAccount(tx, deal);
  await lockWallets(tx, [traderWalletId, await merchantWallet(tx, deal.merchant_id), platform]);
  await postEscrowLock(tx, { dealId: deal.id, version: 1n, traderWalletId, amount: deal.escrow_usdt });
  await postPayinCompletion(tx, deal, traderWalletId, platform);
}

/** After the fee delay: pending credits become available, and the platform's fee is earned. */
export async function postFeeDistribution(
  tx: Db,
  deal: { id: string; merchant_id: string; escrow_usdt: bigint; fee_usdt: bigint; sandbox: boolean },
): Promise<boolean> {
  const merchantNet = deal.escrow_usdt - deal.fee_usdt;
  const merchant = await merchantWallet(tx, deal.merchant_id);
  const platform = await platformAccount(tx, deal);
  return postLedger(tx, {
    key: `deal:${deal.id}:fee-distribution`,
    kind: 'fee_distribution',
    refType: 'deal',
    refId: deal.id,
    entries: [
      { walletId: merchant, bucket: 'pending_credits', amount: -merchantNet },
      { walletId: merchant, bucket: 'available', amount: merchantNet },
      { walletId: platform, bucket: 'pending_credits', amount: -deal.fee_usdt },
      { walletId: platform, bucket: 'available', amount: deal.fee_usdt },
    ],
  });
}

// ---- PayOut hold (the merchant's USDT: amount_usdt + fee) ----

export function postPayoutHold(tx: Db, deal: { dealId: string; walletId: string; amount: bigint }): Promise<boolean> {
  return postLedger(tx, {
    key: `deal:${deal.dealId}:hold`,
    kind: 'payout_hold',
    refType: 'deal',
    refId: deal.dealId,
    entries: hold(deal.walletId, deal.amount, 'lock'),
  });
}

/** FAILED or EXPIRED: the hold goes back to the merchant. */
export function postPayoutRelease(tx: Db, deal: { id: string; wallet_id: string | null; escrow_usdt: bigint }): Promise<boolean> {
  return postLedger(tx, {
    key: `deal:${deal.id}:release`,
    kind: 'payout_hold_release',
    refType: 'deal',
    refId: deal.id,
    entries: hold(deal.wallet_id!, deal.escrow_usdt, 'release'),
  });
}

/** COMPLETED: the hold is debited; the trader is paid amount_usdt, the platform the fee. */
export async function postPayoutCompletion(
  tx: Db,
  deal: { id: string; wallet_id: string | null; escrow_usdt: bigint; amount_usdt: bigint; fee_usdt: bigint; sandbox: boolean },
  traderWalletId: string,
): Promise<boolean> {
  const platform = await platformAccount(tx, deal);
  return postLedger(tx, {
    key: `deal:${deal.id}:complete`,
    kind: 'payout_complete',
    refType: 'deal',
    refId: deal.id,
    entries: [
      { walletId: deal.wallet_id!, bucket: 'frozen', amount: -deal.escrow_usdt },
      { walletId: traderWalletId, bucket: 'available', amount: deal.amount_usdt },
      { walletId: platform, bucket: 'available', amount: deal.fee_usdt },
    ],
  });
}

// ---- Withdrawals (the merchant's USDT: the amount, fee included) ----

export function postWithdrawalHold(tx: Db, withdrawal: { id: string; walletId: string; amount: bigint }): Promise<boolean> {
  return postLedger(tx, {
    key: `withdrawal:${withdrawal.id}:hold`,
    kind: 'withdrawal_hold',
    refType: 'withdrawal',
    refId: withdrawal.id,
    entries: hold(withdrawal.walletId, withdrawal.amount, 'lock'),
  });
}

/** Cancelled by an operator or refused by the chain: the hold goes back, once. */
export function postWithdrawalRelease(tx: Db, withdrawal: { id: string; wallet_id: string; amount: bigint }): Promise<boolean> {
  return postLedger(tx, {
    key: `withdrawal:${withdrawal.id}:release`,
    kind: 'withdrawal_release',
    refType: 'withdrawal',
    refId: withdrawal.id,
    entries: hold(withdrawal.wallet_id, withdrawal.amount, 'release'),
  });
}

/**
 * The transfer went out: the hold is debited, the net leaves to the chain, the fee goes to the
 * platform — the accounts of the withdrawal's world (a sandbox merchant's net back to its own
 * play-money account).
 */
export async function postWithdrawalCompletion(
  tx: Db,
  withdrawal: { id: string; merchant_id: string | null; wallet_id: string; amount: bigint; net: bigint; fee: bigint; sandbox: boolean },
): Promise<boolean> {
  // A trader's withdrawal (no merchant) is live money: the chain account.
  const world = { sandbox: withdrawal.sandbox, ...(withdrawal.merchant_id ? { merchantId: withdrawal.merchant_id } : {}) };
  const chain = await chainAccount(tx, world);
  const platform = await platformAccount(tx, world);
  return postLedger(tx, {
    key: `withdrawal:${withdrawal.id}:complete`,
    kind: 'withdrawal_complete',
    refType: 'withdrawal',
    refId: withdrawal.id,
    entries: [
      { walletId: withdrawal.wallet_id, bucket: 'frozen', amount: -withdrawal.amount },
      { walletId: chain, bucket: 'available', amount: withdrawal.net },
      { walletId: platform, bucket: 'available', amount: withdrawal.fee },
    ],
  });
}

// ---- Credits from the chain (deposits, trader top-ups) ----

/**
 * Locks what a credit from the chain moves — the chain account (resolved once by the caller,
 * chainAccount) and the owner's wallet, in id order, with the posting's own lock — before the
 * credit's rows that reference the owner's wallet are written: a foreign-key insert takes a weaker
 * lock on the wallet first, and two credits upgrading from it at once deadlock. Answers the owner wallet's world, which must be the
 * chain account's: a credit never crosses worlds.
 */
export async function lockChainCredit(tx: Db, chainId: string, walletId: string): Promise<boolean> {
  const worlds = await lockWalletWorlds(tx, [chainId, walletId]);
  const wallet = worlds.get(walletId);
  if (wallet === undefined) throw new NotFound('wallet not found');
  if (worlds.get(chainId) !== wallet)
    throw new FailedPrecondition(`a ${wallet ? 'sandbox' : 'live'} wallet cannot be credited from the other world's chain account`);
  return wallet;
}

interface ChainCredit {
  key: string;
  kind: string;
  refType: string;
  refId: string;
  /** The chain account of the credit's world (chainAccount), resolved once per transaction. */
  chainId: string;
  walletId: string;
  amount: bigint;
}

function creditFromChain(tx: Db, credit: ChainCredit): Promise<boolean> {
  const { chainId, walletId, amount, ...posting } = credit;
  return postLedger(tx, {
    ...posting,
    entries: [
      { walletId: chainId, bucket: 'available', amount: -amount },
      { walletId, bucket: 'available', amount },
    ],
  });
}

/**
 * A confirmed deposit's credit: the chain → the merchant's available, once. A sandbox merchant's
 * play deposit (`play`) comes from its own play-money account and says so in its kind.
 */
export function postDepositCredit(tx: Db, deposit: { depositId: string; walletId: string; amount: bigint; chainId: string; play?: boolean }): Promise<boolean> {
  return creditFromChain(tx, {
    key: `deposit:${deposit.depositId}`,
    kind: deposit.play ? 'sandbox_deposit' : 'deposit',
    refType: 'deposit',
    refId: deposit.depositId,
    chainId: deposit.chainId,
    walletId: deposit.walletId,
    amount: deposit.amount,
  });
}

/** An operator's top-up of a trader's liquidity: chain → the trader's available, once per tx_hash. */
export function postTraderTopUp(tx: Db, topUp: { txHash: string; walletId: string; amount: bigint; chainId: string }): Promise<boolean> {
  const { txHash, walletId, amount, chainId } = topUp;
  return creditFromChain(tx, { key: `trader-deposit:${txHash}`, kind: 'trader_deposit', refType: 'wallet', refId: walletId, chainId, walletId, amount });
}

/** The sandbox trader's play liquidity (db/queries/sandbox.ts): sandbox_chain → the trader's available, once per wallet. */
export async function postSandboxLiquidity(tx: Db, topUp: { walletId: string; amount: bigint }): Promise<boolean> {
  const chainId = await chainAccount(tx, { sandbox: true });
  return creditFromChain(tx, {
    key: `sandbox-liquidity:${topUp.walletId}`,
    kind: 'sandbox_liquidity',
    refType: 'wallet',
    refId: topUp.walletId,
    chainId,
    walletId: topUp.walletId,
    amount: topUp.amount,
  });
}
