/**
 * Problem+json field errors carry the stable codes of domain/errors.ts
 * (FIELD_ERROR_CODES), never a validation library's internal names, on real routes.
 */
import test from 'ava';
import { FIELD_ERROR_CODES } from '../../domain/errors';
import { cabinetToken, newMerchant, signed, signedRaw, withBearer } from '../helpers/api';
import { PAYIN, payinBody } from '../helpers/deals';

const codesOf = (body: { errors?: Array<{ field: string; code: string }> }) => Object.fromEntries((body.errors ?? []).map((e) => [e.field, e.code]));

test('bad PayIn bodies and a strict PATCH answer the documented codes, field by field', async (t) => {
  const { keys, merchantId } = await newMerchant();
  const cases: Array<[string, unknown, Record<string, string>]> = [
    ['missing fields', {}, { idempotency_key: 'required', amount: 'required', currency: 'required', payment_method_id: 'required' }],
    ['fractional amount', payinBody({ amount: 1500.5 }), { amount: 'not_integer' }],
    ['amount as a string', payinBody({ amount: '1500' }), { amount: 'invalid_type' }],
    ['zero amount', payinBody({ amount: 0 }), { amount: 'too_small' }],
    ['lower-case currency', payinBody({ currency: 'rub' }), { currency: 'invalid_format' }],
    ['ftp callback_url', payinBody({ callback_url: 'ftp://example.com/hook' }), { callback_url: 'invalid_format' }],
    ['not a URL', payinBody({ callback_url: 'not a url' }), { callback_url: 'invalid_format' }],
    ['unknown payment method', payinBody({ payment_method_id: 'no-such-method' }), { payment_method_id: 'unknown_payment_method' }],
  ];
  const seen: string[] = [];
  for (const [name, body, expected] of cases) {
    const res = await signed(keys, 'POST', PAYIN, body);
    t.is(res.status, 400, `${name}: ${res.text}`);
    t.is(res.headers.get('content-type')?.split(';')[0], 'application/problem+json', name);
    const codes = codesOf(res.body);
    t.deepEqual(Object.fromEntries(Object.keys(expected).map((f) => [f, codes[f]])), expected, `${name}: ${res.text}`);
    seen.push(...Object.values(codes));
  }
  // An amount in exponent form ("1e3"): exact integers only, so it is not_integer too.
  const exponent = await signedRaw(
    keys,
    'POST',
    PAYIN,
    '{"idempotency_key":"k-exp","amount":1e3,"currency":"RUB","payment_method_id":"card-rub"}',
    'application/json',
  );
  t.is(exponent.status, 400, exponent.text);
  const exponentCodes = codesOf(JSON.parse(exponent.text));
  t.is(exponentCodes.amount, 'not_integer', exponent.text);
  seen.push(...Object.values(exponentCodes));

  // PATCH my-merchant refuses fields it does not know.
  const cabinet = await cabinetToken(merchantId);
  const extra = await withBearer(cabinet, 'PATCH', '/api/v1/p2p/my-merchant', { name: 'Shop', status: 'ACTIVE' });
  t.is(extra.status, 400, extra.text);
  t.is(codesOf(extra.body)['(body)'], 'unknown_field', extra.text);
  seen.push(...Object.values(codesOf(extra.body)));

  for (const code of seen) t.true((FIELD_ERROR_CODES as readonly string[]).includes(code), code);
  for (const internal of ['custom', 'invalid_union', 'unrecognized_keys']) t.false(seen.includes(internal), internal);
});
