import type { Server } from 'node:http';
import { Registry } from 'prom-client';
import { loadConfig } from '../config';
import { createLogger } from '../config/logger';
import { startTracing } from '../config/tracing';
import { appRoleFindings } from '../db/roles';
import { createSql } from '../db/sql';
import { SecretBox } from '../domain/crypto/secret-box';
import { createTemporalClient } from '../temporal/client';
import { answerClientErrors, createApp, keepIdleConnections } from './app';
import { sweepRateLimitWindows } from './auth/rate-limit';
import { UploadBudget } from './auth/upload-budget';
import { startApiMetricsServer } from './metrics-server';
import { PasswordHashGate } from './auth/password-hashes';
import { sweepSilentTraders } from './services/presence';
import { sweepSilentDevices } from './services/bank-devices';
import { restartStaleNotifications } from './services/bank-notifications';

const config = loadConfig();
const log = createLogger(config.LOG_LEVEL, 'api');
// First: the SQL pool, the Temporal client and the app look at it when they are made.
const traces = await startTracing('merchant-gateway-api');
const sql = createSql(config.DATABASE_URL, { max: config.DATABASE_POOL_SIZE });
await refuseMoreThanTheAppRole();
const temporal = await createTemporalClient(config);
const metrics = new Registry();
const app = createApp(
  {
    config,
    sql,
    temporal,
    log,
    secretBox: new SecretBox(config.SECRETS_ENCRYPTION_KEY),
    now: Date.now,
    uploadBudget: UploadBudget.fromConfig(config),
    passwordHashes: PasswordHashGate.fromConfig(config),
  },
  metrics,
);

const server: Server = keepIdleConnections(
  answerClientErrors(app.listen(config.PORT, () => log.info({ port: config.PORT, tracing: traces !== undefined }, 'api listening'))),
);
// A port that cannot be bound costs the metrics, never the API.
const metricsServer = await startApiMetricsServer({ host: config.METRICS_HOST, port: config.METRICS_PORT, registry: metrics }).catch((error: Error) => {
  log.error({ err: error.message, port: config.METRICS_PORT }, 'the API metrics server did not start; the API runs without it');
  return undefined;
});
if (metricsServer) log.info({ url: metricsServer.url }, 'api metrics listening');

const sweeper = setInterval(() => void sweepRateLimitWindows(sql, Date.now()).catch(() => {}), 5 * 60_000);
sweeper.unref();
// The auto-pause of traders whose app fell silent (api/services/presence.ts).
const presenceSweeper = setInterval(() => void sweepSilentTraders(sql, config.TRADER_HEARTBEAT_TIMEOUT_SECONDS).catch(() => {}), 15_000);
presenceSweeper.unref();
// Bank devices: the silence of a device unheard for DEVICE_HEARTBEAT_TIMEOUT_SECONDS (audited, shown to its trader), and the
// workflow of a stored credit whose start was lost with an API process (api/services/bank-notifications.ts).
const deviceSweeper = setInterval(() => {
  void sweepSilentDevices(sql, config.DEVICE_HEARTBEAT_TIMEOUT_SECONDS).catch(() => {});
  void restartStaleNotifications({ sql, temporal, config }).catch(() => {});
}, 15_000);
deviceSweeper.unref();

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  log.info({ signal }, 'api stopping');
  clearInterval(sweeper);
  clearInterval(presenceSweeper);
  clearInterval(deviceSweeper);
  server.close();
  server.closeIdleConnections();
  await metricsServer?.close();
  await sql.end({ timeout: 5 });
  await temporal.connection.close();
  await traces?.shutdown();
  process.exit(0);
}
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));

/**
 * The API connects as the app role (db/roles.ts): owner of nothing, no DDL, audit rows appended
 * and read only. Production refuses to start as more; elsewhere it says so.
 */
async function refuseMoreThanTheAppRole() {
  const findings = await appRoleFindings(sql);
  if (findings.length === 0) return;
  const message = `DATABASE_URL connects as more than the app role (${config.DATABASE_APP_ROLE}): ${findings.join('; ')}`;
  if (config.NODE_ENV === 'production') {
    log.fatal({ findings }, message);
    await sql.end({ timeout: 1 });
    process.exit(1);
  }
  log.warn({ findings }, message);
}
