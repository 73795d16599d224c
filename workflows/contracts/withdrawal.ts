/** The withdrawal workflow's contract (as contracts/payin.ts). Names are a wire protocol: once shipped, a name stays. */
import type { SearchAttributePair } from '@temporalio/common';
import { defineUpdate } from '@temporalio/workflow';
import type { DealOutcome, StartedByRequest } from './deal-like';
import type { WithdrawalStatus } from '../../domain/state/withdrawals';
import type { AuditActor } from '../../domain/audit';
import { DealIdKey, DealTypeKey, MerchantIdKey } from './search-attributes';
import { dealsTaskQueue } from './task-queues';
import type { StepTimeouts } from './timeouts';

export const withdrawalWorkflowType = 'withdrawalWorkflow';
export type WithdrawalWorkflow = (input: WithdrawalWorkflowInput) => Promise<WithdrawalOutcome>;
export type WithdrawalOutcome = DealOutcome<WithdrawalStatus>;
export const withdrawalTaskQueue = dealsTaskQueue;
export const withdrawalWorkflowId = (withdrawalId: string) => `withdrawal:${withdrawalId}`;
/** Withdrawals show in the Temporal UI like deals: DealId is the withdrawal's id, DealType WITHDRAWAL. */
/** A trader's withdrawal has no merchant: no MerchantId. */
export const withdrawalSearchAttributes = (w: { merchantId: string; withdrawalId: string }): SearchAttributePair[] => [
  ...(w.merchantId ? [{ key: MerchantIdKey, value: w.merchantId }] : []),
  { key: DealIdKey, value: w.withdrawalId },
  { key: DealTypeKey, value: 'WITHDRAWAL' },
];

export interface CreateWithdrawalInput {
  withdrawalId: string;
  /** The merchant whose withdrawal it is; empty for a trader's (traderId). */
  merchantId: string;
  /** A trader's withdrawal of its available USDT: always to the operator queue (PENDING_MANUAL). */
  traderId?: string;
  address: string;
  /** USDT cents, as strings (money travels as strings in Temporal payloads). */
  amount: string;
  fee: string;
  dedupKey: string;
  dedupGeneration: number;
  idempotencyKey: string;
  /**
   * An explicit caller key (the V1 adapter's requestId): the withdrawal is the one of (merchant,
   * key). Absent on V2 withdrawals (server-side key).
   */
  callerKey?: string;
}

export interface WithdrawalWorkflowInput extends StartedByRequest {
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

/**
 * The operator's approve and cancel, with who sent it: the step writes the audit row and counts
 * the approval toward four-eyes by it.
 */
export const approveWithdrawalUpdate = defineUpdate<WithdrawalSnapshot, [operatorId: string, actor: AuditActor]>('approveWithdrawal');
export const cancelWithdrawalUpdate = defineUpdate<WithdrawalSnapshot, [reason: string, operatorId: string, actor: AuditActor]>('cancelWithdrawal');
