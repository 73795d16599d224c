/**
 * Sandbox merchants (issue 29, docs/sandbox.md): the API's part. After a sandbox merchant's deal
 * is created — and again on every replay of its create, which closes the gap of an API that died
 * in between — the deal's sandbox trader is started (`sandbox-trader:<deal_id>`, once per deal:
 * a running run is joined, a finished one is not started again).
 */
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import type { AppDeps } from '../deps';
import type { DealRow } from '../../db/queries/deals';
import { isPayinTerminal, type PayinStatus } from '../../domain/payin';
import { isPayoutTerminal, type PayoutStatus } from '../../domain/payout';
import { sandboxAppealOutcome } from '../../domain/sandbox';
import {
  sandboxArbiterWorkflowId,
  sandboxTraderSearchAttributes,
  sandboxTraderTaskQueue,
  sandboxTraderWorkflowId,
  sandboxTraderWorkflowType,
  type SandboxTraderWorkflow,
} from '../../workflows/contracts/sandbox-trader';

/** A created (or replayed) deal, its sandbox trader started first when it is a sandbox deal. */
export async function withSandboxTrader<T extends { row: DealRow }>(deps: AppDeps, created: T): Promise<T> {
  await startSandboxTrader(deps, created.row);
  return created;
}

export async function startSandboxTrader(deps: AppDeps, row: DealRow): Promise<void> {
  if (!row.sandbox) return;
  // An ended deal needs no trader (a replay long after the run's retention must not start one).
  if (row.deal_type === 'PAYIN' ? isPayinTerminal(row.status as PayinStatus) : isPayoutTerminal(row.status as PayoutStatus)) return;
  try {
    await deps.temporal.workflow.start<SandboxTraderWorkflow>(sandboxTraderWorkflowType, {
      workflowId: sandboxTraderWorkflowId(row.id),
      taskQueue: sandboxTraderTaskQueue(deps.config),
      typedSearchAttributes: sandboxTraderSearchAttributes({ merchantId: row.merchant_id, dealId: row.id }),
      workflowIdConflictPolicy: 'USE_EXISTING',
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      args: [{ dealId: row.id, dealType: row.deal_type, amount: row.amount.toString(), delaySeconds: deps.config.SANDBOX_TRADER_DELAY_SECONDS }],
    });
  } catch (error) {
    if (error instanceof WorkflowExecutionAlreadyStartedError) return;
    throw error;
  }
}

/**
 * The sandbox arbiter (issue 29): an appeal on a sandbox deal whose text says `winning_evidence`
 * (SATISFIED) or `losing_evidence` (REJECTED) is resolved within seconds by a run of the sandbox
 * trader's workflow (`sandbox-arbiter:<appeal_id>`) through the operator's resolve path; any other
 * appeal waits for a human arbiter, as a live one does.
 */
export async function startSandboxArbiter(deps: AppDeps, deal: DealRow, appealId: string, text: string): Promise<void> {
  const outcome = deal.sandbox ? sandboxAppealOutcome(text) : undefined;
  if (!outcome) return;
  try {
    await deps.temporal.workflow.start<SandboxTraderWorkflow>(sandboxTraderWorkflowType, {
      workflowId: sandboxArbiterWorkflowId(appealId),
      taskQueue: sandboxTraderTaskQueue(deps.config),
      typedSearchAttributes: sandboxTraderSearchAttributes({ merchantId: deal.merchant_id, dealId: deal.id }),
      workflowIdConflictPolicy: 'USE_EXISTING',
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      args: [{ dealId: deal.id, dealType: 'PAYIN', amount: deal.amount.toString(), delaySeconds: deps.config.SANDBOX_TRADER_DELAY_SECONDS, appeal: { appealId, outcome } }],
    });
  } catch (error) {
    if (error instanceof WorkflowExecutionAlreadyStartedError) return;
    throw error;
  }
}
