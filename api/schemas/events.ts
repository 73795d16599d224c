/** The V2 event envelope (contract 5) as the events feed lists it and webhooks POST it. */
import { z } from 'zod';
import { int64String, pageSize, timestamp } from './common';
import { dealSchema } from './deals';
import { repeated } from './listing';

export const EVENT_TYPES_DESCRIPTION =
  'deal.created, deal.escrow_locked, deal.payment_notified, deal.amount_changed, deal.payment_verified, deal.completed, ' +
  'deal.expired, deal.appealed, deal.refund_pending, deal.cancelled, deal.failed, appeal.opened, appeal.in_review, ' +
  'appeal.message, appeal.resolved, appeal.closed, appeal.reopened, p2p.finance.withdrawal_failed; new types are added ' +
  'without notice (spec 9): ignore the ones you do not know';

export const webhookEventSchema = z
  .object({
    event_id: z.string().uuid().openapi({ description: 'stable across retries and in the feed: the key to process an event once' }),
    type: z.string().openapi({ description: EVENT_TYPES_DESCRIPTION, example: 'deal.completed' }),
    created_at: timestamp.openapi({ description: 'when the event happened (written to the outbox)' }),
    deal: dealSchema
      .extend({ amount_version: int64String.openapi({ description: 'the deal amount version; +1 on each operator amount change' }) })
      .optional()
      .openapi({ description: 'the deal as it was when the event happened (deal.* and appeal.* events)' }),
    old_amount: int64String.optional().openapi({ description: 'deal.amount_changed only' }),
    amount: int64String.optional().openapi({ description: 'deal.amount_changed only: the new amount' }),
    amount_version: int64String.optional().openapi({ description: 'deal.amount_changed only: the new amount version' }),
    appeal: z.object({}).passthrough().optional().openapi({ description: 'appeal.* events: the appeal (as GET /appeals/{appeal_id} shows it)' }),
    message: z.object({}).passthrough().optional().openapi({ description: 'appeal.message: the message' }),
    withdrawal: z.object({}).passthrough().optional().openapi({ description: 'p2p.finance.* events: the withdrawal' }),
  })
  .passthrough()
  .openapi('WebhookEvent', {
    description:
      'One event in the V2 envelope (contract 5): the body of a V2 webhook and an item of GET /events. The event\'s object ' +
      'sits under its own key; int64 values are strings; fields are added without notice.',
  });

export const eventFeedQuery = z.object({
  types: repeated
    .optional()
    .refine((v) => !v || v.length <= 50, { message: 'types takes at most 50 values', params: { code: 'too_big' } })
    .openapi({ description: 'only these event types: repeated (types=a&types=b) or comma-separated; unknown types match nothing' }),
  page_size: pageSize(250, 50),
  page_token: z.string().optional().openapi({ description: 'next_page_token of an earlier page: the feed continues after it' }),
});

export const eventFeedResponse = z
  .object({
    data: z.array(webhookEventSchema),
    next_page_token: z.string().openapi({
      description: 'never empty: where this page ends. Keep it; a later request with it answers only the events emitted since',
    }),
  })
  .openapi('EventList', {
    description:
      'Events oldest first. Unlike the listings, next_page_token is never empty: a page with fewer events than asked ' +
      '(an empty one included) means the feed is read to its end for now.',
  });
