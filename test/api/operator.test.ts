import test from 'ava';
import { asOperator, newMerchant, signed, unsigned } from '../helpers/api';
import { txHashOf } from '../helpers/tx-hash';
import { ownCurrency } from '../helpers/catalog';
import { isolatedMethod } from '../helpers/deals';

test('a created merchant has a provisioned USDT wallet and deposits credit it idempotently', async (t) => {
  const { merchantId, keys } = await newMerchant();
  const txHash = txHashOf(`tx-${merchantId}`);
  const first = await asOperator('POST', '/api/v1/p2p/admin/deposits', { merchant_id: merchantId, amount: 125_000, tx_hash: txHash });
  t.is(first.status, 201, first.text);
  t.is(first.body.deposit.amount, '125000');
  t.is(first.body.deposit.currency, 'USDT');
  const repeat = await asOperator('POST', '/api/v1/p2p/admin/deposits', { merchant_id: merchantId, amount: 125_000, tx_hash: txHash });
  t.is(repeat.status, 200);
  t.is(repeat.body.deposit.deposit_id, first.body.deposit.deposit_id);
  const conflicting = await asOperator('POST', '/api/v1/p2p/admin/deposits', { merchant_id: merchantId, amount: 1, tx_hash: txHash });
  t.is(conflicting.status, 409);
  const profile = await signed(keys, 'GET', '/api/v1/p2p/my-merchant');
  t.is(profile.body.merchant.balance_usdt, '125000');
});

test('concurrent deposits with one tx_hash credit once', async (t) => {
  const { merchantId, keys } = await newMerchant();
  const results = await Promise.all(
    Array.from({ length: 10 }, () =>
      asOperator('POST', '/api/v1/p2p/admin/deposits', { merchant_id: merchantId, amount: 700, tx_hash: txHashOf(`race-${merchantId}`) }),
    ),
  );
  t.is(results.filter((r) => r.status === 201).length, 1);
  t.true(
    results.every((r) => r.status === 201 || r.status === 200),
    results.map((r) => r.status).join(','),
  );
  t.is((await signed(keys, 'GET', '/api/v1/p2p/my-merchant')).body.merchant.balance_usdt, '700');
});

test('deposit to an unknown merchant is 404', async (t) => {
  const res = await asOperator('POST', '/api/v1/p2p/admin/deposits', { merchant_id: '00000000-0000-4000-8000-0000000000aa', amount: 1, tx_hash: txHashOf() });
  t.is(res.status, 404);
});

test('rates, traders and requisites can be bootstrapped', async (t) => {
  // Rates, methods and requisites are global: this test sets the rate of a currency of its own and
  // gives its requisite a method of its own, so no other file's deal is priced or matched by them.
  const currency = await ownCurrency({ buyMicro: 1_000_000n, sellMicro: 1_000_000n });
  const rate = await asOperator('PUT', `/api/v1/p2p/admin/rates/${currency}`, { buy_rate_micro: 480_000_000, sell_rate_micro: 490_000_000 });
  t.is(rate.status, 200, rate.text);
  t.deepEqual({ ...rate.body.rate, updated_at: undefined }, { currency, buy_rate_micro: '480000000', sell_rate_micro: '490000000', updated_at: undefined });
  t.is((await asOperator('PUT', '/api/v1/p2p/admin/rates/XXX', { buy_rate_micro: 1, sell_rate_micro: 1 })).status, 404);
  t.is((await asOperator('PUT', '/api/v1/p2p/admin/rates/RUB', { buy_rate_micro: 0, sell_rate_micro: 1 })).status, 400);

  const trader = await asOperator('POST', '/api/v1/p2p/admin/traders', { name: 'Trader T' });
  t.is(trader.status, 201);
  const traderId = trader.body.trader.trader_id;
  const funded = await asOperator('POST', `/api/v1/p2p/admin/traders/${traderId}/deposits`, { amount: 5_000_00, tx_hash: txHashOf(`fund-${traderId}`) });
  t.is(funded.status, 201);

  const method = await isolatedMethod();
  const requisite = await asOperator('POST', `/api/v1/p2p/admin/traders/${traderId}/requisites`, {
    payment_method: method,
    requisite_type: 'BANK_CARD',
    card_number: '2200123412341234',
    holder_name: 'Ivan Petrov',
    bank_name: 'sberbank',
    min_amount: 10_000,
    max_amount: 5_000_000,
  });
  t.is(requisite.status, 201, requisite.text);
  t.is(requisite.body.requisite.min_amount, '10000');
  t.false('daily_limit' in requisite.body.requisite);

  const wrongType = await asOperator('POST', `/api/v1/p2p/admin/traders/${traderId}/requisites`, {
    payment_method: method,
    requisite_type: 'SBP',
    phone_number: '+79000000000',
    holder_name: 'x',
    bank_name: 'y',
    min_amount: 1,
    max_amount: 2,
  });
  t.is(wrongType.status, 400);
  const inverted = await asOperator('POST', `/api/v1/p2p/admin/traders/${traderId}/requisites`, {
    payment_method: method,
    requisite_type: 'BANK_CARD',
    card_number: '1',
    holder_name: 'x',
    bank_name: 'y',
    min_amount: 10,
    max_amount: 2,
  });
  t.is(inverted.status, 400);
  t.is(inverted.body.errors[0].field, 'max_amount');
});

test('merchant create validates its body', async (t) => {
  const res = await asOperator('POST', '/api/v1/p2p/admin/merchants', { name: '', email: 'not-an-email' });
  t.is(res.status, 400);
  t.deepEqual(res.body.errors.map((e: { field: string }) => e.field).sort(), ['email', 'name']);
  const v1 = await asOperator('POST', '/api/v1/p2p/admin/merchants', { name: 'Legacy', email: 'legacy@example.test', api_version: 'v1', payin_fee_bps: 300 });
  t.is(v1.status, 201);
  t.is(v1.body.merchant.api_version, 'v1');
});

test('kill-switch result: disabled_at is set when the switch goes on and null (not "") when it is cleared', async (t) => {
  const { merchantId } = await newMerchant();
  const toggle = (path: string) => asOperator('POST', path);
  const on = await toggle(`/api/v1/p2p/merchants/${merchantId}/kill-switch`);
  t.is(on.status, 200, on.text);
  t.deepEqual(Object.keys(on.body).sort(), ['disabled', 'disabled_at', 'merchant_id']);
  t.is(on.body.disabled, true);
  t.true(Number.isFinite(Date.parse(on.body.disabled_at)), 'an RFC 3339 time');
  const off = await toggle(`/api/v1/p2p/admin/merchants/${merchantId}/kill-switch`);
  t.is(off.status, 200, off.text);
  t.like(off.body, { merchant_id: merchantId, disabled: false });
  t.true('disabled_at' in off.body, 'the field stays in the answer');
  t.is(off.body.disabled_at, null);

  // disable / activate report the result too; enable answers {} and clears it; a toggle after it turns it on again.
  const disabled = await asOperator('POST', `/api/v1/p2p/merchant/${merchantId}/disable`, { reason: 'review' });
  t.true(Number.isFinite(Date.parse(disabled.body.disabled_at)));
  const enabled = await asOperator('POST', `/api/v1/p2p/merchant/${merchantId}/enable`, {});
  t.deepEqual(enabled.body, {});
  const again = await toggle(`/api/v1/p2p/merchants/${merchantId}/kill-switch`);
  t.true(again.body.disabled);
  t.true(Number.isFinite(Date.parse(again.body.disabled_at)));
  const cleared = await toggle(`/api/v1/p2p/merchants/${merchantId}/kill-switch`);
  t.is(cleared.body.disabled_at, null);

  // The OpenAPI document says so.
  const doc = await unsigned('GET', '/openapi.json');
  const field = doc.body.components.schemas.KillSwitchResult.properties.disabled_at;
  const types = [field.type, ...(field.anyOf ?? []).map((s: { type?: string }) => s.type)].flat();
  t.true(types.includes('null'), JSON.stringify(field));
  t.true(types.includes('string'), JSON.stringify(field));
});
