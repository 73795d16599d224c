/**
 * Hardening, money: client commission reconciliation, real reassignment of a MATCHED payout,
 * decimal amounts refused, one tx_hash namespace for merchant and trader credits.
 */
import { randomUUID } from 'node:crypto';
import test from 'ava';
import { asOperator, newMerchant, signed } from '../helpers/api';
import { testSql } from '../helpers/app';
import { checkout, createPayin, dealRow, fundedMerchant, hashOf, isolatedTrader, operatorDeal, PAYIN, PAYOUT, walletOf } from '../helpers/deals';
import { txHashOf } from '../helpers/wallet';

const sql = testSql();
test.after.always(() => sql.end());

async function merchantPaying(feeBps: number) {
  const merchant = await newMerchant({ payin_fee_bps: feeBps });
  const { traderId, method } = await isolatedTrader({ liquidity: 1_000_000 });
  return { ...merchant, traderId, method };
}

test('client commission: paying exactly what the page asks is a full match and completes; paying only amount is partial', async (t) => {
  const { keys, method, traderId } = await merchantPaying(250); // 2.5 %
  const deal = await createPayin(keys, { amount: 100_000, payment_method_id: method, is_client_commission: true });
  const view = await checkout(hashOf(deal.payment_url));
  t.is(view.body.amount_to_pay, '102500');

  const full = await operatorDeal(deal.deal_id, 'reconciliation', { received_amount: 102_500 });
  t.is(full.status, 200, full.text);
  t.is(full.body.deal.amount_match_status, 'full');
  const confirmed = await operatorDeal(deal.deal_id, 'confirm');
  t.is(confirmed.body.deal.status, 'COMPLETED', 'a full match autocompletes');

  const second = await createPayin(keys, { amount: 100_000, payment_method_id: method, is_client_commission: true });
  const partial = await operatorDeal(second.deal_id, 'reconciliation', { received_amount: 100_000 });
  t.is(partial.body.deal.amount_match_status, 'partial', 'the fee was not paid');
  const blocked = await operatorDeal(second.deal_id, 'confirm');
  t.is(blocked.body.deal.status, 'PAYMENT_VERIFIED', 'the escrow (fee included) does not go out for less fiat');
  const row = await dealRow(sql, second.deal_id);
  t.is((await walletOf(sql, 'trader', traderId)).frozen, row.escrow_usdt);

  // The amount-change path compares against the new amount to pay as well.
  const third = await createPayin(keys, { amount: 100_000, payment_method_id: method, is_client_commission: true });
  await operatorDeal(third.deal_id, 'reconciliation', { received_amount: 51_250 });
  const changed = await asOperator('POST', `/api/v1/p2p/deals/${third.deal_id}/amount`, {
    amount_fiat: 50_000,
    reason: 'payer sent half',
    idempotency_key: randomUUID(),
  });
  t.is(changed.status, 200, changed.text);
  t.is(changed.body.deal.amount_match_status, 'full');
});

test('reassigning a MATCHED payout moves it to the new trader, who is paid at completion', async (t) => {
  const merchant = await fundedMerchant(5_000_000);
  // Both traders on a payment method of this test's own: requisites added to a seeded method would
  // join the pool other files' payouts are matched from.
  const first = await isolatedTrader({ liquidity: 0 });
  const created = await signed(merchant.keys, 'POST', PAYOUT, merchant.payoutBody({ payment_method: first.method }));
  t.is(created.status, 200, created.text);
  const dealId = created.body.deal.deal_id as string;
  t.is(created.body.deal.status, 'MATCHED');
  const before = await dealRow(sql, dealId);
  t.is(before.trader_id, first.traderId);

  const other = await isolatedTrader({ liquidity: 0, method: first.method });
  t.not(other.traderId, before.trader_id);
  const assigned = await asOperator('POST', `/api/v1/p2p/admin/deals/${dealId}/payout/assign`, { requisite_id: other.requisiteId });
  t.is(assigned.status, 200, assigned.text);
  t.is(assigned.body.deal.status, 'MATCHED');
  t.is(assigned.body.deal.trader_id, other.traderId, 'the deal says which trader it belongs to now');
  t.is(assigned.body.deal.requisite_id, other.requisiteId);
  const after = await dealRow(sql, dealId);
  t.is(after.trader_id, other.traderId);
  t.is(after.requisite_id, other.requisiteId);

  t.is((await asOperator('POST', `/api/v1/p2p/admin/deals/${dealId}/payout/start`)).status, 200);
  const done = await asOperator('POST', `/api/v1/p2p/admin/deals/${dealId}/payout/complete`);
  t.is(done.body.deal.status, 'COMPLETED', done.text);
  t.is((await walletOf(sql, 'trader', other.traderId)).available, after.amount_usdt, 'the new trader is paid');
  t.is((await walletOf(sql, 'trader', first.traderId)).available, 0n, 'the first trader is not');
  const credited = await sql`
    select w.owner_id from ledger_transactions t join ledger_entries e on e.transaction_id = t.id join wallets w on w.id = e.wallet_id
    where t.idempotency_key = ${`deal:${dealId}:complete`} and w.owner_type = 'trader'`;
  t.deepEqual(
    credited.map((r) => r.owner_id),
    [other.traderId],
    'only the new trader is credited',
  );
});

test('an amount that is not an exact integer is refused with the field named, never rounded', async (t) => {
  const { keys, merchantId } = await newMerchant();
  for (const literal of ['150000.00000000001', '150000.0', '1.5e5', '150000.5', '1e400']) {
    const raw = `{"idempotency_key":"${randomUUID()}","amount":${literal},"currency":"RUB","payment_method_id":"card-rub"}`;
    const res = await signed(keys, 'POST', PAYIN, raw);
    t.is(res.status, 400, `${literal}: ${res.text}`);
    t.is(res.body.errors?.[0]?.field, 'amount', literal);
  }
  const [count] = await sql`select count(*)::int as n from deals where merchant_id = ${merchantId}`;
  t.is(count!.n, 0, 'nothing was created');
  const exact = await signed(keys, 'POST', PAYIN, `{"idempotency_key":"${randomUUID()}","amount":150000,"currency":"RUB","payment_method_id":"card-rub"}`);
  t.is(exact.status, 200, exact.text);
  t.is(exact.body.deal.amount, '150000');
});

test('one tx_hash namespace: a chain transaction credits one wallet once; mismatched repeats are 409', async (t) => {
  const { merchantId } = await newMerchant();
  const { traderId } = await isolatedTrader({ liquidity: 0 });
  const txHash = txHashOf();
  const deposit = await asOperator('POST', '/api/v1/p2p/admin/deposits', { merchant_id: merchantId, amount: 5_000, tx_hash: txHash });
  t.is(deposit.status, 201);
  const asTrader = await asOperator('POST', `/api/v1/p2p/admin/traders/${traderId}/deposits`, { amount: 5_000, tx_hash: txHash });
  t.is(asTrader.status, 409, 'the merchant deposit already used this tx_hash');
  t.is((await walletOf(sql, 'trader', traderId)).available, 0n);

  const topUp = txHashOf();
  t.is((await asOperator('POST', `/api/v1/p2p/admin/traders/${traderId}/deposits`, { amount: 7_000, tx_hash: topUp })).status, 201);
  t.is((await asOperator('POST', `/api/v1/p2p/admin/traders/${traderId}/deposits`, { amount: 7_000, tx_hash: topUp })).status, 200, 'same repeat');
  t.is((await asOperator('POST', `/api/v1/p2p/admin/traders/${traderId}/deposits`, { amount: 7_001, tx_hash: topUp })).status, 409, 'other amount');
  const other = await isolatedTrader({ liquidity: 0 });
  t.is((await asOperator('POST', `/api/v1/p2p/admin/traders/${other.traderId}/deposits`, { amount: 7_000, tx_hash: topUp })).status, 409, 'other trader');
  t.is((await asOperator('POST', '/api/v1/p2p/admin/deposits', { merchant_id: merchantId, amount: 7_000, tx_hash: topUp })).status, 409, 'merchant');
  t.is((await walletOf(sql, 'trader', traderId)).available, 7_000n, 'credited once');
  t.is((await walletOf(sql, 'merchant', merchantId)).available, 5_000n);
});

test('chain credits above the summable range are refused', async (t) => {
  const { merchantId } = await newMerchant();
  const raw = `{"merchant_id":"${merchantId}","amount":9223372036854775807,"tx_hash":"${txHashOf()}"}`;
  const res = await asOperator('POST', '/api/v1/p2p/admin/deposits', raw);
  t.is(res.status, 400, res.text);
  t.is(res.body.errors?.[0]?.field, 'amount');
  t.is((await walletOf(sql, 'merchant', merchantId)).available, 0n);
});
