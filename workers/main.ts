import { setPriority } from 'node:os';
import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode, DefaultLogger, NativeConnection, Runtime, Worker, type LogLevel } from '@temporalio/worker';
import { loadConfig, tronHotWalletKey } from '../config';
import { createLogger } from '../config/logger';
import { startTracing } from '../config/tracing';
import { appRoleFindings } from '../db/roles';
import { createSql } from '../db/sql';
import { SecretBox } from '../domain/crypto/secret-box';
import { createActivities } from '../activities';
import { adapterWebhookFormats } from '../api/adapters';
import { Client } from '@temporalio/client';
import { temporalConnectionOptions } from '../temporal/connection';
import { temporalDataConverter } from '../temporal/payload-codec';
import { tracingClientInterceptors, tracingWorkerOptions } from '../temporal/tracing';
import { ensureChainWatch } from './chain-watch';
import { startOutboxRelay } from './outbox-relay';
import { startDeskRelay } from './desk-relay';
import { dealsTaskQueue, webhookRetriesTaskQueue, webhooksTaskQueue } from '../workflows/contracts/task-queues';
import { Registry, collectDefaultMetrics } from 'prom-client';
import { startWorkerMetricsServer } from './metrics-server';
import { workerMetrics } from '../config/metrics';
import { registerDbGauges } from './db-gauges';
import { startLedgerChecks } from './ledger-check';
import { startRoutingScoreRefresh } from './routing-scores';

const config = loadConfig();
const log = createLogger(config.LOG_LEVEL, 'worker');
if (config.WORKER_NICE !== 0) setPriority(config.WORKER_NICE);

const sdkLevel: LogLevel = config.LOG_LEVEL === 'debug' || config.LOG_LEVEL === 'trace' ? 'DEBUG' : config.LOG_LEVEL === 'info' ? 'INFO' : 'WARN';
// The Temporal SDK's own metrics (Core: polls, schedule-to-start, slots, sticky cache…) on their own
// Prometheus port, named as the SDK emits them (temporal_ prefix, no unit or _total suffixes).
const sdkMetricsAddress = config.TEMPORAL_SDK_METRICS_PORT === 0 ? undefined : `${config.WORKER_METRICS_HOST}:${config.TEMPORAL_SDK_METRICS_PORT}`;
Runtime.install({
  shutdownSignals: ['SIGINT', 'SIGTERM'],
  logger: new DefaultLogger(sdkLevel),
  ...(sdkMetricsAddress ? { telemetryOptions: { metrics: { prometheus: { bindAddress: sdkMetricsAddress } } } } : {}),
});
// The gateway's own metrics of this process (prom-client), served with /health on WORKER_METRICS_PORT.
const metrics = new Registry();
metrics.setDefaultLabels({ process: 'worker', role: config.WORKER_ROLE });
collectDefaultMetrics({ register: metrics });
// The gateway's business metrics (config/metrics.ts): counters the relay and activities record.
const gateway = workerMetrics(metrics);

// Tracing (OTEL_EXPORTER_OTLP_ENDPOINT), before the SQL pool and the client that look at it: the
// activity interceptors, the workflow spans' sink and the workflow interceptor module; none when off.
const traces = await startTracing('merchant-gateway-worker');
const traced = await tracingWorkerOptions();
const clientInterceptors = await tracingClientInterceptors();

// A worker that sends withdrawals on TRON needs the hot wallet key: refuse to start without one (production).
if (config.CHAIN_ADAPTER === 'trongrid' && config.WORKER_ROLE !== 'webhooks') tronHotWalletKey(config);
const sql = createSql(config.DATABASE_URL, { max: config.DATABASE_POOL_SIZE });
// The worker connects as the app role (db/roles.ts): production refuses to start as more.
const roleFindings = await appRoleFindings(sql);
if (roleFindings.length > 0) {
  const message = `DATABASE_URL connects as more than the app role (${config.DATABASE_APP_ROLE}): ${roleFindings.join('; ')}`;
  if (config.NODE_ENV === 'production') {
    log.fatal({ findings: roleFindings }, message);
    process.exit(1);
  }
  log.warn({ findings: roleFindings }, message);
}
const connection = await NativeConnection.connect(temporalConnectionOptions(config));
// Payloads are sealed with the shared codec (temporal/payload-codec.ts) before they reach Temporal.
const dataConverter = temporalDataConverter(config);
// The webhook format of each api_version: V2's, and those of the API adapters (api/adapters.ts).
const webhookFormats = await adapterWebhookFormats();
// The relay's and activities' client: with tracing on, its signals carry the caller's span.
const client = new Client({
  connection,
  namespace: config.TEMPORAL_NAMESPACE,
  dataConverter,
  ...(clientInterceptors ? { interceptors: clientInterceptors } : {}),
});
const activities = createActivities({
  config,
  sql,
  log,
  secretBox: new SecretBox(config.SECRETS_ENCRYPTION_KEY),
  webhookFormats,
  temporal: client,
  metrics: gateway,
});
// The gauges read from Postgres and the periodic ledger check belong to the deals side: a
// webhooks-only process exports neither, so a split deployment reads and checks once per deals worker.
const dealsSide = config.WORKER_ROLE !== 'webhooks';
if (dealsSide) registerDbGauges({ sql, config, log, registry: metrics });
const workflowsPath = fileURLToPath(new URL('../workflows/index.ts', import.meta.url));
// One bundle for both workers: bundling is ~1.5 s of CPU each, and no poll starts before it ends.
const bundleStarted = performance.now();
const workflowInterceptorModules = traced ? [fileURLToPath(new URL('../workflows/tracing-interceptors.ts', import.meta.url))] : [];
const workflowBundle = await bundleWorkflowCode({ workflowsPath, workflowInterceptorModules, logger: new DefaultLogger('WARN') });
log.info({ ms: Math.round(performance.now() - bundleStarted) }, 'workflow bundle built');
// Deals and webhook deliveries poll separate task queues, so a burst of deliveries never delays
// the first task of a new deal, and a hanging receiver only holds the webhook worker's slots.
// WORKER_ROLE splits them into two processes; the webhook one can then run at a lower OS
// priority (WORKER_NICE), so deal work gets the CPU first when both want it.
const workers: Worker[] = [];
if (config.WORKER_ROLE !== 'webhooks') {
  workers.push(
    await Worker.create({
      connection,
      namespace: config.TEMPORAL_NAMESPACE,
      taskQueue: dealsTaskQueue(config),
      workflowBundle,
      activities,
      dataConverter,
      ...traced,
    }),
  );
}
if (config.WORKER_ROLE !== 'deals') {
  workers.push(
    await Worker.create({
      connection,
      namespace: config.TEMPORAL_NAMESPACE,
      taskQueue: webhooksTaskQueue(config),
      workflowBundle,
      activities,
      dataConverter,
      ...traced,
      // Webhook POSTs wait on the network, not the CPU: room for many.
      maxConcurrentActivityTaskExecutions: 200,
    }),
  );
  // The streams' automatic retries: activities only, dispatched by Temporal at most
  // WEBHOOK_RETRIES_PER_SECOND over all webhook workers — the engine's budget for failing endpoints.
  workers.push(
    await Worker.create({
      connection,
      namespace: config.TEMPORAL_NAMESPACE,
      taskQueue: webhookRetriesTaskQueue(config),
      activities,
      dataConverter,
      ...(traced ? { interceptors: traced.interceptors } : {}),
      maxConcurrentActivityTaskExecutions: 200,
      ...(config.WEBHOOK_RETRIES_PER_SECOND > 0 ? { maxTaskQueueActivitiesPerSecond: config.WEBHOOK_RETRIES_PER_SECOND } : {}),
    }),
  );
}
// A port that cannot be bound costs the metrics, never the work: the worker polls on without them.
const metricsServer = await startWorkerMetricsServer({
  host: config.WORKER_METRICS_HOST,
  port: config.WORKER_METRICS_PORT,
  registry: metrics,
  health: () => ({
    role: config.WORKER_ROLE,
    metrics: [
      { name: 'gateway', url: `http://${config.WORKER_METRICS_HOST}:${config.WORKER_METRICS_PORT}/metrics` },
      ...(sdkMetricsAddress ? [{ name: 'temporal_sdk' as const, url: `http://${sdkMetricsAddress}/metrics` }] : []),
    ],
  }),
}).catch((error: Error) => {
  log.error({ err: error.message, port: config.WORKER_METRICS_PORT }, 'the worker metrics server did not start; the worker runs without it');
  return undefined;
});
const relay = config.OUTBOX_RELAY ? await startOutboxRelay({ sql, client, config, log, webhookFormats, metrics: gateway }) : undefined;
// The desk's events go with the outbox: the processes that relay one relay the other.
const deskRelay = config.OUTBOX_RELAY ? await startDeskRelay({ sql, client, config, log }) : undefined;
const ledgerChecks = dealsSide
  ? startLedgerChecks({ sql, temporal: client, log, metrics: gateway, intervalSeconds: config.LEDGER_CHECK_INTERVAL_SECONDS })
  : undefined;
// The routing scores the matcher reads (workers/routing-scores.ts): refreshed at start, then periodically, by one deals worker per turn.
const routingScores = dealsSide
  ? startRoutingScoreRefresh({
      sql,
      log,
      metrics: gateway,
      windowHours: config.ROUTING_SCORE_WINDOW_HOURS,
      intervalSeconds: config.ROUTING_SCORE_REFRESH_SECONDS,
    })
  : undefined;
// On a real network the deposit watcher runs as one workflow; a deals worker makes sure it runs.
const watch = await ensureChainWatch(client, config);
log.info(
  {
    role: config.WORKER_ROLE,
    nice: config.WORKER_NICE,
    relay: relay !== undefined,
    tracing: traces !== undefined,
    address: config.TEMPORAL_ADDRESS,
    chain: config.CHAIN_ADAPTER,
    chainWatch: watch?.workflowId,
  },
  'workers started',
);
try {
  await Promise.all(workers.map((w) => w.run())); // resolve after SIGINT/SIGTERM once in-flight tasks drained
} finally {
  await relay?.stop();
  await deskRelay?.stop();
  await ledgerChecks?.stop();
  await routingScores?.stop();
  await metricsServer?.close();
  await sql.end({ timeout: 5 });
  await connection.close();
  await traces?.shutdown(); // the last spans are sent
  log.info('worker stopped');
}
