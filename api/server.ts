import type { Server } from 'node:http';
import { loadConfig } from '../config';
import { createLogger } from '../config/logger';
import { startTracing } from '../config/tracing';
import { createSql } from '../db/sql';
import { SecretBox } from '../domain/secret-box';
import { createTemporalClient } from '../temporal/client';
import { answerClientErrors, createApp } from './app';
import { sweepRateLimitWindows } from './auth/rate-limit';
import { UploadBudget } from './auth/upload-budget';
import { PasswordHashGate } from './auth/password-hashes';

const config = loadConfig();
const log = createLogger(config.LOG_LEVEL, 'api');
// First: the SQL pool, the Temporal client and the app look at it when they are made.
const traces = await startTracing('merchant-gateway-api');
const sql = createSql(config.DATABASE_URL, { max: config.DATABASE_POOL_SIZE });
const temporal = await createTemporalClient(config);
const app = createApp({
  config,
  sql,
  temporal,
  log,
  secretBox: new SecretBox(config.SECRETS_ENCRYPTION_KEY),
  now: Date.now,
  uploadBudget: UploadBudget.fromConfig(config),
  passwordHashes: PasswordHashGate.fromConfig(config),
});

const server: Server = answerClientErrors(app.listen(config.PORT, () => log.info({ port: config.PORT, tracing: traces !== undefined }, 'api listening')));
const sweeper = setInterval(() => void sweepRateLimitWindows(sql, Date.now()).catch(() => {}), 5 * 60_000);
sweeper.unref();

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  log.info({ signal }, 'api stopping');
  clearInterval(sweeper);
  server.close();
  server.closeIdleConnections();
  await sql.end({ timeout: 5 });
  await temporal.connection.close();
  await traces?.shutdown();
  process.exit(0);
}
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));
