/**
 * One workflow per PayOut deal (spec 3.2): created MATCHED or UNASSIGNED with the merchant's
 * hold; UNASSIGNED re-matches every PAYOUT_RETRY_MATCH_SECONDS until the assignment SLA, then
 * EXPIRED (hold returned); MATCHED → PROCESSING → COMPLETED (hold debited) or FAILED (returned);
 * a MATCHED payout not started within PAYOUT_TRANSFER_SLA_SECONDS EXPIRES (hold returned).
 */
import { condition, patched, setHandler } from '@temporalio/workflow';
import { creationActivities, localStepActivities } from './activity-proxies';
import { isPayoutTerminal, PAYOUT_TERMINAL, payoutRefusal } from '../domain/payout';
import {
  assignPayoutUpdate,
  awaitPayoutCreationUpdate,
  completePayoutHandlerUpdate,
  payoutStatusQuery,
  rejectPayoutUpdate,
  startPayoutHandlerUpdate,
  type PayoutOutcome,
  type PayoutWorkflowInput,
} from './contracts/payout';
import { createOrAdopt, dealLifecycle } from './deal-lifecycle';
import { sandboxClock } from './sandbox-clock';

export async function payoutWorkflow(input: PayoutWorkflowInput): Promise<PayoutOutcome> {
  const dealId = input.create.dealId;
  const steps = localStepActivities(input.timeouts);
  const creation = creationActivities(input.timeouts);
  const deal = dealLifecycle({
    statusQuery: payoutStatusQuery,
    creationUpdate: awaitPayoutCreationUpdate,
    requestId: input.requestId,
    notFound: 'deal not found',
    terminal: PAYOUT_TERMINAL,
  });
  const { apply, current, serial } = deal;
  // Issue 29.3: a sandbox payout's timers can be fired now (advanceTimer).
  const clock = sandboxClock({ sandbox: () => current()?.sandbox === true, status: () => current()?.status ?? '' });

  // The operator's commands, each checked against PAYOUT_TRANSITIONS (domain/payout.ts).
  // An operator's actor (absent from older senders) rides to the step, which audits the move.
  setHandler(assignPayoutUpdate, (requisiteId, actor) =>
    deal.command(
      (d) => payoutRefusal('assign', d.status),
      async () => apply(await steps.assignPayout(dealId, requisiteId, actor)),
    ),
  );
  setHandler(startPayoutHandlerUpdate, (actor) =>
    deal.command(
      (d) => payoutRefusal('start', d.status),
      async () => apply(await steps.startPayout(dealId, actor)),
    ),
  );
  setHandler(completePayoutHandlerUpdate, (actor) =>
    deal.command(
      (d) => payoutRefusal('complete', d.status),
      async () => apply(await steps.completePayout(dealId, actor)),
    ),
  );
  setHandler(rejectPayoutUpdate, (reason, actor) =>
    deal.command(
      (d) => payoutRefusal('fail', d.status),
      async () => apply(await steps.failPayout(dealId, reason, actor)),
    ),
  );

  const refused = await deal.create(() =>
    createOrAdopt(
      () => creation.createPayoutDeal(input.create),
      () => steps.findPayoutSnapshot(dealId),
    ),
  );
  if (refused) return refused;
  // Issue 29: the deal's own workflow makes sure its sandbox trader runs (idempotent; the API's
  // start after the create is a duplicate), so an API crash in between cannot leave it without one.
  // Older histories replay without the step.
  if (current().sandbox && patched('sandbox-trader-from-deal')) await steps.ensureSandboxTrader(dealId, 'PAYOUT');

  // Until a terminal state (spec 3.2, with the transfer SLA):
  //   UNASSIGNED  re-match every retryMatchSeconds; at the assignment SLA → EXPIRED (hold returned)
  //   MATCHED     the trader must start before transferDeadlineAt, else → EXPIRED (hold returned);
  //               a reassignment starts a new transfer window
  //   PROCESSING  the trader may already have sent the fiat, so the hold stays; after
  //               processingAlertSeconds one operator alert is raised (an operator completes or rejects)
  // A command accepted before a deadline runs before the expiry: both go through `serial`.
  let alerted = false;
  while (!isPayoutTerminal(current().status)) {
    const d = current();
    if (d.status === 'UNASSIGNED') {
      const deadline = Date.parse(d.assignDeadlineAt);
      const left = deadline - Date.now();
      if (left <= 0) {
        await serial(async () => {
          if (!payoutRefusal('expire_unassigned', current().status)) apply(await steps.expirePayout(dealId));
        });
        continue;
      }
      const woke = await clock.wait('assign_sla', () => current().status !== 'UNASSIGNED', Math.min(left, input.retryMatchSeconds * 1000));
      if (woke === 'advanced') {
        await serial(async () => {
          if (!payoutRefusal('expire_unassigned', current().status)) apply(await steps.expirePayout(dealId));
        });
        continue;
      }
      const changed = woke === 'done';
      if (!changed && Date.now() < deadline) {
        await serial(async () => {
          if (!payoutRefusal('match', current().status)) apply(await steps.matchPayout(dealId));
        });
      }
    } else if (d.status === 'MATCHED' && d.transferDeadlineAt) {
      const deadline = d.transferDeadlineAt;
      const left = Date.parse(deadline) - Date.now();
      if (left <= 0) {
        await serial(async () => {
          if (!payoutRefusal('expire_matched', current().status) && current().transferDeadlineAt === deadline) apply(await steps.expireMatchedPayout(dealId));
        });
        continue;
      }
      const woke = await clock.wait('transfer_sla', () => current().status !== 'MATCHED' || current().transferDeadlineAt !== deadline, left);
      if (woke === 'advanced') {
        await serial(async () => {
          if (!payoutRefusal('expire_matched', current().status) && current().transferDeadlineAt === deadline) apply(await steps.expireMatchedPayout(dealId));
        });
      }
    } else if (d.status === 'PROCESSING' && !alerted && input.processingAlertSeconds) {
      const finished = (await clock.wait('processing_alert', () => current().status !== 'PROCESSING', input.processingAlertSeconds * 1000)) === 'done';
      if (!finished) await steps.flagOverduePayout(dealId);
      alerted = true;
    } else {
      await condition(() => current().status !== d.status || current().transferDeadlineAt !== d.transferDeadlineAt);
    }
  }

  clock.end();
  return deal.finish();
}
