/** The withdrawal workflow's wire protocol. Message names are a protocol: never rename a shipped one. */
import { defineQuery, defineUpdate } from '@temporalio/workflow';
import type { StepTimeouts } from '../activity-proxies';
import type { WithdrawalStatus } from '../../domain/withdrawals';

export const withdrawalWorkflowId = (withdrawalId: string) => `withdrawal:${withdrawalId}`;

export interface CreateWithdrawalInput {
  withdrawalId: string;
  merchantId: string;
  address: string;
  /** USDT cents, as strings (money travels as strings in Temporal payloads). */
  amount: string;
  fee: string;
  dedupKey: string;
  dedupGeneration: number;
  idempotencyKey: string;
  /**
   * An explicit caller key (the V1 adapter's requestId): the withdrawal is the one of (merchant,
   * key). Absent on V2 withdrawals (server-side key) and on inputs written before issue 17.
   */
  callerKey?: string;
}

export interface WithdrawalWorkflowInput {
  /** Deadlines of its steps (DEAL_STEP_TIMEOUT_MS, DEAL_CREATE_TIMEOUT_MS); defaults when absent. */
  timeouts?: StepTimeouts;
  create: CreateWithdrawalInput;
  /** How long the create (and approve) update waits for the broadcast before answering. */
  syncWaitMs: number;
  broadcast: { timeoutSeconds: number; heartbeatSeconds: number; maxBackoffSeconds: number };
}

export interface WithdrawalSnapshot {
  status: WithdrawalStatus;
  txHash: string;
}

export const awaitWithdrawalCreationUpdate = defineUpdate<WithdrawalSnapshot>('awaitWithdrawalCreation');
export const approveWithdrawalUpdate = defineUpdate<WithdrawalSnapshot, [operatorId: string]>('approveWithdrawal');
export const cancelWithdrawalUpdate = defineUpdate<WithdrawalSnapshot, [reason: string, operatorId: string]>('cancelWithdrawal');
export const withdrawalStatusQuery = defineQuery<WithdrawalSnapshot | undefined>('withdrawalStatus');
