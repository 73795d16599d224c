/**
 * Starting a stored bank notification's workflow (workflows/bank-notification.ts): from the API
 * once a device's notification is stored, from its sweep for one whose run never started, and from
 * the worker for the sandbox's virtual device (activities/virtual-device.ts) — the one start both
 * processes share.
 */
import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import type { Config } from '../config';
import {
  bankNotificationTaskQueue,
  bankNotificationWorkflowId,
  bankNotificationWorkflowType,
  type BankNotificationWorkflow,
} from '../workflows/contracts/bank-notification';

/** Starts the notification's run; a run already started (the API's, the sweep's) is the same run. Answers its handle. */
export async function startBankNotificationRun(temporal: Client, config: Config, notificationId: string) {
  try {
    await temporal.workflow.start<BankNotificationWorkflow>(bankNotificationWorkflowType, {
      workflowId: bankNotificationWorkflowId(notificationId),
      taskQueue: bankNotificationTaskQueue(config),
      args: [{ notificationId, timeouts: { stepMs: config.DEAL_STEP_TIMEOUT_MS, createMs: config.DEAL_CREATE_TIMEOUT_MS } }],
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
    });
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
  }
  return temporal.workflow.getHandle<BankNotificationWorkflow>(bankNotificationWorkflowId(notificationId));
}
