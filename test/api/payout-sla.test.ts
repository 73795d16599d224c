/**
 * A MATCHED payout whose trader never starts expires at the transfer SLA with its hold
 * returned; an overdue PROCESSING payout keeps its hold and raises an operator alert.
 */
import test from 'ava';
import { asOperator, signed } from '../helpers/api';
import { testSql } from '../helpers/app';
import { eventsOf, fundedMerchant, PAYOUT, walletOf } from '../helpers/deals';
import { eventually } from '../helpers/poll';
import { startIsolatedStack } from '../helpers/worker';

const sql = testSql();
test.after.always(() => sql.end());

test('MATCHED past PAYOUT_TRANSFER_SLA_SECONDS expires with the hold returned; a reassignment restarts the window', async (t) => {
  const stack = await startIsolatedStack({ PAYOUT_TRANSFER_SLA_SECONDS: 3 });
  t.teardown(() => stack.close());
  const merchant = await fundedMerchant(1_000_000);
  const res = await signed(merchant.keys, 'POST', `${stack.url}${PAYOUT}`, merchant.payoutBody());
  t.is(res.status, 200, res.text);
  t.is(res.body.deal.status, 'MATCHED');
  const dealId = res.body.deal.deal_id as string;
  const held = await walletOf(sql, 'merchant', merchant.merchantId);
  t.true(held.frozen > 0n);

  const expired = await eventually(
    async () => {
      const got = await signed(merchant.keys, 'GET', `${stack.url}/api/v1/p2p/merchant/deals/${dealId}`);
      return got.body.deal.status === 'EXPIRED' && got.body.deal;
    },
    'transfer SLA expiry',
    120_000,
  );
  t.is(expired.status, 'EXPIRED');
  const after = await walletOf(sql, 'merchant', merchant.merchantId);
  t.deepEqual([after.available, after.frozen], [1_000_000n, 0n], 'hold returned');
  t.deepEqual(await eventsOf(sql, dealId), ['deal.created', 'deal.expired']);
  t.is((await asOperator('POST', `${stack.url}/api/v1/p2p/admin/deals/${dealId}/payout/start`)).status, 400, 'too late to start');

  // Started in time: PROCESSING is never expired by the SLA.
  const second = await signed(merchant.keys, 'POST', `${stack.url}${PAYOUT}`, merchant.payoutBody());
  const secondId = second.body.deal.deal_id as string;
  t.is((await asOperator('POST', `${stack.url}/api/v1/p2p/admin/deals/${secondId}/payout/start`)).status, 200);
  await new Promise((r) => setTimeout(r, 4_000)); // past the 3 s SLA: proving something does NOT happen needs a wait
  const still = await signed(merchant.keys, 'GET', `${stack.url}/api/v1/p2p/merchant/deals/${secondId}`);
  t.is(still.body.deal.status, 'PROCESSING');
  t.is((await asOperator('POST', `${stack.url}/api/v1/p2p/admin/deals/${secondId}/payout/complete`)).body.deal.status, 'COMPLETED');
});

test('a payout PROCESSING past PAYOUT_PROCESSING_ALERT_SECONDS keeps its hold and raises one operator alert, closed when it completes', async (t) => {
  const stack = await startIsolatedStack({ PAYOUT_PROCESSING_ALERT_SECONDS: 1 });
  t.teardown(() => stack.close());
  const merchant = await fundedMerchant(1_000_000);
  const res = await signed(merchant.keys, 'POST', `${stack.url}${PAYOUT}`, merchant.payoutBody());
  const dealId = res.body.deal.deal_id as string;
  t.is((await asOperator('POST', `${stack.url}/api/v1/p2p/admin/deals/${dealId}/payout/start`)).status, 200);

  const alert = await eventually(
    async () => {
      const list = await asOperator('GET', '/api/v1/p2p/admin/alerts');
      return list.body.data.find((a: { deal_id: string }) => a.deal_id === dealId);
    },
    'the overdue alert',
    120_000,
  );
  t.is(alert.kind, 'payout_processing_overdue');
  t.is(alert.resolved_at, '');
  t.true((await walletOf(sql, 'merchant', merchant.merchantId)).frozen > 0n, 'the hold stays: the fiat may be on its way');
  const [count] = await sql`select count(*)::int as n from operator_alerts where deal_id = ${dealId}`;
  t.is(count!.n, 1);

  await asOperator('POST', `${stack.url}/api/v1/p2p/admin/deals/${dealId}/payout/complete`);
  const open = await asOperator('GET', '/api/v1/p2p/admin/alerts');
  t.false(
    open.body.data.some((a: { deal_id: string }) => a.deal_id === dealId),
    'closed by the completion',
  );
  const all = await asOperator('GET', '/api/v1/p2p/admin/alerts?include_resolved=true');
  t.not(all.body.data.find((a: { deal_id: string }) => a.deal_id === dealId)?.resolved_at, '');
});
