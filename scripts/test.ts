/**
 * npm test: one throwaway stack per run (see ephemeral-stack.ts), then ava over unit and
 * integration tests, then teardown. Durations are short so timers fire within the suite.
 */
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { startEphemeralStack, type EphemeralStack } from './ephemeral-stack';
import { loadConfig } from '../config';
import { ledgerCheck } from './ledger-check';
import { onInterrupt, ROOT, stopAll } from './stack';

/** Short durations: every timer of the workflows fires within the suite. */
const TEST_DURATIONS: NodeJS.ProcessEnv = {
  MERCHANT_KEY_GRACE_PERIOD: '900',
  PAYIN_TIMEOUT_SECONDS: '30',
  PAYOUT_ASSIGN_SLA_SECONDS: '30',
  PAYOUT_RETRY_MATCH_SECONDS: '1',
  FEE_DISTRIBUTION_DELAY_SECONDS: '1',
  SANDBOX_TRADER_DELAY_SECONDS: '1',
  WEBHOOK_RETRY_DELAYS: '200ms,400ms,600ms,800ms,1s',
  WEBHOOK_TIMEOUT_MS: '5000',
  OUTBOX_POLL_MS: '200',
  WEBHOOK_STREAM_IDLE_SECONDS: '10',
  CALLBACK_RETRY_COOLDOWN_SECONDS: '2',
  WEBHOOK_BREAKER_COOLDOWN_MS: '1000',
  // The periodic ledger check (workers/ledger-check.ts) runs during the suite: test/ops/gateway-metrics.test.ts waits for a turn.
  LEDGER_CHECK_INTERVAL_SECONDS: '10',
};

let stack: EphemeralStack | undefined;
onInterrupt(async () => (stack ? stack.teardown() : stopAll()));

/** Default webhook target of test merchants: answers 204 at once, so deliveries end in one attempt. */
async function startWebhookSink(): Promise<string> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(204).end());
  });
  server.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  server.unref();
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/sink`;
}

/** A span as the OTLP receiver keeps it: what test/ops/tracing.test.ts checks, no more. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  service: string;
  attributes: Record<string, unknown>;
}

/**
 * An in-process OTLP/HTTP receiver (JSON, what @opentelemetry/exporter-trace-otlp-http sends):
 * the stack's processes export their spans to it (OTEL_EXPORTER_OTLP_ENDPOINT), tests read a
 * trace's spans from GET /traces/<trace id>, and the ids of the traces with a span whose attribute
 * starts with a value from GET /traces?attribute=<key>&prefix=<value>. It keeps the last MAX_TRACES traces only.
 */
async function startOtlpReceiver(): Promise<string> {
  const MAX_TRACES = 5000;
  const traces = new Map<string, ReceivedSpan[]>();
  const valueOf = (v: Record<string, unknown> | undefined): unknown => (v ? Object.values(v)[0] : undefined);
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const traceRoute = /^\/traces\/([0-9a-f]{32})$/.exec(req.url ?? '');
      const search = new URL(req.url ?? '/', 'http://receiver');
      if (req.method === 'GET' && search.pathname === '/traces') {
        const [key, prefix] = [search.searchParams.get('attribute') ?? '', search.searchParams.get('prefix') ?? ''];
        const ids = [...traces].filter(([, spans]) => spans.some((s) => String(s.attributes[key] ?? '').startsWith(prefix))).map(([id]) => id);
        res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(ids));
        return;
      }
      if (req.method === 'GET' && traceRoute) {
        res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(traces.get(traceRoute[1]!) ?? []));
        return;
      }
      if (req.method !== 'POST' || req.url !== '/v1/traces') return void res.writeHead(404).end();
      if (!String(req.headers['content-type']).startsWith('application/json')) return void res.writeHead(415).end();
      type Attr = { key: string; value: Record<string, unknown> };
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        resourceSpans?: { resource?: { attributes?: Attr[] }; scopeSpans?: { spans?: (Omit<ReceivedSpan, 'service' | 'attributes'> & { attributes?: Attr[] })[] }[] }[];
      };
      for (const rs of body.resourceSpans ?? []) {
        const service = String(valueOf(rs.resource?.attributes?.find((a) => a.key === 'service.name')?.value) ?? '');
        for (const ss of rs.scopeSpans ?? []) {
          for (const s of ss.spans ?? []) {
            const span: ReceivedSpan = {
              traceId: s.traceId,
              spanId: s.spanId,
              ...(s.parentSpanId ? { parentSpanId: s.parentSpanId } : {}),
              name: s.name,
              kind: s.kind,
              service,
              attributes: Object.fromEntries((s.attributes ?? []).map((a) => [a.key, valueOf(a.value)])),
            };
            const list = traces.get(span.traceId) ?? [];
            if (list.length === 0) {
              traces.set(span.traceId, list);
              if (traces.size > MAX_TRACES) traces.delete(traces.keys().next().value!);
            }
            list.push(span);
          }
        }
      }
      res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
    });
  });
  server.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  server.unref();
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

let exitCode = 1;
try {
  const sinkUrl = await startWebhookSink();
  const otlpUrl = await startOtlpReceiver();
  // The stack traces (config/tracing.ts) to the receiver; a short batch delay so a test's spans arrive soon.
  stack = await startEphemeralStack('test', { ...TEST_DURATIONS, OTEL_EXPORTER_OTLP_ENDPOINT: otlpUrl, OTEL_BSP_SCHEDULE_DELAY: '200' });
  const env = stack.env;
  exitCode = await new Promise<number>((done) => {
    const ava = spawn(process.execPath, [join(ROOT, 'node_modules', 'ava', 'entrypoints', 'cli.mjs'), ...process.argv.slice(2)], {
      cwd: ROOT,
      stdio: 'inherit',
      env: { ...process.env, ...env, TEST_API_URL: stack!.apiUrl,
        TEST_WEBHOOK_SINK_URL: sinkUrl,
        TEST_OTLP_URL: otlpUrl,
        // Every worker process's metric endpoints: its gateway metrics (with /health beside) and the Temporal SDK's.
        TEST_WORKER_METRICS_URLS: stack!.workerPorts.map((p) => `http://127.0.0.1:${p.metrics}/metrics`).join(','),
        TEST_WORKER_SDK_METRICS_URLS: stack!.workerPorts.map((p) => `http://127.0.0.1:${p.sdkMetrics}/metrics`).join(','),
        // The Temporal server's own metrics (dev server --metrics-port, or the real server's METRICS_PORT).
        TEST_TEMPORAL_METRICS_URL: stack!.temporalMetricsUrl,
      },
    });
    ava.on('exit', (code) => done(code ?? 1));
  });
  // After the whole suite: the ledger of everything the tests did must still add up.
  if (!(await ledgerCheck(loadConfig({ ...process.env, ...env })))) exitCode = 1;
} catch (error) {
  console.error(error);
} finally {
  await stack?.teardown();
  if (exitCode !== 0) stack?.showLogTails();
}
process.exit(exitCode);
