/**
 * The sandbox's virtual bank device on the real stack (docs/bank-notifications.md, "Virtual bank
 * device"): a sandbox PayIn completes from the bank's credit the device sends — stored, parsed by
 * the bank's parser, matched exactly and confirmed with the device as the actor — with no person
 * acting; a …14 deal from the credit of its changed amount; each payment method's bank writes its
 * own credit; concurrent deals each get their own notification under a sequence of their own; and
 * two live deals of one amount (no exact match) are still completed, with nothing left in the
 * operators' queue.
 */
import test, { type ExecutionContext } from 'ava';
import { randomInt } from 'node:crypto';
import { DEFAULT_TENANT_ID } from '../../db/queries/merchants';
import { sandboxTraderId, virtualDeviceId } from '../../db/queries/sandbox';
import { newMerchant, signed, type KeyPair } from '../helpers/api';
import { testSql } from '../helpers/app';
import { createPayin } from '../helpers/deals';
import { eventually } from '../helpers/poll';
import { startReceiver } from '../helpers/receiver';

const sql = testSql();
test.after.always(() => sql.end());

const DEVICE_ID = virtualDeviceId(DEFAULT_TENANT_ID);

/** An amount of its own ending in the scenario's two digits, so no other test's live deal shares it on the sandbox requisite. */
const amountEnding = (ending: number) => randomInt(2_000, 90_000) * 100 + ending;

interface NotificationRow {
  id: string;
  device_id: string;
  status: string;
  reason: string;
  parser: string;
  amount: bigint | null;
  currency: string | null;
  sequence: bigint;
  deal_id: string | null;
}

const notificationsOf = (dealId: string) =>
  sql<NotificationRow[]>`select id, device_id, status, reason, parser, amount, currency, sequence, deal_id from bank_notifications where deal_id = ${dealId}`;

const confirmAudit = (dealId: string) =>
  sql<{ actor_kind: string; actor_id: string; request_key: string }[]>`
    select actor_kind, actor_id, request_key from audit_log where object_type = 'deal' and object_id = ${dealId} and action = 'deal.confirm'`;

const getDeal = async (keys: KeyPair, dealId: string) => (await signed(keys, 'GET', `/api/v1/p2p/merchant/deals/${dealId}`)).body.deal;

async function completedByDevice(t: ExecutionContext, keys: KeyPair, dealId: string, expectedAmount: bigint, parser: string, currency = 'RUB') {
  const deal = await eventually(
    async () => {
      const d = await getDeal(keys, dealId);
      return d.status === 'COMPLETED' && d;
    },
    `${dealId} COMPLETED`,
    300_000,
  );
  const [n, ...more] = await notificationsOf(dealId);
  t.is(more.length, 0, 'one notification for the deal');
  t.like(n, { device_id: DEVICE_ID, status: 'MATCHED', reason: '', parser, amount: expectedAmount, currency });
  const audit = await confirmAudit(dealId);
  t.deepEqual(
    audit.map((a) => [a.actor_kind, a.actor_id, a.request_key]),
    [['bank_device', DEVICE_ID, `bank-notification:${n!.id}`]],
    'the deal was confirmed by the device’s notification, no person or system actor',
  );
  t.is(deal.received_amount, expectedAmount.toString());
  return { deal, notification: n! };
}

test('the sandbox trader’s virtual device is paired at creation (ACTIVE, virtual, a key, no pairing code) and serves its requisites', async (t) => {
  const { keys } = await newMerchant({ sandbox: true });
  await createPayin(keys, { amount: amountEnding(33) });
  const [device] = await sql<{ trader_id: string; status: string; virtual: boolean; public_key: Uint8Array; pairing_code_hash: Uint8Array | null }[]>`
    select trader_id, status, virtual, public_key, pairing_code_hash from bank_devices where id = ${DEVICE_ID}`;
  t.like(device, { trader_id: sandboxTraderId(DEFAULT_TENANT_ID), status: 'ACTIVE', virtual: true, pairing_code_hash: null });
  t.is(device!.public_key.length, 32);
  const unserved = await sql`select id from requisites where trader_id = ${sandboxTraderId(DEFAULT_TENANT_ID)} and device_id is distinct from ${DEVICE_ID}`;
  t.is(unserved.length, 0, 'every sandbox requisite is served by the virtual device');
});

test('PayIn …00 completes from the virtual device’s notification with no person acting (MATCHED, actor bank_device, deal.completed)', async (t) => {
  const receiver = await startReceiver();
  t.teardown(() => receiver.close());
  const { keys } = await newMerchant({ sandbox: true, webhook_url: receiver.url });
  const amount = amountEnding(0);
  const created = await createPayin(keys, { amount });
  const { notification } = await completedByDevice(t, keys, created.deal_id, BigInt(amount), 'tbank');
  t.is(notification.deal_id, created.deal_id);
  const completed = await eventually(
    async () => receiver.received.map((r) => JSON.parse(r.body)).find((e) => e.type === 'deal.completed' && e.deal?.deal_id === created.deal_id),
    'deal.completed delivered',
    300_000,
  );
  t.is(completed.deal.status, 'COMPLETED');
  // Nothing by the sandbox trader's own hand: its only moves were the payer's "I paid" and the device's credit.
  const bySystem = await sql`select 1 from audit_log where object_id = ${created.deal_id} and actor_kind = 'system'`;
  t.is(bySystem.length, 0);
});

test('PayIn …14 completes from the credit of the changed amount (90 %), confirmed by the device', async (t) => {
  const { keys } = await newMerchant({ sandbox: true });
  const amount = amountEnding(14);
  const created = await createPayin(keys, { amount });
  const changed = (BigInt(amount) * 9n) / 10n;
  const { deal } = await completedByDevice(t, keys, created.deal_id, changed, 'tbank');
  t.is(deal.amount, changed.toString());
});

test('each payment method’s bank writes its own credit: SBP, Kapitalbank (UZS), Kaspi (KZT), Ziraat (TRY)', async (t) => {
  const { keys } = await newMerchant({ sandbox: true });
  const cases = [
    { payment_method_id: 'sbp-rub', currency: 'RUB', parser: 'sbp' },
    { payment_method_id: 'card-uzs', currency: 'UZS', parser: 'kapitalbank' },
    { payment_method_id: 'card-kzt', currency: 'KZT', parser: 'kaspi' },
    { payment_method_id: 'iban-try', currency: 'TRY', parser: 'ziraat' },
  ];
  await Promise.all(
    cases.map(async (c) => {
      const amount = amountEnding(0);
      const created = await createPayin(keys, { amount, currency: c.currency, payment_method_id: c.payment_method_id });
      await completedByDevice(t, keys, created.deal_id, BigInt(amount), c.parser, c.currency);
    }),
  );
});

test('10 sandbox deals at once: each its own notification, none lost, every sequence unique', async (t) => {
  const { keys } = await newMerchant({ sandbox: true });
  const amounts = new Set<number>();
  while (amounts.size < 10) amounts.add(amountEnding(0));
  const deals = await Promise.all([...amounts].map((amount) => createPayin(keys, { amount })));
  const matched = await Promise.all(deals.map((d) => completedByDevice(t, keys, d.deal_id, BigInt(d.amount), 'tbank')));
  const ids = new Set(matched.map((m) => m.notification.id));
  t.is(ids.size, 10);
  const sequences = new Set(matched.map((m) => m.notification.sequence));
  t.is(sequences.size, 10, 'a sequence number of its own for each');
  const [dup] = await sql`select sequence from bank_notifications where device_id = ${DEVICE_ID} group by sequence having count(*) > 1`;
  t.is(dup, undefined, 'no sequence used twice by the device');
  const [device] = await sql<{ last_sequence: bigint }[]>`select last_sequence from bank_devices where id = ${DEVICE_ID}`;
  t.true(
    [...sequences].every((s) => device!.last_sequence >= s),
    'the device’s last sequence is at least each one taken',
  );
});

test('two live deals of one amount on one requisite (no exact match): both complete, the credit closed, nothing waits for an operator', async (t) => {
  const { keys } = await newMerchant({ sandbox: true });
  const amount = amountEnding(0);
  const [a, b] = await Promise.all([createPayin(keys, { amount }), createPayin(keys, { amount })]);
  for (const d of [a!, b!]) {
    await eventually(async () => (await getDeal(keys, d.deal_id)).status === 'COMPLETED', `${d.deal_id} COMPLETED`, 300_000);
  }
  const waiting = await sql`
    select id from bank_notifications where device_id = ${DEVICE_ID} and amount = ${amount} and status in ('RECEIVED', 'UNMATCHED', 'UNPARSED')`;
  t.is(waiting.length, 0, 'no virtual credit left in the operators’ queue');
  const actors = [...(await confirmAudit(a!.deal_id)), ...(await confirmAudit(b!.deal_id))].map((r) => r.actor_kind);
  t.is(actors.length, 2);
  t.true(actors.every((k) => k === 'bank_device' || k === 'system'));
});
