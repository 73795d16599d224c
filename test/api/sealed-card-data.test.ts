/**
 * Card, phone and IBAN numbers at rest (db/queries/requisite-secrets.ts): a requisite's numbers and
 * a PayOut's recipient are sealed in Postgres and never in clear in a deal's Temporal history,
 * while the people who must see them (the payer's page, the operator's console, the merchant's
 * own PayOut) still read them in full.
 */
import test from 'ava';
import { randomInt, randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import proto from '@temporalio/proto';
import { loadConfig } from '../../config';
import { DEFAULT_TENANT_ID } from '../../db/queries/merchants';
import { displayCodec } from '../../temporal/payload-codec';
import { temporalConnectionOptions } from '../../temporal/connection';
import { payinWorkflowId } from '../../workflows/contracts/payin';
import { payoutWorkflowId } from '../../workflows/contracts/payout';
import { asOperator, newMerchant, signed } from '../helpers/api';
import { testSql } from '../helpers/app';
import { checkout, createPayin, fundedMerchant, hashOf, PAYOUT } from '../helpers/deals';
import { txHashOf } from '../helpers/tx-hash';
import { eventually } from '../helpers/poll';

const config = loadConfig(process.env);
const sql = testSql();
test.after.always(() => sql.end());
const History = proto.temporal.api.history.v1.History;

const digits = (n: number) => Array.from({ length: n }, () => randomInt(10)).join('');
/** Numbers of this test only: a card, a phone, an IBAN (and their digits, as a search of a row's text looks for them). */
const numbers = () => ({ card: `2200${digits(12)}`, phone: `+79${digits(9)}`, iban: `TR${digits(24)}`, recipient: `4276${digits(12)}` });
const bare = (value: string) => value.replace(/[^0-9]/g, '');

/** A trader on a payment method of its own that takes cards, phones and IBANs, with one requisite of each. */
async function traderWithNumbers(n: ReturnType<typeof numbers>) {
  const method = `iso-${randomUUID().slice(0, 13)}`;
  await sql`insert into payment_methods (id, tenant_id, slug, name, currency_code, requisite_types)
    values (${randomUUID()}, ${DEFAULT_TENANT_ID}, ${method}, ${`Sealed ${method}`}, 'RUB', ${['BANK_CARD', 'SBP', 'BANK_TRANSFER']})`;
  const trader = await asOperator('POST', '/api/v1/p2p/admin/traders', { name: `Sealed ${method}` });
  const traderId = trader.body.trader.trader_id as string;
  await asOperator('POST', `/api/v1/p2p/admin/traders/${traderId}/deposits`, { amount: 1_000_000, tx_hash: txHashOf(`fund-${traderId}`) });
  const add = (body: Record<string, unknown>) =>
    asOperator('POST', `/api/v1/p2p/admin/traders/${traderId}/requisites`, {
      payment_method: method,
      holder_name: 'Sealed Holder',
      bank_name: 'sealed-bank',
      min_amount: 100,
      max_amount: 100_000_000,
      ...body,
    });
  // The card's range alone fits the PayIn below, so the PayIn lands on it.
  const card = await add({ requisite_type: 'BANK_CARD', card_number: n.card, min_amount: 150_000, max_amount: 150_000 });
  const phone = await add({ requisite_type: 'SBP', phone_number: n.phone, max_amount: 1_000 });
  const iban = await add({ requisite_type: 'BANK_TRANSFER', iban: n.iban, max_amount: 1_000 });
  return { method, traderId, card, phone, iban };
}

test('requisites, deals and their events hold no card, phone or IBAN number in clear; who must see one reads it in full', async (t) => {
  const n = numbers();
  const { method, traderId, card, phone, iban } = await traderWithNumbers(n);
  // The operator's create answers the numbers as given (the response's shape is unchanged).
  t.is(card.status, 201, card.text);
  t.is(card.body.requisite.card_number, n.card);
  t.is(phone.body.requisite.phone_number, n.phone);
  t.is(iban.body.requisite.iban, n.iban);

  const { keys } = await newMerchant();
  const payin = await createPayin(keys, { payment_method_id: method });
  t.is(payin.status, 'ESCROW_LOCKED');
  const merchant = await fundedMerchant(100_000);
  const details = { iban: `DE${digits(20)}`, phone_number: `+7${digits(10)}`, account_number: digits(20) };
  const payout = await signed(
    merchant.keys,
    'POST',
    PAYOUT,
    merchant.payoutBody({ target_requisite: n.recipient, target_name: 'Sealed Recipient', requisite_details: details }),
  );
  t.is(payout.status, 200, payout.text);
  const payoutId = payout.body.deal.deal_id as string;

  // Who must see them reads them in full: the payer's page, the merchant's own PayOut, the operator's console.
  const page = await checkout(hashOf(payin.payment_url));
  t.is(page.body.card_number, n.card);
  t.is(payout.body.deal.target_requisite, n.recipient);
  t.deepEqual(payout.body.deal.requisite_details, details, 'the create echoes requisite_details unmasked');
  const again = await signed(merchant.keys, 'GET', `/api/v1/p2p/merchant/deals/${payoutId}`);
  t.is(again.body.deal.target_requisite, n.recipient);
  const listed = await signed(merchant.keys, 'GET', `/api/v1/p2p/merchant/deals?deal_type=PAYOUT`);
  t.is(listed.body.data.find((d: { deal_id: string }) => d.deal_id === payoutId)?.target_requisite, n.recipient);
  const csv = await signed(merchant.keys, 'GET', `/api/v1/p2p/merchant/deals/export?deal_type=PAYOUT`);
  t.true(csv.text.includes(n.recipient), 'the CSV export has the recipient as counterparty');
  const operatorList = await asOperator('GET', '/api/v1/p2p/admin/traders?page_size=200');
  const listedTrader = operatorList.body.data.find((x: { trader_id: string }) => x.trader_id === traderId);
  t.deepEqual(
    listedTrader.requisites.map((r: { card_number: string; phone_number: string; iban: string }) => r.card_number || r.phone_number || r.iban).sort(),
    [n.card, n.phone, n.iban].sort(),
  );

  // At rest: the whole text of every row, searched for each number and its digits.
  const secrets = [n.card, n.phone, n.iban, n.recipient, details.iban, details.phone_number, details.account_number];
  const needles = [...new Set([...secrets, ...secrets.map(bare)])];
  const requisiteRows = await sql<{ text: string }[]>`select r::text as text from requisites r where trader_id = ${traderId}`;
  const dealRows = await sql<{ text: string }[]>`select d::text as text from deals d where id in (${payin.deal_id}, ${payoutId})`;
  t.is(requisiteRows.length, 3);
  t.is(dealRows.length, 2);
  for (const { text } of [...requisiteRows, ...dealRows]) {
    for (const needle of needles) t.false(text.includes(needle), `${needle} is in clear in a row`);
  }

  // The deals' events in the outbox hold the recipient sealed too; the merchant's feed and the operator's timeline show it in full.
  const outboxRows = await sql<{ text: string }[]>`select e::text as text from outbox_events e where deal_id in (${payin.deal_id}, ${payoutId})`;
  t.true(outboxRows.length >= 2, 'both deals have events');
  for (const { text } of outboxRows) {
    for (const needle of needles) t.false(text.includes(needle), `${needle} is in clear in an outbox event`);
  }
  // The feed takes what the relay has passed on: on a loaded box the PayOut's events come a moment later.
  const fed = await eventually(async () => {
    const feed = await signed(merchant.keys, 'GET', '/api/v1/p2p/merchant/events?page_size=100');
    const found = feed.status === 200 ? feed.body.data.filter((e: { deal?: { deal_id: string } }) => e.deal?.deal_id === payoutId) : [];
    return found.length > 0 ? (found as { deal: { target_requisite: string } }[]) : undefined;
  }, 'the feed has the PayOut');
  for (const e of fed) t.is(e.deal.target_requisite, n.recipient);
  const timeline = await asOperator('GET', `/api/v1/p2p/admin/deals/${payoutId}`);
  t.is(timeline.status, 200, timeline.text);
  t.true(timeline.body.events.length > 0);
  for (const e of timeline.body.events) t.is(e.payload.deal.target_requisite, n.recipient);

  // What search and display need stays beside the sealed value: tails and masks, and the key id.
  const [stored] = await sql<{ card_sealed: string; card_tail: string; number_masked: string }[]>`
    select card_sealed, card_tail, number_masked from requisites where id = ${card.body.requisite.requisite_id}`;
  t.regex(stored!.card_sealed, /^k1:[A-Za-z0-9._-]+:/);
  t.is(stored!.card_sealed.split(':')[1], config.CARD_DATA_KEYS?.[0]?.id, 'sealed under the first CARD_DATA_KEYS key, named by its id');
  t.is(stored!.card_tail, n.card.slice(-4));
  t.is(stored!.number_masked, `•••• ${n.card.slice(-4)}`);
  const [target] = await sql<{ target_tail: string; target_masked: string; requisite_details_sealed: string }[]>`
    select target_tail, target_masked, requisite_details_sealed from deals where id = ${payoutId}`;
  t.is(target!.target_tail, n.recipient.slice(-4));
  t.is(target!.target_masked, `•••• ${n.recipient.slice(-4)}`);
  t.regex(target!.requisite_details_sealed, /^k1:/);

  // The operator's search by the last four digits still finds the requisite's trader and the recipient's deal.
  const byTail = await asOperator('GET', `/api/v1/p2p/admin/search?q=${n.recipient.slice(-4)}`);
  t.is(byTail.status, 200, byTail.text);
  t.true(JSON.stringify(byTail.body).includes(payoutId), 'the recipient tail finds the PayOut');
});

/** A client with no codec: what Temporal's own storage sees. */
async function rawClient() {
  const connection = await Connection.connect(temporalConnectionOptions(config));
  return new Client({ connection, namespace: config.TEMPORAL_NAMESPACE });
}

/** Every payload of a history, opened with the deployment's keys (search attributes are plain by design), as text. */
async function decodedPayloads(history: proto.temporal.api.history.v1.IHistory): Promise<string> {
  const payloads: Payload[] = [];
  const walk = (value: unknown) => {
    if (value === null || typeof value !== 'object') return;
    if (Array.isArray(value)) {
      for (const v of value) walk(v);
      return;
    }
    const record = value as Record<string, unknown>;
    if (record.metadata && typeof record.metadata === 'object' && 'data' in record) payloads.push(record as Payload);
    else for (const v of Object.values(record)) walk(v);
  };
  walk(history.events);
  const opened = await displayCodec(config).decode(payloads);
  return opened.map((p) => JSON.stringify(defaultPayloadConverter.fromPayload(p))).join('\n');
}

test("a deal's Temporal history holds no card number in clear: the requisite's never enters it, the recipient's is sealed by the codec", async (t) => {
  const n = numbers();
  const { method } = await traderWithNumbers(n);
  const { keys } = await newMerchant();
  const payin = await createPayin(keys, { payment_method_id: method });
  // The payer's page shows the card: the deal's workflow has run its create and the page read the row.
  t.is((await checkout(hashOf(payin.payment_url))).body.card_number, n.card);
  const merchant = await fundedMerchant(100_000);
  const payout = await signed(
    merchant.keys,
    'POST',
    PAYOUT,
    merchant.payoutBody({ target_requisite: n.recipient, target_name: 'Sealed Recipient', requisite_details: { iban: n.iban } }),
  );
  t.is(payout.status, 200, payout.text);

  const raw = await rawClient();
  t.teardown(() => raw.connection.close());
  const payinHistory = await raw.workflow.getHandle(payinWorkflowId(payin.deal_id)).fetchHistory();
  const payoutHistory = await raw.workflow.getHandle(payoutWorkflowId(payout.body.deal.deal_id)).fetchHistory();
  for (const [name, history] of [
    ['PayIn', payinHistory],
    ['PayOut', payoutHistory],
  ] as const) {
    t.true((history.events ?? []).length >= 4, `${name}: the create step is in the history`);
    const bytes = Buffer.from(History.encode(history).finish());
    const asText = bytes.toString('latin1');
    for (const secret of [n.card, n.recipient, n.iban, bare(n.card), bare(n.recipient)]) {
      t.false(asText.includes(secret), `${name}: ${secret} is in clear in the stored history`);
    }
  }
  // Opened with the key: the PayIn's history never held the requisite's card (its rows carry it sealed);
  // the PayOut's input carries the merchant's recipient, which only the codec's key reads.
  const payinText = await decodedPayloads(payinHistory);
  t.true(payinText.includes(payin.deal_id), 'the PayIn history decodes');
  t.false(payinText.includes(n.card), "the requisite's card is not in the PayIn's payloads even decoded");
  const payoutText = await decodedPayloads(payoutHistory);
  t.true(payoutText.includes(n.recipient), "the PayOut's input decodes with the key");
});
