/**
 * The PayIn workflow's contract: its type name and signature, task queue, id scheme, search
 * attributes, input and messages, shared by the workflow and the API. Names are a wire protocol
 * (running executions and their histories carry them): never rename a shipped one.
 */
import type { CreationAnswer, CreationArgs, DealOutcome, StartedByRequest } from './outcome';
import type { SearchAttributePair } from '@temporalio/common';
import { defineQuery, defineUpdate } from '@temporalio/workflow';
import type { AmountMatch, CancelChannel, PayinStatus } from '../../domain/payin';
import type { AuditActor } from '../../domain/audit';
import { DealIdKey, DealTypeKey, MerchantIdKey } from './search-attributes';
import { dealsTaskQueue } from './task-queues';
import type { StepTimeouts } from './timeouts';

/** The registered workflow type (workflows/index.ts exports the function under this name). */
export const payinWorkflowType = 'payinWorkflow';
export type PayinWorkflow = (input: PayinWorkflowInput) => Promise<PayinOutcome>;
export type PayinOutcome = DealOutcome<PayinStatus>;
export const payinTaskQueue = dealsTaskQueue;
export const payinWorkflowId = (dealId: string) => `payin:${dealId}`;
/** Findable in the Temporal UI by merchant and deal; DealStatus is written when the deal ends (workflows/deal-lifecycle.ts). */
export const payinSearchAttributes = (deal: { merchantId: string; dealId: string }): SearchAttributePair[] => [
  { key: MerchantIdKey, value: deal.merchantId },
  { key: DealIdKey, value: deal.dealId },
  { key: DealTypeKey, value: 'PAYIN' },
];

export interface CreatePayinInput {
  dealId: string;
  tenantId: string;
  merchantId: string;
  idempotencyKey: string;
  /** Money travels as strings in Temporal payloads. */
  amount: string;
  currency: string;
  paymentMethodId: string;
  clientId: string;
  payerBank: string;
  description: string;
  callbackUrl: string;
  isClientCommission: boolean;
  /**
   * When the create request arrived (RFC 3339 with microseconds, Postgres's clock): a pass matching
   * the deal that was reserved after this instant makes the create 409 `pass was concurrently
   * reserved` (spec 4.6).
   */
  arrivedAt: string;
}

export interface PayinWorkflowInput extends StartedByRequest {
  create: CreatePayinInput;
  feeDistributionDelaySeconds: number;
  timeouts?: StepTimeouts;
}

export interface PayinSnapshot {
  status: PayinStatus;
  amount: string;
  amountVersion: string;
  receivedAmount: string;
  amountMatchStatus: AmountMatch;
  /** RFC 3339; the durable expiry timer fires then. */
  paymentTimeoutAt: string;
  /** Issue 29: set on a sandbox merchant's deal (its timers can be advanced). */
  sandbox?: boolean;
}

export interface ChangeAmountInput {
  amountFiat: string;
  reason: string;
  idempotencyKey: string;
  expectedAmountVersion: string;
  operatorId: string;
  /** Who sent it (issue 28.4), audited in the step; absent from older senders. */
  actor?: AuditActor;
}

export type { CancelChannel };

/** Resolves once the create step ran: the deal's snapshot, or the reason no deal was made. */
export const awaitCreationUpdate = defineUpdate<CreationAnswer<PayinSnapshot>, CreationArgs>('awaitCreation');
export const notifyPaymentUpdate = defineUpdate<PayinSnapshot>('notifyPayment');
/** `actor` (issue 28.4: audited in the step) came later: optional, so updates of older senders still apply. */
export const reconciliationUpdate = defineUpdate<PayinSnapshot, [receivedAmount: string, actor?: AuditActor]>('reconciliation');
export const confirmPaymentUpdate = defineUpdate<PayinSnapshot>('confirmPayment');
/**
 * The same update (one wire name) with the operator who sent it (issue 28), audited in the step:
 * the API sends it with the actor; the workflow handles it with or without (older senders).
 */
export const confirmPaymentByOperatorUpdate = defineUpdate<PayinSnapshot, [actor: AuditActor]>('confirmPayment');
export const confirmPaymentHandlerUpdate = defineUpdate<PayinSnapshot, [actor?: AuditActor]>('confirmPayment');
export const completeUpdate = defineUpdate<PayinSnapshot>('complete');
/** The operator's completion with its actor (as confirmPayment): the API sends this one, the workflow handles both. */
export const completeByOperatorUpdate = defineUpdate<PayinSnapshot, [actor: AuditActor]>('complete');
export const completeHandlerUpdate = defineUpdate<PayinSnapshot, [actor?: AuditActor]>('complete');
export const cancelUpdate = defineUpdate<PayinSnapshot, [channel: CancelChannel, reason: string]>('cancel');
export const changeAmountUpdate = defineUpdate<{ snapshot: PayinSnapshot; replayed: boolean }, [ChangeAmountInput]>('changeAmount');
export const statusQuery = defineQuery<PayinSnapshot | undefined>('status');

// ---- Appeals on a live deal (issue 9): the deal side of an appeal is a move of this workflow ----

export interface OpenAppealInput {
  /** Chosen by the API; also the id of the command, so a retried step answers without a second appeal. */
  appealId: string;
  dealId: string;
  merchantId: string;
  tenantId: string;
  reason: string;
  fileIds: string[];
}

export interface ResolveAppealInput {
  appealId: string;
  outcome: 'SATISFIED' | 'REJECTED';
  note: string;
  operatorId: string;
  /** One per API call: a retried step of the same call answers the committed result. */
  commandId: string;
  /** Who sent it (issue 28.4), audited in the step; absent from older senders. */
  actor?: AuditActor;
}

export interface AppealMoveResult {
  appealId: string;
  appealStatus: string;
  /** The deal after the move (unchanged when the appeal does not hold the deal). */
  deal: PayinSnapshot;
}

/** Opens the appeal; a live deal goes to APPEALED (deal.appealed) and stops being expirable. */
export const openAppealUpdate = defineUpdate<AppealMoveResult, [OpenAppealInput]>('openAppeal');
/** The arbiter's resolution: REJECTED → CANCELLED (escrow back to the trader), SATISFIED → COMPLETED. */
export const resolveAppealUpdate = defineUpdate<AppealMoveResult, [ResolveAppealInput]>('resolveAppeal');
