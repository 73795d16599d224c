/**
 * Concurrent money movements never deadlock (docs/decisions/0005-row-locks-for-no-key-update.md): every transaction that moves money locks
 * the wallets it will touch in one global order, with the lock it needs, before anything else
 * takes a weaker lock on them; what still fails with a deadlock or a serialization error is
 * retried before any answer.
 *
 * 1. Many deposits to one merchant at once, through the API: all credited, none 5xx.
 * 2. Postings that touch the same wallets in opposite roles at once, through the real activities
 *    (each its own transaction, no engine retry to hide an error): PayIn completions (trader →
 *    merchant, platform), PayOut completions (merchant → trader, platform), withdrawal
 *    completions (merchant → chain, platform), fee distributions (merchant, platform), merchant
 *    deposits and trader top-ups (chain → merchant, trader) — every one succeeds and the ledger
 *    adds up.
 */
import test from 'ava';
import { randomUUID } from 'node:crypto';
import { auditLedger } from '../../db/queries/ledger';
import { DEFAULT_TENANT_ID } from '../../db/queries/merchants';
import { asOperator } from '../helpers/api';
import { fundedMerchant, isolatedTrader, walletOf } from '../helpers/deals';
import { testSql } from '../helpers/app';
import { directActivities } from '../helpers/activities';
import { txHashOf } from '../helpers/tx-hash';
import { testActor } from '../helpers/workflow-env';

const sql = testSql();
test.after.always(() => sql.end());

const { payins, payouts, withdrawals } = directActivities(sql);

const deposit = (merchantId: string, amount: number, tag: string) =>
  asOperator('POST', '/api/v1/p2p/admin/deposits', { merchant_id: merchantId, amount, tx_hash: txHashOf(tag) });

test('16 concurrent deposits to one merchant: all credited, none refused', async (t) => {
  const merchant = await fundedMerchant(100);
  const answers = await Promise.all(Array.from({ length: 16 }, (_, i) => deposit(merchant.merchantId, 1_000 + i, `race-${merchant.merchantId}-${i}`)));
  t.deepEqual(
    answers.map((a) => a.status),
    Array(16).fill(201),
    answers.map((a) => a.text).find((text) => !text.includes('deposit_id')),
  );
  const expected = 100n + BigInt(Array.from({ length: 16 }, (_, i) => 1_000 + i).reduce((a, b) => a + b, 0));
  t.is((await walletOf(sql, 'merchant', merchant.merchantId)).available, expected);
});

test('postings in opposite roles on the same wallets at once (completions, payouts, withdrawals, fee distribution, deposits, top-ups) all succeed', async (t) => {
  const ROUNDS = 6;
  const merchant = await fundedMerchant(2_000_000);
  const trader = await isolatedTrader({ liquidity: 2_000_000 });
  const [method] = await sql<{ id: string }[]>`select id from payment_methods where slug = ${trader.method}`;
  const base = { tenantId: DEFAULT_TENANT_ID, merchantId: merchant.merchantId, currency: 'RUB', paymentMethodId: method!.id };

  // Each in the state just before its money move, made by the same activities the workflows run.
  const payinIds: string[] = [];
  const completedPayinIds: string[] = [];
  const payoutIds: string[] = [];
  const withdrawalIds: string[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    for (const list of [payinIds, completedPayinIds]) {
      const dealId = randomUUID();
      await payins.createPayinDeal({
        ...base,
        dealId,
        idempotencyKey: dealId,
        amount: '150000',
        clientId: 'payer',
        payerBank: '',
        description: '',
        callbackUrl: '',
        isClientCommission: false,
        arrivedAt: new Date().toISOString(),
      });
      await payins.markPaymentNotified(dealId);
      list.push(dealId);
    }
    const payoutId = randomUUID();
    const payout = await payouts.createPayoutDeal({
      ...base,
      dealId: payoutId,
      idempotencyKey: payoutId,
      amount: '95000',
      walletId: merchant.walletId,
      targetRequisite: '4111111111111111',
      targetName: 'Anna Recipient',
      targetBank: '',
      requisiteDetails: {},
    });
    t.is(payout.status, 'MATCHED', 'matched to the isolated trader');
    await payouts.startPayout(payoutId, testActor());
    payoutIds.push(payoutId);
    const withdrawalId = randomUUID();
    await withdrawals.createWithdrawal({
      withdrawalId,
      merchantId: merchant.merchantId,
      address: 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8',
      amount: '5000',
      fee: '100',
      dedupKey: withdrawalId,
      dedupGeneration: 0,
      idempotencyKey: withdrawalId,
    });
    withdrawalIds.push(withdrawalId);
  }
  // Completed ahead, so their fee distribution runs beside the rest.
  for (const id of completedPayinIds) await payins.confirmPayin(id, testActor());

  const moves: Promise<unknown>[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    moves.push(
      payins.confirmPayin(payinIds[i]!, testActor()),
      payouts.completePayout(payoutIds[i]!, testActor()),
      withdrawals.completeWithdrawal(withdrawalIds[i]!, `tx-${withdrawalIds[i]}`),
      payins.distributePayinFee(completedPayinIds[i]!),
      deposit(merchant.merchantId, 700, `opposite-${merchant.merchantId}-${i}`).then((r) =>
        r.status === 201 ? r : Promise.reject(new Error(`${r.status} ${r.text}`)),
      ),
      asOperator('POST', `/api/v1/p2p/admin/traders/${trader.traderId}/deposits`, { amount: 900, tx_hash: txHashOf(`opposite-${trader.traderId}-${i}`) }).then(
        (r) => (r.status === 201 ? r : Promise.reject(new Error(`${r.status} ${r.text}`))),
      ),
    );
  }
  const settled = await Promise.allSettled(moves);
  const failures = settled.flatMap((s) => (s.status === 'rejected' ? [String((s.reason as Error).message ?? s.reason)] : []));
  t.deepEqual(failures, [], 'every move succeeded at its first try');
  for (const id of payinIds) await payins.distributePayinFee(id); // nothing pending left behind
  const report = await auditLedger(sql);
  t.deepEqual(report, { walletMismatches: [], unbalancedTransactions: [] });
});
