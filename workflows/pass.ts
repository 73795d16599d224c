/**
 * A pass's life: created ACTIVE; a PayIn create may reserve it (USED) any time before
 * expires_at; at expires_at a durable timer moves whatever is still ACTIVE to EXPIRED.
 */
import { sleep } from '@temporalio/workflow';
import { steps } from './activity-proxies';
import type { PassWorkflowInput } from './contracts/pass';

export async function passWorkflow(input: PassWorkflowInput): Promise<void> {
  const left = Date.parse(input.expiresAt) - Date.now();
  // The timer may fire a moment before the database's now() reaches expires_at: wait a little longer.
  await sleep(Math.max(0, left) + 1000);
  await steps.expirePass(input.passId);
}
