/**
 * Withdrawals on TRON (CHAIN_ADAPTER=trongrid): build → check → sign → store → broadcast, then
 * the receipt (docs/tron.md). The safety rules, in one place:
 *
 * - Nothing is signed unless the node's bytes say exactly transfer(to, net) on the USDT contract
 *   from the hot wallet with our fee_limit (checkUsdtTransfer). A node that returns anything else
 *   gets an operator alert and a retry later, never a signature.
 * - The signed transaction is committed (withdrawal_transactions) before its first broadcast; every
 *   retry broadcasts those stored bytes again (same txid; a duplicate is success).
 * - A new transaction is built only when the last one is dead on the chain's word, and never on one
 *   answer (a lagging backend behind a load balancer, or a lying node, must not get a second
 *   payment signed while the first can still land):
 *   - FAILED: a failed receipt at the required depth that the solidified node
 *     (/walletsolidity/gettransactioninfobyid, solidified blocks only: never replaced) has too, in
 *     the same block. A failure it does not have yet stays pending (asked again); one it contradicts
 *     (SUCCESS, another block) is alerted and stays pending while they disagree.
 *   - EXPIRED: in no block (gettransactioninfobyid and gettransactionbyid `{}`), the node's head past
 *     its expiration by the confirmation depth, OUR clock past it by TRON_EXPIRY_MARGIN_MS, and not
 *     in the solidified node either (a node answering `{}` for a transaction the solidified node has
 *     is alerted).
 *   - Two checks: the first check that reaches a verdict notes it on the transaction's row
 *     (dead_verdict, dead_seen_at); it is taken only by a later check, at least TRON_RECEIPT_POLL_MS
 *     after, that reaches the same verdict. Any check in between that does not (the transaction
 *     found, the failure not confirmed, a clock not past) clears it.
 *   A broadcast refusal alone proves nothing (another node may have it): it is recorded, shown,
 *   and the transaction stays live until the chain settles it.
 * - Confirmed = receipt SUCCESS with TRON_CONFIRMATIONS blocks on top.
 * - A failed receipt moved no USDT: after TRON_FAILED_RETRY_MS a new transaction is built (the
 *   hot wallet's USDT is checked first, so a wallet short of USDT does not burn TRX again);
 *   after TRON_WITHDRAWAL_MAX_ATTEMPTS dead transactions the withdrawal is refused (CANCELLED,
 *   hold returned — every one of them is provably not a transfer).
 */
import type { Sql } from '../../db/sql';
import { raiseAlert, resolveAlerts } from '../../db/queries/alerts';
import { saveChainBalance } from '../../db/queries/chain-balances';
import { recordBroadcastError } from '../../db/queries/withdrawals';
import {
  clearDeadVerdict,
  deadWithdrawalTransactions,
  insertWithdrawalTransaction,
  latestWithdrawalTransaction,
  LIVE_TRANSACTION_STATUSES,
  noteBroadcast,
  noteDeadVerdict,
  settleWithdrawalTransaction,
  type DeadVerdict,
  type WithdrawalTransactionRow,
} from '../../db/queries/withdrawal-transactions';
import {
  centsToUsdtUnits,
  checkUsdtTransfer,
  signUsdtTransfer,
  toBroadcastTransaction,
  TronTransactionMismatch,
  type ExpectedUsdtTransfer,
} from '../../domain/tron/transaction';
import { ChainUnavailable, type ChainAdapter, type ChainTransfer, type SentTransfer, type TransferStatus } from './adapter';
import { buildUsdtTransfer, TronRefused, type TronTransactionInfo } from './trongrid';
import { raiseLowTrxAlert, TRON_BLOCK_MS, trxText, type Tron } from './tron';

const usdt = (units: bigint) => `${units / 1_000_000n}.${(units % 1_000_000n).toString().padStart(6, '0')} USDT`;
const failedReceipt = (info: TronTransactionInfo) => info.failed || info.receiptResult !== 'SUCCESS';
const receiptText = (info: TronTransactionInfo) => `${info.receiptResult}${info.message ? ` (${info.message})` : ''}`;

/** `now`: our clock (tests move it; the expiry rule reads it besides the node's head). */
export function tronGridChain(sql: Sql, tron: Tron, now: () => number = Date.now): ChainAdapter {
  const { client, config } = tron;
  const confirmations = BigInt(config.TRON_CONFIRMATIONS);
  /** The node's head must be past an expiration by the confirmation depth. */
  const expiryMarginMs = config.TRON_CONFIRMATIONS * TRON_BLOCK_MS;

  const expected = (t: ChainTransfer, feeLimit: bigint, at: number): ExpectedUsdtTransfer => ({
    owner: tron.hotWallet,
    usdtContract: tron.usdtContract,
    to: t.toAddress,
    amountCents: t.amount,
    feeLimit,
    now: at,
  });

  const live = async (withdrawalId: string) => {
    const latest = await latestWithdrawalTransaction(sql, withdrawalId);
    return { latest, live: latest && LIVE_TRANSACTION_STATUSES.includes(latest.status) ? latest : undefined };
  };

  const alert = (t: ChainTransfer, kind: string, message: string) =>
    raiseAlert(sql, { kind, subject: t.withdrawalId, message: `withdrawal ${t.withdrawalId}: ${message}` });
  /** Shown on the withdrawal (last_broadcast_error in the operator list) until it completes. */
  const visible = (t: ChainTransfer, message: string) => recordBroadcastError(sql, t.withdrawalId, message.slice(0, 500));

  /** The hot wallet must hold the USDT (a transfer without it REVERTs and burns TRX); its balances are saved on the way. */
  async function preflight(t: ChainTransfer, signal?: AbortSignal) {
    const account = await client.getAccount(tron.hotWallet, signal);
    const units = account.trc20.get(tron.usdtContract) ?? 0n;
    await saveChainBalance(sql, { address: tron.hotWallet, usdtUnits: units, trxSun: account.balanceSun });
    const needed = centsToUsdtUnits(t.amount);
    if (units < needed) {
      const message = `the hot wallet ${tron.hotWallet} holds ${usdt(units)}, the withdrawal needs ${usdt(needed)}: waiting for a top-up`;
      await raiseAlert(sql, { kind: 'hot_wallet_low_usdt', subject: tron.hotWallet, message });
      throw new ChainUnavailable(message);
    }
    await resolveAlerts(sql, tron.hotWallet, 'hot_wallet_low_usdt');
    await raiseLowTrxAlert(sql, tron, account.balanceSun);
  }

  /** Builds, checks and signs a new transaction and stores it (committed) before anything is sent. */
  async function buildAndStore(t: ChainTransfer, attempt: number, signal?: AbortSignal): Promise<WithdrawalTransactionRow> {
    await preflight(t, signal);
    const at = now();
    let checked: Awaited<ReturnType<typeof buildUsdtTransfer>>;
    try {
      checked = await buildUsdtTransfer(client, expected(t, config.TRON_FEE_LIMIT_SUN, at), signal);
    } catch (error) {
      if (error instanceof TronTransactionMismatch) {
        await alert(
          t,
          'tron_build_refused',
          `the node (TRON_API_URL) built a transaction that is not the transfer asked for, nothing was signed: ${error.message}`,
        );
        throw new ChainUnavailable(error.message); // the node built something else: refused before signing (alerted), retried later
      }
      if (error instanceof TronRefused) {
        // Nothing was signed: a node refusing to build (e.g. the hot wallet not activated) is retried later.
        await alert(t, 'withdrawal_chain_problem', `the node refused to build the transfer: ${error.message}`);
        throw new ChainUnavailable(`the node refused to build the transfer: ${error.message}`);
      }
      throw error;
    }
    const signature = signUsdtTransfer(checked, tron.signingKey);
    // In a transaction: bounded by the activity's deadline (activities/deadline.ts), so an attempt
    // the workflow already gave up on can never store a transaction afterwards.
    const stored = await sql.begin((tx) =>
      insertWithdrawalTransaction(tx, {
        txid: checked.txid,
        withdrawalId: t.withdrawalId,
        attempt,
        rawDataHex: checked.rawDataHex,
        signature,
        feeLimitSun: config.TRON_FEE_LIMIT_SUN,
        builtAt: new Date(at),
        expiresAt: new Date(checked.expiration),
      }),
    );
    if (stored) return stored;
    // A concurrent attempt stored its transaction first: that one is sent, this one never leaves.
    const other = await live(t.withdrawalId);
    if (other.live) return other.live;
    throw new ChainUnavailable('another attempt of this withdrawal stored its transaction at the same time; retrying');
  }

  /** Broadcasts the stored bytes (checked again against the withdrawal first). Answers the node's refusal, if any. */
  async function broadcastStored(t: ChainTransfer, row: WithdrawalTransactionRow, signal?: AbortSignal): Promise<string | undefined> {
    const checked = checkUsdtTransfer(row.raw_data_hex, { ...expected(t, row.fee_limit_sun, row.built_at.getTime()), minRemainingMs: 0 }, row.txid);
    try {
      await client.broadcast(toBroadcastTransaction(checked, row.signature), signal);
    } catch (error) {
      if (!(error instanceof TronRefused)) throw error; // not now: the same bytes again on the retry
      await noteBroadcast(sql, row.txid, error.message);
      await visible(t, `the node refused transaction ${row.txid}: ${error.message} (kept until the chain settles it)`);
      if (!error.expired) await alert(t, 'withdrawal_chain_problem', `the node refused transaction ${row.txid}: ${error.message}`);
      return error.message;
    }
    await noteBroadcast(sql, row.txid, '');
    return undefined;
  }

  /**
   * This check reached `verdict` (the transaction is dead): taken only when an earlier check reached
   * it too, at least a poll ago, with none in between that saw otherwise. Otherwise noted (the
   * transaction stays live) for the next check to confirm.
   */
  async function verdictStands(row: WithdrawalTransactionRow, verdict: DeadVerdict): Promise<boolean> {
    const at = now();
    const since = await noteDeadVerdict(sql, row.txid, verdict, new Date(at));
    return since !== undefined && at - since.getTime() >= config.TRON_RECEIPT_POLL_MS; // undefined: settled meanwhile, the next check reads it
  }

  /** The last transaction is dead: build another after a pause, or give up after too many. */
  async function afterDeath(t: ChainTransfer, reason: string, failedOnChain: boolean): Promise<TransferStatus> {
    const dead = await deadWithdrawalTransactions(sql, t.withdrawalId);
    if (dead >= config.TRON_WITHDRAWAL_MAX_ATTEMPTS) {
      return {
        state: 'refused',
        reason: `${dead} transactions of this withdrawal failed or expired without moving any USDT (TRON_WITHDRAWAL_MAX_ATTEMPTS); last: ${reason}`,
      };
    }
    return { state: 'resubmit', afterMs: failedOnChain ? config.TRON_FAILED_RETRY_MS : 0, reason };
  }

  return {
    async send(t, signal): Promise<SentTransfer> {
      const { latest, live: current } = await live(t.withdrawalId);
      if (latest?.status === 'CONFIRMED') return { txHash: latest.txid, checkInMs: 0 };
      const row = current ?? (await buildAndStore(t, (latest?.attempt ?? 0) + 1, signal));
      // First broadcast, or a retry's rebroadcast of the same bytes. A refusal is recorded and
      // shown; the receipt checks decide (it is dead only once the chain says so).
      await broadcastStored(t, row, signal);
      return { txHash: row.txid, checkInMs: config.TRON_RECEIPT_POLL_MS };
    },

    async transferStatus(t, signal): Promise<TransferStatus> {
      const { latest, live: row } = await live(t.withdrawalId);
      if (latest?.status === 'CONFIRMED') return { state: 'confirmed', txHash: latest.txid };
      if (!row) return afterDeath(t, latest?.last_error || 'no transaction was stored', latest?.status === 'FAILED');
      // Every TRON_RECEIPT_POLL_MS while the transaction is young (it expires within minutes); a
      // node whose head stalls is then asked less and less often (up to every 10 minutes), so the
      // workflow's history stays short however long it waits.
      const young = row.expires_at.getTime() - row.built_at.getTime() + expiryMarginMs;
      const age = now() - row.built_at.getTime();
      const checkInMs = age <= young ? config.TRON_RECEIPT_POLL_MS : Math.min(600_000, Math.max(config.TRON_RECEIPT_POLL_MS, Math.round((age - young) / 10)));
      /** Live, and nothing on this check says dead: an earlier check's verdict no longer counts. */
      const pending = async (): Promise<TransferStatus> => {
        if (row.dead_verdict) await clearDeadVerdict(sql, row.txid);
        return { state: 'pending', txHash: row.txid, checkInMs };
      };
      /** A verdict noted on this check, not yet taken: the next check, one poll later, confirms it or clears it. */
      const noted = { state: 'pending', txHash: row.txid, checkInMs: config.TRON_RECEIPT_POLL_MS } as const;
      const [info, head] = await Promise.all([client.transactionInfo(row.txid, signal), client.nowBlock(signal)]);
      if (info) {
        // In a block. Final only at depth: a block can still be replaced before it is solidified.
        if (head.number - info.blockNumber < confirmations) return pending();
        if (!failedReceipt(info)) {
          await settleWithdrawalTransaction(sql, row.txid, {
            status: 'CONFIRMED',
            blockNumber: info.blockNumber,
            receiptResult: info.receiptResult,
            feeSun: info.feeSun,
          });
          return { state: 'confirmed', txHash: row.txid };
        }
        // A failed receipt counts only as the solidified node has it (in the same block), on two checks.
        const solid = await client.solidTransactionInfo(row.txid, signal);
        if (!solid) {
          await visible(
            t,
            `transaction ${row.txid}: the node reports ${receiptText(info)} in block ${info.blockNumber}, not confirmed by the solidified node yet; nothing new is built until it is`,
          );
          return pending();
        }
        if (!failedReceipt(solid) || solid.blockNumber !== info.blockNumber) {
          const message = `the node (TRON_API_URL) reports transaction ${row.txid} failed (${receiptText(info)}) in block ${info.blockNumber}, the solidified node has ${receiptText(solid)} in block ${solid.blockNumber}: nothing new is built while they disagree`;
          await alert(t, 'withdrawal_chain_problem', message);
          await visible(t, message);
          return pending();
        }
        if (!(await verdictStands(row, 'FAILED'))) return noted;
        const reason = `transaction ${row.txid} failed on chain: ${receiptText(solid)}; no USDT moved, ${trxText(solid.feeSun)} burnt`;
        // Alert and error (both repeatable) before the transaction is settled: a crash between them
        // leaves it live (its verdict noted), so the retry comes back here. The alert first: whoever
        // sees the error on the withdrawal finds the alert already raised.
        await alert(
          t,
          'withdrawal_failed_on_chain',
          `${reason}. Check the hot wallet's TRX (energy) and USDT; a new transaction is built after TRON_FAILED_RETRY_MS`,
        );
        await visible(t, reason);
        await settleWithdrawalTransaction(sql, row.txid, {
          status: 'FAILED',
          blockNumber: solid.blockNumber,
          receiptResult: solid.receiptResult,
          feeSun: solid.feeSun,
          error: reason,
        });
        return afterDeath(t, reason, true);
      }
      if (await client.transaction(row.txid, signal)) return pending(); // in a block, its receipt not indexed yet
      const expiration = row.expires_at.getTime();
      if (head.timestamp > expiration + expiryMarginMs && now() > expiration + config.TRON_EXPIRY_MARGIN_MS) {
        // Past its expiration by the node's head and by our clock: no block can take it any more —
        // unless it is in one already, which a lagging or lying node may not show. The solidified
        // node is asked, and the verdict is taken on a second check.
        const solid = await client.solidTransactionInfo(row.txid, signal);
        if (solid) {
          const message = `the node (TRON_API_URL) answers {} for transaction ${row.txid} past its expiration, but the solidified node has it in block ${solid.blockNumber} (${receiptText(solid)}): waiting for the node to show it`;
          await alert(t, 'withdrawal_chain_problem', message);
          await visible(t, message);
          return pending();
        }
        if (!(await verdictStands(row, 'EXPIRED'))) {
          await visible(t, `transaction ${row.txid} is in no block past its expiration: taken as expired if the next check still finds it so`);
          return noted;
        }
        const reason = `transaction ${row.txid} expired without reaching a block`;
        await visible(t, reason); // before the settle, as above
        await settleWithdrawalTransaction(sql, row.txid, { status: 'EXPIRED', error: reason });
        return afterDeath(t, reason, false);
      }
      // Not in a block yet: the node may have lost it. The same bytes again, now and then.
      if (!row.last_broadcast_at || now() - row.last_broadcast_at.getTime() >= config.TRON_REBROADCAST_MS) await broadcastStored(t, row, signal);
      return pending();
    },
  };
}
