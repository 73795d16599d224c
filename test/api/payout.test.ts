import test from 'ava';
import { randomUUID } from 'node:crypto';
import { auditLedger } from '../../db/queries/ledger';
import { asOperator, problemDetail, signed } from '../helpers/api';
import { testSql } from '../helpers/app';
import { dealRow, eventsOf, fundedMerchant, isolatedMethod, isolatedTrader, PAYOUT, walletOf } from '../helpers/deals';
import { eventually } from '../helpers/poll';
import { startIsolatedStack } from '../helpers/worker';

const sql = testSql();
test.after.always(async () => {
  const report = await auditLedger(sql);
  await sql.end();
  if (report.walletMismatches.length || report.unbalancedTransactions.length) throw new Error(`ledger audit failed: ${JSON.stringify(report)}`);
});

const payoutAction = (dealId: string, action: 'start' | 'complete' | 'reject' | 'assign', body?: unknown) =>
  asOperator('POST', `/api/v1/p2p/admin/deals/${dealId}/payout/${action}`, body);

test('create: MATCHED with the hold at the SELL rate plus fee, echoes, events; GET shows the fields of MerchantDealInfo', async (t) => {
  const m = await fundedMerchant(10_000, { payout_fee_bps: 100 });
  const res = await signed(m.keys, 'POST', PAYOUT, m.payoutBody({ requisite_details: { iban: 'DE89370400440532013000', bank_name: 'Sber' } }));
  t.is(res.status, 200, res.text);
  const deal = res.body.deal;
  t.is(deal.status, 'MATCHED');
  t.is(deal.deal_type, 'PAYOUT');
  t.is(deal.payment_url, '');
  t.is(deal.target_requisite, '4111111111111111');
  t.deepEqual(deal.requisite_details, { iban: 'DE89370400440532013000', bank_name: 'Sber' });
  const row = await dealRow(sql, deal.deal_id);
  t.is(row.exchange_rate_micro, 95_000_000n); // SELL
  t.is(row.amount_usdt, 1000n); // 950.00 RUB at 95 = 10 USDT
  t.is(row.fee_usdt, 10n);
  const wallet = await walletOf(sql, 'merchant', m.merchantId);
  t.deepEqual([wallet.available, wallet.frozen], [10_000n - 1010n, 1010n]);
  t.deepEqual(await eventsOf(sql, deal.deal_id), ['deal.created']);
  const got = await signed(m.keys, 'GET', `/api/v1/p2p/merchant/deals/${deal.deal_id}`);
  t.deepEqual(Object.keys(got.body.deal).sort(), [
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
  ]);
  const balance = await signed(m.keys, 'GET', '/api/v1/p2p/merchant/balance');
  t.deepEqual(balance.body, {
    wallets: [{ wallet_id: m.walletId, currency: 'USDT', available: '8990', frozen: '1010', total: '10000', pending_credits: '0' }],
  });
});

test('create validations and idempotency', async (t) => {
  const m = await fundedMerchant(2_000);
  const expect400 = async (body: Record<string, unknown>, pattern: RegExp, title = 'INVALID_ARGUMENT') => {
    const res = await signed(m.keys, 'POST', PAYOUT, body);
    t.is(res.status, 400, `${JSON.stringify(body)} → ${res.text}`);
    t.is(res.body.title, title);
    t.regex(problemDetail(res.body).message, pattern);
  };
  await expect400(m.payoutBody({ idempotency_key: undefined }), /^idempotency_key is required$/);
  await expect400(
    m.payoutBody({ requisite_details: { iban: 'x', swift: 'y' } }),
    /swift.*allowed: iban, account_number, document_number, bank_name, phone_number/,
  );
  await expect400(m.payoutBody({ payment_method: 'BANK_CARD' }), /allowed: .*card-rub/);
  await expect400(m.payoutBody({ payment_method: undefined }), /payment_method is required/);
  await expect400(m.payoutBody({ currency: 'KZT' }), /takes RUB/);
  const other = await fundedMerchant(100);
  await expect400(m.payoutBody({ wallet_id: other.walletId }), /wallet_id/);
  await expect400(m.payoutBody({ amount: 9_500_000 }), /insufficient balance/, 'FAILED_PRECONDITION');

  const key = randomUUID();
  const first = await signed(m.keys, 'POST', PAYOUT, m.payoutBody({ idempotency_key: key }));
  const repeat = await signed(m.keys, 'POST', PAYOUT, m.payoutBody({ idempotency_key: key, amount: 1 }));
  t.is(repeat.status, 200);
  t.is(repeat.body.deal.deal_id, first.body.deal.deal_id);
  t.is(repeat.body.deal.amount, '95000');
  const stolen = await signed(other.keys, 'POST', PAYOUT, other.payoutBody({ idempotency_key: key }));
  t.is(stolen.status, 409);
});

test('concurrent payouts never overdraw the wallet', async (t) => {
  const m = await fundedMerchant(5_000); // holds of 1000 each → at most 5
  const results = await Promise.all(Array.from({ length: 12 }, () => signed(m.keys, 'POST', PAYOUT, m.payoutBody())));
  t.is(results.filter((r) => r.status === 200).length, 5, results.map((r) => r.status).join(','));
  const wallet = await walletOf(sql, 'merchant', m.merchantId);
  t.deepEqual([wallet.available, wallet.frozen], [0n, 5000n]);
});

test('MATCHED → PROCESSING → COMPLETED debits the hold and pays the trader; reject returns it', async (t) => {
  const m = await fundedMerchant(10_000, { payout_fee_bps: 100 });
  const { traderId, method } = await isolatedTrader({ liquidity: 0 });
  const res = await signed(m.keys, 'POST', PAYOUT, m.payoutBody({ payment_method: method }));
  const dealId = res.body.deal.deal_id;
  t.is((await payoutAction(dealId, 'complete')).status, 400, 'complete before start');
  const started = await payoutAction(dealId, 'start');
  t.is(started.body.deal.status, 'PROCESSING');
  const completed = await payoutAction(dealId, 'complete');
  t.is(completed.status, 200);
  t.is(completed.body.deal.status, 'COMPLETED');
  const merchant = await walletOf(sql, 'merchant', m.merchantId);
  t.deepEqual([merchant.available, merchant.frozen], [8990n, 0n]);
  t.is((await walletOf(sql, 'trader', traderId)).available, 1000n);
  t.deepEqual(await eventsOf(sql, dealId), ['deal.completed', 'deal.created'].sort().reverse());

  const second = await signed(m.keys, 'POST', PAYOUT, m.payoutBody({ payment_method: method }));
  await payoutAction(second.body.deal.deal_id, 'start');
  t.is((await payoutAction(second.body.deal.deal_id, 'reject', {})).status, 400);
  const rejected = await payoutAction(second.body.deal.deal_id, 'reject', { reason: 'wrong card number' });
  t.is(rejected.body.deal.status, 'FAILED');
  const after = await walletOf(sql, 'merchant', m.merchantId);
  t.deepEqual([after.available, after.frozen], [8990n, 0n]);
  t.true((await eventsOf(sql, second.body.deal.deal_id)).includes('deal.failed'));
  t.is((await dealRow(sql, second.body.deal.deal_id)).failure_reason, 'wrong card number');
  // A PayOut is not cancellable by the merchant and not a PayIn for operator PayIn actions.
  t.is((await signed(m.keys, 'POST', `/api/v1/p2p/merchant/deals/${dealId}/cancel`)).status, 404);
  t.is((await asOperator('POST', `/api/v1/p2p/admin/deals/${dealId}/confirm`)).status, 404);
});

test('UNASSIGNED re-matches when a trader appears; manual assignment works too', async (t) => {
  const m = await fundedMerchant(10_000);
  const method = await isolatedMethod();
  const res = await signed(m.keys, 'POST', PAYOUT, m.payoutBody({ payment_method: method }));
  t.is(res.body.deal.status, 'UNASSIGNED');
  await isolatedTrader({ liquidity: 0, method });
  await eventually(async () => (await dealRow(sql, res.body.deal.deal_id)).status === 'MATCHED', 're-match');

  const method2 = await isolatedMethod();
  const second = await signed(m.keys, 'POST', PAYOUT, m.payoutBody({ payment_method: method2 }));
  t.is(second.body.deal.status, 'UNASSIGNED');
  const other = await isolatedTrader({ liquidity: 0 });
  t.is((await payoutAction(second.body.deal.deal_id, 'assign', { requisite_id: other.requisiteId })).status, 400, 'requisite of another method');
  const own = await isolatedTrader({ liquidity: 0, method: method2 });
  const assigned = await payoutAction(second.body.deal.deal_id, 'assign', { requisite_id: own.requisiteId });
  t.is(assigned.body.deal.status, 'MATCHED');
  t.is((await dealRow(sql, second.body.deal.deal_id)).trader_id, own.traderId);
});

test('UNASSIGNED past the assignment SLA expires and returns the hold', async (t) => {
  const stack = await startIsolatedStack({ PAYOUT_ASSIGN_SLA_SECONDS: 2, PAYOUT_RETRY_MATCH_SECONDS: 1 });
  t.teardown(() => stack.close());
  const m = await fundedMerchant(3_000);
  const method = await isolatedMethod();
  const res = await signed(m.keys, 'POST', `${stack.url}${PAYOUT}`, m.payoutBody({ payment_method: method }));
  t.is(res.body.deal.status, 'UNASSIGNED');
  await eventually(async () => (await dealRow(sql, res.body.deal.deal_id)).status === 'EXPIRED', 'SLA expiry', 120_000);
  const wallet = await walletOf(sql, 'merchant', m.merchantId);
  t.deepEqual([wallet.available, wallet.frozen], [3000n, 0n]);
  t.deepEqual(await eventsOf(sql, res.body.deal.deal_id), ['deal.created', 'deal.expired']);
});
