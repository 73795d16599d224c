/**
 * Every event type the gateway emits, by family: the one list the
 * outbox writers are typed by (db/queries/outbox.ts OutboxEvent.type), the state tables name
 * (Transition.events) and the OpenAPI WebhookEvent union documents (api/schemas/events.ts). A new
 * type is added here first, or it cannot be written. Clients must ignore types they do not know:
 * new ones are added without notice.
 */

/** deal.* events: the deal as it was when the event happened (`deal`, with amount_version). */
export const DEAL_EVENT_TYPES = [
  'deal.created',
  'deal.escrow_locked',
  'deal.payment_notified',
  'deal.payment_verified',
  'deal.completed',
  'deal.expired',
  'deal.appealed',
  'deal.refund_pending',
  'deal.cancelled',
  'deal.failed',
] as const;

/** The operator's amount change: the deal, and old_amount, amount and amount_version besides. */
export const DEAL_AMOUNT_EVENT_TYPES = ['deal.amount_changed'] as const;

/** appeal.* events (an addition: the spec's event list has none): the appeal, and its deal. */
export const APPEAL_EVENT_TYPES = ['appeal.opened', 'appeal.in_review', 'appeal.resolved', 'appeal.closed', 'appeal.reopened'] as const;

/** A message in an appeal: the appeal, the message and the deal. */
export const APPEAL_MESSAGE_EVENT_TYPES = ['appeal.message'] as const;

/** Withdrawal events: the withdrawal. */
export const WITHDRAWAL_EVENT_TYPES = ['p2p.finance.withdrawal_failed'] as const;

/** Deposit events (TRON deposits credited): the deposit. */
export const DEPOSIT_EVENT_TYPES = ['p2p.finance.deposit_confirmed'] as const;

/** A test event a merchant's person sends from the cabinet to check its endpoint (an addition): whom and when. */
export const TEST_EVENT_TYPES = ['webhook.test'] as const;

export const EVENT_TYPES = [
  ...DEAL_EVENT_TYPES,
  ...DEAL_AMOUNT_EVENT_TYPES,
  ...APPEAL_EVENT_TYPES,
  ...APPEAL_MESSAGE_EVENT_TYPES,
  ...WITHDRAWAL_EVENT_TYPES,
  ...DEPOSIT_EVENT_TYPES,
  ...TEST_EVENT_TYPES,
] as const;

export type EventType = (typeof EVENT_TYPES)[number];
export type AppealEventType = (typeof APPEAL_EVENT_TYPES)[number] | (typeof APPEAL_MESSAGE_EVENT_TYPES)[number];
