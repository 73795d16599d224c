/** The pass expiry workflow's contract: id `pass:<pass_id>`, sleeps until expires_at, then ACTIVE → EXPIRED. */
import type { SearchAttributePair } from '@temporalio/common';
import { MerchantIdKey } from './search-attributes';
import { dealsTaskQueue } from './task-queues';

export const passWorkflowType = 'passWorkflow';
export type PassWorkflow = (input: PassWorkflowInput) => Promise<void>;
export const passTaskQueue = dealsTaskQueue;
export const passWorkflowId = (passId: string) => `pass:${passId}`;
export const passSearchAttributes = (pass: { merchantId: string }): SearchAttributePair[] => [{ key: MerchantIdKey, value: pass.merchantId }];

export interface PassWorkflowInput {
  passId: string;
  /** RFC 3339. */
  expiresAt: string;
}
