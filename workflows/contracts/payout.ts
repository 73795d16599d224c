/** The PayOut workflow's contract (as contracts/payin.ts). Names are a wire protocol: once shipped, a name stays. */
import type { SearchAttributePair } from '@temporalio/common';
import { defineUpdate } from '@temporalio/workflow';
import type { DealOutcome, StartedByRequest } from './deal-like';
import type { AuditActor } from '../../domain/audit';
import type { PayoutStatus } from '../../domain/state/payout';
import { DealIdKey, DealTypeKey, MerchantIdKey } from './search-attributes';
import { dealsTaskQueue } from './task-queues';
import type { StepTimeouts } from './timeouts';

export const payoutWorkflowType = 'payoutWorkflow';
export type PayoutWorkflow = (input: PayoutWorkflowInput) => Promise<PayoutOutcome>;
export type PayoutOutcome = DealOutcome<PayoutStatus>;
export const payoutTaskQueue = dealsTaskQueue;
export const payoutWorkflowId = (dealId: string) => `payout:${dealId}`;
export const payoutSearchAttributes = (deal: { merchantId: string; dealId: string }): SearchAttributePair[] => [
  { key: MerchantIdKey, value: deal.merchantId },
  { key: DealIdKey, value: deal.dealId },
  { key: DealTypeKey, value: 'PAYOUT' },
];

export interface CreatePayoutInput {
  dealId: string;
  tenantId: string;
  merchantId: string;
  idempotencyKey: string;
  amount: string;
  currency: string;
  paymentMethodId: string;
  walletId: string;
  targetRequisite: string;
  targetName: string;
  targetBank: string;
  requisiteDetails: Record<string, string>;
}

export interface PayoutWorkflowInput extends StartedByRequest {
  create: CreatePayoutInput;
  retryMatchSeconds: number;
  timeouts?: StepTimeouts;
  /** A payout PROCESSING this long raises one operator alert (0: never). */
  processingAlertSeconds?: number;
}

export interface PayoutSnapshot {
  status: PayoutStatus;
  /** RFC 3339: an UNASSIGNED payout expires then (PAYOUT_ASSIGN_SLA_SECONDS after creation). */
  assignDeadlineAt: string;
  /** RFC 3339: a MATCHED payout whose trader has not started expires then (PAYOUT_TRANSFER_SLA_SECONDS after matching). */
  transferDeadlineAt?: string;
  /** Set on a sandbox merchant's deal (its timers can be advanced); absent on a live one. */
  sandbox?: boolean;
}

/**
 * The operator's moves, each with who sent it: the step writes the audit row in the move's
 * transaction (the sandbox trader sends its system actor through the same doors).
 */
export const assignPayoutUpdate = defineUpdate<PayoutSnapshot, [requisiteId: string, actor: AuditActor]>('assignPayout');
export const startPayoutUpdate = defineUpdate<PayoutSnapshot, [actor: AuditActor]>('startPayout');
/** A trader's proof of the transfer: the bank's reference and the file it uploaded (its id). */
export interface PayoutProof {
  bankReference: string;
  /** An evidence file of the trader's, tied to the deal; '' when none. */
  fileId: string;
}
/** The completion; the trader's (and the sandbox trader's) carries its proof, an operator's may not. */
export const completePayoutUpdate = defineUpdate<PayoutSnapshot, [actor: AuditActor, proof?: PayoutProof]>('completePayout');
/** A trader takes an UNASSIGNED payout it can serve (one of its ACTIVE requisites fits): MATCHED to it; the first take wins. */
export const takePayoutUpdate = defineUpdate<PayoutSnapshot, [traderId: string, actor: AuditActor]>('takePayout');
export const rejectPayoutUpdate = defineUpdate<PayoutSnapshot, [reason: string, actor: AuditActor]>('rejectPayout');
