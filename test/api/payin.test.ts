import test from 'ava';
import { randomUUID } from 'node:crypto';
import { auditLedger } from '../../db/queries/ledger';
import { asOperator, newMerchant, problemDetail, signed } from '../helpers/api';
import { testSql } from '../helpers/app';
import { changeAmount, checkout, createPayin, dealRow, eventsOf, hashOf, isolatedTrader, operatorDeal, PAYIN, payinBody, walletOf } from '../helpers/deals';
import { eventually } from '../helpers/poll';

const sql = testSql();
test.after.always(async () => {
  const report = await auditLedger(sql);
  await sql.end();
  if (report.walletMismatches.length || report.unbalancedTransactions.length) throw new Error(`ledger audit failed: ${JSON.stringify(report)}`);
});

const DEAL_FIELDS = [
  'amount',
  'amount_match_status',
  'client_id',
  'created_at',
  'currency',
  'deal_id',
  'deal_type',
  'payment_url',
  'received_amount',
  'status',
  'target_requisite',
  'updated_at',
];

test('create answers ESCROW_LOCKED with exactly the fields of MerchantDealInfo, and the trader escrow is locked', async (t) => {
  const { merchantId, keys } = await newMerchant({ payin_fee_bps: 250 });
  const res = await signed(keys, 'POST', PAYIN, payinBody({ amount: 150_000, client_id: 'c-42' }));
  t.is(res.status, 200, res.text);
  const deal = res.body.deal;
  t.deepEqual(Object.keys(res.body), ['deal']);
  t.deepEqual(Object.keys(deal).sort(), DEAL_FIELDS);
  t.is(deal.status, 'ESCROW_LOCKED');
  t.is(deal.amount, '150000');
  t.is(deal.deal_type, 'PAYIN');
  t.is(deal.client_id, 'c-42');
  t.is(deal.received_amount, '0');
  t.is(deal.amount_match_status, '');
  t.is(deal.target_requisite, '');
  t.regex(deal.payment_url, /\/pay\/[0-9a-f]{64}$/);

  const row = await dealRow(sql, deal.deal_id);
  t.is(row.merchant_id, merchantId);
  t.is(row.exchange_rate_micro, 92_500_000n);
  t.is(row.amount_usdt, 1622n); // 1500.00 RUB at 92.5 → 16.2162 USDT, half-even
  t.is(row.fee_usdt, 41n); // 2.5 % of 1622 = 40.55 → 41
  const [hold] = await sql`select sum(amount)::bigint as frozen from ledger_entries e join ledger_transactions t on t.id = e.transaction_id
    where t.idempotency_key = ${`deal:${deal.deal_id}:escrow:v1`} and e.bucket = 'frozen'`;
  t.is(hold!.frozen, 1622n);
  t.deepEqual(await eventsOf(sql, deal.deal_id), ['deal.created', 'deal.escrow_locked']);
  const [created] = await sql`select payload from outbox_events where deal_id = ${deal.deal_id} and event_type = 'deal.created'`;
  t.is(created!.payload.deal.status, 'INITIALIZED');
  t.is(created!.payload.deal.amount_version, '1');

  const got = await signed(keys, 'GET', `/api/v1/p2p/merchant/deals/${deal.deal_id}`);
  t.is(got.status, 200);
  t.deepEqual(got.body, { deal });
});

test('create validations: key, method, currency, webhook precondition', async (t) => {
  const { keys } = await newMerchant();
  const noKey = await signed(keys, 'POST', PAYIN, { amount: 100, currency: 'RUB', payment_method_id: 'card-rub' });
  t.is(noKey.status, 400);
  t.is(problemDetail(noKey.body).message, 'idempotency_key is required');
  const emptyKey = await signed(keys, 'POST', PAYIN, payinBody({ idempotency_key: '' }));
  t.is(problemDetail(emptyKey.body).message, 'idempotency_key is required');

  const emptyMethod = await signed(keys, 'POST', PAYIN, payinBody({ payment_method_id: '' }));
  t.is(emptyMethod.status, 400);
  t.is(emptyMethod.body.title, 'INVALID_ARGUMENT');
  const unknown = await signed(keys, 'POST', PAYIN, payinBody({ payment_method_id: 'pigeon-post' }));
  t.is(unknown.status, 400);
  t.regex(problemDetail(unknown.body).message, /card-rub/);
  t.regex(problemDetail(unknown.body).message, /sbp-rub/);
  const mismatch = await signed(keys, 'POST', PAYIN, payinBody({ currency: 'KZT' }));
  t.is(mismatch.status, 400);
  t.is(mismatch.body.title, 'INVALID_ARGUMENT');
  const negative = await signed(keys, 'POST', PAYIN, payinBody({ amount: -5 }));
  t.is(negative.status, 400);

  const bare = await newMerchant({ webhook_url: undefined });
  const sqlNoHook = await sql`update merchants set webhook_url = '' where id = ${bare.merchantId}`;
  t.truthy(sqlNoHook);
  const precondition = await signed(bare.keys, 'POST', PAYIN, payinBody());
  t.is(precondition.status, 400);
  t.is(precondition.body.title, 'FAILED_PRECONDITION');
});

test('a method resolves by UUID and by slug to the same row', async (t) => {
  const { keys } = await newMerchant();
  const methods = await signed(keys, 'GET', '/api/v1/p2p/merchant/payment-methods');
  const sbp = methods.body.data.find((m: { slug: string }) => m.slug === 'sbp-rub');
  const bySlug = await createPayin(keys, { payment_method_id: 'sbp-rub' });
  const byId = await createPayin(keys, { payment_method_id: sbp.id });
  const [a, b] = await Promise.all([dealRow(sql, bySlug.deal_id), dealRow(sql, byId.deal_id)]);
  t.is(a.payment_method_id, sbp.id);
  t.is(b.payment_method_id, sbp.id);
});

test('idempotency: a repeat answers the current deal with 200 whatever the body; concurrent repeats make one deal', async (t) => {
  const { merchantId, keys } = await newMerchant();
  const key = randomUUID();
  const results = await Promise.all(Array.from({ length: 8 }, (_, i) => signed(keys, 'POST', PAYIN, payinBody({ idempotency_key: key, amount: 10_000 + i }))));
  t.true(
    results.every((r) => r.status === 200),
    results.map((r) => `${r.status}`).join(','),
  );
  const ids = new Set(results.map((r) => r.body.deal.deal_id));
  t.is(ids.size, 1);
  const [count] = await sql`select count(*)::int as n from deals where merchant_id = ${merchantId} and idempotency_key = ${key}`;
  t.is(count!.n, 1);
  const dealId = [...ids][0]!;
  t.deepEqual(await eventsOf(sql, dealId), ['deal.created', 'deal.escrow_locked']);

  await signed(keys, 'POST', `/api/v1/p2p/merchant/deals/${dealId}/cancel`);
  const later = await signed(keys, 'POST', PAYIN, payinBody({ idempotency_key: key, amount: 999, currency: 'KZT' }));
  t.is(later.status, 200);
  t.is(later.body.deal.deal_id, dealId);
  t.is(later.body.deal.status, 'CANCELLED');

  // Another merchant's key space is separate.
  const other = await newMerchant();
  const theirs = await signed(other.keys, 'POST', PAYIN, payinBody({ idempotency_key: key }));
  t.not(theirs.body.deal.deal_id, dealId);
});

test('full lifecycle: notify → confirm → COMPLETED → pending_credits → available, with events and search attributes', async (t) => {
  const { merchantId, keys } = await newMerchant({ payin_fee_bps: 250 });
  const { traderId, method } = await isolatedTrader({ liquidity: 50_000 });
  const deal = await createPayin(keys, { amount: 92_500, payment_method_id: method }); // exactly 10 USDT
  const hash = hashOf(deal.payment_url);
  const trader = (await dealRow(sql, deal.deal_id)).trader_id as string;
  t.is(trader, traderId);
  const traderBefore = await walletOf(sql, 'trader', trader);

  const notified = await checkout(hash, 'notify-payment');
  t.is(notified.status, 200, notified.text);
  t.is(notified.body.deal.status, 'PAYMENT_NOTIFIED');
  t.is(notified.body.status, 'PAYMENT_NOTIFIED');
  const again = await checkout(hash, 'notify-payment');
  t.is(again.status, 400);
  t.is(again.body.title, 'FAILED_PRECONDITION');

  const confirmed = await operatorDeal(deal.deal_id, 'confirm');
  t.is(confirmed.status, 200, confirmed.text);
  t.is(confirmed.body.deal.status, 'COMPLETED');
  const afterComplete = await walletOf(sql, 'merchant', merchantId);
  t.true(afterComplete.pending_credits === 975n || afterComplete.available === 975n); // 1000 − 25 fee
  const traderAfter = await walletOf(sql, 'trader', trader);
  t.is(traderBefore.frozen, 1000n);
  t.is(traderAfter.frozen, 0n);
  t.is(traderAfter.available, 49_000n);

  const settled = await eventually(async () => {
    const w = await walletOf(sql, 'merchant', merchantId);
    return w.available === 975n && w.pending_credits === 0n ? w : undefined;
  }, 'fee distribution');
  t.is(settled.available, 975n);
  t.deepEqual(await eventsOf(sql, deal.deal_id), ['deal.created', 'deal.escrow_locked', 'deal.payment_notified', 'deal.payment_verified', 'deal.completed']);
  const profile = await signed(keys, 'GET', '/api/v1/p2p/my-merchant');
  t.is(profile.body.merchant.balance_usdt, '975');

  // Terminal is immutable.
  t.is((await operatorDeal(deal.deal_id, 'complete')).status, 400);
  t.is((await checkout(hash, 'cancel')).status, 409);
  const view = await checkout(hash);
  t.is(view.body.status, 'COMPLETED');
  t.is(view.body.card_number, '');
  t.is(view.body.holder_name, '');
});

test('client commission: the merchant gets the full amount and the payer pays the fee on top', async (t) => {
  const { merchantId, keys } = await newMerchant({ payin_fee_bps: 250 });
  const deal = await createPayin(keys, { amount: 92_500, is_client_commission: true });
  const row = await dealRow(sql, deal.deal_id);
  t.is(row.escrow_usdt, 1025n);
  const view = await checkout(hashOf(deal.payment_url));
  t.is(view.body.amount_to_pay, '94812'); // 92500 + 2.5 % = 94812.5 minor units → 94812 (half-even)
  await operatorDeal(deal.deal_id, 'confirm');
  await eventually(async () => (await walletOf(sql, 'merchant', merchantId)).available === 1000n, 'credit of the full amount');
});

test('partial reconciliation blocks autocompletion until an operator completes', async (t) => {
  const { keys } = await newMerchant();
  const deal = await createPayin(keys, { amount: 100_000 });
  const reconciled = await operatorDeal(deal.deal_id, 'reconciliation', { received_amount: 90_000 });
  t.is(reconciled.body.deal.amount_match_status, 'partial');
  t.is(reconciled.body.deal.received_amount, '90000');
  const confirmed = await operatorDeal(deal.deal_id, 'confirm');
  t.is(confirmed.body.deal.status, 'PAYMENT_VERIFIED');
  const completed = await operatorDeal(deal.deal_id, 'complete');
  t.is(completed.status, 200);
  t.is(completed.body.deal.status, 'COMPLETED');
  t.is(completed.body.deal.amount_match_status, 'partial');

  const over = await createPayin(keys, { amount: 100_000 });
  const overpaid = await operatorDeal(over.deal_id, 'reconciliation', { received_amount: 120_000 });
  t.is(overpaid.body.deal.amount_match_status, 'overpaid');
  t.is((await operatorDeal(over.deal_id, 'confirm')).body.deal.status, 'PAYMENT_VERIFIED');
  // A full match reported later releases the blocked completion.
  const full = await operatorDeal(over.deal_id, 'reconciliation', { received_amount: 100_000 });
  t.is(full.body.deal.status, 'COMPLETED');
  t.is(full.body.deal.amount_match_status, 'full');
});

test('cancel rules: CANCELLED releases the hold, repeats are 200, illegal states 400, PayOut/foreign/unknown 404', async (t) => {
  const { keys } = await newMerchant();
  const { traderId: trader, method } = await isolatedTrader({ liquidity: 10_000 });
  const deal = await createPayin(keys, { payment_method_id: method });
  const before = await walletOf(sql, 'trader', trader);
  const cancel = (id: string, k = keys) => signed(k, 'POST', `/api/v1/p2p/merchant/deals/${id}/cancel`, { reason: 'customer left' });
  const first = await cancel(deal.deal_id);
  t.is(first.status, 200, first.text);
  t.is(first.body.deal.status, 'CANCELLED');
  const after = await walletOf(sql, 'trader', trader);
  t.deepEqual([before.available, before.frozen], [10_000n - 1622n, 1622n]);
  t.deepEqual([after.available, after.frozen], [10_000n, 0n]);
  const repeat = await cancel(deal.deal_id);
  t.is(repeat.status, 200);
  t.is(repeat.body.deal.status, 'CANCELLED');
  t.true((await eventsOf(sql, deal.deal_id)).includes('deal.cancelled'));
  t.is((await eventsOf(sql, deal.deal_id)).filter((e) => e === 'deal.cancelled').length, 1);
  t.is((await dealRow(sql, deal.deal_id)).cancel_reason, 'customer left');

  const verified = await createPayin(keys);
  await operatorDeal(verified.deal_id, 'reconciliation', { received_amount: 1 });
  await operatorDeal(verified.deal_id, 'confirm');
  const illegal = await cancel(verified.deal_id);
  t.is(illegal.status, 400);
  t.is(illegal.body.title, 'INVALID_ARGUMENT');
  const checkoutIllegal = await checkout(hashOf(verified.payment_url), 'cancel');
  t.is(checkoutIllegal.status, 400);

  t.is((await cancel(randomUUID())).status, 404);
  const stranger = await newMerchant();
  t.is((await cancel(deal.deal_id, stranger.keys)).status, 404);
  t.is((await signed(stranger.keys, 'GET', `/api/v1/p2p/merchant/deals/${deal.deal_id}`)).status, 404);
});

test('checkout: view by requisite type, payer cancel, unknown hash 404', async (t) => {
  const { keys } = await newMerchant({ name: 'Brand Shop' });
  const deal = await createPayin(keys, { description: 'Order #7' });
  const hash = hashOf(deal.payment_url);
  const view = await checkout(hash);
  t.is(view.status, 200);
  t.is(view.body.status, 'ESCROW_LOCKED');
  t.is(view.body.requisite_type, 'BANK_CARD');
  t.regex(view.body.card_number, /^\d{16}$/);
  t.is(view.body.phone_number, '');
  t.is(view.body.iban, '');
  t.truthy(view.body.holder_name);
  t.is(view.body.brand_name, 'Brand Shop');
  t.is(view.body.description, 'Order #7');
  t.false('deal' in view.body);

  const sbp = await createPayin(keys, { payment_method_id: 'sbp-rub' });
  const sbpView = await checkout(hashOf(sbp.payment_url));
  t.regex(sbpView.body.phone_number, /^\+7/);
  t.is(sbpView.body.card_number, '');

  const cancelled = await checkout(hash, 'cancel');
  t.is(cancelled.status, 200);
  t.is(cancelled.body.status, 'CANCELLED');
  t.is(cancelled.body.card_number, '');
  t.is((await checkout(hash, 'cancel')).status, 200, 'cancel again on CANCELLED');
  t.is((await checkout(hash, 'notify-payment')).status, 400);
  t.is((await checkout('0'.repeat(64))).status, 404);
  t.is((await checkout('not-a-hash')).status, 400);
  const page = await fetch(`${process.env.TEST_API_URL}/pay/${'0'.repeat(64)}`);
  t.is(page.status, 404);
});

test('operator amount change: version +1, escrow recreated, audit, event; replay, stale version and reused key', async (t) => {
  const { keys } = await newMerchant();
  const { traderId: trader, method } = await isolatedTrader({ liquidity: 100_000 });
  const deal = await createPayin(keys, { amount: 92_500, payment_method_id: method });
  const before = await walletOf(sql, 'trader', trader);
  const key = randomUUID();
  const changed = await changeAmount(deal.deal_id, { amount_fiat: 185_000, idempotency_key: key, expected_amount_version: 1, reason: 'payer sent double' });
  t.is(changed.status, 200, changed.text);
  t.is(changed.body.deal.amount, '185000');
  t.is(changed.body.amount_version, '2');
  t.is(changed.body.amount_usdt, '2000');
  const after = await walletOf(sql, 'trader', trader);
  t.is(before.frozen, 1000n);
  t.deepEqual([after.available, after.frozen], [98_000n, 2000n]);
  const [audit] = await sql`select * from deal_amount_changes where deal_id = ${deal.deal_id}`;
  t.is(audit!.reason, 'payer sent double');
  t.is(audit!.old_amount, 92_500n);
  t.is(audit!.version, 2n);
  const [event] = await sql`select payload from outbox_events where deal_id = ${deal.deal_id} and event_type = 'deal.amount_changed'`;
  t.like(event!.payload, { old_amount: '92500', amount: '185000', amount_version: '2' });

  const replay = await changeAmount(deal.deal_id, { amount_fiat: 185_000, idempotency_key: key });
  t.is(replay.status, 200);
  t.is(replay.body.amount_version, '2');
  const reused = await changeAmount(deal.deal_id, { amount_fiat: 1_000, idempotency_key: key });
  t.is(reused.status, 409);
  const stale = await changeAmount(deal.deal_id, { amount_fiat: 1_000, expected_amount_version: 1 });
  t.is(stale.status, 409);
  const zero = await changeAmount(deal.deal_id, { amount_fiat: 0 });
  t.is(zero.status, 400);

  await operatorDeal(deal.deal_id, 'reconciliation', { received_amount: 5 });
  await operatorDeal(deal.deal_id, 'confirm');
  const late = await changeAmount(deal.deal_id, { amount_fiat: 50_000 });
  t.is(late.status, 400);
  t.is(late.body.title, 'FAILED_PRECONDITION');
  const [versions] = await sql`select count(*)::int as n from ledger_transactions where ref_id = ${deal.deal_id} and kind = 'escrow_lock'`;
  t.is(versions!.n, 2);
});

test('operator actions on unknown or PayOut ids are 404; merchants cannot call them', async (t) => {
  const { keys } = await newMerchant();
  t.is((await operatorDeal(randomUUID(), 'confirm')).status, 404);
  const deal = await createPayin(keys);
  t.is((await signed(keys, 'POST', `/api/v1/p2p/admin/deals/${deal.deal_id}/confirm`)).status, 403);
  t.is((await asOperator('POST', `/api/v1/p2p/deals/${randomUUID()}/amount`, { amount_fiat: 5, reason: 'x', idempotency_key: randomUUID() })).status, 404);
});

test('the deal workflow is findable in Temporal by DealId and MerchantId', async (t) => {
  const { merchantId, keys } = await newMerchant();
  const deal = await createPayin(keys);
  const { createTemporalClient } = await import('../../temporal/client');
  const { loadConfig } = await import('../../config');
  const client = await createTemporalClient(loadConfig(process.env));
  t.teardown(() => client.connection.close());
  const found = await eventually(async () => {
    // The deal's webhook deliveries carry DealId and MerchantId too; the deal's own run is the payinWorkflow.
    for await (const wf of client.workflow.list({ query: `DealId = "${deal.deal_id}" AND MerchantId = "${merchantId}" AND WorkflowType = "payinWorkflow"` }))
      return wf;
    return undefined;
  }, 'visibility');
  t.is(found.workflowId, `payin:${deal.deal_id}`);
  t.is(found.type, 'payinWorkflow');
  await signed(keys, 'POST', `/api/v1/p2p/merchant/deals/${deal.deal_id}/cancel`);
  await eventually(async () => {
    for await (const wf of client.workflow.list({ query: `DealId = "${deal.deal_id}" AND DealStatus = "CANCELLED"` })) return wf;
    return undefined;
  }, 'DealStatus search attribute');
  t.pass();
});
