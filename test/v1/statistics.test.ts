import test from 'ava';
import { randomUUID } from 'node:crypto';
import { asOperator, newMerchant, signed } from '../helpers/api';
import { fundedMerchant, operatorDeal } from '../helpers/deals';
import { eventually } from '../helpers/poll';
import { incomingBody, v1Client } from './v1-client';

/*
 * Figures computed by hand. RUB BUY 92.5, SELL 95 (seed); amount_usdt = fiat / rate, fee = amount_usdt × bps / 10000 (half-even).
 * PayIn fee 250 bps:
 *   card-rub  A 925.00 completed  → 10.00 USDT, fee 0.25, net 9.75
 *             B 1850.00 completed → 20.00 USDT, fee 0.50, net 19.50
 *             C 462.50 cancelled, D 1000.00 open
 *             → 4 payments, 2 paid, 1 cancelled, 50.00 %, 4237.50 / 2775.00 RUB, 29.25 / 0.75 USDT
 *   sbp-rub   E 92.50 completed   → 1.00 USDT, fee 0.025 → 0.02 (half-even), net 0.98
 *             F 185.00, G 185.00 open
 *             → 3 payments, 1 paid, 33.33 %, 462.50 / 92.50 RUB, 0.98 / 0.02 USDT
 */
test('incoming statistics per method, over the window, match the hand-computed figures', async (t) => {
  const m = await newMerchant({ api_version: 'v1', payin_fee_bps: 250 });
  const c = v1Client(m);
  const create = async (amount: string, method: string) => (await c.createIncoming(incomingBody({ amount, method }))).body.value.id as string;
  const from = new Date(Date.now() - 1000).toISOString();
  const [a, b, cc] = [await create('925.00', 'card-rub'), await create('1850', 'card-rub'), await create('462.50', 'card-rub')];
  await create('1000.00', 'card-rub');
  const e = await create('92.50', 'sbp-rub');
  await create('185.00', 'sbp-rub');
  await create('185.00', 'sbp-rub');
  for (const id of [a, b, e]) t.is((await operatorDeal(id, 'confirm')).body.deal.status, 'COMPLETED');
  await signed(m.keys, 'POST', `/api/v1/p2p/merchant/deals/${cc}/cancel`);

  const stats = (await c.incomingStatistics({ startDate: from, endDate: new Date(Date.now() + 1000).toISOString() })).body.value.statistics;
  t.deepEqual(stats, [
    {
      method: 'card-rub',
      conversionPercent: '50.00',
      paymentsCount: 4,
      paymentsPaidCount: 2,
      paymentsTimeoutCount: 0,
      paymentsCancelledCount: 1,
      paymentsReturnedCount: 0,
      paymentsDisputCount: 0,
      paymentsCurrency: 643,
      paymentsAmount: '4237.50',
      paymentsPaidAmount: '2775.00',
      balanceCurrency: 'USDT',
      paymentsToBalanceAmount: '29.25',
      paymentsCommissionAmount: '0.75',
    },
    {
      method: 'sbp-rub',
      conversionPercent: '33.33',
      paymentsCount: 3,
      paymentsPaidCount: 1,
      paymentsTimeoutCount: 0,
      paymentsCancelledCount: 0,
      paymentsReturnedCount: 0,
      paymentsDisputCount: 0,
      paymentsCurrency: 643,
      paymentsAmount: '462.50',
      paymentsPaidAmount: '92.50',
      balanceCurrency: 'USDT',
      paymentsToBalanceAmount: '0.98',
      paymentsCommissionAmount: '0.02',
    },
  ]);
  t.deepEqual((await c.incomingStatistics()).body.value.statistics, stats, 'no window: everything');
  t.deepEqual((await c.incomingStatistics({ startDate: new Date(Date.now() + 60_000).toISOString() })).body.value.statistics, []);
  t.deepEqual((await c.incomingStatistics({ endDate: '2020-01-01T00:00:00Z' })).body.value.statistics, []);
  const reversed = await c.incomingStatistics({ startDate: '2026-02-01T00:00:00Z', endDate: '2026-01-01T00:00:00Z' });
  t.is(reversed.status, 400);
  t.regex(reversed.body.failures[0].message, /startDate must not be later than endDate/);
  // Another merchant sees none of it.
  t.deepEqual((await v1Client(await newMerchant({ api_version: 'v1' })).incomingStatistics()).body.value.statistics, []);
});

/*
 * PayOut fee 100 bps, SELL 95: P1 950.00 completed → 10.00 USDT + fee 0.10 = hold 10.10 debited;
 * P2 475.00 rejected (FAILED); P3 190.00 open → 3 payments, 1 sent, 1 cancelled, 33.33 %,
 * 1615.00 / 950.00 RUB, 10.10 / 0.10 USDT.
 */
test('outgoing statistics per method match the hand-computed figures', async (t) => {
  const m = await fundedMerchant(100_000, { api_version: 'v1', payout_fee_bps: 100 });
  const c = v1Client(m);
  const create = async (amount: string) =>
    (await c.createOutgoing({ payOutId: `po-${randomUUID()}`, amount, currency: 643, paymentMethod: 'card-rub', cardNumber: '4111111111111111' })).body.value
      .id as string;
  const [p1, p2] = [await create('950.00'), await create('475')];
  await create('190.00');
  const admin = '/api/v1/p2p/admin/deals';
  for (const id of [p1, p2]) await eventually(async () => (await asOperator('POST', `${admin}/${id}/payout/start`)).status === 200, `start ${id}`);
  t.is((await asOperator('POST', `${admin}/${p1}/payout/complete`)).status, 200);
  t.is((await asOperator('POST', `${admin}/${p2}/payout/reject`, { reason: 'wrong card' })).status, 200);
  const stats = (await c.outgoingStatistics({})).body.value.statistics;
  t.deepEqual(stats, [
    {
      method: 'card-rub',
      conversionPercent: '33.33',
      paymentsCount: 3,
      paymentsSentCount: 1,
      paymentsCancelledCount: 1,
      paymentsDisputCount: 0,
      paymentsCurrency: 643,
      paymentsAmount: '1615.00',
      paymentsSentAmount: '950.00',
      balanceCurrency: 'USDT',
      paymentsFromBalanceAmount: '10.10',
      paymentsCommissionAmount: '0.10',
    },
  ]);
  t.deepEqual((await c.outgoingStatistics({ startDate: new Date(Date.now() + 60_000).toISOString() })).body.value.statistics, []);
});
