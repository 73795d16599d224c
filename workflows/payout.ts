/**
 * One workflow per PayOut deal (PAYOUT_TRANSITIONS, domain/state/payout.ts): created MATCHED or UNASSIGNED with the merchant's
 * hold; UNASSIGNED re-matches every PAYOUT_RETRY_MATCH_SECONDS until the assignment SLA, then
 * EXPIRED (hold returned); MATCHED → PROCESSING → COMPLETED (hold debited) or FAILED (returned);
 * a MATCHED payout not started within PAYOUT_TRANSFER_SLA_SECONDS EXPIRES (hold returned).
 */
import { condition, setHandler } from '@temporalio/workflow';
import { isPayoutTerminal, PAYOUT_TERMINAL, payoutRefusal } from '../domain/state/payout';
import { creationActivities, localStepActivities } from './activity-proxies';
import {
  assignPayoutUpdate,
  completePayoutUpdate,
  type PayoutOutcome,
  type PayoutSnapshot,
  type PayoutWorkflowInput,
  rejectPayoutUpdate,
  startPayoutUpdate,
  takePayoutUpdate,
} from './contracts/payout';
import { createOrAdopt, dealLifecycle } from './deal-lifecycle';
import { sandboxClock } from './sandbox-clock';

export async function payoutWorkflow(input: PayoutWorkflowInput): Promise<PayoutOutcome> {
  const dealId = input.create.dealId;
  const localSteps = localStepActivities(input.timeouts);
  const creation = creationActivities(input.timeouts);
  const deal = dealLifecycle<PayoutSnapshot>({ requestId: input.requestId, notFound: 'deal not found', terminal: PAYOUT_TERMINAL });
  const { apply, current, serial } = deal;
  // A sandbox payout's timers can be fired now (advanceTimer).
  const clock = sandboxClock({ sandbox: () => current()?.sandbox === true, status: () => current()?.status ?? '' });

  // The operator's commands, each checked against PAYOUT_TRANSITIONS (domain/state/payout.ts); the
  // operator's actor rides to the step, which audits the move.
  setHandler(assignPayoutUpdate, (requisiteId, actor) =>
    deal.command(
      (d) => payoutRefusal('assign', d.status),
      async () => apply(await localSteps.assignPayout(dealId, requisiteId, actor)),
    ),
  );
  setHandler(startPayoutUpdate, (actor) =>
    deal.command(
      (d) => payoutRefusal('start', d.status),
      async () => apply(await localSteps.startPayout(dealId, actor)),
    ),
  );
  setHandler(completePayoutUpdate, (actor, proof) =>
    deal.command(
      (d) => payoutRefusal('complete', d.status),
      async () => apply(await localSteps.completePayout(dealId, actor, proof)),
    ),
  );
  // A trader's take: commands run one at a time, so of concurrent takes the first wins and the rest find it MATCHED.
  setHandler(takePayoutUpdate, (traderId, actor) =>
    deal.command(
      (d) => payoutRefusal('take', d.status),
      async () => apply(await localSteps.takePayout(dealId, traderId, actor)),
    ),
  );
  setHandler(rejectPayoutUpdate, (reason, actor) =>
    deal.command(
      (d) => payoutRefusal('fail', d.status),
      async () => apply(await localSteps.failPayout(dealId, reason, actor)),
    ),
  );

  const refused = await deal.create(() =>
    createOrAdopt(
      () => creation.createPayoutDeal(input.create),
      () => localSteps.abandonPayoutCreate(dealId),
    ),
  );
  if (refused) return refused;
  // The deal's own workflow starts its sandbox trader (idempotent), so nothing outside the run
  // (an API that dies after the create) can leave a sandbox deal without one.
  if (current().sandbox) await localSteps.startSandboxTrader(dealId);

  // The timed moves. A command accepted before a deadline runs before the expiry: both go through `serial`.
  /**
   * One expiry window (the assignment SLA of an UNASSIGNED payout, the transfer window of a
   * MATCHED one): waits until `deadline` — or `wakeAfterMs`, if sooner — unless the payout leaves
   * the window first. At the deadline (run out, or fired by advanceTimer) a payout still in the
   * window expires through its step (hold returned). 'deadline' when the deadline was reached,
   * else how the wait ended: 'elapsed' is a wake before it.
   */
  const expireAtDeadline = async (window: {
    timer: 'assign_sla' | 'transfer_sla';
    deadline: string;
    inWindow: () => boolean;
    move: 'expire_unassigned' | 'expire_matched';
    expire: () => Promise<PayoutSnapshot>;
    wakeAfterMs?: number;
  }): Promise<'deadline' | 'done' | 'elapsed'> => {
    const deadline = Date.parse(window.deadline);
    const left = deadline - Date.now();
    const woke = left <= 0 ? 'past' : await clock.wait(window.timer, () => !window.inWindow(), Math.min(left, window.wakeAfterMs ?? left));
    const reached = woke === 'past' || woke === 'advanced' || (woke === 'elapsed' && Date.now() >= deadline);
    if (!reached) return woke === 'done' ? 'done' : 'elapsed';
    await serial(async () => {
      if (!payoutRefusal(window.move, current().status) && window.inWindow()) apply(await window.expire());
    });
    return 'deadline';
  };
  /** Another look for a free trader. */
  const rematch = () =>
    serial(async () => {
      if (!payoutRefusal('match', current().status)) apply(await localSteps.matchPayout(dealId));
    });

  // Until a terminal state:
  //   UNASSIGNED  re-match every retryMatchSeconds; at the assignment SLA → EXPIRED
  //   MATCHED     the trader must start before transferDeadlineAt, else → EXPIRED; a
  //               reassignment starts a new transfer window
  //   PROCESSING  the trader may already have sent the fiat, so the hold stays; after
  //               processingAlertSeconds one operator alert is raised (an operator completes or rejects)
  let alerted = false;
  while (!isPayoutTerminal(current().status)) {
    const d = current();
    if (d.status === 'UNASSIGNED') {
      const ended = await expireAtDeadline({
        timer: 'assign_sla',
        deadline: d.assignDeadlineAt,
        inWindow: () => current().status === 'UNASSIGNED',
        move: 'expire_unassigned',
        expire: () => localSteps.expirePayout(dealId),
        wakeAfterMs: input.retryMatchSeconds * 1000,
      });
      if (ended === 'elapsed') await rematch();
    } else if (d.status === 'MATCHED' && d.transferDeadlineAt) {
      const deadline = d.transferDeadlineAt;
      await expireAtDeadline({
        timer: 'transfer_sla',
        deadline,
        inWindow: () => current().status === 'MATCHED' && current().transferDeadlineAt === deadline,
        move: 'expire_matched',
        expire: () => localSteps.expireMatchedPayout(dealId),
      });
    } else if (d.status === 'PROCESSING' && !alerted && input.processingAlertSeconds) {
      const finished = (await clock.wait('processing_alert', () => current().status !== 'PROCESSING', input.processingAlertSeconds * 1000)) === 'done';
      if (!finished) await localSteps.flagOverduePayout(dealId);
      alerted = true;
    } else {
      await condition(() => current().status !== d.status || current().transferDeadlineAt !== d.transferDeadlineAt);
    }
  }

  clock.end();
  return deal.finish();
}
