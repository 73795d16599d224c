/**
 * Starts the deposit watcher (the chain-watch workflow) when the worker polls the deals queue and
 * CHAIN_ADAPTER=trongrid. Idempotent: every worker process asks, the running one is kept
 * (USE_EXISTING); a closed one (terminated, failed) is started again.
 */
import type { Client } from '@temporalio/client';
import type { Config } from '../config';
import { chainWatchTaskQueue, chainWatchWorkflowId, chainWatchWorkflowType, type ChainWatchWorkflow } from '../workflows/contracts/chain-watch';

export async function ensureChainWatch(client: Client, config: Pick<Config, 'CHAIN_ADAPTER' | 'WORKER_ROLE' | 'TEMPORAL_TASK_QUEUE' | 'WEBHOOK_TASK_QUEUE'>) {
  if (config.CHAIN_ADAPTER !== 'trongrid' || config.WORKER_ROLE === 'webhooks') return undefined;
  return client.workflow.start<ChainWatchWorkflow>(chainWatchWorkflowType, {
    workflowId: chainWatchWorkflowId(config),
    taskQueue: chainWatchTaskQueue(config),
    workflowIdConflictPolicy: 'USE_EXISTING',
    args: [{}],
  });
}
