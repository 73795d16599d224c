/**
 * The sandbox trader's hands (issue 29): each move is the update an operator's or trader's call
 * sends to the deal's workflow (api/routes/admin/deals.ts, the merchant's cancel), sent with the
 * worker's Temporal client. The deal workflow decides as for anyone: a move it refuses ('refused')
 * ends the sandbox trader's script. Idempotent: a retried move finds the deal moved and is refused.
 */
import { WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import type { ActivityDeps } from './deps';
import { cancelUpdate, changeAmountUpdate, confirmPaymentUpdate, payinWorkflowId } from '../workflows/contracts/payin';
import { completePayoutUpdate, payoutWorkflowId, rejectPayoutUpdate, startPayoutUpdate } from '../workflows/contracts/payout';
import type { SandboxMove, SandboxMoveResult } from '../workflows/contracts/sandbox-trader';

/** Who the sandbox trader is in the deal's records (the amount change's operator_id). */
export const SANDBOX_TRADER_ACTOR = 'sandbox-trader';

export function createSandboxActivities(deps: ActivityDeps) {
  return {
    async sandboxTraderMove(dealId: string, dealType: 'PAYIN' | 'PAYOUT', move: SandboxMove): Promise<SandboxMoveResult> {
      const temporal = deps.temporal;
      if (!temporal) throw new Error('the sandbox trader needs the worker’s Temporal client');
      const deal = temporal.workflow.getHandle(dealType === 'PAYIN' ? payinWorkflowId(dealId) : payoutWorkflowId(dealId));
      try {
        switch (move.kind) {
          case 'payin_confirm':
            await deal.executeUpdate(confirmPaymentUpdate);
            break;
          case 'payin_reject':
            await deal.executeUpdate(cancelUpdate, { args: ['merchant', 'the sandbox trader rejected the payment'] });
            break;
          case 'payin_change_amount':
            await deal.executeUpdate(changeAmountUpdate, {
              args: [
                {
                  amountFiat: move.amount,
                  reason: 'the sandbox trader received another amount',
                  idempotencyKey: `sandbox-trader:${dealId}`,
                  expectedAmountVersion: '0',
                  operatorId: SANDBOX_TRADER_ACTOR,
                },
              ],
            });
            break;
          case 'payout_start':
            await deal.executeUpdate(startPayoutUpdate);
            break;
          case 'payout_complete':
            await deal.executeUpdate(completePayoutUpdate);
            break;
          case 'payout_reject':
            await deal.executeUpdate(rejectPayoutUpdate, { args: ['the sandbox trader rejected the payout'] });
            break;
          case 'appeal_resolve':
            throw new Error('appeal_resolve is not a deal move');
        }
        return 'done';
      } catch (error) {
        // The deal refused the move (its state no longer allows it) or has ended: the script stops.
        if (error instanceof WorkflowUpdateFailedError || error instanceof WorkflowNotFoundError) {
          deps.log.info({ dealId, move: move.kind, err: error }, 'sandbox trader move refused');
          return 'refused';
        }
        throw error;
      }
    },
  };
}
