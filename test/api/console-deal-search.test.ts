/**
 * The operator's deal search (GET /admin/deals): several statuses at once, a deal type, a creation
 * window in UTC (an offset in the bound honoured), and every sort order paged by keyset tokens
 * that serve only the filter and order they were made for — with an id's start, the names beside
 * each deal, and the CSV export in the list's order.
 */
import test from 'ava';
import { asOperator, newMerchant, signed } from '../helpers/api';
import { testSql } from '../helpers/app';
import { createPayin, operatorDeal } from '../helpers/deals';
import { ADMIN } from '../helpers/wallet';

const sql = testSql();
test.after.always(() => sql.end());

async function page(query: Record<string, string | string[]>) {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) for (const v of [value].flat()) params.append(key, v);
  return asOperator('GET', `${ADMIN}/deals?${params}`);
}

/** Every page of a search, following next_page_token. */
async function all(query: Record<string, string | string[]>) {
  const ids: string[] = [];
  let token = '';
  for (let i = 0; i < 20; i += 1) {
    const res = await page({ ...query, page_size: '2', ...(token ? { page_token: token } : {}) });
    if (res.status !== 200) throw new Error(`${res.status} ${res.text}`);
    ids.push(...(res.body.data as Array<{ deal_id: string }>).map((d) => d.deal_id));
    token = res.body.next_page_token;
    if (!token) return ids;
  }
  throw new Error('too many pages');
}

test('statuses, type, a UTC window and each sort order, paged exactly', async (t) => {
  const { keys, merchantId } = await newMerchant({ name: `Deal search ${process.pid}` });
  const amounts = [120000, 100000, 180000, 150000, 110000];
  const deals = [];
  for (const amount of amounts) deals.push(await createPayin(keys, { amount }));
  // Creation times an hour apart, from 2031-03-01T10:00Z, so the window and the time orders are known.
  for (const [i, d] of deals.entries()) {
    await sql`update deals set created_at = ${new Date(Date.UTC(2031, 2, 1, 10 + i))} where id = ${d.deal_id}`;
  }
  const cancelled = await signed(keys, 'POST', `/api/v1/p2p/merchant/deals/${deals[1]!.deal_id}/cancel`, {});
  t.is(cancelled.status, 200, cancelled.text);
  const confirmed = await operatorDeal(deals[3]!.deal_id, 'confirm');
  t.is(confirmed.body.deal?.status, 'COMPLETED', confirmed.text);
  const ids = deals.map((d) => d.deal_id);
  const base = { merchant_id: merchantId };

  t.deepEqual(await all(base), [...ids].reverse(), 'newest first by default');
  t.deepEqual(await all({ ...base, sort: 'created_at' }), ids);
  const byAmount = amounts.map((a, i) => [a, ids[i]!] as const).sort((a, b) => a[0] - b[0]);
  t.deepEqual(
    await all({ ...base, sort: 'amount' }),
    byAmount.map(([, id]) => id),
  );
  t.deepEqual(await all({ ...base, sort: '-amount' }), byAmount.map(([, id]) => id).reverse());

  // The merchant by the 8 characters the lists show, sorted: the names come along, and the export
  // holds the same rows in the same order, named for the filters and the order.
  const short = { merchant_id: merchantId.slice(0, 8) };
  t.deepEqual(await all({ ...short, sort: '-amount' }), byAmount.map(([, id]) => id).reverse(), 'an id start in a sorted search');
  const named = await page({ ...short, sort: 'amount', page_size: '1' });
  t.like(named.body.data[0], { deal_id: byAmount[0]![1], merchant_name: `Deal search ${process.pid}`, appeal_id: '' });
  const csv = await asOperator('GET', `${ADMIN}/deals/export?${new URLSearchParams({ ...short, status: 'COMPLETED,CANCELLED', sort: '-amount' })}`);
  t.is(csv.status, 200, csv.text);
  t.is(csv.headers.get('content-disposition'), `attachment; filename="deals_merchant-${short.merchant_id}_status-COMPLETED_CANCELLED_sort-amount-desc.csv"`);
  t.deepEqual(
    csv.text
      .trim()
      .split('\r\n')
      .slice(1)
      .map((line) => line.split(',')[0]),
    [ids[3]!, ids[1]!],
    'the completed 1 500.00 before the cancelled 1 000.00',
  );

  t.deepEqual((await all({ ...base, status: ['CANCELLED', 'COMPLETED'], sort: 'created_at' })).sort(), [ids[1]!, ids[3]!].sort(), 'repeated');
  t.deepEqual((await all({ ...base, status: 'CANCELLED,COMPLETED' })).sort(), [ids[1]!, ids[3]!].sort(), 'comma-separated');
  t.deepEqual(await all({ ...base, deal_type: 'PAYOUT' }), []);
  t.deepEqual((await all({ ...base, deal_type: 'PAYIN' })).length, 5);

  // 14:00 in Moscow (UTC+3) is 11:00Z: the window 11:00Z..13:00Z inclusive holds the 2nd to 4th deals.
  t.deepEqual(await all({ ...base, created_after: '2031-03-01T14:00:00+03:00', created_before: '2031-03-01T13:00:00Z', sort: 'created_at' }), ids.slice(1, 4));

  const refused = await page({ ...base, status: 'completed' });
  t.is(refused.status, 400, refused.text);
  t.regex(refused.text, /status must be one of/);
  t.is((await page({ ...base, sort: 'merchant' })).status, 400);
  const first = await page({ ...base, sort: 'amount', page_size: '2' });
  const foreign = await page({ ...base, sort: '-amount', page_size: '2', page_token: first.body.next_page_token });
  t.is(foreign.status, 400, 'a token of another order is refused');
  t.regex(foreign.text, /invalid page_token/);
});
