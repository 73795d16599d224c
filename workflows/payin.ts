/**
 * One workflow per PayIn deal, the moves of PAYIN_TRANSITIONS (domain/state/payin.ts). It creates the
 * deal (matching + escrow) and then owns every state change: payer notify, reconciliation, trader
 * confirm, operator complete, cancel, amount change, appeals, expiry at payment_timeout_at (a
 * durable timer) and, after COMPLETED, the fee distribution delay. This file decides whether
 * each move is allowed (the state tables of domain/); the activities do the I/O.
 */
import { condition, setHandler } from '@temporalio/workflow';
import { type AppealStatus, appealMove, appealOpenRefusal, resolveMove } from '../domain/state/appeals';
import { amountChangeRefusal, isPayinTerminal, PAYIN_EXPIRABLE, PAYIN_TERMINAL, payinRefusal } from '../domain/state/payin';
import type { Refusal } from '../domain/state/state-machine';
import { creationActivities, localStepActivities } from './activity-proxies';
import {
  type AppealMoveResult,
  cancelUpdate,
  changeAmountUpdate,
  completeUpdate,
  confirmPaymentUpdate,
  confirmReceivedUpdate,
  notifyPaymentUpdate,
  openAppealUpdate,
  type PayinOutcome,
  type PayinSnapshot,
  type PayinWorkflowInput,
  reconciliationUpdate,
  reportNotReceivedUpdate,
  resolveAppealUpdate,
} from './contracts/payin';
import { createOrAdopt, dealLifecycle } from './deal-lifecycle';
import { sandboxClock } from './sandbox-clock';

const refusedWith = (message: string): Refusal => ({ kind: 'FAILED_PRECONDITION', message });

export async function payinWorkflow(input: PayinWorkflowInput): Promise<PayinOutcome> {
  const dealId = input.create.dealId;
  const localSteps = localStepActivities(input.timeouts);
  const creation = creationActivities(input.timeouts);
  const deal = dealLifecycle<PayinSnapshot>({ requestId: input.requestId, notFound: 'deal not found', terminal: PAYIN_TERMINAL });
  const { apply, current, serial } = deal;
  // A sandbox deal's timers can be fired now (advanceTimer).
  const clock = sandboxClock({ sandbox: () => current()?.sandbox === true, status: () => current()?.status ?? '' });

  setHandler(notifyPaymentUpdate, () =>
    deal.command(
      (d) => payinRefusal('notify_payment', d.status),
      async () => apply(await localSteps.markPaymentNotified(dealId)),
    ),
  );
  setHandler(reconciliationUpdate, (receivedAmount, actor) =>
    deal.command(
      (d) => payinRefusal('reconcile', d.status),
      async () => {
        const next = apply(await localSteps.recordReconciliation(dealId, receivedAmount, actor));
        // A full match reported after the trader's confirmation releases the blocked autocompletion.
        if (next.status === 'PAYMENT_VERIFIED' && next.amountMatchStatus === 'full') return apply(await localSteps.completePayin(dealId));
        return next;
      },
    ),
  );
  setHandler(confirmPaymentUpdate, (actor) =>
    deal.command(
      (d) => payinRefusal('confirm_payment', d.status),
      // One step: verified and, unless partial / overpaid (an operator decides), completed.
      async () => apply(await localSteps.confirmPayin(dealId, actor)),
    ),
  );
  setHandler(confirmReceivedUpdate, (receivedAmount, actor) =>
    deal.command(
      (d) => payinRefusal('confirm_payment', d.status),
      // One step: what arrived is recorded, then the confirmation, which completes only a full payment.
      async () => apply(await localSteps.confirmPayin(dealId, actor, receivedAmount)),
    ),
  );
  setHandler(reportNotReceivedUpdate, (reason, actor) =>
    deal.command(
      (d) => payinRefusal('report_not_received', d.status),
      async () => apply(await localSteps.reportPayinNotReceived(dealId, reason, actor)),
    ),
  );
  setHandler(completeUpdate, (actor) =>
    deal.command(
      (d) => payinRefusal('complete', d.status),
      async () => apply(await localSteps.completePayin(dealId, actor)),
    ),
  );
  setHandler(cancelUpdate, (channel, reason) =>
    deal.command(
      // CANCELLED again answers the deal: no second transition.
      (d) => (d.status === 'CANCELLED' ? undefined : payinRefusal('cancel', d.status, channel)),
      async (d) => (d.status === 'CANCELLED' ? d : apply(await localSteps.cancelPayin(dealId, reason))),
    ),
  );

  /** The amount of each change this deal made, by its idempotency key: a repeat is answered, not run again. */
  const amountChanges = new Map<string, bigint>();
  setHandler(changeAmountUpdate, (change) =>
    deal.command(
      (d) =>
        amountChangeRefusal(
          { status: d.status, amountVersion: BigInt(d.amountVersion) },
          {
            newAmount: BigInt(change.amountFiat),
            expectedVersion: BigInt(change.expectedAmountVersion),
            previousAmount: amountChanges.get(change.idempotencyKey),
          },
        ),
      async (d) => {
        if (amountChanges.has(change.idempotencyKey)) return { snapshot: d, replayed: true };
        const result = await localSteps.changePayinAmount({ dealId, newAmount: change.amountFiat, ...change });
        amountChanges.set(change.idempotencyKey, BigInt(change.amountFiat));
        apply(result.snapshot);
        return result;
      },
    ),
  );

  // Appeals: opening one holds a live deal in APPEALED; its resolution ends the deal. While the
  // deal is APPEALED its appeal is unresolved (the appeal's own workflow neither resolves nor
  // closes it then), so the deal's status and the appeal this run opened decide each command.
  let appeal: { appealId: string; status: AppealStatus } | undefined;
  /** The answer of each appeal command this run ran (by appeal id for an open, command id for a resolution): a repeat gets it again. */
  const appealAnswers = new Map<string, AppealMoveResult>();
  const appealStep = async (key: string, step: () => Promise<AppealMoveResult>) => {
    const answered = appealAnswers.get(key);
    if (answered) return answered;
    const result = await step();
    appealAnswers.set(key, result);
    appeal = { appealId: result.appealId, status: result.appealStatus as AppealStatus };
    apply(result.deal);
    return result;
  };
  setHandler(openAppealUpdate, (opened) =>
    deal.command(
      (d) => {
        if (appealAnswers.has(opened.appealId)) return undefined;
        const refused = appealOpenRefusal(d.status, appeal && { id: appeal.appealId, status: appeal.status });
        return refused ? refusedWith(refused) : undefined;
      },
      () => appealStep(opened.appealId, () => localSteps.openAppeal(opened, 'deal')),
    ),
  );
  setHandler(resolveAppealUpdate, (resolution) =>
    deal.command(
      (d) => {
        if (appealAnswers.has(resolution.commandId)) return undefined;
        const dealMove = resolution.outcome === 'REJECTED' ? 'appeal_rejected' : 'appeal_satisfied';
        if (!payinRefusal(dealMove, d.status)) return undefined;
        // Not APPEALED: the appeal this run held was resolved already, or the deal's appeal is the appeal workflow's.
        const move = appeal && appealMove(appeal.status, resolveMove(resolution.outcome));
        return refusedWith(move && 'refused' in move ? move.refused : `deal is ${d.status}; its appeal is resolved through the appeal's workflow`);
      },
      () => appealStep(resolution.commandId, () => localSteps.resolveAppeal(resolution, 'deal')),
    ),
  );

  const refused = await deal.create(() =>
    createOrAdopt(
      () => creation.createPayinDeal(input.create),
      () => localSteps.abandonPayinCreate(dealId),
    ),
  );
  if (refused) return refused;
  // The deal's own workflow starts its sandbox trader (idempotent), so nothing outside the run
  // (an API that dies after the create) can leave a sandbox deal without one.
  if (current().sandbox) await localSteps.startSandboxTrader(dealId);

  // Live until a terminal state; at payment_timeout_at whatever is still expirable expires.
  const untilTimeout = Math.max(0, Date.parse(current().paymentTimeoutAt) - Date.now());
  const endedInTime = (await clock.wait('payment_timeout', () => isPayinTerminal(current().status), untilTimeout)) === 'done';
  if (!endedInTime) {
    await serial(async () => {
      if (PAYIN_EXPIRABLE.includes(current().status)) apply(await localSteps.expirePayin(dealId));
    });
  }
  // APPEALED is not expirable: the deal waits for the arbiter's resolution (resolveAppealUpdate).
  await condition(() => isPayinTerminal(current().status));

  if (current().status === 'COMPLETED') {
    await clock.sleep('fee_distribution', input.feeDistributionDelaySeconds * 1000);
    await localSteps.distributePayinFee(dealId);
  }
  clock.end();
  return deal.finish();
}
