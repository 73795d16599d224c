/** The PayOut workflow's wire protocol. Message names are a protocol: never rename a shipped one. */
import { defineQuery, defineUpdate } from '@temporalio/workflow';
import type { PayoutStatus } from '../../domain/payout';

export const payoutWorkflowId = (dealId: string) => `payout:${dealId}`;

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

export interface PayoutWorkflowInput {
  create: CreatePayoutInput;
  retryMatchSeconds: number;
}

export interface PayoutSnapshot {
  status: PayoutStatus;
  /** RFC 3339: an UNASSIGNED payout expires then (PAYOUT_ASSIGN_SLA_SECONDS after creation). */
  assignDeadlineAt: string;
}

export const awaitPayoutCreationUpdate = defineUpdate<PayoutSnapshot>('awaitPayoutCreation');
export const assignPayoutUpdate = defineUpdate<PayoutSnapshot, [requisiteId: string]>('assignPayout');
export const startPayoutUpdate = defineUpdate<PayoutSnapshot>('startPayout');
export const completePayoutUpdate = defineUpdate<PayoutSnapshot>('completePayout');
export const rejectPayoutUpdate = defineUpdate<PayoutSnapshot, [reason: string]>('rejectPayout');
export const payoutStatusQuery = defineQuery<PayoutSnapshot | undefined>('payoutStatus');
