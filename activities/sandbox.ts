/**
 * The sandbox trader's hands: each move is the update an operator's or trader's call sends to the
 * deal's workflow (the trader's confirm and completion with proof as api/services/trader-deals.ts
 * sends them, the operator's start and reject, the merchant's cancel), sent with the worker's
 * Temporal client and audited as the system actor it is. The deal workflow decides as for anyone:
 * a move it refuses ('refused') ends the sandbox trader's script. Idempotent: a retried move finds
 * the deal moved and is refused.
 */
import { WithStartWorkflowOperation, WorkflowNotFoundError, WorkflowUpdateFailedError, type Client, type WorkflowHandle } from '@temporalio/client';
import { startSandboxTraderRun } from '../temporal/sandbox-trader';
import { findAppeal, lockAppeal } from '../db/queries/appeals';
import { writeAppealMessage } from '../db/queries/appeal-messages';
import { findDeal } from '../db/queries/deals';
import { type AuditActor, sandboxArbiterActor } from '../domain/audit';
import { uuidV5 } from '../domain/ids';
import {
  appealCommandUpdate,
  appealSearchAttributes,
  appealTaskQueue,
  appealWorkflowId,
  appealWorkflowType,
  type AppealCommand,
  type AppealWorkflow,
} from '../workflows/contracts/appeal';
import { acceptsMessages } from '../domain/state/appeals';
import type { ActivityDeps } from './deps';
import { sendVirtualCredit } from './virtual-device';
import {
  cancelUpdate,
  changeAmountUpdate,
  confirmReceivedUpdate,
  notifyPaymentUpdate,
  payinWorkflowId,
  resolveAppealUpdate,
  type ResolveAppealInput,
} from '../workflows/contracts/payin';
import { completePayoutUpdate, payoutWorkflowId, rejectPayoutUpdate, startPayoutUpdate } from '../workflows/contracts/payout';
import { amountToPay } from '../domain/state/payin';
import type { SandboxMove, SandboxMoveResult } from '../workflows/contracts/sandbox-trader';

/** Who the sandbox trader is in the deal's records (the amount change's operator_id, the audit rows of its moves). */
const SANDBOX_TRADER_ACTOR = 'sandbox-trader';
/** Who resolved a sandbox appeal: the sandbox trader in the arbiter's part. */
const SANDBOX_ARBITER_ACTOR = 'sandbox-arbiter';
const SANDBOX_COMMAND_NAMESPACE = 'c4a7e0f2-6b1d-4f3a-9e58-0d2b7c9a1e64';
/** As api/services/appeals.ts: a run of an appeal workflow ends after this long without commands. */
const APPEAL_RUN_IDLE_SECONDS = 60;

/**
 * The sandbox trader as the actor of its deal moves: a system actor in the role the operator routes
 * of those moves require (arbiter). One request key per deal and move, so a retried move writes
 * its audit row once.
 */
const sandboxTraderActor = (dealId: string, move: SandboxMove['kind']): AuditActor => ({
  kind: 'system',
  id: SANDBOX_TRADER_ACTOR,
  role: 'arbiter',
  requestId: `sandbox-trader:${dealId}:${move}`,
  requestKey: `sandbox-trader:${dealId}:${move}`,
});

/** The sandbox trader's proof of a payout's transfer: a bank reference made from the deal's id, no file. */
const sandboxProof = (dealId: string) => ({ bankReference: `SANDBOX-${dealId.slice(0, 8).toUpperCase()}`, fileId: '' });

/** One command id per appeal and move, so a retried activity answers the committed move. */
const arbiterCommandId = (appealId: string, move: string) =>
  move === 'resolve'
    ? uuidV5(`sandbox-arbiter\u0000${appealId}`, SANDBOX_COMMAND_NAMESPACE)
    : uuidV5(`sandbox-arbiter\u0000${appealId}\u0000${move}`, SANDBOX_COMMAND_NAMESPACE);

/** A command of the appeal's workflow (Update-With-Start), as api/services/appeals.ts runAppealCommand sends the admin routes' moves. */
async function appealCommand(deps: ActivityDeps, temporal: Client, appealId: string, command: AppealCommand) {
  const appeal = await findAppeal(deps.sql, appealId);
  if (!appeal) throw new WorkflowNotFoundError('appeal not found', appealId, undefined);
  const startWorkflowOperation = new WithStartWorkflowOperation<AppealWorkflow>(appealWorkflowType, {
    workflowId: appealWorkflowId(appealId),
    taskQueue: appealTaskQueue(deps.config),
    args: [{ appealId, idleSeconds: APPEAL_RUN_IDLE_SECONDS }],
    typedSearchAttributes: appealSearchAttributes({ merchantId: appeal.merchant_id, dealId: appeal.deal_id, appealId }),
    workflowIdConflictPolicy: 'USE_EXISTING',
  });
  await temporal.workflow.executeUpdateWithStart(appealCommandUpdate, { args: [command], startWorkflowOperation });
}

/**
 * The arbiter's review, close or reopen: the appeal workflow's command the admin routes send
 * (moveAppealByOperator), audited as the system actor.
 */
async function moveAsArbiter(deps: ActivityDeps, temporal: Client, appealId: string, kind: 'review' | 'close' | 'reopen', key: string = kind) {
  const commandId = arbiterCommandId(appealId, key);
  await appealCommand(deps, temporal, appealId, { kind, appealId, operatorId: SANDBOX_ARBITER_ACTOR, commandId, actor: sandboxArbiterActor(commandId) });
}

/**
 * The arbiter's resolution, routed as the operator's resolve route routes it
 * (api/services/appeals.ts resolveAppealByOperator): an update of the deal's workflow while the
 * deal is APPEALED, else a command of the appeal's workflow. One command id per appeal, so a
 * retried activity answers the committed resolution.
 */
async function resolveAsArbiter(deps: ActivityDeps, temporal: Client, dealId: string, appeal: { appealId: string; outcome: 'SATISFIED' | 'REJECTED' }) {
  const commandId = arbiterCommandId(appeal.appealId, 'resolve');
  const input: ResolveAppealInput = {
    appealId: appeal.appealId,
    outcome: appeal.outcome,
    note: 'resolved by the sandbox trader as arbiter (evidence text)',
    operatorId: SANDBOX_ARBITER_ACTOR,
    commandId,
    actor: sandboxArbiterActor(commandId),
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
  await appealCommand(deps, temporal, appeal.appealId, { kind: 'resolve', input });
}

/**
 * The arbiter's message (appeal.message): the writer the admin message route uses
 * (db/queries/appeal-messages.ts), one message id per appeal, audited as the system actor. A
 * CLOSED appeal takes no message (as for an operator): the move is refused.
 */
async function messageAsArbiter(deps: ActivityDeps, appealId: string, body: string): Promise<SandboxMoveResult> {
  const id = arbiterCommandId(appealId, 'message');
  return deps.sql.begin(async (tx) => {
    const appeal = await lockAppeal(tx, appealId);
    if (!appeal || !acceptsMessages(appeal.status)) return 'refused' as const;
    await writeAppealMessage(
      tx,
      deps.config.CHECKOUT_BASE_URL,
      appeal,
      { id, senderRole: 'ADMIN', senderId: SANDBOX_ARBITER_ACTOR, body, fileIds: [] },
      sandboxArbiterActor(id),
    );
    return 'done' as const;
  });
}

/** A trader's confirmation (api/services/trader-deals.ts): with what arrived, the full amount to pay, as the sandbox trader. */
async function confirmByHand(deps: ActivityDeps, deal: WorkflowHandle, dealId: string, kind: SandboxMove['kind']) {
  const row = await findDeal(deps.sql, dealId);
  if (!row) throw new WorkflowNotFoundError('deal not found', dealId, undefined);
  await deal.executeUpdate(confirmReceivedUpdate, { args: [amountToPay(row).toString(), sandboxTraderActor(dealId, kind)] });
}

export function createSandboxActivities(deps: ActivityDeps) {
  return {
    /**
     * Starts the deal's sandbox trader, right after a successful create, from the deal's own
     * workflow (so nothing outside the run can leave the deal without one). Idempotent
     * (startSandboxTraderRun); a live deal is a no-op.
     */
    async startSandboxTrader(dealId: string): Promise<void> {
      const temporal = deps.temporal;
      if (!temporal) throw new Error('the sandbox trader needs the worker’s Temporal client');
      const row = await findDeal(deps.sql, dealId);
      if (!row) throw new Error(`deal ${dealId} not found`);
      await startSandboxTraderRun(temporal, deps.config, row);
    },
    async sandboxTraderMove(dealId: string, dealType: 'PAYIN' | 'PAYOUT', move: SandboxMove): Promise<SandboxMoveResult> {
      const temporal = deps.temporal;
      if (!temporal) throw new Error('the sandbox trader needs the worker’s Temporal client');
      const deal = temporal.workflow.getHandle(dealType === 'PAYIN' ? payinWorkflowId(dealId) : payoutWorkflowId(dealId));
      try {
        switch (move.kind) {
          case 'payin_notify':
            // The payer's "I paid": the checkout page's update (api/services/payins.ts notifyCheckoutPayment).
            try {
              await deal.executeUpdate(notifyPaymentUpdate);
            } catch (error) {
              // A retried move whose first try got through (its answer lost to the step's deadline): the deal is notified, the script goes on.
              if (error instanceof WorkflowUpdateFailedError && (await findDeal(deps.sql, dealId))?.status === 'PAYMENT_NOTIFIED') break;
              throw error;
            }
            break;
          case 'payin_bank_credit': {
            // The bank's credit through the virtual bank device: the exact match confirms the deal with the device as the actor.
            const sent = await sendVirtualCredit(deps, dealId, move.receivedAt);
            if (sent.result !== 'not_matched') return sent.result === 'confirmed' ? 'done' : 'refused';
            // Not matched (two live deals of one requisite share the amount: no exact match): the trader's confirmation by hand.
            await confirmByHand(deps, deal, dealId, 'payin_confirm');
            break;
          }
          case 'payin_confirm':
            await confirmByHand(deps, deal, dealId, move.kind);
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
                  actor: sandboxTraderActor(dealId, move.kind),
                },
              ],
            });
            break;
          case 'payout_start':
            await deal.executeUpdate(startPayoutUpdate, { args: [sandboxTraderActor(dealId, move.kind)] });
            break;
          case 'payout_complete':
            // A trader's completion (api/services/trader-deals.ts): with its proof, here the bank reference alone.
            await deal.executeUpdate(completePayoutUpdate, { args: [sandboxTraderActor(dealId, move.kind), sandboxProof(dealId)] });
            break;
          case 'payout_reject':
            await deal.executeUpdate(rejectPayoutUpdate, { args: ['the sandbox trader rejected the payout', sandboxTraderActor(dealId, move.kind)] });
            break;
          case 'appeal_resolve':
            await resolveAsArbiter(deps, temporal, dealId, move);
            break;
          case 'appeal_review':
            await moveAsArbiter(deps, temporal, move.appealId, 'review');
            break;
          case 'appeal_close':
            await moveAsArbiter(deps, temporal, move.appealId, 'close');
            break;
          case 'appeal_message':
            return await messageAsArbiter(deps, move.appealId, move.body);
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
