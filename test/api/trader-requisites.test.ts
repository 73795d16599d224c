import test from 'ava';
import { randomUUID } from 'node:crypto';
import { PAYIN_LIVE } from '../../db/queries/matching';
import { sweepSilentTraders } from '../../api/services/presence';
import { asOperator, newMerchant, signed } from '../helpers/api';
import { testSql } from '../helpers/app';
import { changeAmount, dealRow, isolatedMethod, isolatedTrader, PAYIN, payinBody } from '../helpers/deals';
import { asTrader, newTrader, TRADER } from '../helpers/trader-session';
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
  t.true(
    refused.every((r) => r.status === 400 && r.body.title === 'FAILED_PRECONDITION'),
    refused.map((r) => r.text).join('\n'),
  );
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
  // The API's sweep may have paused it meanwhile (heartbeat_lost): online again, with a fresh heartbeat.
  await sql`update traders set online = true, heartbeat_at = now() where id = ${trader.traderId}`;
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
  // The API's own sweep may be first (it runs every 15 s): either way exactly one pause is written.
  t.true((await sweepSilentTraders(sql, 90, trader.traderId)) <= 1);
  t.is(await sweepSilentTraders(sql, 90, trader.traderId), 0, 'a paused trader is paused once');
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

// ---------------------------------------------------------------------------------------------
// Through the trader's door
// ---------------------------------------------------------------------------------------------

const REQ = `${TRADER}/requisites`;
const cardBody = (method: string, extra: Record<string, unknown> = {}) => ({
  payment_method: method,
  requisite_type: 'BANK_CARD',
  card_number: '2200111122223333',
  holder_name: 'App Holder',
  bank_name: 'app-bank',
  min_amount: 100,
  max_amount: 10_000_000,
  ...extra,
});

async function onlineTrader() {
  const trader = await newTrader();
  const res = await asTrader(trader.session, 'PUT', `${TRADER}/presence`, { online: true });
  if (res.status !== 200) throw new Error(res.text);
  return trader;
}

test('a trader adds a requisite (pending, not matched), an operator approves it, deals reach it; pause, resume, archive, each audited', async (t) => {
  const { keys } = await newMerchant();
  const method = await isolatedMethod();
  const trader = await onlineTrader();
  const added = await asTrader(trader.session, 'POST', REQ, cardBody(method, { daily_count_limit: 5, cooldown_seconds: 0 }));
  t.is(added.status, 201, added.text);
  const id = added.body.requisite.requisite_id as string;
  t.like(added.body.requisite, { status: 'PENDING_APPROVAL', added_by: 'trader', limits: { daily_count_limit: 5, daily_limit: null } });
  t.is((await createIn(keys, method)).status, 400, 'pending: not matched');
  t.is((await asOperator('POST', `/api/v1/p2p/admin/requisites/${id}/approve`)).status, 200);
  const listed = await asTrader(trader.session, 'GET', REQ);
  t.deepEqual(
    listed.body.data.map((r: { requisite_id: string; status: string }) => [r.requisite_id, r.status]),
    [[id, 'ACTIVE']],
  );
  const deal = await createIn(keys, method);
  t.is(deal.status, 200, deal.text);
  t.is((await dealRow(sql, deal.body.deal.deal_id)).requisite_id, id);

  t.is((await asTrader(trader.session, 'POST', `${REQ}/${id}/resume`)).status, 400, 'resume needs PAUSED');
  t.is((await asTrader(trader.session, 'POST', `${REQ}/${id}/pause`)).body.requisite.status, 'PAUSED');
  t.is((await createIn(keys, method, 150_100)).status, 400, 'paused: not matched');
  t.is((await asTrader(trader.session, 'POST', `${REQ}/${id}/resume`)).body.requisite.status, 'ACTIVE');
  t.is((await createIn(keys, method, 150_200)).status, 200);
  t.is((await asTrader(trader.session, 'POST', `${REQ}/${id}/archive`)).body.requisite.status, 'ARCHIVED');
  t.is((await asTrader(trader.session, 'PATCH', `${REQ}/${id}`, { max_live_deals: 2 })).status, 400, 'archived: no edit');
  t.is((await createIn(keys, method, 150_300)).status, 400);
  const audit = await sql`select action, actor_kind from audit_log where object_id = ${id} order by id`;
  t.deepEqual(
    audit.map((a) => `${a.action} ${a.actor_kind}`),
    [
      'trader.requisite_add trader_account',
      'requisite.approve operator_jwt',
      'requisite.pause trader_account',
      'requisite.resume trader_account',
      'requisite.archive trader_account',
    ],
  );
});

test('editing limits keeps a requisite ACTIVE; new payment details send it back to approval; a rejection shows its reason', async (t) => {
  const method = await isolatedMethod();
  const trader = await onlineTrader();
  const id = (await asTrader(trader.session, 'POST', REQ, cardBody(method))).body.requisite.requisite_id as string;
  const rejected = await asOperator('POST', `/api/v1/p2p/admin/requisites/${id}/reject`, { reason: 'holder name does not match' });
  t.like(rejected.body.requisite, { status: 'REJECTED', rejection_reason: 'holder name does not match' });
  t.like((await asTrader(trader.session, 'GET', `${REQ}/${id}`)).body.requisite, { status: 'REJECTED', rejection_reason: 'holder name does not match' });
  const fixed = await asTrader(trader.session, 'PATCH', `${REQ}/${id}`, { holder_name: 'Right Holder' });
  t.like(fixed.body.requisite, { status: 'PENDING_APPROVAL', rejection_reason: '', holder_name: 'Right Holder' });
  await asOperator('POST', `/api/v1/p2p/admin/requisites/${id}/approve`);
  const limits = await asTrader(trader.session, 'PATCH', `${REQ}/${id}`, {
    daily_limit: 900_000,
    monthly_limit: 5_000_000,
    max_live_deals: 2,
    cooldown_seconds: 30,
  });
  t.is(limits.status, 200, limits.text);
  t.like(limits.body.requisite, {
    status: 'ACTIVE',
    limits: { daily_limit: '900000', monthly_limit: '5000000', max_live_deals: 2, cooldown_seconds: 30 },
  });
  const cleared = await asTrader(trader.session, 'PATCH', `${REQ}/${id}`, { daily_limit: null });
  t.is(cleared.body.requisite.limits.daily_limit, null);
  t.is(cleared.body.requisite.status, 'ACTIVE');
  const card = await asTrader(trader.session, 'PATCH', `${REQ}/${id}`, { card_number: '2200999900001111' });
  t.is(card.body.requisite.status, 'PENDING_APPROVAL');
  const same = await asTrader(trader.session, 'PATCH', `${REQ}/${id}`, { min_amount: 20_000_000 });
  t.is(same.status, 400, 'min above max');
  t.is((await asTrader(trader.session, 'PATCH', `${REQ}/${id}`, { status: 'ACTIVE' })).status, 400, 'the status is not a field');
});

test('a foreign requisite is 404 to a trader on every route; bad input is 400', async (t) => {
  const method = await isolatedMethod();
  const owner = await onlineTrader();
  const other = await newTrader();
  const id = (await asTrader(owner.session, 'POST', REQ, cardBody(method))).body.requisite.requisite_id as string;
  for (const [verb, path, body] of [
    ['GET', `${REQ}/${id}`],
    ['PATCH', `${REQ}/${id}`, { max_live_deals: 1 }],
    ['POST', `${REQ}/${id}/pause`],
    ['POST', `${REQ}/${id}/resume`],
    ['POST', `${REQ}/${id}/archive`],
  ] as const) {
    t.is((await asTrader(other.session, verb, path, body)).status, 404, `${verb} ${path}`);
  }
  t.deepEqual((await asTrader(other.session, 'GET', REQ)).body.data, []);
  t.is((await asTrader(owner.session, 'POST', REQ, cardBody(method, { card_number: undefined }))).status, 400, 'card_number needed');
  t.is((await asTrader(owner.session, 'POST', REQ, cardBody(method, { max_amount: 50 }))).status, 400, 'max below min');
  t.is((await asTrader(owner.session, 'POST', REQ, cardBody('no-such-method'))).status, 400);
  t.is((await asTrader(owner.session, 'POST', REQ, cardBody(method, { cooldown_seconds: -1 }))).status, 400);
  t.is((await asTrader(owner.session, 'GET', `${REQ}/not-a-uuid`)).status, 400);
  t.is((await asOperator('GET', REQ)).status, 403, 'an operator token is no trader session');
});

test('presence through the door: toggle, heartbeat, working hours; silence pauses the trader (heartbeat_lost) and no deal reaches it', async (t) => {
  const { keys } = await newMerchant();
  const method = await isolatedMethod();
  const trader = await newTrader({ online: false });
  const id = (await asTrader(trader.session, 'POST', REQ, cardBody(method))).body.requisite.requisite_id as string;
  await asOperator('POST', `/api/v1/p2p/admin/requisites/${id}/approve`);
  const initial = await asTrader(trader.session, 'GET', `${TRADER}/presence`);
  t.like(initial.body.presence, { online: false, matchable: false });
  t.is((await createIn(keys, method)).status, 400, 'a new trader starts offline');

  const online = await asTrader(trader.session, 'PUT', `${TRADER}/presence`, { online: true });
  t.like(online.body.presence, { online: true, offline_reason: null, matchable: true });
  const beat = await asTrader(trader.session, 'POST', `${TRADER}/presence/heartbeat`);
  t.is(beat.status, 200, beat.text);
  t.true(Date.parse(beat.body.presence.heartbeat_at) >= Date.parse(online.body.presence.heartbeat_at));
  t.is((await createIn(keys, method)).status, 200);

  t.is((await asTrader(trader.session, 'PUT', `${TRADER}/presence`, { working_hours: { timezone: 'Mars/Base', from: '09:00', to: '18:00' } })).status, 400);
  t.is((await asTrader(trader.session, 'PUT', `${TRADER}/presence`, { working_hours: { timezone: 'UTC', from: '9am', to: '18:00' } })).status, 400);
  const hours = await asTrader(trader.session, 'PUT', `${TRADER}/presence`, { working_hours: { timezone: 'Europe/Moscow', from: '22:00', to: '06:00' } });
  t.deepEqual(hours.body.presence.working_hours, { timezone: 'Europe/Moscow', from: '22:00', to: '06:00' });
  await asTrader(trader.session, 'PUT', `${TRADER}/presence`, { working_hours: null });

  // The app falls silent: its heartbeat ages past the timeout.
  await sql`update traders set heartbeat_at = now() - interval '1 hour' where id = ${trader.traderId}`;
  t.is((await createIn(keys, method, 150_100)).status, 400, 'a silent trader gets no deal');
  const paused = await asTrader(trader.session, 'GET', `${TRADER}/presence`);
  t.like(paused.body.presence, { online: false, offline_reason: 'heartbeat_lost', matchable: false });
  t.truthy(paused.body.presence.offline_at);
  const stillOff = await asTrader(trader.session, 'POST', `${TRADER}/presence/heartbeat`);
  t.like(stillOff.body.presence, { online: false, offline_reason: 'heartbeat_lost' }, 'a heartbeat does not bring it back');
  t.like((await asTrader(trader.session, 'PUT', `${TRADER}/presence`, { online: true })).body.presence, { online: true, offline_reason: null });
  t.like((await asTrader(trader.session, 'PUT', `${TRADER}/presence`, { online: false })).body.presence, { online: false, offline_reason: 'manual' });
  const audit = await sql`select action from audit_log where object_id = ${trader.traderId} and action like 'trader.presence%' order by id`;
  t.true(audit.some((a) => a.action === 'trader.presence_auto_pause'));
});

test('an amount change onto an amount already live on the requisite is refused, not retried; another amount is allowed', async (t) => {
  const { keys } = await newMerchant();
  const trader = await isolatedTrader({ liquidity: 10_000_000 });
  await withAccount(trader.traderId);
  const first = await createIn(keys, trader.method, 150_000);
  const second = await createIn(keys, trader.method, 160_000);
  t.is(first.status, 200);
  t.is(second.status, 200);
  const refused = await changeAmount(second.body.deal.deal_id, { amount_fiat: 150_000 });
  t.is(refused.status, 400, refused.text);
  t.regex(refused.body.detail, /another live PayIn of this amount/);
  t.is((await dealRow(sql, second.body.deal.deal_id)).amount, 160_000n);
  t.is((await changeAmount(second.body.deal.deal_id, { amount_fiat: 170_000 })).status, 200);
});
