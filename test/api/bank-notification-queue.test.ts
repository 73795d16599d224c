/**
 * The operators' queue of bank notifications at the API, as the console uses it: a message no
 * parser read cannot be attached (409, in words); a credit (a parsed row, crafted here while the
 * parsers are written elsewhere) shows its trader, device and candidate deals by name, attaches to
 * the live PayIn of its exact amount, which completes, and the deal's timeline then names the
 * notification that confirmed it; a second attach is 409.
 */
import test from 'ava';
import { asOperator, newMerchant } from '../helpers/api';
import { testSql } from '../helpers/app';
import { pairedDevice, sendNotification, tbankCredit } from '../helpers/bank-device';
import { createPayin, isolatedMethod } from '../helpers/deals';
import { eventually } from '../helpers/poll';
import { newTrader } from '../helpers/trader-session';

const sql = testSql();
test.after.always(() => sql.end());

const ADMIN = '/api/v1/p2p/admin';

test('an unread message is not attached; a credit attaches to its exact deal, which completes, and the timeline names the notification', async (t) => {
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
  const payin = await createPayin(merchant.keys, { payment_method_id: method, amount: 150_000 });
  const device = await pairedDevice(trader, [requisite.body.requisite.requisite_id], 'Queue Pixel');

  const sent = await sendNotification(device, tbankCredit(150_000));
  t.is(sent.status, 202, sent.text);
  const id = sent.body.notification_id as string;

  // Nothing was read from it on this branch (every message is UNPARSED until the parsers land); a parsed one would be matched by itself.
  const row = await eventually(async () => {
    const [r] = await sql<{ status: string }[]>`select status from bank_notifications where id = ${id}`;
    return r && r.status !== 'RECEIVED' ? r : undefined;
  }, 'the notification settles');
  if (row.status === 'UNPARSED') {
    const refused = await asOperator('POST', `${ADMIN}/bank-notifications/${id}/attach`, { deal_id: payin.deal_id });
    t.is(refused.status, 409, refused.text);
    t.regex(refused.body.detail, /nothing was read from this notification/);
    // What a parser reads from it: a T-Bank credit of the deal's amount that matched nothing (crafted here).
    await sql`update bank_notifications set status = 'UNMATCHED', reason = 'no_live_deal', parser = 'tbank', parser_version = 1,
      amount = ${150_000n}, currency = 'RUB' where id = ${id}`;
  } else {
    // The real parsers matched it by itself: the deal completed, nothing waits.
    t.is(row.status, 'MATCHED');
  }

  if (row.status === 'UNPARSED') {
    const queue = await asOperator('GET', `${ADMIN}/bank-notifications?trader_id=${trader.traderId}`);
    t.is(queue.status, 200, queue.text);
    const queued = queue.body.data.find((n: { notification_id: string }) => n.notification_id === id);
    t.like(queued, { status: 'UNMATCHED', reason: 'no_live_deal', device_name: 'Queue Pixel', amount: '150000', currency: 'RUB' });
    t.true(queued.trader_name.startsWith('Queue trader'));
    const candidate = queued.candidates.find((c: { deal_id: string }) => c.deal_id === payin.deal_id);
    t.like(candidate, { exact_amount: true, settlement_path: false, merchant_name: merchantName });

    const attached = await asOperator('POST', `${ADMIN}/bank-notifications/${id}/attach`, { deal_id: payin.deal_id, note: 'the payer wrote late' });
    t.is(attached.status, 200, attached.text);
    t.like(attached.body.notification, { status: 'ATTACHED', deal_id: payin.deal_id, resolution_note: 'the payer wrote late' });

    const again = await asOperator('POST', `${ADMIN}/bank-notifications/${id}/attach`, { deal_id: payin.deal_id });
    t.is(again.status, 409, again.text);
  }

  const timeline = await eventually(async () => {
    const r = await asOperator('GET', `${ADMIN}/deals/${payin.deal_id}`);
    return r.body.deal?.status === 'COMPLETED' ? r : undefined;
  }, 'the deal completes');
  t.like(timeline.body.bank_notification, { notification_id: id, device_name: 'Queue Pixel', parser: 'tbank', amount: '150000', currency: 'RUB' });
  t.true(timeline.body.bank_notification.trader_name.startsWith('Queue trader'));

  // A deal no notification confirmed has none on its timeline.
  const other = await createPayin(merchant.keys, { payment_method_id: method, amount: 160_000 });
  t.is((await asOperator('GET', `${ADMIN}/deals/${other.deal_id}`)).body.bank_notification, null);
});
