import test, { type ExecutionContext } from 'ava';
import { randomUUID } from 'node:crypto';
import { API_METRICS_URL, API_URL, asOperator, newMerchant, signed, type ApiResponse, type Json } from '../helpers/api';
import { fundedMerchant, operatorDeal } from '../helpers/deals';
import { incomingBody, v1, v1Client } from './v1-client';

const ADMIN = '/api/v1/p2p/admin';

/** A bank of V1's list, the fields these tests read. */
interface V1Bank {
  bankName: string;
  currencies: number[];
  methodNames: string[];
}

function deprecated(t: ExecutionContext, res: { headers: Headers }) {
  t.is(res.headers.get('deprecation'), 'true');
  t.is(res.headers.get('sunset'), 'Tue, 12 Jan 2027 00:00:00 GMT');
  t.regex(res.headers.get('link') ?? '', /<\/docs>; rel="successor-version"/);
}

function success(t: ExecutionContext, res: ApiResponse, status = 200) {
  t.is(res.status, status, res.text);
  t.deepEqual(res.body.failures, []);
  t.true(res.body.isSuccess);
  t.false(res.body.isFailure);
  deprecated(t, res);
  return res.body.value;
}

function failure(t: ExecutionContext, res: ApiResponse, status: number, code: string, message?: RegExp) {
  t.is(res.status, status, res.text);
  t.regex(res.headers.get('content-type') ?? '', /^application\/json/);
  t.like(res.body, { value: null, isSuccess: false, isFailure: true, status });
  t.is(res.body.failures[0].code, code);
  if (message) t.regex(res.body.failures[0].message, message);
  deprecated(t, res);
}

test('a V1 merchant creates a PayIn, reads it back with numeric codes, lists it; the V2 view is the same deal', async (t) => {
  const m = await newMerchant({ api_version: 'v1' });
  const c = v1Client(m);
  const body = incomingBody();
  const created = success(t, await c.createIncoming(body));
  t.deepEqual(
    Object.keys(created).sort(),
    ['amount', 'clientId', 'createdAt', 'currency', 'id', 'lastModifiedAt', 'method', 'payInId', 'paymentUrl', 'receivedAmount', 'status'].sort(),
  );
  t.like(created, { payInId: body.payInId, status: 1, amount: '1500.50', receivedAmount: '0.00', currency: 643, method: 'card-rub', clientId: 'payer-7' });
  t.regex(created.paymentUrl, /\/pay\/[0-9a-f]{64}$/);

  // The same deal through V2: minor units, alphabetic currency, payInId became the idempotency key.
  const v2 = await signed(m.keys, 'GET', `/api/v1/p2p/merchant/deals/${created.id}`);
  t.like(v2.body.deal, { amount: '150050', currency: 'RUB', status: 'ESCROW_LOCKED', client_id: 'payer-7' });
  t.is(v2.headers.get('deprecation'), null, 'V2 answers carry no deprecation headers');
  const again = await signed(m.keys, 'POST', '/api/v1/p2p/merchant/deals/payin', {
    idempotency_key: body.payInId,
    amount: 1,
    currency: 'RUB',
    payment_method_id: 'card-rub',
  });
  t.is(again.body.deal.deal_id, created.id);

  // Idempotent by payInId on every mirror; the mirrors create like the main route.
  t.is(success(t, await c.createIncoming({ ...body, amount: '9.99' }, '/v1/payments/incoming/idempotency')).id, created.id);
  const viaNoChannel = success(t, await c.createIncoming(incomingBody({ amount: '200', currency: '643' }), '/v1/payments/incoming/nochannel'));
  t.like(viaNoChannel, { amount: '200.00', status: 1 });

  t.deepEqual(success(t, await c.getIncoming(created.id)), created);
  await operatorDeal(created.id, 'confirm');
  t.like(success(t, await c.getIncoming(created.id)), { id: created.id, status: 11 });

  // Overpaid and completed by an operator: 14; partial: 15.
  const over = success(t, await c.createIncoming(incomingBody({ amount: '100.00' })));
  await operatorDeal(over.id, 'reconciliation', { received_amount: 10_001 });
  await operatorDeal(over.id, 'confirm');
  t.like(success(t, await c.getIncoming(over.id)), { status: 11, receivedAmount: '100.01' }, 'verified, blocked for the operator');
  await operatorDeal(over.id, 'complete');
  t.is(success(t, await c.getIncoming(over.id)).status, 14);
  const partial = success(t, await c.createIncoming(incomingBody({ amount: '100.00' })));
  await operatorDeal(partial.id, 'reconciliation', { received_amount: 9_999 });
  await operatorDeal(partial.id, 'confirm');
  await operatorDeal(partial.id, 'complete');
  t.is(success(t, await c.getIncoming(partial.id)).status, 15);
  const cancelled = success(t, await c.createIncoming(incomingBody()));
  await signed(m.keys, 'POST', `/api/v1/p2p/merchant/deals/${cancelled.id}/cancel`);
  t.is(success(t, await c.getIncoming(cancelled.id)).status, 12);

  // Lists: count, data, items (alias), next_page_token (the next skip), V1 status filters.
  const all = success(t, await c.listIncoming());
  t.is(all.count, 5);
  t.deepEqual(all.items, all.data);
  t.is(all.data[0].id, cancelled.id, 'newest first');
  t.is(all.next_page_token, '');
  const page = success(t, await c.listIncoming({ take: 2, skip: 1 }));
  t.deepEqual(
    page.data.map((d: { id: string }) => d.id),
    all.data.slice(1, 3).map((d: { id: string }) => d.id),
  );
  t.is(page.next_page_token, '3');
  t.is(page.count, 5);
  t.deepEqual(
    success(t, await c.listIncoming({ status: 11 })).data.map((d: { id: string }) => d.id),
    [created.id],
  );
  t.deepEqual(
    success(t, await c.listIncoming({ status: '14' })).data.map((d: { id: string }) => d.id),
    [over.id],
  );
  t.deepEqual(
    success(t, await c.listIncoming({ status: 1 })).data.map((d: { id: string }) => d.id),
    [viaNoChannel.id],
  );
  t.is(success(t, await c.listIncoming({ status: 21 })).count, 0);
  t.deepEqual(
    success(t, await c.listIncoming({ id: partial.id })).data.map((d: { id: string }) => d.id),
    [partial.id],
  );
  t.is(success(t, await c.listIncoming({ startDate: new Date(Date.now() + 60_000).toISOString() })).count, 0);
  t.is(success(t, await c.listIncoming({ startDate: '2020-01-01T00:00:00Z', endDate: all.data[0].createdAt })).count, 5, 'endDate is inclusive');
  failure(t, await c.listIncoming({ status: 99 }), 400, 'INVALID_ARGUMENT', /unknown status code: 99/);
  failure(t, await c.listIncoming({ take: 0 }), 400, 'INVALID_ARGUMENT', /take/);
  failure(t, await c.listIncoming({ take: 101 }), 400, 'INVALID_ARGUMENT', /take/);
  failure(t, await c.listIncoming({ startDate: 'yesterday' }), 400, 'INVALID_ARGUMENT', /startDate/);
  failure(t, await c.listIncoming({ id: 'nope' }), 400, 'INVALID_ARGUMENT');

  // Another merchant's deal, an unknown id, and a PayIn on the outgoing route are 404.
  const other = v1Client(await newMerchant({ api_version: 'v1' }));
  failure(t, await other.getIncoming(created.id), 404, 'NOT_FOUND');
  failure(t, await c.getIncoming(randomUUID()), 404, 'NOT_FOUND');
  failure(t, await c.getOutgoing(created.id), 404, 'NOT_FOUND');
  t.is(success(t, await other.listIncoming()).count, 0);

  // V1 calls are counted per merchant.
  const metrics = await (await fetch(API_METRICS_URL)).text();
  const line = metrics.split('\n').find((l) => l.startsWith(`v1_requests_total{merchant_id="${m.merchantId}"}`));
  t.truthy(line, 'a counter line for the merchant');
  t.true(Number(line!.split(' ').pop()) >= 20);
});

test('V1 input rules: numeric currency (no fallback), exact decimals, required fields, control characters', async (t) => {
  const m = await newMerchant({ api_version: 'v1' });
  const c = v1Client(m);
  failure(t, await c.createIncoming(incomingBody({ currency: 999 })), 400, 'INVALID_ARGUMENT', /^unknown currency code: 999$/);
  failure(t, await c.createIncoming(incomingBody({ currency: 0 })), 400, 'INVALID_ARGUMENT', /^unknown currency code: 0$/);
  failure(t, await c.createIncoming(incomingBody({ currency: 'RUB' })), 400, 'INVALID_ARGUMENT', /numeric ISO 4217/);
  failure(t, await c.createIncoming(incomingBody({ amount: '1500.505' })), 400, 'INVALID_ARGUMENT', /at most 2 fraction digits/);
  failure(t, await c.createIncoming(incomingBody({ amount: '1e3' })), 400, 'INVALID_ARGUMENT', /decimal string/);
  failure(t, await c.createIncoming(incomingBody({ amount: '-5' })), 400, 'INVALID_ARGUMENT');
  failure(t, await c.createIncoming(incomingBody({ amount: '0.00' })), 400, 'INVALID_ARGUMENT');
  failure(t, await c.createIncoming(incomingBody({ amount: '99999999999999999999.00' })), 400, 'INVALID_ARGUMENT');
  const fractionNumber = '{"payInId":"x1","salt":"pepper","amount":1500.5,"currency":643,"method":"card-rub"}';
  failure(t, await v1(m, 'POST', '/v1/payments/incoming', fractionNumber, ['x1', 'pepper']), 400, 'INVALID_ARGUMENT', /decimal string/);
  failure(t, await c.createIncoming(incomingBody({ method: 'BANK_CARD' })), 400, 'INVALID_ARGUMENT', /allowed: .*card-rub/);
  failure(t, await c.createIncoming(incomingBody({ method: 'card-uzs' })), 400, 'INVALID_ARGUMENT', /takes UZS, not RUB/);
  failure(t, await c.createIncoming(incomingBody({ payInId: '' })), 400, 'INVALID_ARGUMENT', /payInId is required/);
  failure(t, await c.createIncoming(incomingBody({ clientId: 'a\u0007b' })), 400, 'INVALID_ARGUMENT', /control character/);
  t.is((await c.listIncoming()).body.value.count, 0, 'no deal was created by any of these');
  // An integer amount is taken as its digits (whole units).
  t.is((await c.createIncoming(incomingBody({ amount: 150 }))).body.value.amount, '150.00');
});

test('a V1 merchant pays out: hold from its USDT wallet, numeric codes 1 → 40 → 30, list and filters', async (t) => {
  const m = await fundedMerchant(100_000, { api_version: 'v1' });
  const c = v1Client(m);
  const body = {
    payOutId: `po-${randomUUID()}`,
    amount: '950.00',
    currency: 643,
    paymentMethod: 'card-rub',
    cardNumber: '4111111111111111',
    fullName: 'Anna Recipient',
    salt: 's1',
  };
  const created = success(t, await c.createOutgoing(body));
  t.deepEqual(
    Object.keys(created).sort(),
    ['amount', 'cardNumber', 'createdAt', 'currency', 'fullName', 'id', 'lastModifiedAt', 'payOutId', 'paymentMethod', 'status'].sort(),
  );
  t.like(created, {
    payOutId: body.payOutId,
    status: 1,
    amount: '950.00',
    currency: 643,
    paymentMethod: 'card-rub',
    cardNumber: '4111111111111111',
    fullName: 'Anna Recipient',
  });
  t.is(success(t, await c.createOutgoing({ ...body, amount: '1.00' })).id, created.id, 'idempotent by payOutId');
  const v2 = await signed(m.keys, 'GET', `/api/v1/p2p/merchant/deals/${created.id}`);
  t.like(v2.body.deal, { deal_type: 'PAYOUT', amount: '95000', currency: 'RUB', target_requisite: '4111111111111111' });

  const start = await asOperator('POST', `${ADMIN}/deals/${created.id}/payout/start`);
  t.is(start.status, 200, start.text);
  t.is(success(t, await c.getOutgoing(created.id)).status, 40);
  await asOperator('POST', `${ADMIN}/deals/${created.id}/payout/reject`, { reason: 'wrong card' });
  t.is(success(t, await c.getOutgoing(created.id)).status, 30);

  const second = success(t, await c.createOutgoing({ ...body, payOutId: `po-${randomUUID()}`, amount: '95' }));
  const list = success(t, await c.listOutgoing());
  t.is(list.count, 2);
  t.deepEqual(
    list.data.map((d: { id: string }) => d.id),
    [second.id, created.id],
  );
  t.deepEqual(
    success(t, await c.listOutgoing({ status: 30 })).data.map((d: { id: string }) => d.id),
    [created.id],
  );
  t.deepEqual(
    success(t, await c.listOutgoing({ status: 1 })).data.map((d: { id: string }) => d.id),
    [second.id],
  );
  t.is(success(t, await c.listOutgoing({ status: 50 })).count, 0, 'a known code no status maps to');
  failure(t, await c.listOutgoing({ status: 11 }), 400, 'INVALID_ARGUMENT', /unknown status code: 11/);
  failure(t, await c.getIncoming(created.id), 404, 'NOT_FOUND');
  failure(t, await c.createOutgoing({ ...body, payOutId: `po-${randomUUID()}`, currency: 840 }), 400, 'INVALID_ARGUMENT', /^unknown currency code: 840$/);
  failure(t, await c.createOutgoing({ ...body, payOutId: `po-${randomUUID()}`, cardNumber: undefined }), 400, 'INVALID_ARGUMENT', /cardNumber is required/);
  failure(t, await c.createOutgoing({ ...body, payOutId: `po-${randomUUID()}`, amount: '1000000.00' }), 400, 'FAILED_PRECONDITION', /insufficient balance/);
});

test('banks list: the 5-field profile with numeric currencies, filters, skip/take', async (t) => {
  const c = v1Client(await newMerchant({ api_version: 'v1' }));
  const all = success(t, await c.banks());
  t.true(all.count >= 5);
  t.deepEqual(all.items, all.data);
  const ru = success(t, await c.banks({ country: 'ru' }));
  t.true(ru.data.length >= 2);
  for (const bank of ru.data) {
    t.deepEqual(Object.keys(bank).sort(), ['bankName', 'country', 'currencies', 'id', 'methodNames']);
    t.is(bank.country, 'RU');
    t.true(bank.currencies.includes(643));
  }
  t.true(ru.data.some((b: V1Bank) => b.bankName === 'Sberbank' && b.methodNames.includes('SBP')));
  t.deepEqual(
    success(t, await c.banks({ bankName: 'kaspi bank' })).data.map((b: V1Bank) => [b.bankName, b.currencies]),
    [['Kaspi Bank', [398]]],
  );
  t.true(success(t, await c.banks({ methodName: 'BANK_TRANSFER' })).data.every((b: V1Bank) => b.methodNames.includes('BANK_TRANSFER')));
  const page = success(t, await c.banks({ skip: 1, take: 1 }));
  t.is(page.data.length, 1);
  t.is(page.data[0].id, all.data[1].id);
  t.is(page.next_page_token, '2');
  failure(t, await c.banks({ country: 'Russia' }), 400, 'INVALID_ARGUMENT', /alpha-2/);
});

test('the OpenAPI document has the V1 section with its security schemes and error envelope', async (t) => {
  const doc = (await (await fetch(`${API_URL}/openapi.json`)).json()) as Json;
  for (const path of [
    '/v1/payments/incoming',
    '/v1/payments/incoming/idempotency',
    '/v1/payments/incoming/nochannel',
    '/v1/payments/incoming/{id}',
    '/v1/payments/incoming/list',
    '/v1/payments/incoming/statistics',
    '/v1/payments/outgoing',
    '/v1/payments/outgoing/{id}',
    '/v1/payments/outgoing/list',
    '/v1/payments/outgoing/statistics',
    '/v1/banks/list',
  ]) {
    t.truthy(doc.paths[path], path);
  }
  t.truthy(doc.components.securitySchemes.V1Signature);
  t.truthy(doc.components.schemas.V1Error);
  t.truthy(doc.components.schemas.V1Incoming);
  t.truthy(doc.paths['/v1/payments/incoming'].post.responses['410']);
  t.true(doc.paths['/v1/banks/list'].post.deprecated);
  // The webhook bodies are inline (a component only `webhooks` references is pruned by oapi-codegen, then referenced).
  t.truthy(doc.webhooks['v1-incoming'].post.requestBody.content['application/json'].schema);
  t.truthy(doc.webhooks['v1-outgoing'].post.requestBody.content['application/json'].schema);
});
