import test, { type ExecutionContext } from 'ava';
import { createHmac, randomUUID } from 'node:crypto';
import { asOperator, newMerchant } from '../helpers/api';
import { changeAmount, fundedMerchant, operatorDeal } from '../helpers/deals';
import { eventually } from '../helpers/poll';
import { startReceiver, type Received } from '../helpers/receiver';
import { incomingBody, v1Client } from './v1-client';

/** The test's own check of the V1 webhook signature: HMAC-SHA512(secret, "<start of UTC day>;<raw body>"). */
function verifyV1(t: ExecutionContext, r: Received, secret: string, merchantId: string) {
  const timestamp = Number(r.headers.timestamp);
  const startOfDay = (ms: number) => Math.floor(ms / 86_400_000) * 86_400;
  t.true([startOfDay(r.at), startOfDay(r.at - 60_000)].includes(timestamp), 'TIMESTAMP is the start of the current UTC day');
  t.is(timestamp % 86_400, 0);
  const expected = createHmac('sha512', secret).update(`${timestamp};${r.body}`).digest('hex');
  t.is(r.headers.signature, expected);
  t.is(r.headers.merchant, merchantId);
  t.falsy(r.headers['x-signature'], 'no V2 signature');
}

test('V1 merchants get the legacy envelope: V1 names, numeric codes, decimal amounts, start-of-day HMAC-SHA512; no amount_changed', async (t) => {
  const receiver = await startReceiver();
  t.teardown(() => receiver.close());
  const m = await newMerchant({ api_version: 'v1', webhook_url: receiver.url });
  const body = incomingBody({ amount: '1500.50' });
  const deal = (await v1Client(m).createIncoming(body)).body.value;
  await changeAmount(deal.id, { amount_fiat: 160_075 });
  await operatorDeal(deal.id, 'confirm');
  await eventually(async () => receiver.received.some((r) => JSON.parse(r.body).eventType === 'deal.completed'), 'completion event');
  await new Promise((r) => setTimeout(r, 300));
  const bodies = receiver.received.map((r) => JSON.parse(r.body));
  t.deepEqual(bodies.map((b) => b.eventType).sort(), ['deal.completed', 'deal.created', 'deal.escrow_locked', 'deal.payment_verified']);
  t.false(
    bodies.some((b) => b.eventType === 'deal.amount_changed'),
    'deal.amount_changed never reaches V1 merchants',
  );
  for (const r of receiver.received) verifyV1(t, r, m.keys.secret, m.merchantId);

  const byType = Object.fromEntries(bodies.map((b) => [b.eventType, b]));
  const completed = byType['deal.completed'];
  t.deepEqual(
    Object.keys(completed).sort(),
    [
      'amount',
      'clientId',
      'createdAt',
      'currency',
      'eventId',
      'eventType',
      'id',
      'lastModifiedAt',
      'method',
      'payInId',
      'paymentType',
      'paymentUrl',
      'receivedAmount',
      'status',
    ].sort(),
  );
  t.like(completed, {
    id: deal.id,
    payInId: body.payInId,
    paymentType: 'incoming',
    status: 11,
    amount: '1600.75',
    currency: 643,
    method: 'card-rub',
    clientId: 'payer-7',
  });
  t.like(byType['deal.created'], { status: 1, amount: '1500.50' });
  t.like(byType['deal.escrow_locked'], { status: 1 });
  t.like(byType['deal.payment_verified'], { status: 11 });
  t.is(typeof completed.eventId, 'string');
  t.is(receiver.received.find((r) => JSON.parse(r.body).eventType === 'deal.completed')!.headers['x-event-id'], completed.eventId);
});

test('V1 PayOut webhooks: created with 1, rejected (FAILED) with 30; a failing receiver is retried on the same schedule', async (t) => {
  let createdAttempts = 0;
  const receiver = await startReceiver((_, res, request) => {
    const first = JSON.parse(request.body).eventType === 'deal.created' && ++createdAttempts === 1;
    res.writeHead(first ? 503 : 200).end();
  });
  t.teardown(() => receiver.close());
  const m = await fundedMerchant(100_000, { api_version: 'v1', webhook_url: receiver.url });
  const created = (
    await v1Client(m).createOutgoing({
      payOutId: `po-${randomUUID()}`,
      amount: '475.00',
      currency: '643',
      paymentMethod: 'card-rub',
      cardNumber: '2200111122223333',
      fullName: 'Ivan',
    })
  ).body.value;
  await asOperator('POST', `/api/v1/p2p/admin/deals/${created.id}/payout/start`);
  await asOperator('POST', `/api/v1/p2p/admin/deals/${created.id}/payout/reject`, { reason: 'wrong requisites' });
  const failed = await eventually(async () => receiver.received.map((r) => JSON.parse(r.body)).find((b) => b.eventType === 'deal.failed'), 'deal.failed');
  t.like(failed, {
    id: created.id,
    paymentType: 'outgoing',
    status: 30,
    amount: '475.00',
    currency: 643,
    cardNumber: '2200111122223333',
    fullName: 'Ivan',
    paymentMethod: 'card-rub',
  });
  const createdEvents = await eventually(async () => {
    const events = receiver.received.map((r) => JSON.parse(r.body)).filter((b) => b.eventType === 'deal.created');
    return events.length >= 2 && events;
  }, 'the first attempt failed (503) and was retried');
  t.true(createdEvents.every((b) => b.status === 1 && b.eventId === createdEvents[0].eventId));
  for (const r of receiver.received) verifyV1(t, r, m.keys.secret, m.merchantId);
});
