/** PayOut commands: validate, then create through or update the deal's workflow. */
import type { WorkflowHandle } from '@temporalio/client';
import type { AppDeps } from '../deps';
import type { AuditActor } from '../../domain/audit';
import { findCreated } from '../../db/queries/create-fence';
import { InvalidArgument, NotFound } from '../../domain/errors';
import { payoutKeyTaken } from '../../domain/state/payout';
import { dealIdFor } from '../../domain/ids';
import { findDeal, payoutKeyHeldByOther, type DealRow } from '../../db/queries/deals';
import { cardDataRing, openRequisiteDetails } from '../../db/queries/requisite-secrets';
import { walletsOf } from '../../db/queries/wallets';
import { quoteNewDeal } from '../../db/queries/catalog';
import { payoutHold } from '../../domain/money';
import { checkDealBounds } from '../../domain/limits';
import { findCreateContext } from '../../db/queries/merchants';
import {
  assignPayoutUpdate,
  completePayoutUpdate,
  payoutSearchAttributes,
  payoutTaskQueue,
  payoutWorkflowId,
  payoutWorkflowType,
  rejectPayoutUpdate,
  startPayoutUpdate,
  type PayoutWorkflow,
} from '../../workflows/contracts/payout';
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
import { checkPaymentMethod } from '../../domain/payment-method';
import type { MerchantScope } from './payins';

export interface CreatePayoutRequest {
  idempotency_key: string;
  amount: bigint;
  currency: string;
  wallet_id: string;
  target_requisite: string;
  target_name?: string;
  target_bank?: string;
  requisite_details?: Record<string, string>;
  payment_method: string;
}

/** A PayOut create, timed: gateway_deal_create_duration_seconds{type="payout"}. */
export const createPayout = (deps: AppDeps, scope: MerchantScope, body: CreatePayoutRequest): Promise<Created<DealRow>> =>
  timedCreate(deps, 'payout', () => createPayoutUntimed(deps, scope, body));

async function createPayoutUntimed(deps: AppDeps, scope: MerchantScope, body: CreatePayoutRequest): Promise<Created<DealRow>> {
  // What the create checks, read side by side (one round trip); the refusals keep their order.
  const [existing, heldByOther, wallets, context] = await Promise.all([
    findCreated<DealRow>(deps.sql, 'deals', dealIdFor(scope.merchantId, 'PAYOUT', body.idempotency_key)),
    payoutKeyHeldByOther(deps.sql, scope.tenantId, scope.merchantId, body.idempotency_key),
    walletsOf(deps.sql, 'merchant', scope.merchantId),
    findCreateContext(deps.sql, { tenantId: scope.tenantId, merchantId: scope.merchantId, method: body.payment_method, currency: body.currency }),
  ]);
  if (existing) return { row: existing, replayed: true };
  if (heldByOther) throw payoutKeyTaken();

  const wallet = wallets.find((w) => w.id === body.wallet_id && w.currency === 'USDT');
  if (!wallet) {
    throw new InvalidArgument('wallet_id must be the wallet_id of your USDT wallet (see GET /balance)', [
      { field: 'wallet_id', message: 'not your USDT wallet', code: 'unknown_wallet' },
    ]);
  }
  const method = checkPaymentMethod(context.method, context.allowed_slugs, body.payment_method, body.currency, 'payment_method');
  const merchant = context.merchant;
  if (!merchant) throw new NotFound('merchant not found');
  checkDealBounds(merchant, body.amount);

  const dealId = dealIdFor(scope.merchantId, 'PAYOUT', body.idempotency_key);
  const requestId = randomUUID();
  const created = await createThroughWorkflow<PayoutWorkflow>(deps, {
    workflowType: payoutWorkflowType,
    dealId,
    requestId,
    start: {
      workflowId: payoutWorkflowId(dealId),
      taskQueue: payoutTaskQueue(deps.config),
      typedSearchAttributes: payoutSearchAttributes({ merchantId: scope.merchantId, dealId }),
      args: [
        {
          requestId,
          create: {
            ...dealCreateBase(scope, dealId, body, method.id),
            walletId: body.wallet_id,
            targetRequisite: body.target_requisite,
            targetName: body.target_name ?? '',
            targetBank: body.target_bank ?? '',
            requisiteDetails: body.requisite_details ?? {},
          },
          retryMatchSeconds: deps.config.PAYOUT_RETRY_MATCH_SECONDS,
          timeouts: stepTimeouts(deps.config),
          processingAlertSeconds: deps.config.PAYOUT_PROCESSING_ALERT_SECONDS,
        },
      ],
    },
  });
  return created;
}

async function operatorPayout(deps: AppDeps, dealId: string): Promise<DealRow> {
  const row = await findDeal(deps.sql, dealId);
  if (row?.deal_type !== 'PAYOUT') throw new NotFound('deal not found');
  return row;
}

async function payoutCommand(deps: AppDeps, dealId: string, send: (h: WorkflowHandle<PayoutWorkflow>) => Promise<unknown>) {
  const row = await operatorPayout(deps, dealId);
  await updateDeal<PayoutWorkflow>(deps, payoutWorkflowId(row.id), row.id, send, closedRejects);
  return readDeal(deps, row.id);
}

// The operator's moves carry the actor (api/mount.ts) into the step, which audits them in its transaction.
/** A PayOut's requisite_details in full, as its create echoes them. */
export const payoutRequisiteDetails = (deps: AppDeps, row: DealRow): Record<string, string> => openRequisiteDetails(cardDataRing(deps.config), row);

export const startPayout = (deps: AppDeps, dealId: string, actor?: AuditActor) =>
  payoutCommand(deps, dealId, (h) => h.executeUpdate(startPayoutUpdate, { args: [operatorActor(actor)] }));
export const completePayout = (deps: AppDeps, dealId: string, actor?: AuditActor) =>
  payoutCommand(deps, dealId, (h) => h.executeUpdate(completePayoutUpdate, { args: [operatorActor(actor)] }));
export const rejectPayout = (deps: AppDeps, dealId: string, reason: string, actor?: AuditActor) =>
  payoutCommand(deps, dealId, (h) => h.executeUpdate(rejectPayoutUpdate, { args: [reason, operatorActor(actor)] }));
export const assignPayout = (deps: AppDeps, dealId: string, requisiteId: string, actor?: AuditActor) =>
  payoutCommand(deps, dealId, (h) => h.executeUpdate(assignPayoutUpdate, { args: [requisiteId, operatorActor(actor)] }));

/**
 * The hold a PayOut of `amount` would take now: the create's own quote (quoteNewDeal at the SELL
 * rate, payoutHold), read outside any transaction; the create fixes its rate when it runs.
 */
export async function quotePayout(deps: AppDeps, scope: MerchantScope, query: { amount: bigint; currency: string }) {
  const quote = await quoteNewDeal(
    deps.sql,
    { tenantId: scope.tenantId, merchantId: scope.merchantId, currency: query.currency, amount: query.amount.toString() },
    'sell',
  );
  const { fee, hold } = payoutHold(quote.amountUsdt, quote.merchant.payout_fee_bps);
  const wallet = (await walletsOf(deps.sql, 'merchant', scope.merchantId)).find((w) => w.currency === 'USDT');
  return {
    amount: quote.amount.toString(),
    currency: query.currency,
    rate_micro: quote.rateMicro.toString(),
    amount_usdt_cents: quote.amountUsdt.toString(),
    fee_usdt_cents: fee.toString(),
    hold_usdt_cents: hold.toString(),
    available_usdt_cents: (wallet?.available ?? 0n).toString(),
  };
}
