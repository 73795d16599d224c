/** The V2 event envelope as the events feed lists it and webhooks POST it. */
import { z } from 'zod';
import { int64String, openEnum, pageSize, timestamp } from './common';
import { dealSchema } from './deals';
import { appealSchema, messageSchema } from './appeals';
import { depositSchema } from './wallet';
import { withdrawalSchema } from './withdrawals';
import {
  APPEAL_EVENT_TYPES,
  APPEAL_MESSAGE_EVENT_TYPES,
  DEAL_AMOUNT_EVENT_TYPES,
  DEAL_EVENT_TYPES,
  DEPOSIT_EVENT_TYPES,
  TEST_EVENT_TYPES,
  WITHDRAWAL_EVENT_TYPES,
} from '../../domain/events/event-types';
import { repeated } from './listing';

const EVENT_NOTE =
  'New types are added without notice: clients must ignore the types they do not know, and fields are added ' +
  'without notice too (int64 values are strings).';

/** What every event carries, whatever its type. */
const envelope = {
  event_id: z.string().uuid().openapi({ description: 'stable across retries and in the feed: the key to process an event once' }),
  created_at: timestamp.openapi({ description: 'when the event happened (written to the outbox)' }),
  sandbox: z
    .literal(true)
    .optional()
    .openapi({ description: "addition: true on every event of a sandbox merchant (see the Sandbox tag); absent on a live merchant's" }),
};

/** The deal as it was when the event happened. */
const eventDealSchema = dealSchema
  .extend({ amount_version: int64String.openapi({ description: 'the deal amount version; +1 on each operator amount change' }) })
  .openapi('EventDeal', { description: 'The deal as it was when the event happened (MerchantDealInfo and its amount_version).' });

const typeOf = <const T extends readonly [string, ...string[]]>(types: T) =>
  openEnum(types, `one of ${types.join(', ')}.`, 'as an event to ignore (the feed and the webhooks carry new types without notice)');

const dealEventSchema = z
  .object({ ...envelope, type: typeOf(DEAL_EVENT_TYPES), deal: eventDealSchema })
  .passthrough()
  .openapi('DealEvent', { description: 'deal.* events (but deal.amount_changed): the deal as it was when the event happened.' });

const dealAmountChangedEventSchema = z
  .object({
    ...envelope,
    type: typeOf(DEAL_AMOUNT_EVENT_TYPES),
    deal: eventDealSchema,
    old_amount: int64String.openapi({ description: 'the amount before the change' }),
    amount: int64String.openapi({ description: 'the new amount' }),
    amount_version: int64String.openapi({ description: 'the new amount version' }),
  })
  .passthrough()
  .openapi('DealAmountChangedEvent', { description: "deal.amount_changed: an operator changed the deal's amount (never sent to V1 merchants)." });

const appealEventSchema = z
  .object({
    ...envelope,
    type: typeOf(APPEAL_EVENT_TYPES),
    appeal: appealSchema,
    deal: eventDealSchema.optional().openapi({ description: "the appeal's deal as it was when the event happened" }),
  })
  .passthrough()
  .openapi('AppealEvent', { description: 'appeal.* events (but appeal.message): the appeal as GET /appeals/{appeal_id} shows it.' });

const appealMessageEventSchema = z
  .object({
    ...envelope,
    type: typeOf(APPEAL_MESSAGE_EVENT_TYPES),
    appeal: appealSchema,
    message: messageSchema,
    deal: eventDealSchema.optional().openapi({ description: "the appeal's deal as it was when the event happened" }),
  })
  .passthrough()
  .openapi('AppealMessageEvent', { description: 'appeal.message: a new message in an appeal.' });

const withdrawalEventSchema = z
  .object({ ...envelope, type: typeOf(WITHDRAWAL_EVENT_TYPES), withdrawal: withdrawalSchema })
  .passthrough()
  .openapi('WithdrawalEvent', { description: 'p2p.finance.withdrawal_* events: the withdrawal.' });

const depositEventSchema = z
  .object({ ...envelope, type: typeOf(DEPOSIT_EVENT_TYPES), deposit: depositSchema })
  .passthrough()
  .openapi('DepositEvent', { description: 'p2p.finance.deposit_confirmed: a TRON deposit was credited (never sent to V1 merchants).' });

const testEventSchema = z
  .object({
    ...envelope,
    type: typeOf(TEST_EVENT_TYPES),
    test: z
      .object({
        requested_by: z.string().openapi({ description: 'the email of the member who sent it (or "cabinet JWT")' }),
        message: z.string(),
      })
      .openapi('TestEventBody'),
  })
  .passthrough()
  .openapi('TestEvent', {
    description:
      'webhook.test: sent from the cabinet (POST /cabinet/webhook/test-event) to check the endpoint; no deal, no money (never sent to V1 merchants).',
  });

/** The variant of each family, by the types it carries: what a feed event of that type must match. */
export const EVENT_VARIANTS = [
  dealEventSchema,
  dealAmountChangedEventSchema,
  appealEventSchema,
  appealMessageEventSchema,
  withdrawalEventSchema,
  depositEventSchema,
  testEventSchema,
] as const;

export const webhookEventSchema = z.discriminatedUnion('type', EVENT_VARIANTS).openapi('WebhookEvent', {
  description:
    'One event in the V2 envelope: the body of a V2 webhook and an item of GET /events, one variant per family ' +
    "chosen by `type`; the event's object sits under its own key. " +
    EVENT_NOTE,
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
