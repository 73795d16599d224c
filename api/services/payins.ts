/**
 * PayIn commands: validate against Postgres, then start or update the deal's workflow, then read
 * the deal back from Postgres (the source of truth for reads).
 */
import { WithStartWorkflowOperation, WorkflowNotFoundError, WorkflowUpdateFailedError, type WorkflowHandle } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { AppDeps } from '../deps';
import { Conflict, DomainError, FailedPrecondition, InvalidArgument, NotFound, domainErrorFromKind } from '../../domain/errors';
import { dealIdFor } from '../../domain/ids';
import { merchantDealInfo, type MerchantDealInfo } from '../../domain/deal-info';
import { isPayinTerminal, type PayinStatus } from '../../domain/payin';
import { findPaymentMethod } from '../../db/queries/catalog';
import { findCheckout, findDeal, findDealByKey, findMerchantDeal, type CheckoutRow, type DealRow } from '../../db/queries/deals';
import { findMerchantProfile } from '../../db/queries/merchants';
import {
  awaitCreationUpdate,
  cancelUpdate,
  changeAmountUpdate,
  completeUpdate,
  confirmPaymentUpdate,
  notifyPaymentUpdate,
  payinWorkflowId,
  reconciliationUpdate,
  type CancelChannel,
  type ChangeAmountInput,
  type PayinSnapshot,
} from '../../workflows/contracts/payin';
import { DealIdKey, DealStatusKey, DealTypeKey, MerchantIdKey } from '../../workflows/contracts/search-attributes';
import type { payinWorkflow } from '../../workflows/payin';

export interface MerchantScope {
  merchantId: string;
  tenantId: string;
}

export interface CreatePayinRequest {
  idempotency_key: string;
  amount: bigint;
  currency: string;
  payment_method_id: string;
  client_id?: string;
  payer_bank?: string;
  description?: string;
  callback_url?: string;
  is_client_commission?: boolean;
}

export const present = (deps: AppDeps, row: DealRow): MerchantDealInfo => merchantDealInfo(row, deps.config.CHECKOUT_BASE_URL);

/** Maps a failed update back to the DomainError it carries (its kind travels as the failure type). */
function unwrapUpdateFailure(error: unknown): unknown {
  if (error instanceof WorkflowUpdateFailedError && error.cause instanceof ApplicationFailure) {
    return domainErrorFromKind(error.cause.type, error.cause.message) ?? error;
  }
  return error;
}

async function readDeal(deps: AppDeps, dealId: string): Promise<DealRow> {
  const row = await findDeal(deps.sql, dealId);
  if (!row) throw new NotFound('deal not found');
  return row;
}

async function allowedSlugs(deps: AppDeps, tenantId: string): Promise<string> {
  const rows = await deps.sql<{ slug: string }[]>`
    select slug from payment_methods where tenant_id = ${tenantId} and status = 'ACTIVE' order by slug`;
  return rows.map((r) => r.slug).join(', ');
}

export async function createPayin(deps: AppDeps, scope: MerchantScope, body: CreatePayinRequest): Promise<DealRow> {
  // Spec 4.8: a known key answers the deal as it is now, whatever the new body says.
  const existing = await findDealByKey(deps.sql, scope.merchantId, 'PAYIN', body.idempotency_key);
  if (existing) return existing;

  const method = await findPaymentMethod(deps.sql, scope.tenantId, body.payment_method_id);
  if (!method) {
    throw new InvalidArgument(`unknown payment_method_id "${body.payment_method_id}"; allowed: ${await allowedSlugs(deps, scope.tenantId)}`, [
      { field: 'payment_method_id', message: 'unknown payment method', code: 'unknown_payment_method' },
    ]);
  }
  if (method.currency_code !== body.currency) {
    throw new InvalidArgument(`payment method ${method.slug} takes ${method.currency_code}, not ${body.currency}`, [
      { field: 'currency', message: 'currency differs from the payment method currency', code: 'currency_mismatch' },
    ]);
  }
  const merchant = await findMerchantProfile(deps.sql, scope.merchantId);
  if (!merchant) throw new NotFound('merchant not found');
  if (!merchant.webhook_url || !merchant.api_token) {
    throw new FailedPrecondition('the merchant account needs a webhook_url and a webhook secret before PayIn deals can be created');
  }

  const dealId = dealIdFor(scope.merchantId, 'PAYIN', body.idempotency_key);
  const workflowId = payinWorkflowId(dealId);
  const startWorkflowOperation = new WithStartWorkflowOperation<typeof payinWorkflow>('payinWorkflow', {
    workflowId,
    taskQueue: deps.config.TEMPORAL_TASK_QUEUE,
    workflowIdConflictPolicy: 'USE_EXISTING',
    args: [
      {
        create: {
          dealId,
          tenantId: scope.tenantId,
          merchantId: scope.merchantId,
          idempotencyKey: body.idempotency_key,
          amount: body.amount.toString(),
          currency: body.currency,
          paymentMethodId: method.id,
          clientId: body.client_id ?? '',
          payerBank: body.payer_bank ?? '',
          description: body.description ?? '',
          callbackUrl: body.callback_url ?? '',
          isClientCommission: body.is_client_commission ?? false,
        },
        feeDistributionDelaySeconds: deps.config.FEE_DISTRIBUTION_DELAY_SECONDS,
      },
    ],
    typedSearchAttributes: [
      { key: MerchantIdKey, value: scope.merchantId },
      { key: DealIdKey, value: dealId },
      { key: DealTypeKey, value: 'PAYIN' },
      { key: DealStatusKey, value: 'INITIALIZED' },
    ],
  });
  try {
    await deps.temporal.workflow.executeUpdateWithStart(awaitCreationUpdate, { startWorkflowOperation });
  } catch (error) {
    const mapped = unwrapUpdateFailure(error);
    if (mapped instanceof DomainError) {
      // No deal was made: remove the closed execution too, so a failed create leaves nothing behind.
      void removeClosedExecution(deps, startWorkflowOperation);
    }
    throw mapped;
  }
  return readDeal(deps, dealId);
}

async function removeClosedExecution(deps: AppDeps, operation: WithStartWorkflowOperation<typeof payinWorkflow>) {
  try {
    const { workflowId } = await operation.workflowHandle();
    const latest = deps.temporal.workflow.getHandle<typeof payinWorkflow>(workflowId);
    await latest.result().catch(() => undefined);
    // Only a closed run that made no deal: a concurrent retry's live run is never touched.
    const { runId, status } = await latest.describe();
    if (status.name === 'RUNNING') return;
    const outcome = await deps.temporal.workflow.getHandle<typeof payinWorkflow>(workflowId, runId).result();
    if (outcome.created) return;
    await deps.temporal.workflowService.deleteWorkflowExecution({
      namespace: deps.config.TEMPORAL_NAMESPACE,
      workflowExecution: { workflowId, runId },
    });
  } catch (error) {
    deps.log.warn({ err: error }, 'could not delete the execution of a failed create');
  }
}

function payinHandle(deps: AppDeps, dealId: string): WorkflowHandle<typeof payinWorkflow> {
  return deps.temporal.workflow.getHandle(payinWorkflowId(dealId));
}

/**
 * Sends an update to a live deal's workflow. When the workflow has already closed (the deal is
 * terminal and settled), `whenClosed` answers from the deal's final row.
 */
async function runUpdate(
  deps: AppDeps,
  dealId: string,
  send: (handle: WorkflowHandle<typeof payinWorkflow>) => Promise<unknown>,
  whenClosed: (row: DealRow) => void,
): Promise<void> {
  try {
    await send(payinHandle(deps, dealId));
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return whenClosed(await readDeal(deps, dealId));
    throw unwrapUpdateFailure(error);
  }
}

const closedRejects = (row: DealRow) => {
  throw new FailedPrecondition(`deal is ${row.status}`);
};

/** Spec 3.1: an illegal cancel is 400, except that the checkout gets 409 for a terminal deal. */
function cancelRefusal(channel: CancelChannel, status: string): DomainError {
  const message = `deal is ${status}; it can no longer be cancelled`;
  return channel === 'checkout' && isPayinTerminal(status as PayinStatus) ? new Conflict(message) : new InvalidArgument(message);
}

export async function getMerchantDeal(deps: AppDeps, scope: MerchantScope, dealId: string): Promise<DealRow> {
  const row = await findMerchantDeal(deps.sql, scope.merchantId, dealId);
  if (!row) throw new NotFound('deal not found');
  return row;
}

/** Merchant cancel (spec 4.1): PayOut, foreign and unknown ids are 404; CANCELLED again is 200. */
export async function cancelMerchantPayin(deps: AppDeps, scope: MerchantScope, dealId: string, reason: string): Promise<DealRow> {
  const row = await getMerchantDeal(deps, scope, dealId);
  if (row.deal_type !== 'PAYIN') throw new NotFound('deal not found');
  return cancelPayin(deps, row, 'merchant', reason);
}

async function cancelPayin(deps: AppDeps, row: DealRow, channel: CancelChannel, reason: string): Promise<DealRow> {
  if (row.status !== 'CANCELLED') {
    await runUpdate(
      deps,
      row.id,
      (h) => h.executeUpdate(cancelUpdate, { args: [channel, reason] }),
      (closed) => {
        if (closed.status !== 'CANCELLED') throw cancelRefusal(channel, closed.status);
      },
    );
  }
  return readDeal(deps, row.id);
}

// ---- Checkout (public, by hash) ----

export async function getCheckout(deps: AppDeps, hash: string): Promise<CheckoutRow> {
  const row = await findCheckout(deps.sql, hash);
  if (!row) throw new NotFound('checkout not found');
  return row;
}

export async function cancelCheckout(deps: AppDeps, hash: string): Promise<CheckoutRow> {
  const row = await getCheckout(deps, hash);
  await cancelPayin(deps, row, 'checkout', 'cancelled by the payer');
  return getCheckout(deps, hash);
}

export async function notifyCheckoutPayment(deps: AppDeps, hash: string): Promise<DealRow> {
  const row = await getCheckout(deps, hash);
  if (row.status === 'PAYMENT_NOTIFIED') throw new FailedPrecondition('payment was already notified; do not retry');
  await runUpdate(deps, row.id, (h) => h.executeUpdate(notifyPaymentUpdate), closedRejects);
  return readDeal(deps, row.id);
}

// ---- Operator actions on a PayIn (contract 4) ----

async function operatorPayin(deps: AppDeps, dealId: string): Promise<DealRow> {
  const row = await findDeal(deps.sql, dealId);
  if (!row || row.deal_type !== 'PAYIN') throw new NotFound('deal not found');
  return row;
}

export async function reconcilePayin(deps: AppDeps, dealId: string, received: bigint): Promise<DealRow> {
  const row = await operatorPayin(deps, dealId);
  await runUpdate(deps, row.id, (h) => h.executeUpdate(reconciliationUpdate, { args: [received.toString()] }), closedRejects);
  return readDeal(deps, row.id);
}

export async function confirmPayin(deps: AppDeps, dealId: string): Promise<DealRow> {
  const row = await operatorPayin(deps, dealId);
  await runUpdate(deps, row.id, (h) => h.executeUpdate(confirmPaymentUpdate), closedRejects);
  return readDeal(deps, row.id);
}

export async function completePayinByOperator(deps: AppDeps, dealId: string): Promise<DealRow> {
  const row = await operatorPayin(deps, dealId);
  await runUpdate(deps, row.id, (h) => h.executeUpdate(completeUpdate), closedRejects);
  return readDeal(deps, row.id);
}

export async function changePayinAmount(deps: AppDeps, dealId: string, change: ChangeAmountInput): Promise<DealRow> {
  const row = await operatorPayin(deps, dealId);
  if (isPayinTerminal(row.status as PayinStatus)) {
    // Replays of a change made before the deal ended still answer; anything else is refused.
    const [previous] = await deps.sql<{ new_amount: bigint }[]>`
      select new_amount from deal_amount_changes where deal_id = ${row.id} and idempotency_key = ${change.idempotencyKey}`;
    if (previous && previous.new_amount === BigInt(change.amountFiat)) return row;
  }
  await runUpdate(deps, row.id, (h) => h.executeUpdate(changeAmountUpdate, { args: [change] }), closedRejects);
  return readDeal(deps, row.id);
}

export type { PayinSnapshot };
