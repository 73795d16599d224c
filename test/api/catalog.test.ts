import test from 'ava';
import { cabinetToken, newMerchant, signed, withBearer } from '../helpers/api';
import { TEST_CURRENCY_RE } from '../helpers/catalog';

test('payment methods, banks and currencies of the tenant (HMAC or cabinet)', async (t) => {
  const { merchantId, keys } = await newMerchant();
  const methods = await signed(keys, 'GET', '/api/v1/p2p/merchant/payment-methods');
  t.is(methods.status, 200);
  const cardRub = methods.body.data.find((m: { slug: string }) => m.slug === 'card-rub');
  t.like(cardRub, { name: 'Bank card (RUB)', currency_code: 'RUB', requisite_types: ['BANK_CARD'], status: 'ACTIVE' });
  t.regex(cardRub.id, /^[0-9a-f-]{36}$/);
  for (const code of ['RUB', 'UZS', 'KZT', 'TRY'])
    t.true(
      methods.body.data.some((m: { currency_code: string }) => m.currency_code === code),
      code,
    );

  const banks = await signed(keys, 'GET', '/api/v1/p2p/merchant/banks?country=RU');
  t.is(banks.status, 200);
  t.true(banks.body.data.length >= 1);
  t.true(banks.body.data.every((b: { country: string; methods: string[] }) => b.country === 'RU' && b.methods.every((m) => /^[A-Z_]+$/.test(m))));
  const kzt = await signed(keys, 'GET', '/api/v1/p2p/merchant/banks?currency=KZT');
  t.deepEqual(
    kzt.body.data.map((b: { country: string }) => b.country),
    ['KZ'],
  );
  t.deepEqual((await signed(keys, 'GET', '/api/v1/p2p/merchant/banks?country=ZZ')).body.data, []);
  t.is((await signed(keys, 'GET', '/api/v1/p2p/merchant/banks?country=RUS')).status, 400);

  const currencies = await withBearer(await cabinetToken(merchantId), 'GET', '/api/v1/p2p/merchant/currencies');
  t.is(currencies.status, 200);
  const codes: string[] = currencies.body.data.map((c: { code: string }) => c.code);
  t.deepEqual(codes, [...codes].sort(), 'by code');
  // The seeded catalogue; tests that change a rate add currencies of their own (test/helpers/catalog.ts) meanwhile.
  t.deepEqual(
    codes.filter((code) => !TEST_CURRENCY_RE.test(code)),
    ['KZT', 'RUB', 'TRY', 'USDT', 'UZS'],
  );
  t.deepEqual(Object.keys(currencies.body.data[0]).sort(), ['code', 'exponent', 'id', 'name']);
});
