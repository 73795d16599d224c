/** The worker processes serve their metrics: the gateway's (prom-client) and the Temporal SDK's, listed by /health. */
import test from 'ava';

const gateway = (process.env.TEST_WORKER_METRICS_URLS ?? '').split(',').filter(Boolean);
const sdk = (process.env.TEST_WORKER_SDK_METRICS_URLS ?? '').split(',').filter(Boolean);

test('each worker serves its gateway metrics and lists its endpoints in /health', async (t) => {
  t.true(gateway.length > 0, 'the test stack passes the worker metric URLs');
  for (const url of gateway) {
    const res = await fetch(url);
    t.is(res.status, 200);
    t.regex(await res.text(), /^process_cpu_user_seconds_total\{[^}]*process="worker"/m);
    const health = (await (await fetch(url.replace(/\/metrics$/, '/health'))).json()) as { status: string; metrics: { name: string; url: string }[] };
    t.is(health.status, 'ok');
    t.deepEqual(health.metrics.map((m) => m.name).sort(), ['gateway', 'temporal_sdk']);
  }
});

test('each worker exports the Temporal SDK metrics under the names the SDK emits', async (t) => {
  t.true(sdk.length > 0);
  for (const url of sdk) {
    const text = await (await fetch(url)).text();
    // Core's names: temporal_ prefix, no _total suffix on counters, durations in milliseconds.
    t.regex(text, /^temporal_num_pollers\{/m);
    t.regex(text, /^temporal_worker_task_slots_available\{/m);
  }
});
