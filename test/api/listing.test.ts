import test from 'ava';
import { randomUUID } from 'node:crypto';
import { newMerchant, problemDetail, signed } from '../helpers/api';
import { testSql } from '../helpers/app';
import { fundedMerchant, PAYIN, payinBody, PAYOUT } from '../helpers/deals';
import { DEFAULT_TENANT_ID } from '../../db/queries/merchants';

const sql = testSql();
test.after.always(() => sql.end());
const LIST = '/api/v1/p2p/merchant/deals';
const CARD_RUB = '20000000-0000-4000-8000-000000000001';

/** Rows straight into the table (listing does not care how deals were made). */
async function insertDeals(merchantId: string, n: number, fields: { status?: string; deal_type?: string; client_id?: string; created_at?: Date } = {}) {
  await sql`
    insert into deals (id, tenant_id, merchant_id, deal_type, status, idempotency_key, amount, currency, client_id,
      payment_method_id, amount_usdt, exchange_rate_micro, created_at, updated_at)
    select gen_random_uuid(), ${DEFAULT_TENANT_ID}, ${merchantId}, ${fields.deal_type ?? 'PAYIN'}, ${fields.status ?? 'COMPLETED'},
      'bulk-' || g || '-' || ${randomUUID()}, 1000 + g, 'RUB', ${fields.client_id ?? ''}, ${CARD_RUB}, 10, 92500000,
      ${fields.created_at ?? new Date()}::timestamptz - make_interval(secs => g), now()
    from generate_series(1, ${n}) g`;
}

async function walk(keys: { token: string; secret: string }, query: string) {
  const seen: string[] = [];
  let token = '';
  let pages = 0;
  do {
    const res = await signed(keys, 'GET', `${LIST}?${query}${token ? `&page_token=${encodeURIComponent(token)}` : ''}`);
    if (res.status !== 200) throw new Error(res.text);
    seen.push(...res.body.data.map((d: { deal_id: string }) => d.deal_id));
    token = res.body.next_page_token;
    pages += 1;
  } while (token && pages < 100);
  return seen;
}

test('the listing is a newest-first union of PayIn and PayOut, and keyset pages stay correct while deals arrive', async (t) => {
  const m = await fundedMerchant(100_000);
  const created: string[] = [];
  for (let i = 0; i < 4; i += 1) created.push((await signed(m.keys, 'POST', PAYIN, payinBody())).body.deal.deal_id);
  for (let i = 0; i < 3; i += 1) created.push((await signed(m.keys, 'POST', PAYOUT, m.payoutBody())).body.deal.deal_id);
  const first = await signed(m.keys, 'GET', `${LIST}?page_size=3`);
  t.is(first.status, 200);
  t.deepEqual(Object.keys(first.body).sort(), ['data', 'next_page_token']);
  t.is(first.body.data.length, 3);
  t.deepEqual(
    first.body.data.map((d: { deal_id: string }) => d.deal_id),
    created.slice(-3).reverse(),
  );

  // A new deal arrives between pages: the walk from the first token neither repeats nor skips.
  await signed(m.keys, 'POST', PAYIN, payinBody());
  let token = first.body.next_page_token;
  const rest: string[] = [];
  while (token) {
    const page = await signed(m.keys, 'GET', `${LIST}?page_size=3&page_token=${encodeURIComponent(token)}`);
    rest.push(...page.body.data.map((d: { deal_id: string }) => d.deal_id));
    token = page.body.next_page_token;
  }
  t.deepEqual(rest, created.slice(0, 4).reverse());

  t.is((await walk(m.keys, 'deal_type=PAYOUT&page_size=2')).length, 3);
  t.is((await walk(m.keys, 'deal_type=PAYIN')).length, 5);
  t.is((await walk(m.keys, 'statuses=MATCHED&statuses=ESCROW_LOCKED')).length, 8);
  t.is((await walk(m.keys, 'statuses=ESCROW_LOCKED,NOPE')).length, 5);
  t.is((await walk(m.keys, `merchant_id=${randomUUID()}`)).length, 8, 'merchant_id is ignored');
  const other = await newMerchant();
  t.is((await walk(other.keys, '')).length, 0, 'scope comes from the signature');
});

test('edge rules: unknown filters give an empty page; bad tokens give 400 invalid page_token; sizes are clamped', async (t) => {
  const { merchantId, keys } = await newMerchant();
  await insertDeals(merchantId, 260);
  for (const q of ['deal_type=REFUND', 'statuses=PENDING', `created_after=${encodeURIComponent(new Date(Date.now() + 86_400_000).toISOString())}`]) {
    const res = await signed(keys, 'GET', `${LIST}?${q}`);
    t.is(res.status, 200, q);
    t.deepEqual(res.body, { data: [], next_page_token: '' }, q);
  }
  const page = await signed(keys, 'GET', `${LIST}?page_size=1000`);
  t.is(page.body.data.length, 250);
  t.truthy(page.body.next_page_token);
  t.is((await signed(keys, 'GET', LIST)).body.data.length, 50);

  const good = page.body.next_page_token as string;
  const tampered = good.slice(0, 5) + (good[5] === 'A' ? 'B' : 'A') + good.slice(6);
  for (const token of ['garbage', tampered, `${good}x`, '']) {
    if (!token) continue;
    const res = await signed(keys, 'GET', `${LIST}?page_token=${encodeURIComponent(token)}`);
    t.is(res.status, 400, token);
    t.is(problemDetail(res.body).message, 'invalid page_token');
  }
  const stranger = await newMerchant();
  t.is((await signed(stranger.keys, 'GET', `${LIST}?page_token=${encodeURIComponent(good)}`)).status, 400, "another merchant's token");
  t.is((await signed(keys, 'GET', `${LIST}?created_after=yesterday`)).status, 400);
  t.is((await signed(keys, 'GET', `${LIST}?page_size=-1`)).status, 400);
  t.is((await walk(keys, 'page_size=250')).length, 260);
});

test('walking next_page_token over 251 deals made in bursts of 25 (same and µs-apart created_at) lists each deal once, in order', async (t) => {
  const { merchantId, keys } = await newMerchant();
  // The case of docs/decisions/0003-keyset-cursor-as-text.md: page 2 lost its first deal, 39 µs
  // older than the last deal of page 1. Here each
  // burst of 25 lands in one millisecond, 39 µs apart, some sharing a microsecond, some 1 µs
  // apart; with page_size=100 the last deal of page 1 (i = 151) and the first of page 2 (i = 150)
  // are 39 µs apart in one millisecond, as in the report.
  const base = Date.parse('2026-04-01T10:00:00.000Z');
  const stamps = Array.from({ length: 251 }, (_, i) => {
    const k = i % 25;
    const us = k % 5 === 3 ? (k - 1) * 39 : k % 5 === 4 ? (k - 2) * 39 + 1 : k * 39;
    const ms = base + Math.floor(i / 25) * 7;
    return `${new Date(ms).toISOString().slice(0, 19)}.${String((ms % 1000) * 1000 + us).padStart(6, '0')}Z`;
  });
  await sql`
    insert into deals (id, tenant_id, merchant_id, deal_type, status, idempotency_key, amount, currency, payment_method_id,
      amount_usdt, exchange_rate_micro, created_at, updated_at)
    select gen_random_uuid(), ${DEFAULT_TENANT_ID}, ${merchantId}, 'PAYIN', 'COMPLETED', 'burst-' || n, 1000, 'RUB', ${CARD_RUB}, 10, 92500000,
      ts::timestamptz, now()
    from unnest(${stamps}::text[]) with ordinality as x(ts, n)`;
  const expected = (await sql<{ id: string }[]>`select id from deals where merchant_id = ${merchantId} order by created_at desc, id desc`).map((r) => r.id);
  t.is(expected.length, 251);
  for (const size of [100, 25, 7]) {
    t.deepEqual(await walk(keys, `page_size=${size}`), expected, `page_size=${size}`);
  }
  t.deepEqual(await walk(keys, 'page_size=10&statuses=COMPLETED,EXPIRED'), expected, 'the merged status ranges');
});

test('CSV export: streamed, filtered, counterparty per type, RFC 4180 quoting, no formula injection', async (t) => {
  const m = await fundedMerchant(10_000);
  await signed(m.keys, 'POST', PAYIN, payinBody({ client_id: '=HYPERLINK("http://evil.example","x")' }));
  await signed(m.keys, 'POST', PAYIN, payinBody({ client_id: 'plain, "quoted"' }));
  await signed(m.keys, 'POST', PAYOUT, m.payoutBody({ target_requisite: '+79001234567' }));
  const res = await signed(m.keys, 'GET', '/api/v1/p2p/merchant/deals/export');
  t.is(res.status, 200);
  t.regex(res.headers.get('content-type') ?? '', /^text\/csv/);
  const lines = res.text.split('\r\n').filter(Boolean);
  t.is(lines[0], 'deal_id,deal_type,status,amount,currency,counterparty,received_amount,amount_match_status,payment_url,created_at,updated_at');
  t.is(lines.length, 4);
  t.true(lines[1]!.includes(",'+79001234567,"), lines[1]);
  t.true(lines[2]!.includes(',"plain, ""quoted""",'), lines[2]);
  t.true(lines[3]!.includes(`,"'=HYPERLINK(""http://evil.example"",""x"")",`), lines[3]);
  const onlyPayout = await signed(m.keys, 'GET', '/api/v1/p2p/deals/export?deal_type=PAYOUT');
  t.is(onlyPayout.status, 200);
  t.is(onlyPayout.text.split('\r\n').filter(Boolean).length, 2);
  t.is(onlyPayout.headers.get('deprecation'), 'true');
});

test('turnover: daily UTC buckets excluding EXPIRED, SPAM_REJECTED and FAILED; at most 92 days', async (t) => {
  const { merchantId, keys } = await newMerchant();
  const day = new Date('2026-03-10T12:00:00Z');
  await insertDeals(merchantId, 3, { created_at: day });
  await insertDeals(merchantId, 2, { created_at: day, deal_type: 'PAYOUT' });
  await insertDeals(merchantId, 4, { created_at: day, status: 'EXPIRED' });
  await insertDeals(merchantId, 1, { created_at: new Date('2026-03-11T00:30:00Z'), status: 'FAILED', deal_type: 'PAYOUT' });
  await insertDeals(merchantId, 1, { created_at: new Date('2026-03-11T00:30:00Z') });
  const res = await signed(keys, 'GET', `/api/v1/p2p/merchant/deals/turnover?created_after=2026-03-01T00:00:00Z&created_before=2026-03-31T23:59:59Z`);
  t.is(res.status, 200, res.text);
  t.deepEqual(res.body, {
    data: [
      { date: '2026-03-10', deal_type: 'PAYIN', currency: 'RUB', count: 3, amount: String(1001 + 1002 + 1003) },
      { date: '2026-03-10', deal_type: 'PAYOUT', currency: 'RUB', count: 2, amount: String(1001 + 1002) },
      { date: '2026-03-11', deal_type: 'PAYIN', currency: 'RUB', count: 1, amount: '1001' },
    ],
    next_page_token: '',
  });
  const tooLong = await signed(keys, 'GET', `/api/v1/p2p/merchant/deals/turnover?created_after=2026-01-01T00:00:00Z&created_before=2026-04-05T00:00:00Z`);
  t.is(tooLong.status, 400);
  t.regex(problemDetail(tooLong.body).message, /92 days/);
});
