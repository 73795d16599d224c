import test from 'ava';
import { randomUUID } from 'node:crypto';
import { auditLedger } from '../../db/queries/ledger';
import { newMerchant, problemDetail, signed, type KeyPair } from '../helpers/api';
import { startApp, testSql } from '../helpers/app';
import { dealRow, isolatedTrader, PAYIN, payinBody } from '../helpers/deals';
import { eventually } from '../helpers/poll';

const sql = testSql();
test.after.always(async () => {
  const report = await auditLedger(sql);
  await sql.end();
  if (report.walletMismatches.length || report.unbalancedTransactions.length) throw new Error(`ledger audit failed: ${JSON.stringify(report)}`);
});

const PASSES = '/api/v1/p2p/merchant/passes';
const PASS_FIELDS = [
  'amount',
  'created_at',
  'currency_id',
  'expires_at',
  'merchant_id',
  'pass_id',
  'payment_method_id',
  'provider_id',
  'requisite_type',
  'status',
  'tenant_id',
  'used_deal_id',
];
const RUB_ID = '10000000-0000-4000-8000-000000000643';

async function methodId(slug: string): Promise<string> {
  const [row] = await sql<{ id: string }[]>`select id from payment_methods where slug = ${slug}`;
  return row!.id;
}
const createPass = (keys: KeyPair, body: Record<string, unknown>, base = '') => signed(keys, 'POST', `${base}${PASSES}`, body);
const passRow = async (passId: string) => (await sql`select * from passes where id = ${passId}`)[0]!;

test('create and list: ACTIVE with expires_at, exactly the fields of a pass; filters are checked; listing is scoped and paginated', async (t) => {
  const { merchantId, keys } = await newMerchant();
  const { traderId, method } = await isolatedTrader({ liquidity: 10_000 });
  const id = await methodId(method);
  const res = await createPass(keys, { amount: 150_000, currency_id: RUB_ID, payment_method_id: id, requisite_type: 'BANK_CARD', provider_id: traderId });
  t.is(res.status, 201, res.text);
  t.deepEqual(Object.keys(res.body), ['pass']);
  const pass = res.body.pass;
  t.deepEqual(Object.keys(pass).sort(), PASS_FIELDS);
  t.like(pass, {
    merchant_id: merchantId,
    provider_id: traderId,
    amount: '150000',
    currency_id: RUB_ID,
    payment_method_id: id,
    requisite_type: 'BANK_CARD',
    status: 'ACTIVE',
    used_deal_id: '',
  });
  const ttl = Date.parse(pass.expires_at) - Date.parse(pass.created_at);
  t.true(Math.abs(ttl - 86_400_000) < 5_000, `default PASS_TTL_SECONDS is a day (${ttl} ms)`);
  const bare = await createPass(keys, { amount: 5_000, currency_id: '', provider_id: '' });
  t.is(bare.status, 201, bare.text);
  t.like(bare.body.pass, { provider_id: '', currency_id: '', payment_method_id: '', requisite_type: '' });

  const refused = async (body: Record<string, unknown>, message: RegExp) => {
    const r = await createPass(keys, body);
    t.is(r.status, 400, r.text);
    t.is(r.body.title, 'INVALID_ARGUMENT');
    t.regex(problemDetail(r.body).message, message);
  };
  await refused({}, /amount/);
  await refused({ amount: 0 }, /greater than 0/);
  await refused({ amount: 100, payment_method_id: 'card-rub' }, /payment_method_id must be a UUID \(a slug is not resolved here/);
  await refused({ amount: 100, payment_method_id: randomUUID() }, /unknown payment_method_id/);
  await refused({ amount: 100, provider_id: randomUUID() }, /unknown provider_id/);
  await refused({ amount: 100, currency_id: randomUUID() }, /unknown currency_id/);
  await refused({ amount: 100, requisite_type: 'PIGEON' }, /requisite_type must be one of/);
  await refused({ amount: 100, currency_id: '10000000-0000-4000-8000-000000000949', payment_method_id: id }, /is for RUB, not TRY/);
  await refused({ amount: 100, payment_method_id: id, requisite_type: 'SIM' }, /has no requisite type SIM/);

  const list = await signed(keys, 'GET', `${PASSES}?page_size=1`);
  t.is(list.status, 200);
  t.deepEqual(
    list.body.data.map((p: { pass_id: string }) => p.pass_id),
    [bare.body.pass.pass_id],
  );
  const next = await signed(keys, 'GET', `${PASSES}?page_size=1&page_token=${list.body.next_page_token}`);
  t.deepEqual(
    next.body.data.map((p: { pass_id: string }) => p.pass_id),
    [pass.pass_id],
  );
  t.is(next.body.next_page_token, '');
  t.is((await signed(keys, 'GET', `${PASSES}?status=USED`)).body.data.length, 0);
  const stranger = await newMerchant();
  t.deepEqual((await signed(stranger.keys, 'GET', PASSES)).body, { data: [], next_page_token: '' });
  t.is((await signed(stranger.keys, 'GET', `${PASSES}?page_token=${list.body.next_page_token}`)).status, 400);
});

test('a matching pass routes the deal to its provider past the cascade, once; non-matching passes are left alone', async (t) => {
  const { keys } = await newMerchant();
  // The cascade would pick trader A (same bank as the payer); the pass names trader B.
  const a = await isolatedTrader({ liquidity: 50_000, bank: 'alpha-bank' });
  const b = await isolatedTrader({ liquidity: 50_000, bank: 'beta-bank', method: a.method });
  const id = await methodId(a.method);
  const otherAmount = (await createPass(keys, { amount: 99_000, provider_id: b.traderId })).body.pass;
  const otherCurrency = (await createPass(keys, { amount: 150_000, provider_id: b.traderId, currency_id: '10000000-0000-4000-8000-000000000949' })).body.pass;
  const pass = (await createPass(keys, { amount: 150_000, currency_id: RUB_ID, payment_method_id: id, requisite_type: 'BANK_CARD', provider_id: b.traderId }))
    .body.pass;

  const first = await signed(keys, 'POST', PAYIN, payinBody({ amount: 150_000, payment_method_id: a.method, payer_bank: 'alpha-bank' }));
  t.is(first.status, 200, first.text);
  const row = await dealRow(sql, first.body.deal.deal_id);
  t.is(row.trader_id, b.traderId, 'routed to the pass provider');
  t.is(row.requisite_id, b.requisiteId);
  const used = await passRow(pass.pass_id);
  t.is(used.status, 'USED');
  t.is(used.used_deal_id, first.body.deal.deal_id);
  const listed = (await signed(keys, 'GET', PASSES)).body.data.find((p: { pass_id: string }) => p.pass_id === pass.pass_id);
  t.like(listed, { status: 'USED', used_deal_id: first.body.deal.deal_id });

  // Single use: the next identical deal goes through the cascade (same bank first).
  const second = await signed(keys, 'POST', PAYIN, payinBody({ amount: 150_000, payment_method_id: a.method, payer_bank: 'alpha-bank' }));
  t.is(second.status, 200);
  t.is((await dealRow(sql, second.body.deal.deal_id)).trader_id, a.traderId);
  // currency_id on the PayIn create must name the deal's currency.
  const wrongCurrency = await signed(
    keys,
    'POST',
    PAYIN,
    payinBody({ amount: 150_000, payment_method_id: a.method, currency_id: '10000000-0000-4000-8000-000000000949' }),
  );
  t.is(wrongCurrency.status, 400);
  t.regex(problemDetail(wrongCurrency.body).message, /is not the id of RUB/);
  t.is((await passRow(otherAmount.pass_id)).status, 'ACTIVE');
  t.is((await passRow(otherCurrency.pass_id)).status, 'ACTIVE');
});

test('when the pass provider cannot take the deal, the deal goes through the cascade and the pass stays ACTIVE', async (t) => {
  const { keys } = await newMerchant();
  const a = await isolatedTrader({ liquidity: 50_000 });
  const broke = await isolatedTrader({ liquidity: 0, method: a.method });
  const pass = (await createPass(keys, { amount: 150_000, provider_id: broke.traderId })).body.pass;
  const res = await signed(keys, 'POST', PAYIN, payinBody({ amount: 150_000, payment_method_id: a.method }));
  t.is(res.status, 200, res.text);
  t.is((await dealRow(sql, res.body.deal.deal_id)).trader_id, a.traderId);
  const row = await passRow(pass.pass_id);
  t.is(row.status, 'ACTIVE');
  t.is(row.used_deal_id, null);
});

test('two creates racing for one pass: exactly one reserves it, the loser gets 409 `pass was concurrently reserved` and no deal', async (t) => {
  const { merchantId, keys } = await newMerchant();
  const { traderId, method } = await isolatedTrader({ liquidity: 50_000 });
  const pass = (await createPass(keys, { amount: 150_000, provider_id: traderId })).body.pass;

  // Hold the pass row so both creates find it ACTIVE and queue up on it; then let them race.
  const gate = await sql.reserve();
  t.teardown(() => gate.release());
  await gate`begin`;
  await gate`select id from passes where id = ${pass.pass_id} for update`;
  const [keyA, keyB] = [randomUUID(), randomUUID()];
  const racing = Promise.all(
    [keyA, keyB].map((key) => signed(keys, 'POST', PAYIN, payinBody({ idempotency_key: key, amount: 150_000, payment_method_id: method }))),
  );
  await eventually(async () => {
    const [waiting] = await sql<{ n: number }[]>`
      select count(*)::int as n from pg_stat_activity where wait_event_type = 'Lock' and query like '%update passes set status%'`;
    return waiting!.n === 2;
  }, 'both creates waiting on the pass');
  await gate`commit`;
  const results = await racing;
  t.deepEqual(results.map((r) => r.status).sort(), [200, 409], results.map((r) => r.text).join('\n'));
  const loser = results.find((r) => r.status === 409)!;
  t.is(loser.body.title, 'ABORTED');
  t.is(problemDetail(loser.body).message, 'pass was concurrently reserved');
  const winner = results.find((r) => r.status === 200)!;
  t.is((await passRow(pass.pass_id)).used_deal_id, winner.body.deal.deal_id);
  const [deals] = await sql`select count(*)::int as n from deals where merchant_id = ${merchantId}`;
  t.is(deals!.n, 1, 'the loser made no deal');
  // The loser's key can be retried: the pass is used now, so the cascade routes it.
  const loserKey = results[0] === loser ? keyA : keyB;
  const retried = await signed(keys, 'POST', PAYIN, payinBody({ idempotency_key: loserKey, amount: 150_000, payment_method_id: method }));
  t.is(retried.status, 200, retried.text);

  // Without a gate: many concurrent creates, the pass is reserved at most once and each loser is a 409 or a cascade deal.
  const second = (await createPass(keys, { amount: 150_000, provider_id: traderId })).body.pass;
  const burst = await Promise.all(Array.from({ length: 4 }, () => signed(keys, 'POST', PAYIN, payinBody({ amount: 150_000, payment_method_id: method }))));
  t.true(
    burst.every((r) => r.status === 200 || (r.status === 409 && problemDetail(r.body).message === 'pass was concurrently reserved')),
    burst.map((r) => r.text).join('\n'),
  );
  const reserved = await passRow(second.pass_id);
  t.is(reserved.status, 'USED');
  t.true(burst.some((r) => r.status === 200 && r.body.deal.deal_id === reserved.used_deal_id));
});

test('two plain simultaneous creates for one pass: one uses it, the other is 409 (not a silent cascade deal); later creates use the cascade', async (t) => {
  const { merchantId, keys } = await newMerchant();
  const { traderId, method } = await isolatedTrader({ liquidity: 50_000 });
  const pass = (await createPass(keys, { amount: 150_000, provider_id: traderId })).body.pass;

  // No gate: two ordinary signed creates sent at once, different keys, both matching the pass.
  const [keyA, keyB] = [randomUUID(), randomUUID()];
  const results = await Promise.all(
    [keyA, keyB].map((key) => signed(keys, 'POST', PAYIN, payinBody({ idempotency_key: key, amount: 150_000, payment_method_id: method }))),
  );
  t.deepEqual(results.map((r) => r.status).sort(), [200, 409], results.map((r) => r.text).join('\n'));
  const winner = results.find((r) => r.status === 200)!;
  const loser = results.find((r) => r.status === 409)!;
  t.is(loser.headers.get('content-type')?.split(';')[0], 'application/problem+json');
  t.is(loser.body.title, 'ABORTED');
  t.is(problemDetail(loser.body).message, 'pass was concurrently reserved');
  const used = await passRow(pass.pass_id);
  t.is(used.status, 'USED');
  t.is(used.used_deal_id, winner.body.deal.deal_id, 'the one that succeeded is the one that used the pass');
  const [deals] = await sql`select count(*)::int as n from deals where merchant_id = ${merchantId}`;
  t.is(deals!.n, 1, 'the loser made no deal');

  // A create that arrives after the pass was used — here an hour ago — goes through the cascade, no 409;
  // so does the loser's key when retried.
  await sql`update passes set used_at = used_at - interval '1 hour', updated_at = updated_at - interval '1 hour' where id = ${pass.pass_id}`;
  const later = await signed(keys, 'POST', PAYIN, payinBody({ amount: 150_000, payment_method_id: method }));
  t.is(later.status, 200, later.text);
  t.is((await dealRow(sql, later.body.deal.deal_id)).trader_id, traderId);
  const loserKey = results[0] === loser ? keyA : keyB;
  const retried = await signed(keys, 'POST', PAYIN, payinBody({ idempotency_key: loserKey, amount: 150_000, payment_method_id: method }));
  t.is(retried.status, 200, retried.text);
  t.is((await passRow(pass.pass_id)).used_deal_id, winner.body.deal.deal_id);
});

test('an unused pass becomes EXPIRED at expires_at (a durable timer) and no longer routes deals', async (t) => {
  // An API process whose passes live 2 s; their expiry workflows run on the suite's worker.
  const stack = await startApp({ PASS_TTL_SECONDS: 2 });
  t.teardown(() => stack.close());
  const { keys } = await newMerchant();
  const a = await isolatedTrader({ liquidity: 50_000 });
  const b = await isolatedTrader({ liquidity: 50_000, method: a.method });
  const created = await createPass(keys, { amount: 150_000, provider_id: b.traderId }, stack.url);
  t.is(created.status, 201, created.text);
  const pass = created.body.pass;
  t.true(Date.parse(pass.expires_at) - Date.parse(pass.created_at) <= 2_500);
  await eventually(async () => (await passRow(pass.pass_id)).status === 'EXPIRED', 'the pass to expire', 60_000);
  const listed = (await signed(keys, 'GET', PASSES)).body.data[0];
  t.like(listed, { pass_id: pass.pass_id, status: 'EXPIRED', used_deal_id: '' });
  const res = await signed(keys, 'POST', PAYIN, payinBody({ amount: 150_000, payment_method_id: a.method, payer_bank: 'isolated-bank' }));
  t.is(res.status, 200);
  t.is((await passRow(pass.pass_id)).status, 'EXPIRED');
  t.is((await signed(keys, 'GET', `${PASSES}?status=EXPIRED`)).body.data.length, 1);
});
