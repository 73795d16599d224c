/**
 * Traces across the Temporal boundary, on a traced stack of this file's own (the suite's
 * stack runs untraced, as production does by default): its processes export to an in-process OTLP
 * receiver. One PayIn create is one trace whose id is the answer's X-Trace-Id: the API's request
 * span → UpdateWithStart → RunWorkflow → the create step's StartActivity/RunActivity → its SQL,
 * every span's parent in the trace but the root's. And with OTEL_EXPORTER_OTLP_ENDPOINT unset, the
 * tracing module loads nothing of the SDK.
 */
import { spawnSync } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import test from 'ava';
import { startEphemeralStack, type EphemeralStack } from '../../scripts/ephemeral-stack';
import { startOtlpReceiver, type ReceivedSpan } from '../helpers/otlp-receiver';
import { eventually } from '../helpers/poll';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
let OTLP_URL = '';
let stack: EphemeralStack | undefined;
let receiver: Awaited<ReturnType<typeof startOtlpReceiver>> | undefined;
let sink: ReturnType<typeof createServer> | undefined;
// The API helpers read the stack's URL when they load: imported once this file's stack is up.
let helpers: { api: typeof import('../helpers/api'); deals: typeof import('../helpers/deals') };

test.before(async (t) => {
  t.timeout(360_000);
  receiver = await startOtlpReceiver();
  OTLP_URL = receiver.url;
  sink = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(204).end());
  });
  sink.listen(0, '127.0.0.1');
  await new Promise((resolve) => sink!.once('listening', resolve));
  stack = await startEphemeralStack('tracing', {
    // The operator token of test/helpers/api.ts is signed with the suite's secret.
    JWT_SECRET: process.env.JWT_SECRET,
    // Small pools: this stack shares the Postgres server with the suite's.
    DATABASE_POOL_SIZE: '5',
    OTEL_EXPORTER_OTLP_ENDPOINT: OTLP_URL,
    // A short batch delay, so a test's spans arrive soon.
    OTEL_BSP_SCHEDULE_DELAY: '200',
    // The in-process receiver shares the test's CPU: an export may wait for it longer than 10 s.
    OTEL_EXPORTER_OTLP_TIMEOUT: '60000',
    OUTBOX_POLL_MS: '200',
    WEBHOOK_STREAM_IDLE_SECONDS: '5',
  });
  process.env.TEST_API_URL = stack.apiUrl;
  process.env.TEST_WEBHOOK_SINK_URL = `http://127.0.0.1:${(sink.address() as AddressInfo).port}/sink`;
  helpers = { api: await import('../helpers/api'), deals: await import('../helpers/deals') };
});

test.after.always(async () => {
  await stack?.teardown();
  await receiver?.close();
  sink?.close();
});

type Span = ReceivedSpan;
const SERVER = 2;
const CLIENT = 3;

const spansOf = async (traceId: string): Promise<Span[]> => (await fetch(`${OTLP_URL}/traces/${traceId}`)).json() as Promise<Span[]>;

/**
 * Spans arrive in batches, and the delivery stream's RunWorkflow span only when the stream closes
 * (idle): every wait below is on the spans themselves, with a deadline far above what a loaded
 * machine takes; this bounds a test as a whole.
 */
const TEST_DEADLINE_MS = 10 * 60_000;

test('a PayIn create is one trace, its id the X-Trace-Id: API → workflow → activities → SQL, linked into one tree', async (t) => {
  t.timeout(TEST_DEADLINE_MS);
  const { newMerchant, signed } = helpers.api;
  const { checkout, hashOf, PAYIN, payinBody } = helpers.deals;
  const { merchantId, keys } = await newMerchant();
  const created = await signed(keys, 'POST', PAYIN, payinBody());
  t.is(created.status, 200, created.text);
  const traceId = created.headers.get('x-trace-id') ?? '';
  t.regex(traceId, /^[0-9a-f]{32}$/);
  // The run ends (the payer cancels), so its RunWorkflow span ends and is exported too.
  t.is((await checkout(hashOf(created.body.deal.payment_url), 'cancel')).status, 200);

  const wanted = (spans: Span[]) => ({
    api: spans.find((s) => s.service === 'merchant-gateway-api' && s.kind === SERVER && s.name === `POST ${PAYIN}`),
    updateWithStart: spans.find((s) => s.name === 'UpdateWithStartWorkflow:awaitCreation'),
    run: spans.find((s) => s.name === 'RunWorkflow:payinWorkflow'),
    startActivity: spans.find((s) => s.name === 'StartActivity:createPayinDeal'),
    runActivity: spans.find((s) => s.name === 'RunActivity:createPayinDeal'),
    activitySql: spans.find((s) => s.service === 'merchant-gateway-worker' && s.attributes['db.system'] === 'postgresql'),
    apiSql: spans.find((s) => s.service === 'merchant-gateway-api' && s.attributes['db.system'] === 'postgresql'),
  });
  const spans = await eventually(
    async () => {
      const spans = await spansOf(traceId);
      const ids = new Set(spans.map((s) => s.spanId));
      const found = wanted(spans);
      // Complete: every wanted span arrived and every parent named is in the trace (batches arrive apart).
      return Object.values(found).every(Boolean) && spans.every((s) => !s.parentSpanId || ids.has(s.parentSpanId)) && spans;
    },
    `the spans of trace ${traceId}`,
    240_000,
  );
  const found = wanted(spans);
  const byId = new Map(spans.map((s) => [s.spanId, s]));
  // One tree: one root (the API's request span), every other span's parent is in the trace.
  const roots = spans.filter((s) => !s.parentSpanId);
  t.deepEqual(
    roots.map((s) => s.spanId),
    [found.api!.spanId],
    'the request span is the one root',
  );
  t.true(spans.every((s) => s === found.api || byId.has(s.parentSpanId!)));
  t.true(spans.every((s) => s.traceId === traceId));
  // The chain across the boundary: each hop's span descends from the one before.
  const descends = (span: Span, ancestor: Span) => {
    for (let at: Span | undefined = span; at; at = at.parentSpanId ? byId.get(at.parentSpanId) : undefined) if (at === ancestor) return true;
    return false;
  };
  t.true(descends(found.updateWithStart!, found.api!));
  t.true(descends(found.run!, found.updateWithStart!));
  t.true(descends(found.runActivity!, found.startActivity!));
  t.true(descends(found.startActivity!, found.updateWithStart!));
  t.true(descends(found.activitySql!, found.runActivity!));
  t.is(found.api!.attributes['http.route'], PAYIN);
  t.is(found.api!.attributes['http.response.status_code'], 200);
  // SQL spans name the statement's operation and table; no parameters or values travel.
  t.regex(found.activitySql!.name, /^(SELECT|INSERT|UPDATE|DELETE|WITH|BEGIN|transaction)\b/);
  for (const span of spans) {
    for (const value of Object.values(span.attributes)) t.false(String(value).includes(keys.secret), `${span.name} carries no secret`);
  }

  // The deal's webhooks leave through the outbox: the relay's pass (a transaction) signals the
  // merchant's delivery stream and starts a trace of its own, down to the POST (method, host, port,
  // status; no path). The stream's RunWorkflow span, the activities' ancestor, arrives when the
  // stream closes (idle, WEBHOOK_STREAM_IDLE_SECONDS).
  const sink = new URL(process.env.TEST_WEBHOOK_SINK_URL!);
  const chainOf = (spans: Span[], span: Span): Span[] => {
    const byId = new Map(spans.map((s) => [s.spanId, s]));
    const chain = [span];
    for (let at = span; at.parentSpanId; ) {
      const parent = byId.get(at.parentSpanId);
      if (!parent) return [];
      at = parent;
      chain.push(at);
    }
    return chain;
  };
  const delivery = await eventually(
    async () => {
      const ids = (await (
        await fetch(`${OTLP_URL}/traces?attribute=temporalWorkflowId&prefix=${encodeURIComponent(`webhooks:endpoint:${merchantId}:`)}`)
      ).json()) as string[];
      for (const id of ids) {
        const spans = await spansOf(id);
        for (const post of spans.filter((s) => s.name === 'POST' && s.kind === CLIENT && s.attributes['http.response.status_code'] === 204)) {
          const chain = chainOf(spans, post).map((s) => s.name.split(':')[0]!);
          if (chain.length > 0) return { post, chain };
        }
      }
      return undefined;
    },
    'a webhook POST span linked up to its trace’s root',
    300_000,
  );
  for (const hop of ['RunActivity', 'StartActivity', 'RunWorkflow', 'SignalWithStartWorkflow', 'transaction'])
    t.true(delivery.chain.includes(hop), `${hop} in ${delivery.chain.join(' < ')}`);
  t.like(delivery.post.attributes, { 'http.request.method': 'POST', 'server.address': sink.hostname, 'server.port': Number(sink.port) });
  t.false(JSON.stringify(delivery.post.attributes).includes(sink.pathname), 'the target path stays out of the span');
});

test('an incoming trace id (32 hex) or W3C traceparent becomes the request span’s trace id; another form is echoed and kept as an attribute', async (t) => {
  t.timeout(TEST_DEADLINE_MS);
  const { unsigned } = helpers.api;
  const own = 'a'.repeat(16) + 'b'.repeat(16);
  const echoed = await unsigned('GET', '/health', undefined, { 'X-Trace-Id': own });
  t.is(echoed.headers.get('x-trace-id'), own);
  const parentTrace = '0af7651916cd43dd8448eb211c80319c';
  const continued = await unsigned('GET', '/health', undefined, {
    traceparent: `00-${parentTrace}-b7ad6b7169203331-01`,
    'X-Trace-Id': 'ignored-when-a-traceparent-comes',
  });
  t.is(continued.headers.get('x-trace-id'), parentTrace);
  const custom = await unsigned('GET', '/health', undefined, { 'X-Trace-Id': 'caller-trace-12345' });
  t.is(custom.headers.get('x-trace-id'), 'caller-trace-12345');

  // A batch exporter drops a batch its receiver did not take in time (a loaded machine): the same
  // two requests are sent again until their spans arrive; the ids under test are the same each time.
  const [ownSpans, continuedSpans] = await eventually(
    async () => {
      const both = await Promise.all([spansOf(own), spansOf(parentTrace)]);
      if (both.every((spans) => spans.some((s) => s.name === 'GET /health'))) return both;
      await unsigned('GET', '/health', undefined, { 'X-Trace-Id': own });
      await unsigned('GET', '/health', undefined, { traceparent: `00-${parentTrace}-b7ad6b7169203331-01` });
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      return undefined;
    },
    'the /health spans',
    180_000,
  );
  t.is(ownSpans.find((s) => s.name === 'GET /health')!.parentSpanId, undefined);
  t.is(continuedSpans.find((s) => s.name === 'GET /health')!.parentSpanId, 'b7ad6b7169203331');
});

/** The modules of the OpenTelemetry SDK and the Temporal interceptors a process has loaded after startTracing(env). */
function loadedAfterStart(env: NodeJS.ProcessEnv): string[] {
  const script = `
    import { createRequire } from 'node:module';
    const { startTracing, tracing } = await import('./config/tracing.ts');
    const on = await startTracing('probe');
    await import('./temporal/tracing.ts').then((m) => m.tracingClientInterceptors());
    const loaded = Object.keys(createRequire(import.meta.url).cache).filter((f) => /@opentelemetry\\/(sdk-|exporter-|context-|resources)|interceptors-opentelemetry/.test(f));
    console.log(JSON.stringify({ on: on !== undefined, same: on === tracing(), loaded }));
    await on?.shutdown();
  `;
  const { OTEL_EXPORTER_OTLP_ENDPOINT: _drop, ...rest } = process.env;
  const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: ROOT, env: { ...rest, ...env }, encoding: 'utf8' });
  if (run.status !== 0) throw new Error(run.stderr);
  const { same, loaded } = JSON.parse(run.stdout.trim().split('\n').pop()!) as { same: boolean; loaded: string[] };
  if (!same) throw new Error('tracing() does not answer what startTracing started');
  return loaded;
}

test('with OTEL_EXPORTER_OTLP_ENDPOINT unset the tracing module loads no SDK and installs no interceptor; set, it does', (t) => {
  t.deepEqual(loadedAfterStart({}), []);
  const on = loadedAfterStart({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9' });
  t.true(
    on.some((f) => f.includes('sdk-trace-base')),
    'the probe sees the SDK when it is loaded',
  );
  t.true(on.some((f) => f.includes('interceptors-opentelemetry')));
});
