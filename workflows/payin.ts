/**
 * One workflow per PayIn deal (spec 3.1). It creates the deal (matching + escrow) and then owns
 * every state change: payer notify, reconciliation, trader confirm, operator complete, cancel,
 * amount change, expiry at payment_timeout_at (a durable timer) and, after COMPLETED, the fee
 * distribution delay. Activities do the I/O; this file only decides.
 */
import { allHandlersFinished, condition, setHandler, sleep, upsertSearchAttributes } from '@temporalio/workflow';
import { createSteps, dealSteps } from './activity-proxies';
import {
  blocksAutocompletion,
  isPayinTerminal,
  PAYIN_CANCELLABLE,
  PAYIN_CONFIRMABLE,
  PAYIN_EXPIRABLE,
  type PayinStatus,
} from '../domain/payin';
import {
  awaitCreationUpdate,
  cancelUpdate,
  changeAmountUpdate,
  completeUpdate,
  confirmPaymentUpdate,
  notifyPaymentUpdate,
  openAppealUpdate,
  reconciliationUpdate,
  resolveAppealUpdate,
  statusQuery,
  type PayinSnapshot,
  type PayinWorkflowInput,
} from './contracts/payin';
import { DealStatusKey } from './contracts/search-attributes';
import { businessFailure, createOrAdopt, rejected } from './failures';
import { serialQueue } from './serial';

export type PayinOutcome = { created: false; reason: string } | { created: true; status: PayinStatus };

export async function payinWorkflow(input: PayinWorkflowInput): Promise<PayinOutcome> {
  const dealId = input.create.dealId;
  const serial = serialQueue();
  const steps = dealSteps(input.timeouts);
  const local = createSteps(input.timeouts);
  let deal: PayinSnapshot | undefined;
  let creationFailure: unknown;

  const current = (): PayinSnapshot => deal!;
  const apply = (next: PayinSnapshot) => {
    if (next.status !== deal?.status) upsertSearchAttributes([{ key: DealStatusKey, value: next.status }]);
    deal = next;
    return next;
  };
  /** Every command waits for creation and then runs alone, with failures carrying their kind. */
  const command = <T>(step: (d: PayinSnapshot) => Promise<T>) =>
    serial(async () => {
      await condition(() => deal !== undefined || creationFailure !== undefined);
      if (!deal) throw rejected('NOT_FOUND', 'deal not found');
      try {
        return await step(deal);
      } catch (error) {
        throw businessFailure(error);
      }
    });

  setHandler(statusQuery, () => deal);
  setHandler(awaitCreationUpdate, async () => {
    await condition(() => deal !== undefined || creationFailure !== undefined);
    if (creationFailure) throw creationFailure;
    return current();
  });
  setHandler(notifyPaymentUpdate, () =>
    command(async (d) => {
      if (d.status === 'PAYMENT_NOTIFIED') throw rejected('FAILED_PRECONDITION', 'payment was already notified; do not retry');
      if (d.status !== 'ESCROW_LOCKED') throw rejected('FAILED_PRECONDITION', `deal is ${d.status}; payment cannot be notified`);
      return apply(await steps.markPaymentNotified(dealId));
    }),
  );
  setHandler(reconciliationUpdate, (receivedAmount) =>
    command(async (d) => {
      if (isPayinTerminal(d.status)) throw rejected('FAILED_PRECONDITION', `deal is ${d.status}; reconciliation is closed`);
      const next = apply(await steps.recordReconciliation(dealId, receivedAmount));
      // A full match reported after the trader's confirmation releases the blocked autocompletion.
      if (next.status === 'PAYMENT_VERIFIED' && next.amountMatchStatus === 'full') return apply(await steps.completePayin(dealId));
      return next;
    }),
  );
  setHandler(confirmPaymentUpdate, () =>
    command(async (d) => {
      if (!PAYIN_CONFIRMABLE.includes(d.status)) throw rejected('FAILED_PRECONDITION', `deal is ${d.status}; receipt cannot be confirmed`);
      const verified = apply(await steps.markPaymentVerified(dealId));
      if (blocksAutocompletion(verified.amountMatchStatus)) return verified; // partial / overpaid: an operator decides
      return apply(await steps.completePayin(dealId));
    }),
  );
  setHandler(completeUpdate, () =>
    command(async (d) => {
      if (d.status !== 'PAYMENT_VERIFIED') throw rejected('FAILED_PRECONDITION', `deal is ${d.status}; only a verified deal can be completed`);
      return apply(await steps.completePayin(dealId));
    }),
  );
  setHandler(cancelUpdate, (channel, reason) =>
    command(async (d) => {
      if (d.status === 'CANCELLED') return d; // repeat: no second transition
      if (!PAYIN_CANCELLABLE.includes(d.status)) {
        if (channel === 'checkout' && isPayinTerminal(d.status)) throw rejected('CONFLICT', `deal is ${d.status}; it can no longer be cancelled`);
        throw rejected('INVALID_ARGUMENT', `deal is ${d.status}; it can no longer be cancelled`);
      }
      return apply(await steps.cancelPayin(dealId, reason));
    }),
  );
  setHandler(changeAmountUpdate, (change) =>
    command(async () => {
      const result = await steps.changePayinAmount({ dealId, newAmount: change.amountFiat, ...change });
      apply(result.snapshot);
      return result;
    }),
  );

  // Appeals (issue 9): opening one holds a live deal in APPEALED; the resolution ends it.
  setHandler(openAppealUpdate, (appeal) =>
    command(async () => {
      const result = await steps.openAppeal(appeal, 'deal');
      apply(result.deal);
      return result;
    }),
  );
  setHandler(resolveAppealUpdate, (resolution) =>
    command(async () => {
      const result = await steps.resolveAppeal(resolution, 'deal');
      apply(result.deal);
      return result;
    }),
  );

  const created = await createOrAdopt(() => local.createPayinDeal(input.create), () => steps.findPayinSnapshot(dealId));
  if (!created.ok) {
    creationFailure = created.failure;
    await condition(allHandlersFinished);
    return { created: false, reason: created.reason };
  }
  apply(created.snapshot);

  // Live until a terminal state; at payment_timeout_at whatever is still expirable expires.
  const untilTimeout = Math.max(0, Date.parse(current().paymentTimeoutAt) - Date.now());
  const endedInTime = await condition(() => isPayinTerminal(current().status), untilTimeout);
  if (!endedInTime) {
    await serial(async () => {
      if (PAYIN_EXPIRABLE.includes(current().status)) apply(await steps.expirePayin(dealId));
    });
  }
  // APPEALED is not expirable: the deal waits for the arbiter's resolution (resolveAppealUpdate).
  await condition(() => isPayinTerminal(current().status));

  if (current().status === 'COMPLETED') {
    await sleep(input.feeDistributionDelaySeconds * 1000);
    await steps.distributePayinFee(dealId);
  }
  await condition(allHandlersFinished);
  return { created: true, status: current().status };
}
