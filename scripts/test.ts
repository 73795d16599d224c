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
import { createSql } from '../db/sql';
import { sharedRowChanges, sharedRows } from '../test/helpers/shared-rows';

/** Short durations: every timer of the workflows fires within the suite. */
const TEST_DURATIONS: NodeJS.ProcessEnv = {
  MERCHANT_KEY_GRACE_PERIOD: '900',
  PAYIN_TIMEOUT_SECONDS: '30',
  PAYOUT_ASSIGN_SLA_SECONDS: '30',
  PAYOUT_RETRY_MATCH_SECONDS: '1',
  FEE_DISTRIBUTION_DELAY_SECONDS: '1',
  SANDBOX_TRADER_DELAY_SECONDS: '1',
  WEBHOOK_RETRY_DELAYS: '200ms,400ms,600ms,800ms,1s',
  // The production default: a test's receiver answers in time on a loaded machine (5 s timed out there).
  WEBHOOK_TIMEOUT_MS: '10000',
  OUTBOX_POLL_MS: '200',
  WEBHOOK_STREAM_IDLE_SECONDS: '10',
  // A repeat manual retry within it is refused; long enough that two requests in a row fall inside it.
  CALLBACK_RETRY_COOLDOWN_SECONDS: '60',
  WEBHOOK_BREAKER_COOLDOWN_MS: '1000',
  // The periodic ledger check (workers/ledger-check.ts) runs during the suite: test/ops/gateway-metrics.test.ts waits for a turn.
  LEDGER_CHECK_INTERVAL_SECONDS: '10',
  // The routing scores (workers/routing-scores.ts) follow a test's deals within seconds: test/api/routing.test.ts waits for them.
  ROUTING_SCORE_REFRESH_SECONDS: '2',
  // Every test file signs in from 127.0.0.1, some failing on purpose: the per-address limit of
  // failed sign-ins (50 by default) is tested on an API of its own (test/api/operator-sign-in.test.ts).
  OPERATOR_SIGN_IN_MAX_FAILURES_PER_ADDRESS: '1000',
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

let exitCode = 1;
try {
  const sinkUrl = await startWebhookSink();
  // Untraced, as production runs without OTEL_EXPORTER_OTLP_ENDPOINT: test/ops/tracing.test.ts
  // starts a traced stack of its own (tracing costs the worker ~50 % more CPU per deal).
  stack = await startEphemeralStack('test', TEST_DURATIONS);
  const env = stack.env;
  // Test files run in parallel: none may change the rows they all read (test/helpers/shared-rows.ts).
  const sql = createSql(stack.ownerDatabaseUrl, { max: 1 });
  const shared = await sharedRows(sql);
  exitCode = await new Promise<number>((done) => {
    const ava = spawn(process.execPath, [join(ROOT, 'node_modules', 'ava', 'entrypoints', 'cli.mjs'), ...process.argv.slice(2)], {
      cwd: ROOT,
      stdio: 'inherit',
      env: {
        ...process.env,
        ...env,
        TEST_API_URL: stack!.apiUrl,
        // The API's Prometheus endpoint is on its own port (METRICS_PORT); the API's port answers 404 there.
        TEST_API_METRICS_URL: stack!.apiMetricsUrl,
        // The tests play the DBA (fixtures, time travel, tampering): DATABASE_URL is the owner's. The
        // API and workers run as the app role; in-process apps and workers use it too (test/helpers).
        DATABASE_URL: stack!.ownerDatabaseUrl,
        TEST_APP_DATABASE_URL: env.DATABASE_URL,
        TEST_WEBHOOK_SINK_URL: sinkUrl,
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
  const changed = await sharedRowChanges(sql, shared);
  await sql.end();
  if (changed.length > 0) {
    console.error(`shared rows changed by the tests (a test must own what it changes: test/helpers/shared-rows.ts):\n  ${changed.join('\n  ')}`);
    exitCode = 1;
  }
} catch (error) {
  console.error(error);
} finally {
  await stack?.teardown();
  if (exitCode !== 0) stack?.showLogTails();
}
process.exit(exitCode);
