/**
 * The merchant's events feed: GET /api/v1/p2p/merchant/events lists every event of the
 * merchant oldest first in outbox order, with the very payloads its webhooks carried; the last
 * page's next_page_token is never empty and resumes after the events emitted since.
 */
import test from 'ava';
import { asOperator, cabinetToken, newMerchant, signed, withBearer, type KeyPair } from '../helpers/api';
import { testSql } from '../helpers/app';
import { createPayin } from '../helpers/deals';
import { eventually } from '../helpers/poll';
import { startReceiver } from '../helpers/receiver';

const sql = testSql();
test.after.always(() => sql.end());

const FEED = '/api/v1/p2p/merchant/events';
type Event = { event_id: string; type: string; created_at: string; deal?: { deal_id: string; status: string } };
type Page = { data: Event[]; next_page_token: string };

/** Every page from `token` on, `size` at a time, until a page comes back short: the events and the last token. */
async function walk(keys: KeyPair, query: Record<string, string | number> = {}, token = '') {
  const events: Event[] = [];
  const size = Number(query.page_size ?? 50);
  for (let pages = 0; pages < 100; pages += 1) {
    const qs = new URLSearchParams({ ...Object.fromEntries(Object.entries(query).map(([k, v]) => [k, String(v)])), ...(token ? { page_token: token } : {}) });
    const res = await signed(keys, 'GET', `${FEED}?${qs}`);
    if (res.status !== 200) throw new Error(`feed: ${res.status} ${res.text}`);
    const page = res.body as Page;
    if (!page.next_page_token) throw new Error('the feed never answers an empty next_page_token');
    events.push(...page.data);
    token = page.next_page_token;
    if (page.data.length < size) return { events, token };
  }
  throw new Error('the feed did not end');
}

const outboxOrder = async (merchantId: string) =>
  (await sql<{ id: string }[]>`select id from outbox_events where merchant_id = ${merchantId} order by seq`).map((r) => r.id);

test('the feed lists the merchant’s events oldest first in outbox order, with the payloads its webhooks carried', async (t) => {
  const receiver = await startReceiver();
  t.teardown(() => receiver.close());
  const { merchantId, keys } = await newMerchant({ webhook_url: receiver.url });
  const first = await createPayin(keys);
  const second = await createPayin(keys);
  t.is((await signed(keys, 'POST', `/api/v1/p2p/merchant/deals/${first.deal_id}/cancel`, { reason: 'feed test' })).status, 200);
  const expected = 5; // created + escrow_locked, twice; cancelled
  await eventually(async () => receiver.received.length >= expected, 'the webhooks');

  // Pages of 2: 2 + 2 + 1; the events appear once the relay handed them on.
  const { events, token } = await eventually(async () => {
    const walked = await walk(keys, { page_size: 2 });
    return walked.events.length >= expected ? walked : undefined;
  }, 'every event in the feed');
  t.deepEqual(
    events.map((e) => e.event_id),
    await outboxOrder(merchantId),
    'outbox order, oldest first, nothing else',
  );
  t.deepEqual(
    events.map((e) => e.type),
    ['deal.created', 'deal.escrow_locked', 'deal.created', 'deal.escrow_locked', 'deal.cancelled'],
  );
  t.deepEqual(
    events.map((e) => e.deal!.deal_id),
    [first.deal_id, first.deal_id, second.deal_id, second.deal_id, first.deal_id],
  );
  // The same payloads as the webhooks: byte for byte, once parsed.
  const delivered = new Map(receiver.received.map((r) => [JSON.parse(r.body).event_id as string, JSON.parse(r.body)]));
  for (const e of events) t.deepEqual(e, delivered.get(e.event_id), `${e.type} as delivered`);

  // The last token stays valid: nothing new, an empty page and the same position.
  const again = await signed(keys, 'GET', `${FEED}?page_token=${encodeURIComponent(token)}`);
  t.is(again.status, 200, again.text);
  t.deepEqual(again.body, { data: [], next_page_token: token });

  // Resumed later, it answers only what came after.
  const third = await createPayin(keys);
  const resumed = await eventually(async () => {
    const walked = await walk(keys, {}, token);
    return walked.events.length >= 2 ? walked : undefined;
  }, 'the new events after the kept token');
  t.deepEqual(
    resumed.events.map((e) => [e.type, e.deal!.deal_id]),
    [
      ['deal.created', third.deal_id],
      ['deal.escrow_locked', third.deal_id],
    ],
  );
  t.not(resumed.token, token);
});

test('types filters the feed; unknown types match nothing; the token moves past the events of other types it read', async (t) => {
  const { keys } = await newMerchant();
  const deal = await createPayin(keys);
  const locked = await eventually(async () => {
    const walked = await walk(keys, { types: 'deal.escrow_locked' });
    return walked.events.length === 1 ? walked : undefined;
  }, 'the escrow event');
  t.is(locked.events[0]!.deal!.deal_id, deal.deal_id);
  const both = await walk(keys, { types: 'deal.created,deal.escrow_locked' });
  t.deepEqual(
    both.events.map((e) => e.type),
    ['deal.created', 'deal.escrow_locked'],
  );
  const repeated = await signed(keys, 'GET', `${FEED}?types=deal.created&types=deal.escrow_locked`);
  t.deepEqual(
    (repeated.body as Page).data.map((e) => e.type),
    ['deal.created', 'deal.escrow_locked'],
    'repeated parameters too',
  );

  const none = await walk(keys, { types: 'no.such_type' });
  t.deepEqual(none.events, []);
  // That token stands after everything read: resumed without a filter, only newer events come.
  const later = await createPayin(keys);
  const resumed = await eventually(async () => {
    const walked = await walk(keys, {}, none.token);
    return walked.events.length >= 2 ? walked : undefined;
  }, 'events after the filtered read');
  t.true(resumed.events.every((e) => e.deal!.deal_id === later.deal_id));
});

test('the feed answers the cabinet as well; bad tokens and a merchant under the kill-switch are refused', async (t) => {
  const { merchantId, keys } = await newMerchant();
  await createPayin(keys);
  const viaHmac = await eventually(async () => {
    const walked = await walk(keys);
    return walked.events.length >= 2 ? walked : undefined;
  }, 'events');
  const cabinet = await withBearer(await cabinetToken(merchantId), 'GET', FEED);
  t.is(cabinet.status, 200, cabinet.text);
  t.deepEqual((cabinet.body as Page).data, viaHmac.events);
  t.is(cabinet.body.next_page_token, viaHmac.token, 'the same position, whichever credential reads');

  for (const bad of ['garbage', `${viaHmac.token}x`, 'eyJwIjoiMSJ9.AAAAAAAAAAAAAAAAAAAAAA']) {
    const res = await signed(keys, 'GET', `${FEED}?page_token=${encodeURIComponent(bad)}`);
    t.is(res.status, 400, bad);
    t.regex(res.text, /invalid page_token/);
  }
  t.is((await signed(keys, 'GET', `${FEED}?page_size=-1`)).status, 400);
  const clamped = await signed(keys, 'GET', `${FEED}?page_size=100000`);
  t.is(clamped.status, 200, 'page sizes above the maximum are clamped');

  t.is((await asOperator('POST', `/api/v1/p2p/merchants/${merchantId}/kill-switch`)).status, 200);
  const disabled = await signed(keys, 'GET', FEED);
  t.is(disabled.status, 403);
  t.regex(disabled.text, /merchant is disabled/);
  t.is((await withBearer(await cabinetToken(merchantId), 'GET', FEED)).status, 403, 'the cabinet reads only its profile while disabled');
});

test('real feed events match the schema of their variant in the WebhookEvent union', async (t) => {
  const { EVENT_VARIANTS, webhookEventSchema } = await import('../../api/schemas/events');
  const { EVENT_TYPES } = await import('../../domain/events/event-types');
  const { openAppeal, arbiter } = await import('../helpers/appeals');
  const { changeAmount } = await import('../helpers/deals');
  const { randomTronAddress, walletMerchant, withdraw, withdrawalAction } = await import('../helpers/wallet');

  const { keys } = await walletMerchant(10_000, { auto_withdrawal_limit_usdt_cents: 1_000 });
  // deal.created, deal.escrow_locked, deal.amount_changed, deal.appealed; appeal.opened, appeal.message, appeal.in_review
  const deal = await createPayin(keys, { amount: 150_000 });
  t.is((await changeAmount(deal.deal_id, { amount_fiat: 140_000 })).status, 200);
  const appeal = await openAppeal(keys, { deal_id: deal.deal_id, reason: 'the payer says they paid twice' });
  t.is(appeal.status, 200, appeal.text);
  const appealId = appeal.body.data.appeal_id as string;
  const note = await arbiter(appealId, 'messages', { body: 'receipt attached' });
  t.true(note.status === 200 || note.status === 201, note.text);
  t.is((await arbiter(appealId, 'review')).status, 200);
  // deal.cancelled and deal.completed on two other deals
  const cancelled = await createPayin(keys);
  t.is((await signed(keys, 'POST', `/api/v1/p2p/merchant/deals/${cancelled.deal_id}/cancel`, {})).status, 200);
  const completed = await createPayin(keys);
  t.is((await asOperator('POST', `/api/v1/p2p/admin/deals/${completed.deal_id}/confirm`)).status, 200);
  // p2p.finance.withdrawal_failed: a manual withdrawal the operator cancels
  const w = await withdraw(keys, { address: randomTronAddress(), amount: 2_000 });
  t.is(w.body.status, 'PENDING_MANUAL', w.text);
  t.is((await withdrawalAction(w.body.withdrawal_id, 'cancel', { reason: 'not today' })).status, 200);

  const wanted = [
    'deal.created',
    'deal.escrow_locked',
    'deal.amount_changed',
    'deal.appealed',
    'appeal.opened',
    'appeal.message',
    'appeal.in_review',
    'deal.cancelled',
    'deal.completed',
    'p2p.finance.withdrawal_failed',
  ];
  const events = await eventually(
    async () => {
      const { events: all } = await walk(keys);
      return wanted.every((type) => all.some((e) => e.type === type)) && all;
    },
    'every event in the feed',
    60_000,
  );
  for (const event of events) {
    t.true((EVENT_TYPES as readonly string[]).includes(event.type), event.type);
    const variant = EVENT_VARIANTS.find((v) => (v.shape.type.options as readonly string[]).includes(event.type))!;
    const strict = variant.strict().safeParse(event);
    t.true(strict.success, `${event.type}: ${JSON.stringify(strict.error?.issues)} in ${JSON.stringify(event)}`);
    t.true(webhookEventSchema.safeParse(event).success, event.type);
  }
  const appealed = events.find((e) => e.type === 'appeal.message') as unknown as { deal?: unknown; message: { body: string } };
  t.is(appealed.message.body, 'receipt attached');
});
