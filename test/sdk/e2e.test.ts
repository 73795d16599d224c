/**
 * The merchant's side of an integration through the SDK alone, against the real stack:
 * create a PayIn, read it, walk every page of the listing, receive the deal's webhooks on a local
 * receiver and verify them with the SDK, reconcile from the events feed and resume it, typed
 * errors, and a key rotation with both secrets verifying during the grace window. Only the
 * operator's setup (a merchant and its first key pair) is outside the SDK — a merchant gets those
 * from its operator.
 */
import test from 'ava';
import { randomUUID } from 'node:crypto';
import {
  GatewayClient,
  IdempotencyMismatchError,
  InvalidRequestError,
  NotFoundError,
  verifyWebhook,
  type Deal,
  type DealEvent,
  type WebhookEvent,
} from '../../sdk/src/index';
import { API_URL, newMerchant } from '../helpers/api';
import { eventually } from '../helpers/poll';
import { startReceiver, type Received } from '../helpers/receiver';

/** The deal of a deal.* event (WebhookEvent is a union discriminated by type: other families carry no deal). */
const dealIdOf = (e: WebhookEvent) => (e.type.startsWith('deal.') ? (e as DealEvent).deal.deal_id : undefined);

async function setup() {
  const receiver = await startReceiver();
  const { keys } = await newMerchant({ webhook_url: receiver.url });
  return { receiver, keys, gateway: new GatewayClient({ baseUrl: API_URL, token: keys.token, secret: keys.secret }) };
}

const verified = (r: Received, secrets: string | string[]) => verifyWebhook(r.body, r.headers as Record<string, string>, secrets);

test('create, read, list every page, receive and verify the webhooks, reconcile from the feed — with the SDK only', async (t) => {
  const { receiver, keys, gateway } = await setup();
  t.teardown(() => receiver.close());

  const payin = await gateway.createPayin({
    idempotency_key: `order-${randomUUID()}`,
    amount: 150_000,
    currency: 'RUB',
    payment_method_id: 'card-rub',
    client_id: 'customer-42',
  });
  t.is(payin.status, 'ESCROW_LOCKED');
  t.deepEqual(await gateway.getDeal(payin.deal_id), payin);
  const again = await gateway.createPayin({ idempotency_key: `order-${randomUUID()}`, amount: 160_000, currency: 'RUB', payment_method_id: 'card-rub' });
  t.not(again.deal_id, payin.deal_id);
  const repeat = await gateway.createPayin({ idempotency_key: 'order-fixed', amount: 170_000, currency: 'RUB', payment_method_id: 'card-rub' });
  t.is(
    (await gateway.createPayin({ idempotency_key: 'order-fixed', amount: '170000', currency: 'RUB', payment_method_id: 'card-rub' })).deal_id,
    repeat.deal_id,
    'idempotent by key',
  );
  for (let i = 0; i < 2; i += 1) await gateway.createPayin({ amount: 100_000 + i, currency: 'RUB', payment_method_id: 'card-rub' }); // the SDK makes the keys
  const cancelled = await gateway.cancelDeal(again.deal_id, 'the customer changed their mind');
  t.is(cancelled.status, 'CANCELLED');

  // Every page of the listing, two at a time.
  const listed: string[] = [];
  for await (const deal of gateway.allDeals({ page_size: 2 })) listed.push(deal.deal_id);
  t.is(listed.length, 5);
  t.true([payin.deal_id, again.deal_id, repeat.deal_id].every((id) => listed.includes(id)));
  t.is(new Set(listed).size, 5, 'no deal twice across pages');

  // The webhooks: 5 deals × (created, escrow_locked) + the cancel, each verified by the SDK.
  await eventually(async () => receiver.received.length >= 11, 'the webhooks');
  const events = receiver.received.map((r) => {
    const standard = verifyWebhook(r.body, r.headers as Record<string, string>, keys.secret, { scheme: 'standard' });
    const spec = verifyWebhook(r.body, r.headers as Record<string, string>, keys.secret, { scheme: 'x-signature' });
    t.deepEqual(standard, spec);
    return standard;
  });
  t.is(new Set(events.map((e) => e.event_id)).size, events.length, 'each event once');
  t.true(events.some((e) => e.type === 'deal.cancelled' && e.deal.deal_id === again.deal_id));
  t.throws(() => verified(receiver.received[0]!, `whsec_${Buffer.alloc(32, 1).toString('base64')}`), { message: /no matching signature/ });
  t.throws(() => verifyWebhook(`${receiver.received[0]!.body} `, receiver.received[0]!.headers as Record<string, string>, keys.secret));

  // Reconcile: the feed holds every event the webhooks carried, with the same payloads.
  const feed = gateway.eventFeed({ pageSize: 4 });
  const fed: WebhookEvent[] = [];
  for await (const event of feed) fed.push(event);
  // The same events with the same payloads (the receiver's arrival order across deals is not the feed's).
  const byId = (list: WebhookEvent[]) => new Map([...list].sort((a, b) => a.event_id.localeCompare(b.event_id)).map((e) => [e.event_id, e]));
  t.deepEqual(byId(fed), byId(events));
  t.truthy(feed.pageToken);
  // Later: resume from the kept token and get only what came after.
  const later = await gateway.createPayin({ amount: 120_000, currency: 'RUB', payment_method_id: 'card-rub' });
  const resumed = await eventually(async () => {
    const next = gateway.eventFeed({ pageToken: feed.pageToken });
    const got: WebhookEvent[] = [];
    for await (const event of next) got.push(event);
    return got.length >= 2 ? got : undefined;
  }, 'the new events');
  t.deepEqual(
    resumed.map((e) => [e.type, dealIdOf(e)]),
    [
      ['deal.created', later.deal_id],
      ['deal.escrow_locked', later.deal_id],
    ],
  );
});

test('a repeat create with the same idempotency_key and another amount: IdempotencyMismatchError carrying the original deal; with the opt-out, the original deal', async (t) => {
  const { receiver, gateway } = await setup();
  t.teardown(() => receiver.close());
  const body = { idempotency_key: `order-${randomUUID()}`, currency: 'RUB', payment_method_id: 'card-rub' };
  const original = await gateway.createPayin({ ...body, amount: 170_000 });
  const same = await gateway.createPayinWithOutcome({ ...body, amount: 170_000n });
  t.is(same.deal.deal_id, original.deal_id);
  t.deepEqual(same.mismatched, []);
  t.not(same.replayed, false, 'not made by the repeat');

  const error = await t.throwsAsync(gateway.createPayin({ ...body, amount: 1 }), { instanceOf: IdempotencyMismatchError });
  t.deepEqual(error.fields, ['amount']);
  t.like(error.received as Deal, { deal_id: original.deal_id, amount: '170000' });
  t.like(error.sent, { idempotency_key: body.idempotency_key, amount: 1 });
  t.not(error.replayed, false);

  const kept = await gateway.createPayinWithOutcome({ ...body, amount: 1 }, { allowIdempotentMismatch: true });
  t.like(kept.deal, { deal_id: original.deal_id, amount: '170000' });
  t.deepEqual(kept.mismatched, ['amount']);
  t.deepEqual(
    (await gateway.listDeals()).data.map((d) => d.deal_id),
    [original.deal_id],
    'one deal: the repeats made nothing',
  );
});

test('the events feed against the gateway: a consumer that crashes after the 2nd event of a page resumes at or before the 3rd, and every event is seen', async (t) => {
  const { receiver, gateway } = await setup();
  t.teardown(() => receiver.close());
  for (let i = 0; i < 3; i += 1) await gateway.createPayin({ amount: 100_000 + i, currency: 'RUB', payment_method_id: 'card-rub' });
  const all = await eventually(async () => {
    const ids: string[] = [];
    for await (const event of gateway.eventFeed({ pageSize: 250 })) ids.push(event.event_id);
    return ids.length >= 6 ? ids : undefined;
  }, 'created and escrow_locked of each deal');

  const feed = gateway.eventFeed({ pageSize: 5 });
  const handled: string[] = [];
  await t.throwsAsync(
    async () => {
      for await (const event of feed) {
        handled.push(event.event_id);
        if (handled.length === 2) throw new Error('the handler crashed');
      }
    },
    { message: 'the handler crashed' },
  );
  const resumed: string[] = [];
  for await (const event of gateway.eventFeed({ pageToken: feed.pageToken, pageSize: 5 })) resumed.push(event.event_id);
  t.true(all.indexOf(resumed[0]!) <= 2, `resumed at event ${all.indexOf(resumed[0]!) + 1}`);
  const seen = new Set([...handled, ...resumed]);
  t.deepEqual(
    all.filter((id) => !seen.has(id)),
    [],
    'none skipped',
  );
});

test('typed errors: status, gRPC code, message, field errors and trace id from problem+json', async (t) => {
  const { receiver, gateway } = await setup();
  t.teardown(() => receiver.close());
  const missing = await t.throwsAsync(gateway.getDeal(randomUUID()), { instanceOf: NotFoundError });
  t.like(missing, { status: 404, grpcCode: 5, code: 'NOT_FOUND' });
  t.regex(missing.traceId ?? '', /^[0-9a-f]{32}$/);
  const invalid = await t.throwsAsync(gateway.createPayin({ amount: 150_000, currency: 'rub', payment_method_id: 'card-rub' }), {
    instanceOf: InvalidRequestError,
  });
  t.like(invalid, { status: 400, grpcCode: 3, code: 'INVALID_ARGUMENT' });
  t.true(
    invalid.fieldErrors.some((e) => e.field === 'currency'),
    JSON.stringify(invalid.fieldErrors),
  );
  const unknownMethod = await t.throwsAsync(gateway.createPayin({ amount: 150_000, currency: 'RUB', payment_method_id: 'no-such-method' }), {
    instanceOf: InvalidRequestError,
  });
  t.regex(unknownMethod.message, /payment_method/);
});

test('a key rotation through the SDK: it signs with the new pair at once, and webhooks verify with either secret during the grace window', async (t) => {
  const { receiver, keys, gateway } = await setup();
  t.teardown(() => receiver.close());
  const rotated = await gateway.rotateApiKeys();
  t.not(rotated.secret, keys.secret);
  t.regex(rotated.secret, /^whsec_[A-Za-z0-9+/]{43}=$/, 'the Standard Webhooks form');
  const deal = await gateway.createPayin({ amount: 150_000, currency: 'RUB', payment_method_id: 'card-rub' });
  await eventually(async () => receiver.received.length >= 2, 'webhooks after the rotation');
  for (const r of receiver.received) {
    t.is(dealIdOf(verified(r, rotated.secret)), deal.deal_id);
    t.is(dealIdOf(verified(r, keys.secret)), deal.deal_id, 'the old secret still verifies during the grace window');
    t.is(dealIdOf(verified(r, [keys.secret, rotated.secret])), deal.deal_id);
  }
  // The old pair still works for requests during the grace window; the client uses the new one.
  const old = new GatewayClient({ baseUrl: API_URL, token: keys.token, secret: keys.secret });
  t.is((await old.getDeal(deal.deal_id)).deal_id, deal.deal_id);
  t.true((await gateway.getBalance()).wallets.length > 0);
});
