/**
 * The deposit watcher's step (the chain-watch workflow, CHAIN_ADAPTER=trongrid): one pass over
 * the deposit addresses (activities/chain/tron-deposits.ts), heartbeating per address. It answers
 * when the next pass is due, so the cadence is the worker's configuration (TRON_POLL_INTERVAL_MS).
 */
import { Context } from '@temporalio/activity';
import { FailedPrecondition } from '../domain/errors';
import type { ActivityDeps } from './deps';
import type { Chain } from './chain';
import type { ChainWatchPassResult } from '../workflows/contracts/chain-watch';

export type ChainWatchPass = ChainWatchPassResult & { nextInMs: number };

export function createChainWatchActivities(deps: ActivityDeps, chain: Chain) {
  return {
    async watchChainPass(): Promise<ChainWatchPass> {
      const watcher = chain.depositWatcher;
      if (!watcher) throw new FailedPrecondition(`CHAIN_ADAPTER=${deps.config.CHAIN_ADAPTER} has no deposit watcher`);
      const context = Context.current();
      const started = Date.now();
      const result = await watcher.pass({ signal: context.cancellationSignal, beat: () => context.heartbeat() });
      // The watcher's lag is read from these (ChainWatcherBehind): the end of the last pass that finished.
      deps.metrics?.chainWatchPassDuration.observe((Date.now() - started) / 1000);
      deps.metrics?.chainWatchLastPass.set(Date.now() / 1000);
      if (result.pending || result.confirmed || result.dropped || result.problems) {
        deps.log.info({ ...result, ms: Date.now() - started }, 'chain watch pass');
      }
      return { ...result, nextInMs: deps.config.TRON_POLL_INTERVAL_MS };
    },
  };
}
