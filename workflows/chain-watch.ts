/**
 * The deposit watcher (CHAIN_ADAPTER=trongrid): pass → timer → pass …, one workflow for the whole
 * gateway (workflows/contracts/chain-watch.ts), visible in the Temporal UI with its status query.
 * A pass is an activity that heartbeats per address and is retried (backoff, no limit) while the
 * node is down; the pause between passes is the pass's answer (the worker's TRON_POLL_INTERVAL_MS).
 * Continues as new every 500 passes (or when Temporal suggests it) to keep its history short.
 */
import { continueAsNew, proxyActivities, setHandler, sleep, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities';
import { chainWatchStatusQuery, type ChainWatchInput, type ChainWatchStatus } from './contracts/chain-watch';

const PASSES_PER_RUN = 500;

const { watchChainPass } = proxyActivities<Activities>({
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '1 minute',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

export async function chainWatchWorkflow(input: ChainWatchInput = {}): Promise<void> {
  const status: ChainWatchStatus = { passes: input.passes ?? 0, lastPassAt: 0 };
  setHandler(chainWatchStatusQuery, () => status);
  const limit = input.continueAfter ?? PASSES_PER_RUN;
  for (let run = 0; run < limit && !workflowInfo().continueAsNewSuggested; run++) {
    const { nextInMs, ...last } = await watchChainPass();
    status.passes++;
    status.lastPassAt = Date.now();
    status.last = last;
    await sleep(nextInMs);
  }
  await continueAsNew<typeof chainWatchWorkflow>({
    passes: status.passes,
    ...(input.continueAfter !== undefined ? { continueAfter: input.continueAfter } : {}),
  });
}
