/**
 * One workflow per PayOut deal (spec 3.2): created MATCHED or UNASSIGNED with the merchant's
 * hold; UNASSIGNED re-matches every PAYOUT_RETRY_MATCH_SECONDS until the assignment SLA, then
 * EXPIRED (hold returned); MATCHED → PROCESSING → COMPLETED (hold debited) or FAILED (returned);
 * a MATCHED payout not started within PAYOUT_TRANSFER_SLA_SECONDS EXPIRES (hold returned).
 */
import { allHandlersFinished, condition, setHandler, upsertSearchAttributes } from '@temporalio/workflow';
import { createSteps, dealSteps } from './activity-proxies';
import { isPayoutTerminal, type PayoutStatus } from '../domain/payout';
import {
  assignPayoutUpdate,
  awaitPayoutCreationUpdate,
  completePayoutUpdate,
  payoutStatusQuery,
  rejectPayoutUpdate,
  startPayoutUpdate,
  type PayoutSnapshot,
  type PayoutWorkflowInput,
} from './contracts/payout';
import { DealStatusKey } from './contracts/search-attributes';
import { businessFailure, createOrAdopt, rejected } from './failures';
import { serialQueue } from './serial';

export type PayoutOutcome = { created: false; reason: string } | { created: true; status: PayoutStatus };

export async function payoutWorkflow(input: PayoutWorkflowInput): Promise<PayoutOutcome> {
  const dealId = input.create.dealId;
  const serial = serialQueue();
  const steps = dealSteps(input.timeouts);
  const local = createSteps(input.timeouts);
  let deal: PayoutSnapshot | undefined;
  let creationFailure: unknown;

  const current = (): PayoutSnapshot => deal!;
  const apply = (next: PayoutSnapshot) => {
    if (next.status !== deal?.status) upsertSearchAttributes([{ key: DealStatusKey, value: next.status }]);
    deal = next;
    return next;
  };
  const command = (from: readonly PayoutStatus[], step: () => Promise<PayoutSnapshot>) =>
    serial(async () => {
      await condition(() => deal !== undefined || creationFailure !== undefined);
      if (!deal) throw rejected('NOT_FOUND', 'deal not found');
      if (!from.includes(deal.status)) throw rejected('FAILED_PRECONDITION', `payout is ${deal.status}`);
      try {
        return apply(await step());
      } catch (error) {
        throw businessFailure(error);
      }
    });

  setHandler(payoutStatusQuery, () => deal);
  setHandler(awaitPayoutCreationUpdate, async () => {
    await condition(() => deal !== undefined || creationFailure !== undefined);
    if (creationFailure) throw creationFailure;
    return current();
  });
  setHandler(assignPayoutUpdate, (requisiteId) => command(['UNASSIGNED', 'MATCHED'], () => steps.assignPayout(dealId, requisiteId)));
  setHandler(startPayoutUpdate, () => command(['MATCHED'], () => steps.startPayout(dealId)));
  setHandler(completePayoutUpdate, () => command(['PROCESSING'], () => steps.completePayout(dealId)));
  setHandler(rejectPayoutUpdate, (reason) => command(['PROCESSING'], () => steps.failPayout(dealId, reason)));

  const created = await createOrAdopt(() => local.createPayoutDeal(input.create), () => steps.findPayoutSnapshot(dealId));
  if (!created.ok) {
    creationFailure = created.failure;
    await condition(allHandlersFinished);
    return { created: false, reason: created.reason };
  }
  apply(created.snapshot);

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
          if (current().status === 'UNASSIGNED') apply(await steps.expirePayout(dealId));
        });
        continue;
      }
      const changed = await condition(() => current().status !== 'UNASSIGNED', Math.min(left, input.retryMatchSeconds * 1000));
      if (!changed && Date.now() < deadline) {
        await serial(async () => {
          if (current().status === 'UNASSIGNED') apply(await steps.matchPayout(dealId));
        });
      }
    } else if (d.status === 'MATCHED' && d.transferDeadlineAt) {
      const deadline = d.transferDeadlineAt;
      const left = Date.parse(deadline) - Date.now();
      if (left <= 0) {
        await serial(async () => {
          if (current().status === 'MATCHED' && current().transferDeadlineAt === deadline) apply(await steps.expireMatchedPayout(dealId));
        });
        continue;
      }
      await condition(() => current().status !== 'MATCHED' || current().transferDeadlineAt !== deadline, left);
    } else if (d.status === 'PROCESSING' && !alerted && input.processingAlertSeconds) {
      const finished = await condition(() => current().status !== 'PROCESSING', input.processingAlertSeconds * 1000);
      if (!finished) await steps.flagOverduePayout(dealId);
      alerted = true;
    } else {
      await condition(() => current().status !== d.status || current().transferDeadlineAt !== d.transferDeadlineAt);
    }
  }

  await condition(allHandlersFinished);
  return { created: true, status: current().status };
}
