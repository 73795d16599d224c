import test from 'ava';
import { randomUUID } from 'node:crypto';
import { PAYIN_LIVE } from '../../db/queries/matching';
import { sweepSilentTraders } from '../../api/services/presence';
import { asOperator, newMerchant, signed } from '../helpers/api';
import { testSql } from '../helpers/app';
import { dealRow, isolatedTrader, PAYIN, payinBody } from '../helpers/deals';
import { eventually } from '../helpers/poll';

const sql = testSql();
test.after.always(() => sql.end());

/** Gives a trader an account (as the trader door does): its presence then decides its matching. */
async function withAccount(traderId: string, presence: { online?: boolean; heartbeatAgoSeconds?: number } = {}) {
  await sql`insert into accounts (id, party, trader_id, email, password_hash, role, created_by)
    values (${randomUUID()}, 'trader', ${traderId}, ${`${randomUUID()}@trader.example`}, 'x', 'trader', 'test')`;
  if (presence.online ?? true) {
    await sql`update traders set online = true, online_at = now(),
      heartbeat_at = now() - make_interval(secs => ${presence.heartbeatAgoSeconds ?? 0}) where id = ${traderId}`;
  }
}

const createIn = (keys: Parameters<typeof signed>[0], method: string, amount = 150_000) =>
  signed(keys, 'POST', PAYIN, payinBody({ amount, payment_method_id: method }));

async function liveByRequisiteAndAmount(merchantId: string) {
  return sql<{ requisite_id: string; amount: bigint; n: number }[]>`
    select requisite_id, amount, count(*)::int as n from deals
    where merchant_id = ${merchantId} and deal_type = 'PAYIN' and status = any(${[...PAYIN_LIVE]})
    group by requisite_id, amount`;
}

test('30 concurrent PayIns of one amount on three self-managed requisites: one live deal per requisite, the rest refused cleanly', async (t) => {
  const { merchantId, keys } = await newMerchant();
  const first = await isolatedTrader({ liquidity: 10_000_000 });
  const others = [await isolatedTrader({ liquidity: 10_000_000, method: first.method }), await isolatedTrader({ liquidity: 10_000_000, method: first.method })];
  for (const trader of [first, ...others]) await withAccount(trader.traderId);
  const results = await Promise.all(Array.from({ length: 30 }, () => createIn(keys, first.method)));
  const created = results.filter((r) => r.status === 200);
  const refused = results.filter((r) => r.status !== 200);
  t.is(created.length, 3, results.map((r) => r.status).join(','));
  t.true(refused.every((r) => r.status === 400 && r.body.title === 'FAILED_PRECONDITION'), refused.map((r) => r.text).join('\n'));
  const groups = await liveByRequisiteAndAmount(merchantId);
  t.is(groups.length, 3);
  t.true(groups.every((g) => g.n === 1));
  const [all] = await sql`select count(*)::int as n from deals where merchant_id = ${merchantId}`;
  t.is(all!.n, 3, 'a refused create leaves no deal');
  // Another amount still fits every requisite.
  t.is((await createIn(keys, first.method, 150_100)).status, 200);
});

test('the unique index refuses a second live PayIn of one amount on a self-managed requisite even past the matcher', async (t) => {
  const { keys } = await newMerchant();
  const trader = await isolatedTrader({ liquidity: 10_000_000 });
  await withAccount(trader.traderId);
  const res = await createIn(keys, trader.method);
  t.is(res.status, 200);
  const row = await dealRow(sql, res.body.deal.deal_id);
  t.true(row.amount_guard);
  const error = await t.throwsAsync(
    sql`insert into deals (id, tenant_id, merchant_id, deal_type, status, idempotency_key, amount, currency, payment_method_id,
        requisite_id, trader_id, amount_usdt, exchange_rate_micro)
      select ${randomUUID()}, tenant_id, merchant_id, deal_type, status, ${randomUUID()}, amount, currency, payment_method_id,
        requisite_id, trader_id, amount_usdt, exchange_rate_micro from deals where id = ${row.id}`,
  );
  t.regex(String((error as { constraint_name?: string }).constraint_name), /deals_requisite_live_amount/);
  // Cancelled, the amount is free again on that requisite.
  t.is((await signed(keys, 'POST', `/api/v1/p2p/merchant/deals/${row.id}/cancel`, {})).status, 200);
  await eventually(async () => (await dealRow(sql, row.id)).status === 'CANCELLED', 'the cancel');
  const again = await createIn(keys, trader.method);
  t.is(again.status, 200, again.text);
  t.is((await dealRow(sql, again.body.deal.deal_id)).requisite_id, trader.requisiteId);
});

test('an operator-managed trader (no account) keeps taking concurrent PayIns of one amount and counts as present', async (t) => {
  const { merchantId, keys } = await newMerchant();
  const trader = await isolatedTrader({ liquidity: 10_000_000 });
  const results = await Promise.all(Array.from({ length: 5 }, () => createIn(keys, trader.method)));
  t.deepEqual(
    results.map((r) => r.status),
    [200, 200, 200, 200, 200],
  );
  const groups = await liveByRequisiteAndAmount(merchantId);
  t.deepEqual(
    groups.map((g) => g.n),
    [5],
  );
  t.false((await dealRow(sql, results[0]!.body.deal.deal_id)).amount_guard);
});

test('presence: an offline, silent or off-hours trader with an account is not matched; an online, fresh one is', async (t) => {
  const { keys } = await newMerchant();
  const trader = await isolatedTrader({ liquidity: 10_000_000 });
  await withAccount(trader.traderId, { online: false });
  t.is((await createIn(keys, trader.method, 100_001)).status, 400, 'offline');
  await sql`update traders set online = true, heartbeat_at = now() - interval '10 minutes' where id = ${trader.traderId}`;
  t.is((await createIn(keys, trader.method, 100_002)).status, 400, 'heartbeat older than the timeout');
  await sql`update traders set heartbeat_at = now() where id = ${trader.traderId}`;
  // Working hours that exclude now: a one-minute window twelve hours away, in UTC.
  const [hours] = await sql<{ from: string; to: string }[]>`
    select to_char((now() at time zone 'UTC')::time + interval '12 hours', 'HH24:MI') as from,
           to_char((now() at time zone 'UTC')::time + interval '12 hours 1 minute', 'HH24:MI') as to`;
  const { from, to } = hours!;
  await sql`update traders set work_timezone = 'UTC', work_from = ${from}::time, work_to = ${to}::time where id = ${trader.traderId}`;
  t.is((await createIn(keys, trader.method, 100_003)).status, 400, 'outside working hours');
  // Hours spanning midnight that include now.
  await sql`update traders set work_from = ${to}::time, work_to = ${from}::time where id = ${trader.traderId}`;
  const res = await createIn(keys, trader.method, 100_004);
  t.is(res.status, 200, res.text);
  t.is((await dealRow(sql, res.body.deal.deal_id)).trader_id, trader.traderId);
});

test('auto-pause: the sweep takes a silent trader offline with heartbeat_lost as of its heartbeat expiry, audited', async (t) => {
  const trader = await isolatedTrader({ liquidity: 0 });
  await withAccount(trader.traderId, { heartbeatAgoSeconds: 600 });
  const fresh = await isolatedTrader({ liquidity: 0 });
  await withAccount(fresh.traderId);
  t.true((await sweepSilentTraders(sql, 90, trader.traderId)) === 1);
  t.is(await sweepSilentTraders(sql, 90, fresh.traderId), 0, 'a fresh heartbeat is left alone');
  const [row] = await sql<{ online: boolean; offline_reason: string; lag: number }[]>`
    select online, offline_reason, extract(epoch from offline_at - heartbeat_at)::int as lag from traders where id = ${trader.traderId}`;
  t.deepEqual(row, { online: false, offline_reason: 'heartbeat_lost', lag: 90 });
  const audit = await sql`select actor_kind, after from audit_log where object_id = ${trader.traderId} and action = 'trader.presence_auto_pause'`;
  t.is(audit.length, 1);
  t.is(audit[0]!.actor_kind, 'system');
});

const limitCases: [string, string, number[], number][] = [
  ['daily_count_limit', 'daily_count_limit = 2', [150_000, 150_100, 150_200], 2],
  ['monthly_limit', 'monthly_limit = 300000', [150_000, 150_000, 150_000], 2],
  ['max_live_deals', 'max_live_deals = 2', [150_000, 150_100, 150_200], 2],
  ['cooldown_seconds', 'cooldown_seconds = 3600', [150_000, 150_100], 1],
];
for (const [name, setting, amounts, fits] of limitCases) {
  test(`the matcher honours ${name}, under concurrency`, async (t) => {
    const { keys } = await newMerchant();
    const trader = await isolatedTrader({ liquidity: 10_000_000 });
    await sql.unsafe(`update requisites set ${setting} where id = $1`, [trader.requisiteId]);
    const results = await Promise.all(amounts.map((amount) => createIn(keys, trader.method, amount)));
    t.is(results.filter((r) => r.status === 200).length, fits, results.map((r) => r.status).join(','));
    t.true(results.filter((r) => r.status !== 200).every((r) => r.body.title === 'FAILED_PRECONDITION'));
  });
}

test('max_live_deals counts live deals only: a finished deal frees its place', async (t) => {
  const { keys } = await newMerchant();
  const trader = await isolatedTrader({ liquidity: 10_000_000 });
  await sql`update requisites set max_live_deals = 1 where id = ${trader.requisiteId}`;
  const first = await createIn(keys, trader.method);
  t.is(first.status, 200);
  t.is((await createIn(keys, trader.method, 150_100)).status, 400);
  t.is((await signed(keys, 'POST', `/api/v1/p2p/merchant/deals/${first.body.deal.deal_id}/cancel`, {})).status, 200);
  await eventually(async () => (await dealRow(sql, first.body.deal.deal_id)).status === 'CANCELLED', 'the cancel');
  t.is((await createIn(keys, trader.method, 150_200)).status, 200);
});

test('approval: a pending requisite is not matched; an admin approves it (audited) and it is; reject needs PENDING_APPROVAL and a reason', async (t) => {
  const { keys } = await newMerchant();
  const trader = await isolatedTrader({ liquidity: 10_000_000 });
  await sql`update requisites set status = 'PENDING_APPROVAL', added_by = 'trader' where id = ${trader.requisiteId}`;
  t.is((await createIn(keys, trader.method)).status, 400);
  const pending = await asOperator('GET', '/api/v1/p2p/admin/requisites/pending');
  t.is(pending.status, 200);
  t.true(pending.body.data.some((r: { requisite_id: string }) => r.requisite_id === trader.requisiteId));
  const noReason = await asOperator('POST', `/api/v1/p2p/admin/requisites/${trader.requisiteId}/reject`, { reason: ' ' });
  t.is(noReason.status, 400);
  const approved = await asOperator('POST', `/api/v1/p2p/admin/requisites/${trader.requisiteId}/approve`);
  t.is(approved.status, 200, approved.text);
  t.is(approved.body.requisite.status, 'ACTIVE');
  t.is((await createIn(keys, trader.method)).status, 200);
  const again = await asOperator('POST', `/api/v1/p2p/admin/requisites/${trader.requisiteId}/reject`, { reason: 'blurry card' });
  t.is(again.status, 400);
  t.regex(again.body.detail, /ACTIVE/);
  const audit = await sql`select action from audit_log where object_id = ${trader.requisiteId} and action like 'requisite.%'`;
  t.deepEqual(
    audit.map((a) => a.action),
    ['requisite.approve'],
  );
  t.is((await asOperator('POST', `/api/v1/p2p/admin/requisites/${randomUUID()}/approve`)).status, 404);
});

test('an operator-added requisite is ACTIVE at once and never in the approval queue', async (t) => {
  const trader = await isolatedTrader({ liquidity: 0 });
  const [row] = await sql`select status, added_by from requisites where id = ${trader.requisiteId}`;
  t.deepEqual({ ...row }, { status: 'ACTIVE', added_by: 'operator' });
  const pending = await asOperator('GET', '/api/v1/p2p/admin/requisites/pending');
  t.false(pending.body.data.some((r: { requisite_id: string }) => r.requisite_id === trader.requisiteId));
});
