import test from 'ava';
import { cabinetToken, problemDetail, signed, withBearer } from '../helpers/api';
import { fundedMerchant, PAYIN, payinBody, PAYOUT } from '../helpers/deals';

const MY = '/api/v1/p2p/my-merchant';

test('PATCH my-merchant: mutable fields, limits set/removed, ip_whitelist in a string, cabinet only', async (t) => {
  const m = await fundedMerchant(0);
  const jwt = await cabinetToken(m.merchantId);
  const patched = await withBearer(jwt, 'PATCH', MY, {
    name: 'Renamed Shop',
    checkout_brand_name: 'Renamed',
    success_redirect_url: 'https://shop.example/ok',
    ip_whitelist: '["127.0.0.1", "203.0.113.9"]',
    deal_min_amount: 1000,
    deal_max_amount: '500000',
    daily_deal_amount_limit: 2_000_000,
  });
  t.is(patched.status, 200, patched.text);
  const p = patched.body.merchant;
  t.is(p.name, 'Renamed Shop');
  t.deepEqual(p.ip_whitelist, ['127.0.0.1', '203.0.113.9']);
  t.is(p.deal_min_amount, '1000');
  t.is(p.deal_max_amount, '500000');
  t.is(p.daily_deal_amount_limit, '2000000');

  const unchanged = await withBearer(jwt, 'PATCH', MY, { finance_chat_id: 'chat-1' });
  t.is(unchanged.body.merchant.deal_min_amount, '1000', 'absent leaves a limit unchanged');
  const removed = await withBearer(jwt, 'PATCH', MY, { deal_min_amount: 0, daily_deal_amount_limit: '0' });
  t.false('deal_min_amount' in removed.body.merchant);
  t.false('daily_deal_amount_limit' in removed.body.merchant);
  t.is(removed.body.merchant.deal_max_amount, '500000');

  const inverted = await withBearer(jwt, 'PATCH', MY, { deal_min_amount: 600_000 });
  t.is(inverted.status, 400);
  t.is(inverted.body.errors[0].field, 'deal_max_amount');
  t.is((await withBearer(jwt, 'PATCH', MY, { deal_min_amount: 10, deal_max_amount: 5 })).status, 400);
  t.is((await withBearer(jwt, 'PATCH', MY, { balance_usdt: '5' })).status, 400, 'unknown or immutable field');
  t.is((await withBearer(jwt, 'PATCH', MY, { ip_whitelist: '["not-an-ip"]' })).status, 400);
  t.is((await withBearer(jwt, 'PATCH', MY, { deal_min_amount: -1 })).status, 400);
  const viaHmac = await signed(m.keys, 'PATCH', MY, { name: 'x' });
  t.is(viaHmac.status, 403);
});

test('deal_min_amount and deal_max_amount bound both creates', async (t) => {
  const m = await fundedMerchant(100_000);
  await withBearer(await cabinetToken(m.merchantId), 'PATCH', MY, { deal_min_amount: 50_000, deal_max_amount: 200_000 });
  const low = await signed(m.keys, 'POST', PAYIN, payinBody({ amount: 49_999 }));
  t.is(low.status, 400);
  t.is(low.body.title, 'INVALID_ARGUMENT');
  t.regex(problemDetail(low.body).message, /below the merchant minimum 50000/);
  const high = await signed(m.keys, 'POST', PAYOUT, m.payoutBody({ amount: 200_001 }));
  t.is(high.status, 400);
  t.regex(problemDetail(high.body).message, /above the merchant maximum 200000/);
  t.is((await signed(m.keys, 'POST', PAYIN, payinBody({ amount: 50_000 }))).status, 200);
});

test('the daily cap counts PayIn plus PayOut, answers with the figures, and holds under concurrency', async (t) => {
  const m = await fundedMerchant(1_000_000);
  await withBearer(await cabinetToken(m.merchantId), 'PATCH', MY, { daily_deal_amount_limit: 500_000 });
  t.is((await signed(m.keys, 'POST', PAYIN, payinBody({ amount: 150_000 }))).status, 200);
  t.is((await signed(m.keys, 'POST', PAYOUT, m.payoutBody({ amount: 95_000 }))).status, 200);
  const over = await signed(m.keys, 'POST', PAYIN, payinBody({ amount: 300_000 }));
  t.is(over.status, 400);
  t.is(over.body.title, 'FAILED_PRECONDITION');
  t.is(problemDetail(over.body).message, "daily deal volume limit exceeded: today's volume 245000, requested 300000, daily limit 500000");

  // 255,000 left: of 8 concurrent 100,000 creates exactly 2 fit.
  const results = await Promise.all(
    Array.from({ length: 8 }, (_, i) =>
      i % 2 ? signed(m.keys, 'POST', PAYIN, payinBody({ amount: 100_000 })) : signed(m.keys, 'POST', PAYOUT, m.payoutBody({ amount: 100_000 })),
    ),
  );
  t.is(results.filter((r) => r.status === 200).length, 2, results.map((r) => r.status).join(','));
});
