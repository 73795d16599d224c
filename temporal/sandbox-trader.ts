/** Starting a sandbox deal's trader (docs/sandbox.md): the step the deal's own workflow runs after its create (activities/sandbox.ts). */
import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import type { Config } from '../config';
import { isPayinTerminal, type PayinStatus } from '../domain/state/payin';
import { isPayoutTerminal, type PayoutStatus } from '../domain/state/payout';
import {
  sandboxTraderSearchAttributes,
  sandboxTraderTaskQueue,
  sandboxTraderWorkflowId,
  sandboxTraderWorkflowType,
  type SandboxTraderWorkflow,
} from '../workflows/contracts/sandbox-trader';

/** What the start needs of a deal (a DealRow fits). */
export interface SandboxTraderDeal {
  id: string;
  merchant_id: string;
  deal_type: 'PAYIN' | 'PAYOUT';
  status: string;
  amount: bigint;
  sandbox: boolean;
}

/**
 * Starts a sandbox deal's trader (`sandbox-trader:<deal_id>`), once per deal: a running run is
 * joined, an ended one is not started again (WorkflowExecutionAlreadyStartedError is success). A
 * live deal, or one already ended, needs none.
 */
export async function startSandboxTraderRun(temporal: Client, config: Config, row: SandboxTraderDeal): Promise<void> {
  if (!row.sandbox) return;
  // An ended deal needs no trader (a replay long after the run's retention must not start one).
  if (row.deal_type === 'PAYIN' ? isPayinTerminal(row.status as PayinStatus) : isPayoutTerminal(row.status as PayoutStatus)) return;
  try {
    await temporal.workflow.start<SandboxTraderWorkflow>(sandboxTraderWorkflowType, {
      workflowId: sandboxTraderWorkflowId(row.id),
      taskQueue: sandboxTraderTaskQueue(config),
      typedSearchAttributes: sandboxTraderSearchAttributes({ merchantId: row.merchant_id, dealId: row.id }),
      workflowIdConflictPolicy: 'USE_EXISTING',
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      args: [{ dealId: row.id, dealType: row.deal_type, amount: row.amount.toString(), delaySeconds: config.SANDBOX_TRADER_DELAY_SECONDS }],
    });
  } catch (error) {
    if (error instanceof WorkflowExecutionAlreadyStartedError) return;
    throw error;
  }
}
