/**
 * The bank notification workflow's steps (workflows/bank-notification.ts): the exact match of a
 * stored credit to one live PayIn of the device's requisites, and the deal's confirmation with the
 * amount received — the trader's own move (confirmReceived), sent to the deal's workflow with the
 * device as the actor. No tolerance and no "most recent wins": a requisite holds at most one live
 * PayIn per amount (deals_requisite_live_amount), so a credit matches one deal or none.
 */
import { ApplicationFailure } from '@temporalio/activity';
import { WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import { candidateDeals, claimDeal, findNotification, markUnmatched, type NotificationRow } from '../db/queries/bank-notifications';
import type { AuditActor } from '../domain/audit';
import { payinRefusal } from '../domain/state/payin';
import type { BankNotificationOutcome } from '../workflows/contracts/bank-notification';
import { confirmReceivedUpdate, payinWorkflowId } from '../workflows/contracts/payin';
import type { ActivityDeps } from './deps';

const outcomeOf = (n: Pick<NotificationRow, 'status' | 'deal_id' | 'reason'>): BankNotificationOutcome => ({
  status: n.status,
  ...(n.deal_id ? { dealId: n.deal_id } : {}),
  reason: n.reason,
});

/** The device as the actor of the deal's confirmation: one request key per notification, so a retried step writes its audit row once. */
const deviceActor = (n: Pick<NotificationRow, 'id' | 'device_id'>): AuditActor => ({
  kind: 'bank_device',
  id: n.device_id,
  role: 'trader',
  requestId: `bank-notification:${n.id}`,
  requestKey: `bank-notification:${n.id}`,
});

export function createBankNotificationActivities(deps: ActivityDeps) {
  const unknown = (id: string) => ApplicationFailure.nonRetryable(`bank notification ${id} not found`, 'NOT_FOUND');
  return {
    /**
     * RECEIVED → MATCHED (one live PayIn of the device's requisites whose amount to pay is the
     * credit's, in its currency; of two such, the one whose requisite has the message's card tail)
     * or UNMATCHED with the reason. Answers the stored outcome when already decided.
     */
    async matchBankNotification(notificationId: string): Promise<BankNotificationOutcome> {
      return deps.sql.begin(async (tx) => {
        const n = await findNotification(tx, notificationId, { lock: true });
        if (!n) throw unknown(notificationId);
        if (n.status !== 'RECEIVED') return outcomeOf(n);
        const exact = (await candidateDeals(tx, n)).filter((d) => d.amount_to_pay === n.amount && payinRefusal('confirm_payment', d.status) === undefined);
        const byTail = exact.length > 1 && n.card_tail !== '' ? exact.filter((d) => d.card_tail === n.card_tail || d.phone_tail === n.card_tail) : exact;
        if (byTail.length === 0) return outcomeOf((await markUnmatched(tx, n.id, 'no_live_deal'))!);
        if (byTail.length > 1) return outcomeOf((await markUnmatched(tx, n.id, 'ambiguous'))!);
        const deal = byTail[0]!;
        const claimed = await claimDeal(tx, n.id, deal);
        if (claimed === 'already_matched') return outcomeOf((await markUnmatched(tx, n.id, 'already_matched', deal.id))!);
        deps.metrics?.bankNotificationOutcomes.inc({ outcome: claimed === 'matched' ? 'matched' : 'moved' });
        return outcomeOf((await findNotification(tx, n.id))!);
      });
    },

    /**
     * Sends the deal's workflow the trader's confirmation with the credit's amount. A refusal (the
     * deal moved on: cancelled, expired, confirmed by hand) leaves the notification to an operator
     * — unless the deal holds this notification's own confirmation (a retried step).
     */
    async confirmDealByNotification(notificationId: string): Promise<BankNotificationOutcome> {
      const n = await findNotification(deps.sql, notificationId);
      if (!n) throw unknown(notificationId);
      if (n.status !== 'MATCHED' || !n.deal_id) return outcomeOf(n);
      const temporal = deps.temporal;
      if (!temporal) throw new Error('the bank notification workflow needs the worker’s Temporal client');
      const actor = deviceActor(n);
      try {
        await temporal.workflow.getHandle(payinWorkflowId(n.deal_id)).executeUpdate(confirmReceivedUpdate, { args: [String(n.amount), actor] });
        deps.metrics?.bankNotificationOutcomes.inc({ outcome: 'confirmed' });
        return outcomeOf(n);
      } catch (error) {
        if (!(error instanceof WorkflowUpdateFailedError || error instanceof WorkflowNotFoundError)) throw error;
        const [own] = await deps.sql`
          select 1 from audit_log where request_key = ${actor.requestKey} and action = 'deal.confirm' and object_id = ${n.deal_id}`;
        if (own) return outcomeOf(n);
        deps.log.info({ notificationId, dealId: n.deal_id, err: error }, 'bank notification: the deal refused the confirmation');
        deps.metrics?.bankNotificationOutcomes.inc({ outcome: 'refused' });
        const unmatched = await markUnmatched(deps.sql, n.id, 'deal_refused', n.deal_id);
        return outcomeOf(unmatched ?? n);
      }
    },
  };
}
