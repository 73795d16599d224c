/**
 * Every metric a dashboard panel, dashboard variable or alert rule queries is emitted by a process
 * of the running test stack (the API, the workers' gateway and Temporal SDK endpoints, the Temporal
 * server), after a little real work. New dashboards and rule files are found by globbing.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import test from 'ava';
import { API_METRICS_URL, newMerchant } from '../helpers/api';
import { openAppeal } from '../helpers/appeals';
import { createPayin, operatorDeal } from '../helpers/deals';
import { eventually } from '../helpers/poll';
import {
  dashboardQueries,
  exposedNames,
  interpolateGrafana,
  missingMetrics,
  repositoryQueries,
  ruleQueries,
  selectedMetrics,
  variableQueryMetrics,
} from '../helpers/queried-metrics';
import { ROOT, TEMPORAL_BIN } from '../../scripts/stack';

const list = (value: string | undefined) => (value ?? '').split(',').filter(Boolean);
const endpoints = () => [
  ...(API_METRICS_URL ? [API_METRICS_URL] : []),
  ...list(process.env.TEST_WORKER_METRICS_URLS),
  ...list(process.env.TEST_WORKER_SDK_METRICS_URLS),
  ...list(process.env.TEST_TEMPORAL_METRICS_URL),
];

/**
 * Names a healthy stack does not emit until their event happens (a failure, an idle long poll
 * timing out, a shard moving): accepted when missing from the scrape only because the emitting
 * code has them — the SDK's Rust source shipped in @temporalio/core-bridge (names without the
 * temporal_ prefix), or the Temporal server compiled into the Temporal CLI — so a typo still fails.
 */
const EVENT_ONLY: Record<string, 'sdk' | 'server'> = {
  temporal_workflow_failed: 'sdk',
  temporal_workflow_task_execution_failed: 'sdk',
  temporal_activity_execution_failed: 'sdk',
  temporal_local_activity_execution_failed: 'sdk',
  temporal_request_failure: 'sdk',
  temporal_workflow_task_queue_poll_empty: 'sdk', // a long poll that ended without a task (~70 s idle)
  temporal_activity_poll_no_task: 'sdk',
  temporal_sticky_cache_miss: 'sdk',
  temporal_sticky_cache_total_forced_eviction: 'sdk',
  service_errors: 'server',
  service_error_with_type: 'server',
  persistence_errors: 'server',
  poll_timeouts: 'server', // matching's long poll expiring (1 min idle)
  sharditem_removed_count: 'server',
  workflow_failed: 'server',
  workflow_timeout: 'server',
};

const SDK_CORE = join(ROOT, 'node_modules', '@temporalio', 'core-bridge', 'sdk-core');
let sdkSource: string | undefined;
let serverBinary: Buffer | undefined;

/** Whether the emitting code names this metric (see EVENT_ONLY). */
function emittableBy(source: 'sdk' | 'server', name: string): boolean {
  if (source === 'sdk') {
    sdkSource ??= (readdirSync(SDK_CORE, { recursive: true }) as string[])
      .filter((f) => f.endsWith('.rs'))
      .map((f) => readFileSync(join(SDK_CORE, f), 'utf8'))
      .join('\n');
    return name.startsWith('temporal_') && sdkSource.includes(`"${name.slice('temporal_'.length)}"`);
  }
  serverBinary ??= readFileSync(TEMPORAL_BIN);
  return serverBinary.includes(Buffer.from(name));
}

async function scrape(): Promise<{ names: Set<string>; histograms: Set<string> }> {
  const names = new Set<string>();
  const histograms = new Set<string>();
  for (const url of endpoints()) {
    const res = await fetch(url);
    if (res.status !== 200) throw new Error(`${url} answered ${res.status}`);
    const exposed = exposedNames(await res.text());
    for (const n of exposed.names) names.add(n);
    for (const n of exposed.histograms) histograms.add(n);
  }
  return { names, histograms };
}

test('the extractor finds every selected metric, through functions, aggregations, binary operators and Grafana variables', (t) => {
  t.deepEqual(
    selectedMetrics(
      interpolateGrafana(
        'histogram_quantile(0.99, sum by (le, task_queue) (rate(temporal_workflow_task_schedule_to_start_latency_bucket{namespace=~"$namespace"}[$__rate_interval]))) > 0 or on() absent(temporal_num_pollers) + {__name__="up"}',
      ),
    ),
    [{ name: 'temporal_workflow_task_schedule_to_start_latency_bucket' }, { name: 'temporal_num_pollers' }, { name: 'up' }],
  );
  t.deepEqual(selectedMetrics('sum by (__name__) (rate({__name__=~"service_errors_.*"}[5m]))'), [{ pattern: 'service_errors_.*' }]);
  t.deepEqual(variableQueryMetrics('label_values(temporal_num_pollers{namespace="$namespace"}, task_queue)'), [{ name: 'temporal_num_pollers' }]);
  t.deepEqual(variableQueryMetrics('label_values(namespace)'), []);
  t.throws(() => selectedMetrics('sum(rate(service_requests[5m]'), { message: /syntax error/ });
});

test('a wrongly named query is reported with the file that makes it', (t) => {
  const exposition = [
    '# TYPE temporal_workflow_task_schedule_to_start_latency histogram',
    'temporal_workflow_task_schedule_to_start_latency_bucket{le="100"} 1',
    '# TYPE temporal_num_pollers gauge',
    'temporal_num_pollers{poller_type="workflow_task"} 2',
    '# HELP gateway_deals_created_total Deals created.',
    '# TYPE gateway_deals_created_total counter',
  ].join('\n');
  const { names, histograms } = exposedNames(exposition);
  const dashboard = {
    panels: [
      {
        panels: [
          { targets: [{ expr: 'histogram_quantile(0.99, sum by (le) (rate(temporal_workflow_task_schedule_to_start_latency_milliseconds_bucket[5m])))' }] },
        ],
      },
    ],
    templating: { list: [{ type: 'query', query: { query: 'label_values(temporal_num_poller, task_queue)' } }] },
  };
  const rules = {
    groups: [
      {
        rules: [
          { alert: 'A', expr: 'temporal_workflow_task_schedule_to_start_latency > 1' },
          { record: 'job:x:rate5m', expr: 'rate(gateway_deals_created_total[5m])' },
          { alert: 'B', expr: 'job:x:rate5m > 0' },
        ],
      },
    ],
  };
  const ruled = ruleQueries('r.yml', rules);
  const queried = [...dashboardQueries('d.json', dashboard), ...ruled.queried];
  t.deepEqual(missingMetrics(queried, names, new Set(ruled.recorded), histograms), [
    'temporal_num_poller — queried by d.json',
    'temporal_workflow_task_schedule_to_start_latency (a histogram: query temporal_workflow_task_schedule_to_start_latency_bucket, _count or _sum) — queried by r.yml',
    'temporal_workflow_task_schedule_to_start_latency_milliseconds_bucket — queried by d.json',
  ]);
  // The same queries with the names as emitted: nothing missing (a declared prom-client family counts).
  const fixed = [
    ...dashboardQueries('d.json', {
      panels: [{ targets: [{ expr: 'sum(temporal_num_pollers) + sum(rate(temporal_workflow_task_schedule_to_start_latency_bucket[5m]))' }] }],
    }),
    ...ruled.queried.slice(1),
  ];
  t.deepEqual(missingMetrics(fixed, names, new Set(ruled.recorded), histograms), []);
});

test('the Temporal dashboards are provisionable: no numeric id, a fixed uid, every query on the datasource uid prometheus', (t) => {
  const dir = join(ROOT, 'deploy', 'grafana', 'dashboards');
  const files = readdirSync(dir).filter((f) => /^temporal-.*\.json$/.test(f));
  t.deepEqual(files.sort(), ['temporal-sdk.json', 'temporal-server.json']);
  for (const file of files) {
    const d = JSON.parse(readFileSync(join(dir, file), 'utf8')) as {
      id: unknown;
      uid: string;
      panels: { datasource?: { uid?: string }; targets?: { datasource?: { uid?: string } }[] }[];
      templating: { list: { datasource?: { uid?: string } }[] };
    };
    t.is(d.id, null, file);
    t.regex(d.uid, /^temporal-/, file);
    for (const panel of d.panels.filter((p) => p.targets)) {
      t.is(panel.datasource?.uid, 'prometheus', file);
      for (const target of panel.targets!) t.is(target.datasource?.uid, 'prometheus', file);
    }
    for (const variable of d.templating.list) t.is(variable.datasource?.uid, 'prometheus', file);
  }
});

test('the event-only names are named by the code that emits them (and a made-up one is not)', (t) => {
  for (const [name, source] of Object.entries(EVENT_ONLY)) t.true(emittableBy(source, name), `${name} is not in the ${source}'s code`);
  t.false(emittableBy('sdk', 'temporal_workflow_task_failed'), 'a made-up SDK name');
  t.false(emittableBy('server', 'persistence_errors_total_made_up'), 'a made-up server name');
});

test('every metric the dashboards and alert rules query is emitted by the running stack', async (t) => {
  t.timeout(180_000);
  t.true(
    list(process.env.TEST_TEMPORAL_METRICS_URL).length === 1 && list(process.env.TEST_WORKER_SDK_METRICS_URLS).length > 0,
    `the stack passes every metric endpoint: ${endpoints().join(' ')}`,
  );
  const { queried, recorded, files } = repositoryQueries(ROOT);
  t.true(files.includes('deploy/grafana/dashboards/temporal-sdk.json') && files.includes('deploy/prometheus/rules/temporal.rules.yml'), files.join(' '));

  // A little real work, so lazily created series exist: a PayIn created and confirmed (workflow
  // tasks, local activities, the outbox relay, a webhook delivery), then an appeal of the
  // completed deal (the appeal workflow's steps are regular activities).
  const { keys } = await newMerchant();
  const deal = await createPayin(keys);
  t.is((await operatorDeal(deal.deal_id, 'confirm')).status, 200);
  const appeal = await openAppeal(keys, { deal_id: deal.deal_id, reason: 'The payer says the amount was charged twice.' });
  t.is(appeal.status, 200, appeal.text);

  const provided = new Set(recorded);
  let missing: string[] = [];
  let eventOnly: string[] = [];
  await eventually(
    async () => {
      const { names, histograms } = await scrape();
      const all = missingMetrics(queried, names, provided, histograms);
      eventOnly = all.filter((line) => line.split(' ')[0]! in EVENT_ONLY);
      missing = all.filter((line) => !eventOnly.includes(line));
      return missing.length === 0;
    },
    'every queried metric scraped',
    // Matching writes its backlog gauges (approximate_backlog_*) when it persists a queue's ack
    // level, about a minute after the queue loads: a fresh stack needs that long.
    90_000,
  ).catch(() => undefined); // the names still missing are listed below
  t.deepEqual(missing, [], `queried but emitted by no process of the stack:\n  ${missing.join('\n  ')}`);
  if (eventOnly.length > 0) t.log(`not emitted yet (no such event in this run; named by the emitting code):\n  ${eventOnly.join('\n  ')}`);
});
