import test from 'ava';
import { newMerchant, signed } from '../helpers/api';
import { testSql } from '../helpers/app';
import { eventsOf, hashOf, isolatedTrader, walletOf } from '../helpers/deals';
import { eventually } from '../helpers/poll';
import { startIsolatedStack } from '../helpers/worker';

const sql = testSql();
test.after.always(() => sql.end());

test('a PayIn expires at payment_timeout_at (durable timer), releases the escrow, and stays EXPIRED', async (t) => {
  const stack = await startIsolatedStack({ PAYIN_TIMEOUT_SECONDS: 2 });
  t.teardown(() => stack.close());
  const { keys } = await newMerchant();
  const { traderId, method } = await isolatedTrader({ liquidity: 5000 });
  const res = await signed(keys, 'POST', `${stack.url}/api/v1/p2p/merchant/deals/payin`, {
    idempotency_key: `expiry-${Date.now()}`,
    amount: 150_000,
    currency: 'RUB',
    payment_method_id: method,
  });
  t.is(res.status, 200, res.text);
  const deal = res.body.deal;
  // Reconciliation reported a partial payment: the timeout still runs and received_amount stays recorded.
  const { asOperator } = await import('../helpers/api');
  await asOperator('POST', `${stack.url}/api/v1/p2p/admin/deals/${deal.deal_id}/reconciliation`, { received_amount: 50_000 });
  t.is((await walletOf(sql, 'trader', traderId)).frozen, 1622n);

  const expired = await eventually(
    async () => {
      const got = await signed(keys, 'GET', `${stack.url}/api/v1/p2p/merchant/deals/${deal.deal_id}`);
      return got.body.deal.status === 'EXPIRED' ? got.body.deal : undefined;
    },
    'expiry',
    120_000,
  );
  t.is(expired.received_amount, '50000');
  t.is(expired.amount_match_status, 'partial');
  const wallet = await walletOf(sql, 'trader', traderId);
  t.deepEqual([wallet.available, wallet.frozen], [5000n, 0n]);
  t.deepEqual(await eventsOf(sql, deal.deal_id), ['deal.created', 'deal.escrow_locked', 'deal.expired']);
  const notify = await fetch(`${stack.url}/api/v1/p2p/checkout/${hashOf(deal.payment_url)}/notify-payment`, { method: 'POST' });
  t.is(notify.status, 400);
  const cancel = await signed(keys, 'POST', `${stack.url}/api/v1/p2p/merchant/deals/${deal.deal_id}/cancel`);
  t.is(cancel.status, 400);
});
