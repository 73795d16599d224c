import { fileURLToPath } from 'node:url';
import { DefaultLogger, NativeConnection, Runtime, Worker, type LogLevel } from '@temporalio/worker';
import { loadConfig } from '../config';
import { createLogger } from '../config/logger';
import { createSql } from '../db/sql';
import { SecretBox } from '../domain/secret-box';
import { createActivities } from '../activities';
import { createTemporalClient } from './client';
import { startOutboxRelay } from './outbox-relay';

const config = loadConfig();
const log = createLogger(config.LOG_LEVEL, 'worker');

const sdkLevel: LogLevel = config.LOG_LEVEL === 'debug' || config.LOG_LEVEL === 'trace' ? 'DEBUG' : config.LOG_LEVEL === 'info' ? 'INFO' : 'WARN';
Runtime.install({ shutdownSignals: ['SIGINT', 'SIGTERM'], logger: new DefaultLogger(sdkLevel) });

const sql = createSql(config.DATABASE_URL, { max: config.DATABASE_POOL_SIZE });
const connection = await NativeConnection.connect({ address: config.TEMPORAL_ADDRESS });
const worker = await Worker.create({
  connection,
  namespace: config.TEMPORAL_NAMESPACE,
  taskQueue: config.TEMPORAL_TASK_QUEUE,
  workflowsPath: fileURLToPath(new URL('../workflows/index.ts', import.meta.url)),
  // Webhook POSTs wait on the network, not the CPU: room for many, so a slow receiver does not starve others.
  maxConcurrentActivityTaskExecutions: 200,
  activities: createActivities({ config, sql, log, secretBox: new SecretBox(config.SECRETS_ENCRYPTION_KEY) }),
});
const client = await createTemporalClient(config);
const relay = await startOutboxRelay({ sql, client, config, log });
log.info({ taskQueue: config.TEMPORAL_TASK_QUEUE, address: config.TEMPORAL_ADDRESS }, 'worker and outbox relay started');
try {
  await worker.run(); // resolves after SIGINT/SIGTERM once in-flight tasks have drained
} finally {
  await relay.stop();
  await client.connection.close();
  await sql.end({ timeout: 5 });
  await connection.close();
  log.info('worker stopped');
}
