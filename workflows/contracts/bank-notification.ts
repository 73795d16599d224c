/**
 * The bank notification workflow's contract (docs/bank-notifications.md): one run per stored
 * notification that holds a credit, id `bank-notification:<notification_id>`, started by the API
 * once the notification is stored (and again by the sweep for one whose run never started). It
 * matches the credit to one live PayIn of the device's requisites and confirms that deal through
 * the deal's own workflow; a credit that matches nothing goes to the operators' queue.
 */
import { dealsTaskQueue } from './task-queues';
import type { StepTimeouts } from './timeouts';

export const bankNotificationWorkflowType = 'bankNotificationWorkflow';
export type BankNotificationWorkflow = (input: BankNotificationWorkflowInput) => Promise<BankNotificationOutcome>;
export const bankNotificationTaskQueue = dealsTaskQueue;
export const bankNotificationWorkflowId = (notificationId: string) => `bank-notification:${notificationId}`;

export interface BankNotificationWorkflowInput {
  notificationId: string;
  timeouts?: StepTimeouts;
}

/** Where the notification ended: the deal it confirmed, or why it waits for an operator. */
export interface BankNotificationOutcome {
  status: 'MATCHED' | 'UNMATCHED' | 'RECEIVED' | 'UNPARSED' | 'IGNORED' | 'ATTACHED' | 'DISMISSED';
  dealId?: string;
  /** Why it is UNMATCHED (no_live_deal, ambiguous, already_matched, deal_refused), or '' */
  reason: string;
}
