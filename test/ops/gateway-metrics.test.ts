/**
 * The gateway's own metrics (config/metrics.ts) move with what happens on the real stack, and
 * every metric the gateway dashboard and the gateway alert rules query is served by some process.
 * Counters are process-wide and other test files run beside this one, so each check is "moved by
 * at least what this test did", read before and after; none passes if nothing records.
 */
import test from 'ava';
import { readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { API_METRICS_URL, newMerchant, signed } from '../helpers/api';
import { testSql } from '../helpers/app';
import { createPayin, operatorDeal } from '../helpers/deals';
import { eventually } from '../helpers/poll';
import { DEAL_FINISH_EVENTS } from '../../config/metrics';
import { WebhookGate } from '../../activities/webhook-isolation';
import { startReceiver } from '../helpers/receiver';
import { merchantSettings, randomTronAddress, walletMerchant, withdraw, withdrawalAction } from '../helpers/wallet';

const workerUrls = (process.env.TEST_WORKER_METRICS_URLS ?? '').split(',').filter(Boolean);
const apiUrl = API_METRICS_URL;

const scrape = async (url: string) => {
  const res = await fetch(url);
  if (res.status !== 200) throw new Error(`${url}: ${res.status}`);
  return res.text();
};
const scrapeWorkers = async () => (await Promise.all(workerUrls.map(scrape))).join('\n');

/** The sum of a metric's samples whose labels include `labels` (the exposition text, one sample per line). */
function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  let sum = 0;
  let seen = false;
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{([^}]*)\})? (\S+)/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = Object.fromEntries([...(m[3] ?? '').matchAll(/([a-zA-Z_]+)="([^"]*)"/g)].map((l) => [l[1], l[2]]));
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) {
      sum += Number(m[4]);
      seen = true;
    }
  }
  if (!seen) throw new Error(`no sample of ${name} ${JSON.stringify(labels)}`);
  return sum;
}

test('the finish events come from the state tables: each final state of a deal type is one event', (t) => {
  t.deepEqual(Object.fromEntries(DEAL_FINISH_EVENTS.payin), { 'deal.completed': 'completed', 'deal.expired': 'expired', 'deal.cancelled': 'cancelled' });
  t.deepEqual(Object.fromEntries(DEAL_FINISH_EVENTS.payout), { 'deal.completed': 'completed', 'deal.failed': 'failed', 'deal.expired': 'expired' });
});

test('an admitted attempt says the circuit it went through: closed, half_open (the probe), open (forced)', (t) => {
  let now = 0;
  const gate = new WebhookGate({ maxInFlightPerEndpoint: 4, maxInFlightPerHost: 8, breakerFailures: 2, cooldownMs: 1000 }, () => now);
  const target = { endpoint: 'm https://a.test/h', host: 'm a.test' };
  const admit = (force = false) => {
    const a = gate.admit(target, force);
    if (!a.admitted) return a.reason;
    return a;
  };
  for (let i = 0; i < 2; i++) {
    const a = admit();
    t.is(typeof a === 'string' ? a : a.circuit, 'closed');
    if (typeof a !== 'string') a.release(false);
  }
  t.is(admit(), 'parked');
  const forced = admit(true);
  t.is(typeof forced === 'string' ? forced : forced.circuit, 'open', 'a manual retry forced through a parked endpoint');
  if (typeof forced !== 'string') forced.release(undefined);
  now = 2000;
  const probe = admit();
  t.is(typeof probe === 'string' ? probe : probe.circuit, 'half_open');
});

test.serial('a PayIn create moves the created counter and the create latency; its confirm moves finished{outcome=completed}', async (t) => {
  const { keys } = await newMerchant();
  const before = await scrapeWorkers();
  const apiBefore = await scrape(apiUrl);
  const created = { type: 'payin', world: 'live' };
  const completed = { type: 'payin', outcome: 'completed', world: 'live' };
  // Every outcome of the state tables exists before its first event.
  for (const outcome of ['completed', 'expired', 'cancelled', 'spam_rejected'])
    t.notThrows(() => sample(before, 'gateway_deals_finished_total', { type: 'payin', outcome }));
  for (const outcome of ['completed', 'failed', 'expired']) t.notThrows(() => sample(before, 'gateway_deals_finished_total', { type: 'payout', outcome }));

  const deal = await createPayin(keys);
  const apiAfter = await scrape(apiUrl);
  t.true(
    sample(apiAfter, 'gateway_deal_create_duration_seconds_count', { type: 'payin' }) >=
      sample(apiBefore, 'gateway_deal_create_duration_seconds_count', { type: 'payin' }) + 1,
    'the create is timed',
  );
  t.true(
    sample(apiAfter, 'gateway_deal_create_duration_seconds_sum', { type: 'payin' }) >
      sample(apiBefore, 'gateway_deal_create_duration_seconds_sum', { type: 'payin' }),
  );
  await eventually(
    async () => sample(await scrapeWorkers(), 'gateway_deals_created_total', created) >= sample(before, 'gateway_deals_created_total', created) + 1,
    'gateway_deals_created_total to move',
  );

  t.is((await operatorDeal(deal.deal_id, 'confirm')).body.deal.status, 'COMPLETED');
  await eventually(
    async () => sample(await scrapeWorkers(), 'gateway_deals_finished_total', completed) >= sample(before, 'gateway_deals_finished_total', completed) + 1,
    'gateway_deals_finished_total{outcome="completed"} to move',
  );
  t.pass();
});

test.serial('a receiver answering 500 moves the failed attempts; a delivered event is observed as lag', async (t) => {
  const receiver = await startReceiver((_, res) => res.writeHead(500).end('no'));
  t.teardown(receiver.close);
  const { keys } = await newMerchant({ webhook_url: receiver.url });
  const before = await scrapeWorkers();
  const failure = { outcome: 'failure', circuit: 'closed' };
  await createPayin(keys);
  await eventually(async () => receiver.received.length > 0, 'a first POST');
  await eventually(
    async () => sample(await scrapeWorkers(), 'gateway_webhook_attempts_total', failure) >= sample(before, 'gateway_webhook_attempts_total', failure) + 1,
    'gateway_webhook_attempts_total{outcome="failure"} to move',
  );
  // The stack's default sink answers 204: any delivered event is observed (this test's merchant delivers none).
  const ok = await newMerchant();
  await createPayin(ok.keys);
  await eventually(
    async () => sample(await scrapeWorkers(), 'gateway_webhook_delivery_lag_seconds_count') >= sample(before, 'gateway_webhook_delivery_lag_seconds_count') + 1,
    'gateway_webhook_delivery_lag_seconds to observe a delivery',
  );
  t.pass();
});

test.serial('a withdrawal waiting for an operator shows in the queue gauges', async (t) => {
  const { keys } = await walletMerchant(10_000, { auto_withdrawal_mode: 'MANUAL_ONLY' });
  const w = await withdraw(keys, { address: randomTronAddress(), amount: 2_000 });
  t.is(w.body.status, 'PENDING_MANUAL', w.text);
  const id = w.body.withdrawal_id as string;
  t.teardown(() => withdrawalAction(id, 'cancel', { reason: 'metrics test' }).then(() => undefined));
  // The gauges are cached (DB_GAUGE_CACHE_MS, 10 s): polled until the read after the withdrawal.
  const live = { status: 'PENDING_MANUAL', world: 'live' };
  const text = await eventually(
    async () => {
      const text = await scrapeWorkers();
      return sample(text, 'gateway_withdrawals_waiting', live) >= 1 && text;
    },
    'gateway_withdrawals_waiting{status="PENDING_MANUAL",world="live"} >= 1',
    120_000,
  );
  t.true(sample(text, 'gateway_withdrawals_oldest_waiting_age_seconds', live) >= 0);
  t.notThrows(() => sample(text, 'gateway_operator_alerts_open', { kind: 'any', world: 'live' }));
});

test.serial(
  'a sandbox merchant\'s waiting withdrawal and its deal\'s alert count under world="sandbox", never in the live gauges the alert rules read',
  async (t) => {
    const sql = testSql();
    t.teardown(() => sql.end());
    const { merchantId, keys } = await newMerchant({ sandbox: true });
    await merchantSettings(merchantId, { auto_withdrawal_mode: 'MANUAL_ONLY' });
    t.is((await signed(keys, 'POST', '/api/v1/p2p/merchant/sandbox/deposits', { amount: 10_000 })).status, 201);
    const w = await withdraw(keys, { address: randomTronAddress(), amount: 2_000 });
    t.is(w.body.status, 'PENDING_MANUAL', w.text);
    const id = w.body.withdrawal_id as string;
    t.teardown(() => withdrawalAction(id, 'cancel', { reason: 'metrics test' }).then(() => undefined));
    // Five hours old: past WithdrawalsWaitingTooLong's PENDING_MANUAL limit (4 h) if it counted as live work.
    await sql`update withdrawals set created_at = now() - interval '5 hours' where id = ${id}`;
    // An open alert on one of its deals (a …33 PayIn: nothing happens to it), resolved afterwards.
    const deal = await createPayin(keys, { amount: 150_033 });
    await sql`insert into operator_alerts (id, kind, deal_id, message) values (${randomUUID()}, 'payout_processing_overdue', ${deal.deal_id}, 'metrics test')`;
    t.teardown(() => sql`update operator_alerts set resolved_at = now() where deal_id = ${deal.deal_id}`.then(() => undefined));

    const sandbox = { status: 'PENDING_MANUAL', world: 'sandbox' };
    const text = await eventually(
      async () => {
        const text = await scrapeWorkers();
        return sample(text, 'gateway_withdrawals_oldest_waiting_age_seconds', sandbox) >= 5 * 3600 && text;
      },
      'gateway_withdrawals_oldest_waiting_age_seconds{status="PENDING_MANUAL",world="sandbox"} >= 5 h',
      120_000,
    );
    t.true(sample(text, 'gateway_withdrawals_waiting', sandbox) >= 1);
    // The live figures the rules read: no five-hour-old withdrawal (nothing else in the suite ages one), no play alert.
    const [oldestLive] = await sql<{ age: number | null }[]>`
    select extract(epoch from now() - min(created_at))::float8 as age from withdrawals where status = 'PENDING_MANUAL' and not sandbox`;
    t.true(sample(text, 'gateway_withdrawals_oldest_waiting_age_seconds', { status: 'PENDING_MANUAL', world: 'live' }) < 4 * 3600);
    t.true((oldestLive!.age ?? 0) < 4 * 3600, 'no live withdrawal of the suite is that old');
    t.true(sample(text, 'gateway_operator_alerts_open', { kind: 'payout_processing_overdue', world: 'sandbox' }) >= 1);
    const [liveAlerts] = await sql<{ n: number }[]>`
    select count(*)::int as n from operator_alerts o left join deals d on d.id = o.deal_id
    where o.resolved_at is null and o.kind = 'payout_processing_overdue' and not coalesce(d.sandbox, false)`;
    if (liveAlerts!.n === 0) {
      t.throws(
        () => sample(text, 'gateway_operator_alerts_open', { kind: 'payout_processing_overdue', world: 'live' }),
        undefined,
        'no live series of a kind only play work has',
      );
    }
  },
);

test.serial('the periodic ledger check runs in a worker and reports 1 with its timestamps', async (t) => {
  const startedAt = Date.now() / 1000;
  // LEDGER_CHECK_INTERVAL_SECONDS is 10 in the test stack. Other files strand a hold on purpose for
  // a while (test/db/create-fence-attempts.test.ts), so a turn may fail meanwhile: wait for a turn
  // after this test began whose result was a pass (the suite's final ledger check requires one).
  const text = await eventually(
    async () => {
      for (const url of workerUrls) {
        const text = await scrape(url);
        const success = sample(text, 'gateway_ledger_check_last_success_timestamp_seconds');
        if (success > startedAt && success >= sample(text, 'gateway_ledger_check_last_failure_timestamp_seconds')) return text;
      }
      return undefined;
    },
    'a passing ledger check turn after the test began',
    240_000, // under ava's 5 min inactivity timeout
  );
  t.is(sample(text, 'gateway_ledger_check_ok'), 1, 'the last turn passed: the gauge says 1');
  t.is(sample(text, 'gateway_ledger_check_last_run_timestamp_seconds'), sample(text, 'gateway_ledger_check_last_success_timestamp_seconds'));
  t.true(sample(text, 'gateway_ledger_check_duration_seconds') > 0);
});

/** Metric names in PromQL text: gateway_* and the API's http_request_duration_seconds, without the histogram suffixes. */
function queriedNames(text: string): string[] {
  const names = new Set<string>();
  for (const m of text.matchAll(/\b(gateway_[a-z0-9_]+|http_request_duration_seconds[a-z_]*)\b/g)) names.add(m[1]!.replace(/_(bucket|sum|count)$/, ''));
  return [...names].sort();
}

test('every gateway metric the dashboard and the alert rules query is served by a process of the stack', async (t) => {
  const dashboard = JSON.parse(readFileSync(new URL('../../deploy/grafana/dashboards/gateway.json', import.meta.url), 'utf8')) as {
    panels: { targets?: { expr: string }[] }[];
  };
  const exprs = dashboard.panels.flatMap((p) => p.targets ?? []).map((target) => target.expr);
  t.true(exprs.length >= 10, 'the dashboard has its panels');
  const rules = readFileSync(new URL('../../deploy/prometheus/rules/gateway.rules.yml', import.meta.url), 'utf8');
  const names = queriedNames([...exprs, ...rules.split('\n').filter((l) => /^\s*expr:/.test(l) || /^\s{8,}\S/.test(l))].join('\n'));
  t.true(names.length >= 10, names.join(' '));
  const served = (await Promise.all([scrape(apiUrl), scrapeWorkers()])).join('\n');
  const missing = names.filter((name) => !new RegExp(`^${name}(_bucket|_sum|_count)?[{ ]`, 'm').test(served));
  t.deepEqual(missing, [], `queried but served by no process: ${missing.join(', ')}`);
});

test('each gateway alert rule has a for:, a severity and a runbook_url whose anchor is a ### of docs/operations.md', (t) => {
  const rules = readFileSync(new URL('../../deploy/prometheus/rules/gateway.rules.yml', import.meta.url), 'utf8');
  const docs = readFileSync(new URL('../../docs/operations.md', import.meta.url), 'utf8');
  const runbook = docs.slice(docs.indexOf('## Runbook: gateway alerts'));
  const anchors = new Set([...runbook.matchAll(/^### (\S+)$/gm)].map((m) => m[1]!.toLowerCase()));
  const blocks = rules.split(/^\s*- alert: /m).slice(1);
  t.true(blocks.length >= 6);
  for (const block of blocks) {
    const name = block.split('\n')[0]!.trim();
    t.regex(block, /^\s+for: \d+[smh]$/m, name);
    t.regex(block, /^\s+severity: (critical|warning|info)$/m, name);
    const url = /runbook_url: (\S+)/.exec(block)?.[1] ?? '';
    t.is(url, `https://github.com/merchant-gateway/gateway/blob/main/docs/operations.md#${name.toLowerCase()}`, name);
    t.true(anchors.has(name.toLowerCase()), `docs/operations.md has ### ${name}`);
  }
});
