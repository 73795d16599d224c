/**
 * The operators' queue of bank notifications at the API, as the console uses it: a message no
 * parser reads waits and cannot be attached (409, in words); a credit that came before its deal
 * waits with its trader, phone and candidate deals by name, attaches to the PayIn of its exact
 * amount, which completes, and the deal's timeline names the notification; a second attach is
 * 409; a credit whose deal is live confirms it by itself and the timeline says so too.
 */
import test from 'ava';
import { asOperator, newMerchant } from '../helpers/api';
import { testSql } from '../helpers/app';
import { pairedDevice, sendNotification, tbankCredit, type PairedDevice } from '../helpers/bank-device';
import { createPayin, isolatedMethod } from '../helpers/deals';
import { eventually } from '../helpers/poll';
import { newTrader } from '../helpers/trader-session';

const sql = testSql();
test.after.always(() => sql.end());

const ADMIN = '/api/v1/p2p/admin';

/** A message the phone forwards, once it has left RECEIVED (matched, or in the queue). */
async function forward(device: PairedDevice, n: { sender: string; text: string }) {
  const sent = await sendNotification(device, n);
  if (sent.status !== 202) throw new Error(`notification refused: ${sent.status} ${sent.text}`);
  const id = sent.body.notification_id as string;
  return eventually(async () => {
    const [r] = await sql<{ id: string; status: string; reason: string }[]>`select id, status, reason from bank_notifications where id = ${id}`;
    return r && r.status !== 'RECEIVED' ? r : undefined;
  }, 'the notification settles');
}

const dealStatus = async (dealId: string) => (await asOperator('GET', `${ADMIN}/deals/${dealId}`)).body.deal?.status as string | undefined;

test('an unread message is not attached; a credit before its deal attaches to it, which completes; the timeline names the notification', async (t) => {
  const method = await isolatedMethod();
  const trader = await newTrader({ name: `Queue trader ${Date.now()}` });
  const requisite = await asOperator('POST', `${ADMIN}/traders/${trader.traderId}/requisites`, {
    payment_method: method,
    requisite_type: 'BANK_CARD',
    card_number: '2200777788884242',
    holder_name: 'Queue Holder',
    bank_name: 'tbank',
    min_amount: 100,
    max_amount: 100_000_000,
  });
  t.is(requisite.status, 201, requisite.text);
  const merchantName = `Queue merchant ${Date.now()}`;
  const merchant = await newMerchant({ name: merchantName });
  const device = await pairedDevice(trader, [requisite.body.requisite.requisite_id], 'Queue Pixel');

  // A message no parser knows: kept for review, nothing to attach.
  const unread = await forward(device, { sender: 'Parcel SMS', text: 'Your parcel waits at the pickup point' });
  t.is(unread.status, 'UNPARSED');
  const refused = await asOperator('POST', `${ADMIN}/bank-notifications/${unread.id}/attach`, { deal_id: '00000000-0000-4000-8000-000000000000' });
  t.is(refused.status, 409, refused.text);
  t.regex(refused.body.detail, /nothing was read from this notification/);

  // The money came before the deal was made (or the deal was made on another requisite): the queue.
  const early = await forward(device, tbankCredit(150_000));
  t.like(early, { status: 'UNMATCHED', reason: 'no_live_deal' });
  const payin = await createPayin(merchant.keys, { payment_method_id: method, amount: 150_000 });

  const queue = await asOperator('GET', `${ADMIN}/bank-notifications?trader_id=${trader.traderId}`);
  t.is(queue.status, 200, queue.text);
  t.deepEqual(queue.body.data.map((n: { notification_id: string }) => n.notification_id).sort(), [unread.id, early.id].sort(), 'the queue: both wait');
  const queued = queue.body.data.find((n: { notification_id: string }) => n.notification_id === early.id);
  t.like(queued, { status: 'UNMATCHED', parser: 'tbank', device_name: 'Queue Pixel', amount: '150000', currency: 'RUB', payer_name: 'Иван И.' });
  t.true(queued.trader_name.startsWith('Queue trader'));
  t.like(
    queued.candidates.find((c: { deal_id: string }) => c.deal_id === payin.deal_id),
    { exact_amount: true, settlement_path: false, merchant_name: merchantName },
  );

  const attached = await asOperator('POST', `${ADMIN}/bank-notifications/${early.id}/attach`, { deal_id: payin.deal_id, note: 'paid before the deal' });
  t.is(attached.status, 200, attached.text);
  t.like(attached.body.notification, { status: 'ATTACHED', deal_id: payin.deal_id, resolution_note: 'paid before the deal' });
  await eventually(async () => (await dealStatus(payin.deal_id)) === 'COMPLETED' || undefined, 'the deal completes');
  const again = await asOperator('POST', `${ADMIN}/bank-notifications/${early.id}/attach`, { deal_id: payin.deal_id });
  t.is(again.status, 409, again.text);

  const timeline = await asOperator('GET', `${ADMIN}/deals/${payin.deal_id}`);
  t.like(timeline.body.bank_notification, {
    notification_id: early.id,
    status: 'ATTACHED',
    device_name: 'Queue Pixel',
    parser: 'tbank',
    amount: '150000',
    currency: 'RUB',
  });
  t.true(timeline.body.bank_notification.trader_name.startsWith('Queue trader'));

  // A credit of a live deal's amount confirms it by itself; the timeline says which.
  const live = await createPayin(merchant.keys, { payment_method_id: method, amount: 160_000 });
  t.is((await asOperator('GET', `${ADMIN}/deals/${live.deal_id}`)).body.bank_notification, null, 'none confirmed it yet');
  const matched = await forward(device, tbankCredit(160_000));
  t.is(matched.status, 'MATCHED');
  await eventually(async () => (await dealStatus(live.deal_id)) === 'COMPLETED' || undefined, 'the deal completes by itself');
  t.like((await asOperator('GET', `${ADMIN}/deals/${live.deal_id}`)).body.bank_notification, { notification_id: matched.id, status: 'MATCHED' });
});
