/**
 * Paired bank devices and their notifications through the real API, Temporal and Postgres: the
 * pairing code works once (30 devices racing for one: one wins), every refusal of the signature
 * (missing, another key, a changed body, an old timestamp, a revoked device), replays by the
 * sequence, the exact match of a credit to one live PayIn (confirmed with the device as actor;
 * 30 different credits of one amount at once: one deal, one match, the rest to the queue), a credit
 * that matches nothing in the operators' queue with its candidates, and a silent device's
 * requisites left out of the matcher until it is heard again.
 */
import test from 'ava';
import { auditLedger } from '../../db/queries/ledger';
import { newDeviceKeyPair, encodeDeviceKey } from '../../domain/crypto/device-signature';
import { asOperator, signed, type Json } from '../helpers/api';
import { testSql } from '../helpers/app';
import {
  DEVICE,
  deviceRequest,
  pairedDevice,
  pairWithCode,
  sendHeartbeat,
  sendNotification,
  startPairing,
  tbankCredit,
  type PairedDevice,
} from '../helpers/bank-device';
import { createPayin, fundedMerchant, isolatedMethod, payinBody } from '../helpers/deals';
import { sweepSilentDevices } from '../../api/services/bank-devices';
import { eventually } from '../helpers/poll';
import { asTrader, newTrader, TRADER } from '../helpers/trader-session';
import { startIsolatedStack } from '../helpers/worker';

const sql = testSql();
test.after.always(async () => {
  const report = await auditLedger(sql);
  await sql.end();
  if (report.walletMismatches.length || report.unbalancedTransactions.length) throw new Error(`ledger audit failed: ${JSON.stringify(report)}`);
});

const ADMIN = '/api/v1/p2p/admin/bank-notifications';

/** A signed-in trader with one ACTIVE requisite on its own payment method (no other trader serves it). */
async function traderWithRequisite() {
  const method = await isolatedMethod();
  const trader = await newTrader();
  const requisite = await asOperator('POST', `/api/v1/p2p/admin/traders/${trader.traderId}/requisites`, {
    payment_method: method,
    requisite_type: 'BANK_CARD',
    card_number: '2200700012344242',
    holder_name: 'Device Holder',
    bank_name: 'tbank',
    min_amount: 100,
    max_amount: 100_000_000,
  });
  if (requisite.status !== 201) throw new Error(requisite.text);
  return { ...trader, method, requisiteId: requisite.body.requisite.requisite_id as string };
}

const notificationRow = async (id: string) => (await sql<Json[]>`select * from bank_notifications where id = ${id}`)[0];

const dealStatus = async (dealId: string) => (await sql<{ status: string }[]>`select status from deals where id = ${dealId}`)[0]?.status;

test('pairing: the code works once — 30 devices racing for one code, one pairs; the request must be signed by the key it registers', async (t) => {
  const trader = await newTrader({ online: false, liquidity: 0 });
  const { code, uri, deviceId } = await startPairing(trader, 'Racing phone');
  t.regex(uri, /^gateway-device:\/\/pair\?server=.+&code=gwp_/);

  // Signed by another key than the one in the body: refused, the code still unspent.
  const mine = newDeviceKeyPair();
  const other = newDeviceKeyPair();
  const forged = await deviceRequest({ secretKey: other.secretKey }, 'POST', `${DEVICE}/pairing`, {
    pairing_code: code,
    public_key: encodeDeviceKey(mine.publicKey),
  });
  t.is(forged.status, 401, forged.text);

  const results = await Promise.all(Array.from({ length: 30 }, () => pairWithCode(code)));
  const won = results.filter((r) => r.res.status === 201);
  t.is(won.length, 1, results.map((r) => r.res.status).join(','));
  t.true(results.every((r) => r.res.status === 201 || r.res.status === 401));
  t.is(won[0]!.res.body.device_id, deviceId);
  t.is(won[0]!.res.body.status, 'ACTIVE');

  // Spent: a later pairing with it is 401, as an unknown code is.
  const again = await pairWithCode(code);
  t.is(again.res.status, 401);
  t.regex(again.res.text, /pairing code unknown, used or expired/);
  const unknown = await pairWithCode('gwp_not-a-code');
  t.is(unknown.res.status, 401);

  // The trader sees it heard; another trader does not see it (404 on its moves).
  const list = await asTrader(trader.session, 'GET', `${TRADER}/devices`);
  t.like(list.body.data[0], { device_id: deviceId, name: 'Racing phone', status: 'ACTIVE', presence: 'heard' });
  const stranger = await newTrader({ online: false, liquidity: 0 });
  const foreign = await asTrader(stranger.session, 'POST', `${TRADER}/devices/${deviceId}/revoke`);
  t.is(foreign.status, 404);
});

test('signatures: missing headers, another key, a changed body, an old timestamp, an unknown or revoked device are 401; a revoked device’s requisites go back to hand confirmation', async (t) => {
  const trader = await traderWithRequisite();
  const device = await pairedDevice(trader, [trader.requisiteId]);
  const body = { sequence: 1 };

  const bare = await fetch(`${process.env.TEST_API_URL}${DEVICE}/heartbeat`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: '{"sequence":1}',
  });
  t.is(bare.status, 401);
  const otherKey = await deviceRequest({ deviceId: device.deviceId, secretKey: newDeviceKeyPair().secretKey }, 'POST', `${DEVICE}/heartbeat`, body);
  t.is(otherKey.status, 401);
  t.regex(otherKey.text, /invalid device signature/);
  const changed = await deviceRequest(device, 'POST', `${DEVICE}/heartbeat`, body, { tamper: () => '{"sequence":2}' });
  t.is(changed.status, 401);
  const old = await deviceRequest(device, 'POST', `${DEVICE}/heartbeat`, body, { timestamp: Math.floor(Date.now() / 1000) - 3600 });
  t.is(old.status, 401);
  t.regex(old.text, /outside the window/);
  const stranger = await deviceRequest({ ...device, deviceId: '00000000-0000-4000-8000-000000000000' }, 'POST', `${DEVICE}/heartbeat`, body);
  t.is(stranger.status, 401);
  // Nothing of those moved the device's sequence: the real heartbeat 1 is taken.
  const ok = await sendHeartbeat(device, 1);
  t.is(ok.status, 200, ok.text);
  t.is(ok.body.last_sequence, '1');
  t.deepEqual(
    ok.body.requisites.map((r: Json) => r.requisite_id),
    [trader.requisiteId],
  );

  const revoked = await asTrader(trader.session, 'POST', `${TRADER}/devices/${device.deviceId}/revoke`);
  t.is(revoked.status, 200, revoked.text);
  t.like(revoked.body.device, { status: 'REVOKED', presence: 'revoked', requisites: [] });
  const after = await sendHeartbeat(device);
  t.is(after.status, 401);
  t.regex(after.text, /revoked/);
  const [requisite] = await sql<{ device_id: string | null }[]>`select device_id from requisites where id = ${trader.requisiteId}`;
  t.is(requisite!.device_id, null);
  const audit = await sql<{ action: string }[]>`select action from audit_log where object_type = 'bank_device' and object_id = ${device.deviceId} order by id`;
  t.deepEqual(
    audit.map((a) => a.action),
    ['device.pairing_start', 'device.paired', 'device.requisites', 'device.revoke'],
  );
});

test('replays: a used sequence is 409, the same notification again is its stored twin, a heartbeat below the last is 409', async (t) => {
  const trader = await traderWithRequisite();
  const device = await pairedDevice(trader, [trader.requisiteId]);
  const first = await sendNotification(device, { sender: 'SomeShop', text: 'Ваш код 4411', sequence: 5 });
  t.is(first.status, 202, first.text);
  t.false(first.body.replayed);
  // The same notification (a resend after a lost answer): the same row, whatever number it carries.
  const resend = await sendNotification(device, {
    sender: 'SomeShop',
    text: 'Ваш код 4411',
    receivedAt: (await notificationRow(first.body.notification_id)).received_at.toISOString(),
    sequence: 5,
  });
  t.is(resend.status, 202, resend.text);
  t.true(resend.body.replayed);
  t.is(resend.body.notification_id, first.body.notification_id);
  // Another message under a used number: a replay of the number.
  const reused = await sendNotification(device, { sender: 'SomeShop', text: 'Ваш код 9999', sequence: 5 });
  t.is(reused.status, 409);
  t.regex(reused.text, /sequence 5 was used/);
  // Notifications may arrive out of order: an unused lower number is fine.
  const lower = await sendNotification(device, { sender: 'SomeShop', text: 'Ваш код 1234', sequence: 3 });
  t.is(lower.status, 202, lower.text);
  // A heartbeat must be above every message so far (5).
  t.is((await sendHeartbeat(device, 4)).status, 409);
  t.is((await sendHeartbeat(device, 6)).status, 200);
  t.is((await sendHeartbeat(device, 6)).status, 409);
  const [count] = await sql<{ n: number }[]>`select count(*)::int as n from bank_notifications where device_id = ${device.deviceId}`;
  t.is(count!.n, 2);
});

test('an exact credit confirms its one live PayIn with the device as actor; 30 credits of that amount at once: one match, the rest to the queue', async (t) => {
  const trader = await traderWithRequisite();
  const device = await pairedDevice(trader, [trader.requisiteId]);
  const m = await fundedMerchant(0);
  const deal = await createPayin(m.keys, { payment_method_id: trader.method, amount: 150_050 });
  t.is(deal.status, 'ESCROW_LOCKED');

  const sent = await Promise.all(
    Array.from({ length: 30 }, (_, i) =>
      sendNotification(device, { ...tbankCredit(150_050, `Payer ${String.fromCharCode(65 + (i % 26))}.`), sequence: i + 1 }),
    ),
  );
  t.true(
    sent.every((r) => r.status === 202),
    sent.map((r) => `${r.status} ${r.text}`).join('\n'),
  );
  await eventually(async () => (await dealStatus(deal.deal_id)) === 'COMPLETED', 'the deal completed');
  const rows = await eventually(async () => {
    const r = await sql<{ status: string; deal_id: string | null; reason: string }[]>`
      select status, deal_id, reason from bank_notifications where device_id = ${device.deviceId}`;
    return r.every((n) => n.status !== 'RECEIVED') && r.length === 30 ? r : undefined;
  }, 'every notification decided');
  t.is(rows.filter((r) => r.status === 'MATCHED').length, 1);
  t.is(rows.find((r) => r.status === 'MATCHED')!.deal_id, deal.deal_id);
  t.is(rows.filter((r) => r.status === 'UNMATCHED').length, 29);
  t.true(rows.filter((r) => r.status === 'UNMATCHED').every((r) => ['no_live_deal', 'already_matched'].includes(r.reason)));

  const [confirm] = await sql<{ actor_kind: string; actor_id: string }[]>`
    select actor_kind, actor_id from audit_log where object_type = 'deal' and object_id = ${deal.deal_id} and action = 'deal.confirm'`;
  t.deepEqual({ ...confirm }, { actor_kind: 'bank_device', actor_id: device.deviceId });
  const shown = await signed(m.keys, 'GET', `/api/v1/p2p/merchant/deals/${deal.deal_id}`);
  t.like(shown.body.deal, { status: 'COMPLETED', received_amount: '150050' });
  // The audit trail names the device and its trader.
  const trail = await asOperator('GET', `/api/v1/p2p/admin/audit?object_type=deal&object_id=${deal.deal_id}&action=deal.confirm`);
  t.is(trail.status, 200, trail.text);
  t.like(trail.body.data[0], { actor_kind: 'bank_device', actor_name: `bank device Test phone of ${await traderName(trader.traderId)}` });

  // The trader sees what its phone forwarded; the text is sealed at rest.
  const mine = await asTrader(trader.session, 'GET', `${TRADER}/bank-notifications?page_size=200`);
  t.is(mine.status, 200, mine.text);
  t.is(mine.body.data.length, 30);
  const [raw] = await sql<{ text_sealed: string }[]>`select text_sealed from bank_notifications where device_id = ${device.deviceId} limit 1`;
  t.false(raw!.text_sealed.includes('Пополнение'));
});

test('a credit that matches nothing waits in the queue with its candidate deals; attach confirms the chosen deal, dismiss closes one with a reason', async (t) => {
  const trader = await traderWithRequisite();
  const device = await pairedDevice(trader, [trader.requisiteId]);
  const m = await fundedMerchant(0);
  const deal = await createPayin(m.keys, { payment_method_id: trader.method, amount: 200_000 });

  // The payer sent 1 999,00 instead of 2 000,00: no exact deal.
  const short = await sendNotification(device, tbankCredit(199_900));
  t.is(short.status, 202, short.text);
  const queued = await eventually(async () => {
    const n = await notificationRow(short.body.notification_id);
    return n.status === 'UNMATCHED' ? n : undefined;
  }, 'the credit unmatched');
  t.is(queued.reason, 'no_live_deal');
  t.is(await dealStatus(deal.deal_id), 'ESCROW_LOCKED');

  const listed = await asOperator('GET', `${ADMIN}?trader_id=${trader.traderId}`);
  t.is(listed.status, 200, listed.text);
  const item = listed.body.data.find((n: Json) => n.notification_id === short.body.notification_id);
  t.like(item, { status: 'UNMATCHED', reason: 'no_live_deal', amount: '199900', currency: 'RUB', trader_name: await traderName(trader.traderId) });
  t.true(item.text.includes('1\u00a0999'));
  t.like(item.candidates[0], { deal_id: deal.deal_id, amount_to_pay: '200000', exact_amount: false, settlement_path: false });
  t.truthy(item.candidates[0].merchant_name);

  // Attach: the trader's confirmation with 1 999,00 — partial, the deal waits for a reconciliation.
  const attached = await asOperator('POST', `${ADMIN}/${short.body.notification_id}/attach`, { deal_id: deal.deal_id, note: 'payer rounded down' });
  t.is(attached.status, 200, attached.text);
  t.like(attached.body.notification, { status: 'ATTACHED', deal_id: deal.deal_id, resolution_note: 'payer rounded down' });
  const shown = await signed(m.keys, 'GET', `/api/v1/p2p/merchant/deals/${deal.deal_id}`);
  t.like(shown.body.deal, { status: 'PAYMENT_VERIFIED', received_amount: '199900', amount_match_status: 'partial' });
  const twice = await asOperator('POST', `${ADMIN}/${short.body.notification_id}/attach`, { deal_id: deal.deal_id });
  t.is(twice.status, 409);

  // Not a payment the gateway knows of: dismissed with a reason (required).
  const stray = await sendNotification(device, tbankCredit(777_700));
  await eventually(async () => (await notificationRow(stray.body.notification_id)).status === 'UNMATCHED', 'the stray credit queued');
  const noReason = await asOperator('POST', `${ADMIN}/${stray.body.notification_id}/dismiss`, {});
  t.is(noReason.status, 400);
  const dismissed = await asOperator('POST', `${ADMIN}/${stray.body.notification_id}/dismiss`, { note: 'the trader moved money between own accounts' });
  t.is(dismissed.status, 200, dismissed.text);
  t.like(dismissed.body.notification, { status: 'DISMISSED', resolution_note: 'the trader moved money between own accounts' });
  const actions = await sql<{ action: string }[]>`
    select action from audit_log where object_type = 'bank_notification' and object_id in (${short.body.notification_id}, ${stray.body.notification_id}) order by id`;
  t.deepEqual(
    actions.map((a) => a.action),
    ['bank_notification.attach', 'bank_notification.dismiss'],
  );
});

async function traderName(id: string) {
  const [row] = await sql<{ name: string }[]>`select name from traders where id = ${id}`;
  return row!.name;
}

test('a silent device takes its requisites out of the matcher and is marked silent (audited); its next message brings them back', async (t) => {
  const stack = await startIsolatedStack({ DEVICE_HEARTBEAT_TIMEOUT_SECONDS: 2 });
  t.teardown(() => stack.close());
  const trader = await traderWithRequisite();
  const device: PairedDevice = await pairedDevice(trader, [trader.requisiteId]);
  const m = await fundedMerchant(0);
  const amounts = [310_100, 310_200, 310_300].values();
  const create = () =>
    signed(m.keys, 'POST', `${stack.url}/api/v1/p2p/merchant/deals/payin`, payinBody({ payment_method_id: trader.method, amount: amounts.next().value }));

  // Heard: matched.
  t.is((await sendHeartbeat(device)).status, 200);
  const heard = await create();
  t.is(heard.status, 200, heard.text);

  // Silent for longer than the timeout: the only requisite of the method is out, the create finds no trader.
  await new Promise((r) => setTimeout(r, 2_500));
  const silent = await create();
  t.is(silent.status, 400, silent.text);
  t.regex(silent.text, /no trader is available/);
  // (other tests' devices of this file may fall silent by this 2 s rule too: this one is among them)
  t.true((await sweepSilentDevices(sql, 2)) >= 1);
  const [marked] = await sql<{ silent_since: Date | null }[]>`select silent_since from bank_devices where id = ${device.deviceId}`;
  t.truthy(marked!.silent_since);

  // Heard again: matched again, and the return is audited.
  t.is((await sendHeartbeat(device)).status, 200);
  const back = await create();
  t.is(back.status, 200, back.text);
  const actions = await sql<{ action: string }[]>`
    select action from audit_log where object_type = 'bank_device' and object_id = ${device.deviceId} and action in ('device.silent', 'device.resumed') order by id`;
  t.deepEqual(
    actions.map((r) => r.action),
    ['device.silent', 'device.resumed'],
  );
});

test('30 operators attaching one queued credit at once, to two deals: one attach wins, one deal is confirmed', async (t) => {
  const trader = await traderWithRequisite();
  const device = await pairedDevice(trader, [trader.requisiteId]);
  const m = await fundedMerchant(0);
  const a = await createPayin(m.keys, { payment_method_id: trader.method, amount: 410_000 });
  const b = await createPayin(m.keys, { payment_method_id: trader.method, amount: 420_000 });
  const credit = await sendNotification(device, tbankCredit(415_000));
  const id = credit.body.notification_id as string;
  await eventually(async () => (await notificationRow(id)).status === 'UNMATCHED', 'the credit queued');

  const tries = await Promise.all(
    Array.from({ length: 30 }, (_, i) => asOperator('POST', `${ADMIN}/${id}/attach`, { deal_id: i % 2 === 0 ? a.deal_id : b.deal_id })),
  );
  const won = tries.filter((r) => r.status === 200);
  t.is(won.length, 1, tries.map((r) => `${r.status} ${r.text}`).join('\n'));
  t.true(tries.every((r) => r.status === 200 || r.status === 409));
  const chosen = won[0]!.body.notification.deal_id as string;
  const other = chosen === a.deal_id ? b.deal_id : a.deal_id;
  t.is(await dealStatus(chosen), 'PAYMENT_VERIFIED');
  t.is(await dealStatus(other), 'ESCROW_LOCKED');
  const [confirms] = await sql<{ n: number }[]>`
    select count(*)::int as n from audit_log where action = 'deal.confirm' and object_id in (${a.deal_id}, ${b.deal_id})`;
  t.is(confirms!.n, 1);
});
