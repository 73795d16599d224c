/**
 * The deposit watcher's contract (CHAIN_ADAPTER=trongrid): one workflow per deployment,
 * `chain-watch:<deals task queue>`, started idempotently by every worker process that polls the
 * deals queue (workers/chain-watch.ts). It runs a pass (an activity) over the deposit addresses,
 * sleeps on a durable timer, and continues as new every so often. Its cursors live in Postgres
 * (chain_watch_addresses), so a new run, a restart or a crashed pass loses nothing. No merchant
 * search attributes: it is the gateway's, not a merchant's. Names are a wire protocol.
 */
import { defineQuery } from '@temporalio/workflow';
import { dealsTaskQueue, type TaskQueueConfig } from './task-queues';

export const chainWatchWorkflowType = 'chainWatchWorkflow';
export type ChainWatchWorkflow = (input: ChainWatchInput) => Promise<void>;
export const chainWatchTaskQueue = dealsTaskQueue;
/** Fixed per deployment (its task queue): two deployments sharing a namespace keep their own watcher. */
export const chainWatchWorkflowId = (config: TaskQueueConfig) => `chain-watch:${dealsTaskQueue(config)}`;

export interface ChainWatchInput {
  /** Passes run by the earlier runs (carried over by continue-as-new). */
  passes?: number;
  /** Continue-as-new after this many passes in one run (tests); otherwise at 500 or when Temporal suggests it. */
  continueAfter?: number;
}

/** What one pass of the deposit watcher found (activities/chain/tron-deposits.ts). */
export interface ChainWatchPassResult {
  addresses: number;
  /** Newly PENDING, newly CONFIRMED (credited), newly DROPPED in this pass. */
  pending: number;
  confirmed: number;
  dropped: number;
  /** Rows of other tokens, other recipients, dust. */
  ignored: number;
  /** Left to an operator (alerted). */
  problems: number;
  balances: number;
}

export interface ChainWatchStatus {
  passes: number;
  /** ms since the epoch (workflow time) of the last pass's end; 0 before the first. */
  lastPassAt: number;
  last?: ChainWatchPassResult;
}

export const chainWatchStatusQuery = defineQuery<ChainWatchStatus>('chainWatchStatus');
