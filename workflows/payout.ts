/**
 * One workflow per PayOut deal (spec 3.2): created MATCHED or UNASSIGNED with the merchant's
 * hold; UNASSIGNED re-matches every PAYOUT_RETRY_MATCH_SECONDS until the assignment SLA, then
 * EXPIRED (hold returned); MATCHED → PROCESSING → COMPLETED (hold debited) or FAILED (returned).
 */
import { allHandlersFinished, condition, setHandler, upsertSearchAttributes } from '@temporalio/workflow';
import { local, steps } from './activity-proxies';
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
import { businessFailure, rejected } from './failures';
import { serialQueue } from './serial';

export type PayoutOutcome = { created: false; reason: string } | { created: true; status: PayoutStatus };

export async function payoutWorkflow(input: PayoutWorkflowInput): Promise<PayoutOutcome> {
  const dealId = input.create.dealId;
  const serial = serialQueue();
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

  try {
    apply(await local.createPayoutDeal(input.create));
  } catch (error) {
    creationFailure = businessFailure(error);
    await condition(allHandlersFinished);
    return { created: false, reason: error instanceof Error ? error.message : 'creation failed' };
  }

  // UNASSIGNED: look for a trader every retryMatchSeconds until the assignment SLA runs out.
  const deadline = Date.parse(current().assignDeadlineAt);
  while (current().status === 'UNASSIGNED') {
    const left = deadline - Date.now();
    if (left <= 0) {
      await serial(async () => {
        if (current().status === 'UNASSIGNED') apply(await steps.expirePayout(dealId));
      });
      break;
    }
    const changed = await condition(() => current().status !== 'UNASSIGNED', Math.min(left, input.retryMatchSeconds * 1000));
    if (!changed && Date.now() < deadline) {
      await serial(async () => {
        if (current().status === 'UNASSIGNED') apply(await steps.matchPayout(dealId));
      });
    }
  }

  await condition(() => isPayoutTerminal(current().status));
  await condition(allHandlersFinished);
  return { created: true, status: current().status };
}
