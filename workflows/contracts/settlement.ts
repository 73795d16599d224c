/**
 * The settlement workflow's wire protocol: one per appeal, id
 * `settlement:<appeal_id>`, started by Update-With-Start. Its create step makes the settlement
 * deal (escrow hold → verified → COMPLETED in one transaction); then the fee distribution delay.
 */
import type { SearchAttributePair } from '@temporalio/common';
import { defineQuery, defineUpdate } from '@temporalio/workflow';
import type { AuditActor } from '../../domain/audit';
import { DealIdKey, DealStatusKey, DealTypeKey, MerchantIdKey, OriginAppealIdKey, ParentDealIdKey } from './search-attributes';
import { dealsTaskQueue } from './task-queues';

export const settlementWorkflowType = 'settlementWorkflow';
export type SettlementWorkflow = (input: SettlementWorkflowInput) => Promise<{ created: boolean }>;
export const settlementTaskQueue = dealsTaskQueue;
export const settlementWorkflowId = (appealId: string) => `settlement:${appealId}`;
/** The settlement deal shows like a PayIn, linked to the expired parent and the appeal it settles. */
export const settlementSearchAttributes = (s: { merchantId: string; dealId: string; parentDealId: string; appealId: string }): SearchAttributePair[] => [
  { key: MerchantIdKey, value: s.merchantId },
  { key: DealIdKey, value: s.dealId },
  { key: DealTypeKey, value: 'PAYIN' },
  { key: DealStatusKey, value: 'INITIALIZED' },
  { key: ParentDealIdKey, value: s.parentDealId },
  { key: OriginAppealIdKey, value: s.appealId },
];

export interface SettlementRequest {
  appealId: string;
  /** The settlement deal's id: fixed by the appeal, so every request addresses one deal. */
  dealId: string;
  idempotencyKey: string;
  /** Minor units as a string, or null for the parent's received_amount. */
  receivedAmountOverride: string | null;
  reason: string;
  operatorId: string;
  /** Who sent it: the step writes its audit row in the settlement's transaction. */
  actor: AuditActor;
}

export interface SettlementWorkflowInput {
  appealId: string;
  dealId: string;
  feeDistributionDelaySeconds: number;
}

export interface SettlementResult {
  dealId: string;
  status: string;
  /** True when an earlier request with the same idempotency_key made it. */
  replayed: boolean;
}

export const createSettlementUpdate = defineUpdate<SettlementResult, [SettlementRequest]>('createSettlement');
export const settlementQuery = defineQuery<SettlementResult | undefined>('settlement');
