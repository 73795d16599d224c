/**
 * Issue 29: a sandbox deal's own workflow starts its sandbox trader (`sandbox-trader:<deal_id>`)
 * right after its create step made the deal, so a deal never lacks its trader because the API
 * died between the create and its start. A child run with ParentClosePolicy ABANDON (the trader
 * outlives nothing: it ends on its own; the deal may end first), at most one per deal: an id
 * already running (the API's start on a replayed create) or used is left alone.
 *
 * Replay-safe: the command is behind `patched(SANDBOX_TRADER_FROM_DEAL)`, so a history recorded
 * before this code (whose trader the API started) replays without it.
 */
import { log, ParentClosePolicy, patched, startChild } from '@temporalio/workflow';
import {
  sandboxTraderSearchAttributes,
  sandboxTraderWorkflowId,
  sandboxTraderWorkflowType,
  type SandboxTraderWorkflow,
} from './contracts/sandbox-trader';

export const SANDBOX_TRADER_FROM_DEAL = 'sandbox-trader-from-deal';
/** The API's SANDBOX_TRADER_DELAY_SECONDS default, for a run started without the field. */
const DEFAULT_DELAY_SECONDS = 3;

export async function startSandboxTraderChild(deal: {
  dealId: string;
  dealType: 'PAYIN' | 'PAYOUT';
  merchantId: string;
  amount: string;
  sandbox: boolean | undefined;
  delaySeconds: number | undefined;
}): Promise<void> {
  if (deal.sandbox !== true) return;
  if (!patched(SANDBOX_TRADER_FROM_DEAL)) return;
  try {
    await startChild<SandboxTraderWorkflow>(sandboxTraderWorkflowType, {
      workflowId: sandboxTraderWorkflowId(deal.dealId),
      parentClosePolicy: ParentClosePolicy.ABANDON,
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      typedSearchAttributes: sandboxTraderSearchAttributes({ merchantId: deal.merchantId, dealId: deal.dealId }),
      args: [{ dealId: deal.dealId, dealType: deal.dealType, amount: deal.amount, delaySeconds: deal.delaySeconds ?? DEFAULT_DELAY_SECONDS }],
    });
  } catch (error) {
    // Already started (the API's start on a replayed create won) or refused: the deal goes on
    // either way; a sandbox trader is never worth failing a deal for.
    log.info('sandbox trader not started by the deal', { dealId: deal.dealId, error: error instanceof Error ? error.message : String(error) });
  }
}
