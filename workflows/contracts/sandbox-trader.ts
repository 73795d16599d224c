/**
 * The sandbox trader's contract: one run per sandbox deal, id `sandbox-trader:<deal_id>`, on the
 * deals task queue. It plays the trader of a sandbox merchant's deal through the same doors a real
 * one uses — the deal workflow's updates — and, in a run of its own per appeal
 * (`sandbox-trader:appeal:<appeal_id>`), the arbiter of the deal's appeal.
 */
import type { SearchAttributePair } from '@temporalio/common';
import { defineUpdate } from '@temporalio/workflow';
import { DealIdKey, MerchantIdKey } from './search-attributes';
import { dealsTaskQueue } from './task-queues';

export const sandboxTraderWorkflowType = 'sandboxTraderWorkflow';
export type SandboxTraderWorkflow = (input: SandboxTraderInput) => Promise<SandboxTraderOutcome>;
export const sandboxTraderTaskQueue = dealsTaskQueue;
export const sandboxTraderWorkflowId = (dealId: string) => `sandbox-trader:${dealId}`;
/** The sandbox trader's run on one appeal of a sandbox deal, where it plays the arbiter (the same workflow type). */
export const sandboxTraderAppealWorkflowId = (appealId: string) => `sandbox-trader:appeal:${appealId}`;
export const sandboxTraderSearchAttributes = (deal: { merchantId: string; dealId: string }): SearchAttributePair[] => [
  { key: MerchantIdKey, value: deal.merchantId },
  { key: DealIdKey, value: deal.dealId },
];

export interface SandboxTraderInput {
  dealId: string;
  dealType: 'PAYIN' | 'PAYOUT';
  /** The deal's amount in minor units (a string: money travels as strings); its last two digits pick the scenario. */
  amount: string;
  /** How long the trader takes before it acts. */
  delaySeconds: number;
  /** Set for a run on an appeal: the appeal and what the trader, as its arbiter, does with it (resolve SATISFIED / REJECTED, or close). */
  appeal?: { appealId: string; outcome: 'SATISFIED' | 'REJECTED' | 'CLOSED' };
}

/** What the sandbox trader may ask of a deal: the same updates an operator's or trader's call sends. */
export type SandboxMove =
  /** The payer's "I paid" (the checkout page's notifyPayment update). */
  | { kind: 'payin_notify' }
  /** The trader's confirmation by hand (confirmReceived with the full amount to pay, the sandbox trader as a system actor). */
  | { kind: 'payin_confirm' }
  /**
   * The virtual bank device's credit of the amount to pay (activities/virtual-device.ts), which the
   * exact match turns into the deal's confirmation with the device as the actor; the time it
   * "received" it comes from the workflow, so a retried move is the same notification (its hash).
   * Not matched (an amount two live deals of the requisite share): the confirmation by hand.
   */
  | { kind: 'payin_bank_credit'; receivedAt: string }
  | { kind: 'payin_reject' }
  | { kind: 'payin_change_amount'; amount: string }
  | { kind: 'payout_start' }
  | { kind: 'payout_complete' }
  | { kind: 'payout_reject' }
  | { kind: 'appeal_resolve'; appealId: string; outcome: 'SATISFIED' | 'REJECTED' }
  /** As the arbiter: review (→ IN_REVIEW) and close (→ CLOSED), the appeal workflow's commands as the admin routes send them. */
  | { kind: 'appeal_review'; appealId: string }
  | { kind: 'appeal_close'; appealId: string }
  /** As the arbiter: a message in the appeal's thread (appeal.message), as the admin message route writes it. */
  | { kind: 'appeal_message'; appealId: string; body: string };

/** 'done', or 'refused' when the deal no longer allows the move (e.g. the merchant cancelled first). */
export type SandboxMoveResult = 'done' | 'refused';

export interface SandboxTraderOutcome {
  moves: { kind: SandboxMove['kind']; result: SandboxMoveResult }[];
}

// ---- Time, without waiting: an update the PayIn and PayOut workflows handle ----

/** The timer a deal is waiting on, which `advanceTimer` fires now. */
export type DealTimer = 'payment_timeout' | 'fee_distribution' | 'assign_sla' | 'transfer_sla' | 'processing_alert';

export interface AdvanceResult {
  /** The timer that fired. */
  timer: DealTimer;
  /** The deal's status once what the timer does has run. */
  status: string;
}

/**
 * Fires the deal's current timer now (POST /sandbox/deals/{deal_id}/advance): the workflow stops
 * waiting and does what the timer's end does (expire, distribute the fee, raise the alert), then
 * answers. Sandbox deals only; refused (FAILED_PRECONDITION) when no timer is running.
 */
export const advanceTimerUpdate = defineUpdate<AdvanceResult>('advanceTimer');
