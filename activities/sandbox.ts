/**
 * The sandbox trader's hands (issue 29): each move is the update an operator's or trader's call
 * sends to the deal's workflow (api/routes/admin/deals.ts, the merchant's cancel), sent with the
 * worker's Temporal client. The deal workflow decides as for anyone: a move it refuses ('refused')
 * ends the sandbox trader's script. Idempotent: a retried move finds the deal moved and is refused.
 */
import { WithStartWorkflowOperation, WorkflowNotFoundError, WorkflowUpdateFailedError, type Client } from '@temporalio/client';
import { findDeal } from '../db/queries/deals';
import { uuidV5 } from '../domain/ids';
import { appealCommandUpdate, appealSearchAttributes, appealTaskQueue, appealWorkflowId, appealWorkflowType, type AppealWorkflow } from '../workflows/contracts/appeal';
import type { ActivityDeps } from './deps';
import { cancelUpdate, changeAmountUpdate, confirmPaymentUpdate, payinWorkflowId, resolveAppealUpdate, type ResolveAppealInput } from '../workflows/contracts/payin';
import { completePayoutUpdate, payoutWorkflowId, rejectPayoutUpdate, startPayoutUpdate } from '../workflows/contracts/payout';
import type { SandboxMove, SandboxMoveResult } from '../workflows/contracts/sandbox-trader';

/** Who the sandbox trader is in the deal's records (the amount change's operator_id). */
export const SANDBOX_TRADER_ACTOR = 'sandbox-trader';
/** Who resolved a sandbox appeal. */
export const SANDBOX_ARBITER_ACTOR = 'sandbox-arbiter';
const SANDBOX_COMMAND_NAMESPACE = 'c4a7e0f2-6b1d-4f3a-9e58-0d2b7c9a1e64';
/** As api/services/appeals.ts: a run of an appeal workflow ends after this long without commands. */
const APPEAL_RUN_IDLE_SECONDS = 60;

/**
 * The sandbox arbiter's resolution, routed as the operator's resolve route routes it
 * (api/services/appeals.ts resolveAppealByOperator): an update of the deal's workflow while the
 * deal is APPEALED, else a command of the appeal's workflow. One command id per appeal, so a
 * retried activity answers the committed resolution.
 */
async function resolveAsArbiter(deps: ActivityDeps, temporal: Client, dealId: string, appeal: { appealId: string; outcome: 'SATISFIED' | 'REJECTED' }) {
  const input: ResolveAppealInput = {
    appealId: appeal.appealId,
    outcome: appeal.outcome,
    note: 'resolved by the sandbox arbiter (evidence text)',
    operatorId: SANDBOX_ARBITER_ACTOR,
    commandId: uuidV5(`sandbox-arbiter\u0000${appeal.appealId}`, SANDBOX_COMMAND_NAMESPACE),
  };
  const deal = await findDeal(deps.sql, dealId);
  if (!deal) throw new WorkflowNotFoundError('deal not found', dealId, undefined);
  if (deal.status === 'APPEALED') {
    try {
      await temporal.workflow.getHandle(payinWorkflowId(dealId)).executeUpdate(resolveAppealUpdate, { args: [input] });
      return;
    } catch (error) {
      if (!(error instanceof WorkflowNotFoundError)) throw error;
    }
  }
  const startWorkflowOperation = new WithStartWorkflowOperation<AppealWorkflow>(appealWorkflowType, {
    workflowId: appealWorkflowId(appeal.appealId),
    taskQueue: appealTaskQueue(deps.config),
    args: [{ appealId: appeal.appealId, idleSeconds: APPEAL_RUN_IDLE_SECONDS }],
    typedSearchAttributes: appealSearchAttributes({ merchantId: deal.merchant_id, dealId, appealId: appeal.appealId }),
    workflowIdConflictPolicy: 'USE_EXISTING',
  });
  await temporal.workflow.executeUpdateWithStart(appealCommandUpdate, { args: [{ kind: 'resolve', input }], startWorkflowOperation });
}

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
            await resolveAsArbiter(deps, temporal, dealId, move);
            break;
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
