/**
 * The embedded simulated chain (CHAIN_ADAPTER=simulated). Its ledger of accepted transfers is the
 * table simulated_chain_transfers — outside the gateway's own tables, durable across worker
 * crashes like a real network. Idempotent by withdrawal id; the tx hash is deterministic
 * (sha256 of withdrawal id, address and amount, 64 hex characters like a TRON txid).
 *
 * CHAIN_SIMULATOR: ok | fail (refuses every transfer for good) | flaky (the first two sends of
 * each withdrawal fail transiently) | hang (never answers). CHAIN_SIMULATOR_LATENCY_MS waits
 * before and after the transfer is accepted.
 */
import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Sql } from '../../db/sql';
import { acceptSimulatedTransfer } from '../../db/queries/simulated-chain';
import { ChainRejected, ChainUnavailable, type ChainAdapter, type ChainTransfer } from './adapter';

export type SimulatorMode = 'ok' | 'fail' | 'flaky' | 'hang';

const simulatedTxHash = (t: ChainTransfer) => createHash('sha256').update(`sim-tron\u0000${t.withdrawalId}\u0000${t.toAddress}\u0000${t.amount}`).digest('hex');

/** Never answers; gives up only when the caller aborts. */
function aborted(signal: AbortSignal | undefined): Promise<never> {
  return new Promise((_, reject) => signal?.addEventListener('abort', () => reject(new ChainUnavailable('simulated chain: call abandoned')), { once: true }));
}

/**
 * The sandbox chain: where a sandbox merchant's withdrawals go, whatever CHAIN_ADAPTER
 * says — play money never reaches a real network. The simulator without faults, except that a
 * withdrawal whose amount ends in 05 is refused for good (cancelled and refunded, docs/sandbox.md).
 */
export function sandboxChain(sql: Sql, failing: (withdrawalId: string) => boolean): ChainAdapter {
  const inner = simulatedChain(sql, { mode: 'ok', latencyMs: 0 });
  return {
    async send(transfer, signal) {
      if (failing(transfer.withdrawalId)) throw new ChainRejected('sandbox chain: a withdrawal whose amount ends in 05 fails on chain');
      return inner.send(transfer, signal);
    },
  };
}

export function simulatedChain(sql: Sql, options: { mode: SimulatorMode; latencyMs: number }): ChainAdapter {
  const flakyCalls = new Map<string, number>();
  return {
    async send(transfer, signal) {
      if (options.mode === 'hang') await aborted(signal);
      if (options.latencyMs > 0) await sleep(options.latencyMs, undefined, { signal });
      if (options.mode === 'fail') throw new ChainRejected('simulated chain: transfer refused');
      if (options.mode === 'flaky') {
        const calls = (flakyCalls.get(transfer.withdrawalId) ?? 0) + 1;
        flakyCalls.set(transfer.withdrawalId, calls);
        if (calls <= 2) throw new ChainUnavailable(`simulated chain: node unavailable (call ${calls})`);
      }
      const txHash = simulatedTxHash(transfer);
      const accepted = await acceptSimulatedTransfer(sql, {
        withdrawalId: transfer.withdrawalId,
        txHash,
        toAddress: transfer.toAddress,
        amount: transfer.amount,
      });
      if (options.latencyMs > 0) await sleep(options.latencyMs, undefined, { signal });
      return { txHash: accepted };
    },
  };
}
