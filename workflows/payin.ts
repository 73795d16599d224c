/**
 * One workflow per PayIn deal (spec 3.1), the moves of PAYIN_TRANSITIONS (domain/payin.ts). It
 * creates the deal (matching + escrow) and then owns every state change: payer notify,
 * reconciliation, trader confirm, operator complete, cancel, amount change, appeals, expiry at
 * payment_timeout_at (a durable timer) and, after COMPLETED, the fee distribution delay.
 * Activities do the I/O; this file only decides.
 */
import { condition, patched, setHandler } from '@temporalio/workflow';
import { creationActivities, localStepActivities } from './activity-proxies';
import { isPayinTerminal, PAYIN_EXPIRABLE, PAYIN_TERMINAL, payinRefusal } from '../domain/payin';
import {
  awaitCreationUpdate,
  cancelUpdate,
  changeAmountUpdate,
  completeHandlerUpdate,
  confirmPaymentHandlerUpdate,
  notifyPaymentUpdate,
  openAppealUpdate,
  reconciliationUpdate,
  resolveAppealUpdate,
  statusQuery,
  type PayinOutcome,
  type PayinWorkflowInput,
} from './contracts/payin';
import { createOrAdopt, dealLifecycle } from './deal-lifecycle';
import { sandboxClock } from './sandbox-clock';

export async function payinWorkflow(input: PayinWorkflowInput): Promise<PayinOutcome> {
  const dealId = input.create.dealId;
  const steps = localStepActivities(input.timeouts);
  const creation = creationActivities(input.timeouts);
  const deal = dealLifecycle({
    statusQuery,
    creationUpdate: awaitCreationUpdate,
    requestId: input.requestId,
    notFound: 'deal not found',
    terminal: PAYIN_TERMINAL,
  });
  const { apply, current, serial } = deal;
  // Issue 29.3: a sandbox deal's timers can be fired now (advanceTimer).
  const clock = sandboxClock({ sandbox: () => current()?.sandbox === true, status: () => current()?.status ?? '' });
  /** A command whose own checks (in its activity) decide. */
  const unchecked = () => undefined;

  setHandler(notifyPaymentUpdate, () =>
    deal.command(
      (d) => payinRefusal('notify_payment', d.status),
      async () => apply(await steps.markPaymentNotified(dealId)),
    ),
  );
  setHandler(reconciliationUpdate, (receivedAmount, actor) =>
    deal.command(
      (d) => payinRefusal('reconcile', d.status),
      async () => {
        const next = apply(await steps.recordReconciliation(dealId, receivedAmount, actor));
        // A full match reported after the trader's confirmation releases the blocked autocompletion.
        if (next.status === 'PAYMENT_VERIFIED' && next.amountMatchStatus === 'full') return apply(await steps.completePayin(dealId));
        return next;
      },
    ),
  );
  setHandler(confirmPaymentHandlerUpdate, (actor) =>
    deal.command(
      (d) => payinRefusal('confirm_payment', d.status),
      // One step: verified and, unless partial / overpaid (an operator decides), completed.
      async () => apply(await steps.confirmPayin(dealId, actor)),
    ),
  );
  setHandler(completeHandlerUpdate, (actor) =>
    deal.command(
      (d) => payinRefusal('complete', d.status),
      async () => apply(await steps.completePayin(dealId, actor)),
    ),
  );
  setHandler(cancelUpdate, (channel, reason) =>
    deal.command(
      // CANCELLED again answers the deal: no second transition.
      (d) => (d.status === 'CANCELLED' ? undefined : payinRefusal('cancel', d.status, channel)),
      async (d) => (d.status === 'CANCELLED' ? d : apply(await steps.cancelPayin(dealId, reason))),
    ),
  );
  setHandler(changeAmountUpdate, (change) =>
    deal.command(unchecked, async () => {
      const result = await steps.changePayinAmount({ dealId, newAmount: change.amountFiat, ...change });
      apply(result.snapshot);
      return result;
    }),
  );

  // Appeals (issue 9): opening one holds a live deal in APPEALED; the resolution ends it.
  setHandler(openAppealUpdate, (appeal) =>
    deal.command(unchecked, async () => {
      const result = await steps.openAppeal(appeal, 'deal');
      apply(result.deal);
      return result;
    }),
  );
  setHandler(resolveAppealUpdate, (resolution) =>
    deal.command(unchecked, async () => {
      const result = await steps.resolveAppeal(resolution, 'deal');
      apply(result.deal);
      return result;
    }),
  );

  const refused = await deal.create(() =>
    createOrAdopt(
      () => creation.createPayinDeal(input.create),
      () => steps.findPayinSnapshot(dealId),
    ),
  );
  if (refused) return refused;
  // Issue 29: the deal's own workflow makes sure its sandbox trader runs (idempotent; the API's
  // start after the create is a duplicate), so an API crash in between cannot leave it without one.
  // Older histories replay without the step.
  if (current().sandbox && patched('sandbox-trader-from-deal')) await steps.ensureSandboxTrader(dealId, 'PAYIN');

  // Live until a terminal state; at payment_timeout_at whatever is still expirable expires.
  const untilTimeout = Math.max(0, Date.parse(current().paymentTimeoutAt) - Date.now());
  const endedInTime = (await clock.wait('payment_timeout', () => isPayinTerminal(current().status), untilTimeout)) === 'done';
  if (!endedInTime) {
    await serial(async () => {
      if (PAYIN_EXPIRABLE.includes(current().status)) apply(await steps.expirePayin(dealId));
    });
  }
  // APPEALED is not expirable: the deal waits for the arbiter's resolution (resolveAppealUpdate).
  await condition(() => isPayinTerminal(current().status));

  if (current().status === 'COMPLETED') {
    await clock.sleep('fee_distribution', input.feeDistributionDelaySeconds * 1000);
    await steps.distributePayinFee(dealId);
  }
  clock.end();
  return deal.finish();
}
