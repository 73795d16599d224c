/**
 * Sandbox merchants (docs/sandbox.md): the API's part. A sandbox deal's trader
 * (`sandbox-trader:<deal_id>`) is started by the deal's own workflow right after its create
 * (activities/sandbox.ts startSandboxTrader); the API starts the trader's run on an appeal.
 */
import { createHash } from 'node:crypto';
import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError } from '@temporalio/client';
import { FailedPrecondition, NotFound, PermissionDenied } from '../../domain/errors';
import { findDeal, findMerchantDeal } from '../../db/queries/deals';
import type { AppealRow } from '../../db/queries/appeals';
import { sandboxArbiterActor } from '../../domain/audit';
import { newId } from '../../domain/ids';
import { findMerchantProfile } from '../../db/queries/merchants';
import { payinWorkflowId } from '../../workflows/contracts/payin';
import { payoutWorkflowId } from '../../workflows/contracts/payout';
import { unwrapUpdateFailure } from './deal-workflows';
import { recordMerchantDeposit } from './deposits';
import type { AppDeps } from '../deps';
import type { DealRow } from '../../db/queries/deals';
import { SANDBOX_REOPEN_REQUEST, sandboxAppealOutcome } from '../../domain/sandbox';
import {
  advanceTimerUpdate,
  type AdvanceResult,
  sandboxTraderAppealWorkflowId,
  sandboxTraderSearchAttributes,
  sandboxTraderTaskQueue,
  sandboxTraderWorkflowType,
  type SandboxTraderWorkflow,
} from '../../workflows/contracts/sandbox-trader';

/**
 * The sandbox trader on an appeal: an appeal on a sandbox deal whose text says `winning_evidence`
 * (SATISFIED), `losing_evidence` (REJECTED) or `closing_evidence` (closed) is taken into review,
 * written to and then resolved or closed within seconds by a run of the sandbox trader's workflow
 * in the arbiter's part (`sandbox-trader:appeal:<appeal_id>`) through the operator's paths; any
 * other appeal waits for a human arbiter, as a live one does.
 */
export async function startSandboxTraderOnAppeal(deps: AppDeps, deal: DealRow, appealId: string, text: string): Promise<void> {
  const outcome = deal.sandbox ? sandboxAppealOutcome(text) : undefined;
  if (!outcome) return;
  try {
    await deps.temporal.workflow.start<SandboxTraderWorkflow>(sandboxTraderWorkflowType, {
      workflowId: sandboxTraderAppealWorkflowId(appealId),
      taskQueue: sandboxTraderTaskQueue(deps.config),
      typedSearchAttributes: sandboxTraderSearchAttributes({ merchantId: deal.merchant_id, dealId: deal.id }),
      workflowIdConflictPolicy: 'USE_EXISTING',
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      args: [
        {
          dealId: deal.id,
          dealType: 'PAYIN',
          amount: deal.amount.toString(),
          delaySeconds: deps.config.SANDBOX_TRADER_DELAY_SECONDS,
          appeal: { appealId, outcome },
        },
      ],
    });
  } catch (error) {
    if (error instanceof WorkflowExecutionAlreadyStartedError) return;
    throw error;
  }
}

/**
 * A merchant cannot reopen an appeal (an operator's move; a CLOSED appeal takes no messages). On a
 * sandbox deal, a merchant's message containing `reopen_please` on a CLOSED appeal has the sandbox
 * arbiter reopen it first (appeal.reopened) — the admin reopen route's path (moveAppealByOperator),
 * audited as the system actor — so the message is then accepted. Anything else: the appeal as it was.
 */
export async function sandboxReopenOnRequest(
  deps: AppDeps,
  appeal: AppealRow,
  body: string,
  reopen: (appealId: string, operatorId: string, actor: ReturnType<typeof sandboxArbiterActor>) => Promise<AppealRow>,
): Promise<AppealRow> {
  if (appeal.status !== 'CLOSED' || !body.includes(SANDBOX_REOPEN_REQUEST)) return appeal;
  const deal = await findDeal(deps.sql, appeal.deal_id);
  if (!deal?.sandbox) return appeal;
  return reopen(appeal.id, 'sandbox-arbiter', sandboxArbiterActor(`reopen:${newId()}`));
}

/** The sandbox routes answer only a sandbox merchant (403 for a live one: no sandbox magic in production money). */
async function requireSandboxMerchant(deps: AppDeps, merchantId: string): Promise<void> {
  const merchant = await findMerchantProfile(deps.sql, merchantId);
  if (!merchant) throw new NotFound('merchant not found');
  if (!merchant.sandbox) throw new PermissionDenied('sandbox routes are for sandbox merchants only');
}

/**
 * POST /sandbox/deals/{deal_id}/advance: the deal's workflow fires its current timer
 * now (advanceTimer) — the payment timeout, the payout's assignment or transfer SLA, the processing
 * alert or the fee distribution — and answers once that ran; the deal as it then is.
 */
export async function advanceSandboxDeal(deps: AppDeps, merchantId: string, dealId: string): Promise<{ row: DealRow; timer: AdvanceResult['timer'] }> {
  // Another merchant's deal is 404 whoever asks (as every route that takes an object's id), then a live merchant 403.
  const deal = await findMerchantDeal(deps.sql, merchantId, dealId);
  if (!deal) throw new NotFound('deal not found');
  await requireSandboxMerchant(deps, merchantId);
  const workflowId = deal.deal_type === 'PAYIN' ? payinWorkflowId(deal.id) : payoutWorkflowId(deal.id);
  let result: AdvanceResult;
  try {
    result = await deps.temporal.workflow.getHandle(workflowId).executeUpdate(advanceTimerUpdate);
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) throw new FailedPrecondition(`the deal has no timer running (it is ${deal.status})`);
    throw unwrapUpdateFailure(error);
  }
  return { row: (await findMerchantDeal(deps.sql, merchantId, dealId))!, timer: result.timer };
}

/**
 * POST /sandbox/deposits: play USDT credited through the deposit path an operator's
 * recorded deposit takes (recordDeposit: chain_credits, the deposit row, the keyed posting — from
 * the merchant's own play-money account) and announced as a chain deposit is
 * (p2p.finance.deposit_confirmed). The tx hash is derived from the merchant and the
 * idempotency_key, so a repeat answers the first deposit (200). The check here is the fast path;
 * the deposit's transaction reads the world again under the merchant's lock and refuses a merchant
 * switched to live meanwhile, and checks the caps (SANDBOX_DEPOSIT_*_LIMIT_USDT_CENTS).
 */
export async function sandboxDeposit(deps: AppDeps, merchantId: string, amount: bigint, idempotencyKey: string) {
  await requireSandboxMerchant(deps, merchantId);
  const txHash = createHash('sha256').update(`sandbox-deposit\u0000${merchantId}\u0000${idempotencyKey}`).digest('hex');
  return recordMerchantDeposit(deps, merchantId, amount, txHash, undefined, sandboxDepositLimits(deps.config));
}

/** The caps of a sandbox merchant's play deposits, from the settings. */
const sandboxDepositLimits = (config: AppDeps['config']) => ({
  daily: config.SANDBOX_DEPOSIT_DAILY_LIMIT_USDT_CENTS,
  total: config.SANDBOX_DEPOSIT_TOTAL_LIMIT_USDT_CENTS,
});
