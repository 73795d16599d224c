/**
 * PayIn commands: validate against Postgres, then start or update the deal's workflow, then read
 * the deal back from Postgres (the source of truth for reads).
 */
import type { AuditActor } from '../../domain/audit';
import type { WorkflowHandle } from '@temporalio/client';
import type { AppDeps } from '../deps';
import { findCreated } from '../../db/queries/create-fence';
import { assertWebhookTarget } from './webhook-target';
import { type DomainError, domainErrorFromKind, FailedPrecondition, InvalidArgument, NotFound } from '../../domain/errors';
import { randomUUID } from 'node:crypto';
import {
  closedRejects,
  createThroughWorkflow,
  timedCreate,
  dealCreateBase,
  operatorActor,
  readDeal,
  stepTimeouts,
  updateDeal,
  type Created,
} from './deal-workflows';
import { checkDealBounds } from '../../domain/limits';
import { dealIdFor } from '../../domain/ids';
import { merchantDealInfo, type MerchantDealInfo } from '../../domain/records/deal-info';
import { isPayinTerminal, payinRefusal, type PayinStatus } from '../../domain/state/payin';
import type { Refusal } from '../../domain/state/state-machine';
import { checkPaymentMethod } from '../../domain/payment-method';
import { findAmountChange, findCheckout, findDeal, findMerchantDeal, type CheckoutRow, type DealRow } from '../../db/queries/deals';
import { cardDataRing, withTarget } from '../../db/queries/requisite-secrets';
import { findCreateContext } from '../../db/queries/merchants';
import {
  cancelUpdate,
  changeAmountUpdate,
  completeUpdate,
  confirmPaymentUpdate,
  notifyPaymentUpdate,
  payinSearchAttributes,
  payinTaskQueue,
  payinWorkflowId,
  payinWorkflowType,
  reconciliationUpdate,
  type CancelChannel,
  type ChangeAmountInput,
  type PayinWorkflow,
} from '../../workflows/contracts/payin';

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
  currency_id?: string;
}

export const present = (deps: AppDeps, row: DealRow): MerchantDealInfo =>
  merchantDealInfo(withTarget(cardDataRing(deps.config), row), deps.config.CHECKOUT_BASE_URL);
/** Operators also see which trader and requisite work the deal. */
export const presentForOperator = (deps: AppDeps, row: DealRow) => ({
  ...present(deps, row),
  trader_id: row.trader_id ?? '',
  requisite_id: row.requisite_id ?? '',
});

/** A PayIn create (V2 and V1 alike), timed: gateway_deal_create_duration_seconds{type="payin"}. */
export const createPayin = (deps: AppDeps, scope: MerchantScope, body: CreatePayinRequest): Promise<Created<DealRow>> =>
  timedCreate(deps, 'payin', () => createPayinUntimed(deps, scope, body));

async function createPayinUntimed(deps: AppDeps, scope: MerchantScope, body: CreatePayinRequest): Promise<Created<DealRow>> {
  // Idempotency by key: a known key answers the deal as it is now, whatever the new body says. Beside it, in
  // one round trip, what the create checks and the arrival stamp (Postgres's clock)
  // that goes to the create step: a pass matching this deal that another deal reserved after it is
  // a 409 (the pass race rule, db/queries/passes.ts). The callback_url's target check (a DNS lookup) runs
  // beside them; its verdict is taken in its place among the refusals below (a replay ignores it,
  // as it ignores the rest of the body).
  const target = body.callback_url
    ? assertWebhookTarget(deps.config, 'callback_url', body.callback_url).then(
        () => undefined,
        (error: unknown) => error,
      )
    : undefined;
  const [existing, context] = await Promise.all([
    findCreated<DealRow>(deps.sql, 'deals', dealIdFor(scope.merchantId, 'PAYIN', body.idempotency_key)),
    findCreateContext(deps.sql, { tenantId: scope.tenantId, merchantId: scope.merchantId, method: body.payment_method_id, currency: body.currency }),
  ]);
  if (existing) return { row: existing, replayed: true };
  const arrivedAt = context.arrived_at;

  const method = checkPaymentMethod(context.method, context.allowed_slugs, body.payment_method_id, body.currency, 'payment_method_id');
  // Pass matching uses the id of `currency`; a currency_id naming another currency is refused, not ignored.
  if (body.currency_id && context.currency_id !== body.currency_id.toLowerCase()) {
    throw new InvalidArgument(`currency_id ${body.currency_id} is not the id of ${body.currency}`);
  }
  const merchant = context.merchant;
  if (!merchant) throw new NotFound('merchant not found');
  checkDealBounds(merchant, body.amount);
  if (!merchant.webhook_url || !merchant.has_key) {
    throw new FailedPrecondition('the merchant account needs a webhook_url and a webhook secret before PayIn deals can be created');
  }

  const refusedTarget = await target;
  if (refusedTarget) throw refusedTarget;

  const dealId = dealIdFor(scope.merchantId, 'PAYIN', body.idempotency_key);
  const requestId = randomUUID();
  const created = await createThroughWorkflow<PayinWorkflow>(deps, {
    workflowType: payinWorkflowType,
    dealId,
    requestId,
    start: {
      workflowId: payinWorkflowId(dealId),
      taskQueue: payinTaskQueue(deps.config),
      typedSearchAttributes: payinSearchAttributes({ merchantId: scope.merchantId, dealId }),
      args: [
        {
          requestId,
          create: {
            ...dealCreateBase(scope, dealId, body, method.id),
            clientId: body.client_id ?? '',
            payerBank: body.payer_bank ?? '',
            description: body.description ?? '',
            callbackUrl: body.callback_url ?? '',
            isClientCommission: body.is_client_commission ?? false,
            arrivedAt,
          },
          feeDistributionDelaySeconds: deps.config.FEE_DISTRIBUTION_DELAY_SECONDS,
          timeouts: stepTimeouts(deps.config),
        },
      ],
    },
  });
  return created;
}

const runUpdate = (deps: AppDeps, dealId: string, send: (handle: WorkflowHandle<PayinWorkflow>) => Promise<unknown>, whenClosed: (row: DealRow) => void) =>
  updateDeal<PayinWorkflow>(deps, payinWorkflowId(dealId), dealId, send, whenClosed);

/** A refusal of PAYIN_TRANSITIONS (domain/state/payin.ts) as the error the API answers. */
const refusalError = (refusal: Refusal): DomainError => domainErrorFromKind(refusal.kind, refusal.message)!;

export async function getMerchantDeal(deps: AppDeps, scope: MerchantScope, dealId: string): Promise<DealRow> {
  const row = await findMerchantDeal(deps.sql, scope.merchantId, dealId);
  if (!row) throw new NotFound('deal not found');
  return row;
}

/** Merchant cancel: PayOut, foreign and unknown ids are 404; CANCELLED again is 200. */
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
        const refusal = closed.status === 'CANCELLED' ? undefined : payinRefusal('cancel', closed.status, channel);
        if (refusal) throw refusalError(refusal);
      },
    );
  }
  return readDeal(deps, row.id);
}

// ---- Checkout (public, by hash) ----

export async function getCheckout(deps: AppDeps, hash: string): Promise<CheckoutRow> {
  const row = await findCheckout(deps.sql, cardDataRing(deps.config), hash);
  if (!row) throw new NotFound('checkout not found');
  return row;
}

export async function cancelCheckout(deps: AppDeps, hash: string): Promise<CheckoutRow> {
  const row = await getCheckout(deps, hash);
  await cancelPayin(deps, row, 'checkout', 'cancelled by the payer');
  return getCheckout(deps, hash);
}

/** The payer's "I paid": the deal's workflow moves it (the notify update); the answer is the checkout as it is then. */
export async function notifyCheckoutPayment(deps: AppDeps, hash: string): Promise<CheckoutRow> {
  const row = await getCheckout(deps, hash);
  await notifyCheckoutRow(deps, row);
  return getCheckout(deps, hash);
}

/** "I paid" for a checkout already read (the payer's page read it before its form). */
export async function notifyCheckoutRow(deps: AppDeps, row: CheckoutRow): Promise<void> {
  if (row.status === 'PAYMENT_NOTIFIED') throw refusalError(payinRefusal('notify_payment', row.status)!);
  await runUpdate(deps, row.id, (h) => h.executeUpdate(notifyPaymentUpdate), closedRejects);
}

// ---- Operator actions on a PayIn ----

async function operatorPayin(deps: AppDeps, dealId: string): Promise<DealRow> {
  const row = await findDeal(deps.sql, dealId);
  if (row?.deal_type !== 'PAYIN') throw new NotFound('deal not found');
  return row;
}

// The operator's moves carry the actor (api/mount.ts) into the step, which audits them in its transaction.

export async function reconcilePayin(deps: AppDeps, dealId: string, received: bigint, actor?: AuditActor): Promise<DealRow> {
  const row = await operatorPayin(deps, dealId);
  await runUpdate(deps, row.id, (h) => h.executeUpdate(reconciliationUpdate, { args: [received.toString(), operatorActor(actor)] }), closedRejects);
  return readDeal(deps, row.id);
}

export async function confirmPayinByOperator(deps: AppDeps, dealId: string, actor?: AuditActor): Promise<DealRow> {
  const row = await operatorPayin(deps, dealId);
  // The step writes the audit row in its transaction (the actor rides the update).
  await runUpdate(deps, row.id, (h) => h.executeUpdate(confirmPaymentUpdate, { args: [operatorActor(actor)] }), closedRejects);
  return readDeal(deps, row.id);
}

export async function completePayinByOperator(deps: AppDeps, dealId: string, actor?: AuditActor): Promise<DealRow> {
  const row = await operatorPayin(deps, dealId);
  await runUpdate(deps, row.id, (h) => h.executeUpdate(completeUpdate, { args: [operatorActor(actor)] }), closedRejects);
  return readDeal(deps, row.id);
}

export async function changePayinAmountByOperator(
  deps: AppDeps,
  dealId: string,
  change: Omit<ChangeAmountInput, 'actor'> & { actor?: AuditActor | undefined },
): Promise<DealRow> {
  const row = await operatorPayin(deps, dealId);
  if (isPayinTerminal(row.status as PayinStatus)) {
    // Replays of a change made before the deal ended still answer; anything else is refused.
    const previous = await findAmountChange(deps.sql, row.id, change.idempotencyKey);
    if (previous && previous.new_amount === BigInt(change.amountFiat)) return row;
  }
  await runUpdate(deps, row.id, (h) => h.executeUpdate(changeAmountUpdate, { args: [{ ...change, actor: operatorActor(change.actor) }] }), closedRejects);
  return readDeal(deps, row.id);
}
