import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode, DefaultLogger, NativeConnection, Runtime, Worker, type LogLevel } from '@temporalio/worker';
import { loadConfig } from '../config';
import { createLogger } from '../config/logger';
import { createSql } from '../db/sql';
import { SecretBox } from '../domain/secret-box';
import { createActivities } from '../activities';
import { Client } from '@temporalio/client';
import { temporalConnectionOptions, temporalDataConverter } from './client';
import { startOutboxRelay } from './outbox-relay';

const config = loadConfig();
const log = createLogger(config.LOG_LEVEL, 'worker');

const sdkLevel: LogLevel = config.LOG_LEVEL === 'debug' || config.LOG_LEVEL === 'trace' ? 'DEBUG' : config.LOG_LEVEL === 'info' ? 'INFO' : 'WARN';
Runtime.install({ shutdownSignals: ['SIGINT', 'SIGTERM'], logger: new DefaultLogger(sdkLevel) });

const sql = createSql(config.DATABASE_URL, { max: config.DATABASE_POOL_SIZE });
const connection = await NativeConnection.connect(temporalConnectionOptions(config));
// Payloads are sealed with the shared codec (workers/payload-codec.ts) before they reach Temporal.
const dataConverter = temporalDataConverter(config);
const activities = createActivities({ config, sql, log, secretBox: new SecretBox(config.SECRETS_ENCRYPTION_KEY) });
const workflowsPath = fileURLToPath(new URL('../workflows/index.ts', import.meta.url));
// One bundle for both workers: bundling is ~1.5 s of CPU each, and no poll starts before it ends.
const bundleStarted = performance.now();
const workflowBundle = await bundleWorkflowCode({ workflowsPath, logger: new DefaultLogger('WARN') });
log.info({ ms: Math.round(performance.now() - bundleStarted) }, 'workflow bundle built');
// Deals and webhook deliveries poll separate task queues, so a burst of deliveries never delays
// the first task of a new deal, and a hanging receiver only holds the webhook worker's slots.
const dealWorker = await Worker.create({ connection, namespace: config.TEMPORAL_NAMESPACE, taskQueue: config.TEMPORAL_TASK_QUEUE, workflowBundle, activities, dataConverter });
const webhookWorker = await Worker.create({
  connection,
  namespace: config.TEMPORAL_NAMESPACE,
  taskQueue: config.WEBHOOK_TASK_QUEUE,
  workflowBundle,
  activities,
  dataConverter,
  // Webhook POSTs wait on the network, not the CPU: room for many.
  maxConcurrentActivityTaskExecutions: 200,
});
// The relay's client shares the workers' NativeConnection: delivery workflows then start eagerly
// (the first workflow task comes back in the start response to the webhook worker right here).
const client = new Client({ connection, namespace: config.TEMPORAL_NAMESPACE, dataConverter });
const relay = config.OUTBOX_RELAY ? await startOutboxRelay({ sql, client, config, log }) : undefined;
log.info({ taskQueues: [config.TEMPORAL_TASK_QUEUE, config.WEBHOOK_TASK_QUEUE], address: config.TEMPORAL_ADDRESS }, 'workers and outbox relay started');
try {
  await Promise.all([dealWorker.run(), webhookWorker.run()]); // resolve after SIGINT/SIGTERM once in-flight tasks drained
} finally {
  await relay?.stop();
  await sql.end({ timeout: 5 });
  await connection.close();
  log.info('worker stopped');
}
