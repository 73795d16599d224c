/**
 * The PayIn workflow's contract: its type name and signature, task queue, id scheme, search
 * attributes, input and messages, shared by the workflow and the API; its creation update and
 * status query are every deal-like workflow's (contracts/deal-like.ts). Names are a wire protocol
 * (running executions and their histories carry them): once shipped, a name stays.
 */
import type { DealOutcome, StartedByRequest } from './deal-like';
import type { SearchAttributePair } from '@temporalio/common';
import { defineUpdate } from '@temporalio/workflow';
import type { AmountMatch, CancelChannel, PayinStatus } from '../../domain/state/payin';
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
   * reserved`.
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
  /** Set on a sandbox merchant's deal (its timers can be advanced); absent on a live one. */
  sandbox?: boolean;
}

export interface ChangeAmountInput {
  amountFiat: string;
  reason: string;
  idempotencyKey: string;
  expectedAmountVersion: string;
  operatorId: string;
  /** Who sent it: the step writes its audit row in the change's transaction. */
  actor: AuditActor;
}

export type { CancelChannel };

/** The payer's "I paid" (the checkout page). */
export const notifyPaymentUpdate = defineUpdate<PayinSnapshot>('notifyPayment');
/**
 * An operator's moves, each with who sent it: the step writes the audit row in the move's
 * transaction (the sandbox trader sends its system actor through the same doors).
 */
export const reconciliationUpdate = defineUpdate<PayinSnapshot, [receivedAmount: string, actor: AuditActor]>('reconciliation');
/** The trader's confirmation of receipt: verified and, unless the reconciliation blocks it, completed in one step. */
export const confirmPaymentUpdate = defineUpdate<PayinSnapshot, [actor: AuditActor]>('confirmPayment');
export const completeUpdate = defineUpdate<PayinSnapshot, [actor: AuditActor]>('complete');
/**
 * The trader's confirmation from the trader app, with the amount it actually received: recorded as
 * a reconciliation records it (received_amount, amount_match_status) and confirmed, in one step — a
 * full amount completes the deal, a partial or overpaid one leaves it PAYMENT_VERIFIED for an operator.
 */
export const confirmReceivedUpdate = defineUpdate<PayinSnapshot, [receivedAmount: string, actor: AuditActor]>('confirmReceived');
/** The trader says the payment did not arrive: recorded with an operator alert; the deal's status stays. */
export const reportNotReceivedUpdate = defineUpdate<PayinSnapshot, [reason: string, actor: AuditActor]>('reportNotReceived');
/** The merchant's (API) or the payer's (checkout) cancel. */
export const cancelUpdate = defineUpdate<PayinSnapshot, [channel: CancelChannel, reason: string]>('cancel');
export const changeAmountUpdate = defineUpdate<{ snapshot: PayinSnapshot; replayed: boolean }, [ChangeAmountInput]>('changeAmount');

// ---- Appeals on a live deal: the deal side of an appeal is a move of this workflow ----

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
  /** Who sent it: the step writes its audit row in the resolution's transaction. */
  actor: AuditActor;
}

export interface AppealMoveResult {
  appealId: string;
  appealStatus: string;
  /** The deal after the move (unchanged when the appeal does not hold the deal). */
  deal: PayinSnapshot;
}

/** Opens the appeal; a live deal goes to APPEALED (deal.appealed) and stops being expirable. */
export const openAppealUpdate = defineUpdate<AppealMoveResult, [OpenAppealInput]>('openAppeal');
/** An arbiter's resolution: REJECTED → CANCELLED (escrow back to the trader), SATISFIED → COMPLETED. */
export const resolveAppealUpdate = defineUpdate<AppealMoveResult, [ResolveAppealInput]>('resolveAppeal');
