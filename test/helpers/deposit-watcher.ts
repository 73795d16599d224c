/**
 * A scripted deposit watcher for the intake's tests: a watcher reports what it saw, the intake
 * (ingestObservedDeposit) attributes transfers by receiving address (rotated addresses included),
 * keeps them PENDING until the required confirmations, then credits them once. In the gateway the
 * chain-watch workflow's pass (activities/chain/tron-deposits.ts) feeds the intake itself, with
 * receipts and DROPPED; with the simulator the operator's POST /admin/deposits stands in for a
 * watcher.
 */
import type { Sql } from '../../db/sql';
import { ingestObservedDeposit, type IntakeResult, type ObservedDeposit } from '../../db/queries/wallet-deposits';

export interface DepositWatcher {
  /** USDT TRC-20 transfers to the gateway's addresses seen since `cursor` (opaque: a block number, an event fingerprint). */
  poll(cursor: string | undefined, signal?: AbortSignal): Promise<{ deposits: ObservedDeposit[]; cursor: string }>;
}

/** One pass: each reported transfer in its own transaction (a conflicting one does not block the rest). */
export async function runDepositWatcherPass(
  sql: Sql,
  watcher: DepositWatcher,
  cursor: string | undefined,
  requiredConfirmations: number,
): Promise<{ cursor: string; results: (IntakeResult | { kind: 'error'; txHash: string; error: string })[] }> {
  const { deposits, cursor: next } = await watcher.poll(cursor);
  const results = [];
  for (const seen of deposits) {
    try {
      results.push(await sql.begin((tx) => ingestObservedDeposit(tx, seen, requiredConfirmations)));
    } catch (error) {
      results.push({ kind: 'error' as const, txHash: seen.txHash, error: error instanceof Error ? error.message : String(error) });
    }
  }
  return { cursor: next, results };
}
