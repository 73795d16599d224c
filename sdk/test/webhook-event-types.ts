/**
 * Type-level test (compiled by `tsc -p sdk/tsconfig.test.json`, part of `npm run typecheck`;
 * nothing runs): WebhookEvent is a union discriminated by `type`, so narrowing on `type` types
 * the event's object, and without narrowing it is not there to use.
 */
import type { WebhookEvent, WebhookEventOf, WebhookEventType } from '../src/index.js';
import { isKnownEventType } from '../src/index.js';

export function handle(event: WebhookEvent): string {
  // @ts-expect-error without narrowing on type, `deal` is not known to be there
  void event.deal.status;
  if (event.type === 'deal.completed') {
    const status: string = event.deal.status;
    const version: string = event.deal.amount_version;
    return `${status} ${version}`;
  }
  if (event.type === 'deal.amount_changed') return `${event.old_amount} → ${event.amount} (v${event.amount_version}) of ${event.deal.deal_id}`;
  if (event.type === 'appeal.message') return `${event.appeal.status}: ${event.message.body}`;
  if (event.type === 'appeal.opened') {
    // @ts-expect-error only appeal.message carries a message
    void event.message.body;
    return event.appeal.appeal_id;
  }
  if (event.type === 'p2p.finance.withdrawal_failed') return event.withdrawal.status;
  if (event.type === 'p2p.finance.deposit_confirmed') return event.deposit.amount;
  return event.type;
}

// Statuses are closed sets: a deal's status is one of the documented ones.
export const completedStatus = (event: WebhookEventOf<'deal.completed'>): 'COMPLETED' | Exclude<typeof event.deal.status, 'COMPLETED'> => event.deal.status;
// @ts-expect-error not an event type
export const unknownType: WebhookEventType = 'deal.teleported';

/** Events of types newer than the SDK are ignored. */
export function onFeedItem(raw: { type: string }): string | undefined {
  return isKnownEventType(raw) ? handle(raw) : undefined;
}
