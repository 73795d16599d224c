import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { Registry } from 'prom-client';
import { answerClientErrors, createApp, keepIdleConnections } from '../../api/app';
import type { AppDeps } from '../../api/deps';
import { UploadBudget } from '../../api/auth/upload-budget';
import { startApiMetricsServerOnFreePort } from '../../api/metrics-server';
import { PasswordHashGate } from '../../api/auth/password-hashes';
import { loadConfig, type Config } from '../../config';
import { createSql } from '../../db/sql';
import { SecretBox } from '../../domain/crypto/secret-box';
import { createTemporalClient } from '../../temporal/client';

/**
 * The Temporal client, connected however long a loaded machine takes: the client's own connect
 * deadline is 10 s, and a dev server serving a whole suite on a busy host has taken that long to
 * accept a channel. A connect that fails is tried again for two minutes.
 */
async function temporalClient(config: Config) {
  const deadline = Date.now() + 120_000;
  for (;;) {
    try {
      return await createTemporalClient(config);
    } catch (error) {
      if (Date.now() > deadline || !/Failed to connect/.test((error as Error).message)) throw error;
      await new Promise((r) => setTimeout(r, 1_000));
    }
  }
}

/**
 * The environment of the stack's API and workers: DATABASE_URL is the app role's (the suite's own
 * DATABASE_URL is the owner's, for fixtures), as scripts/test.ts hands it over.
 */
export function appEnv(): NodeJS.ProcessEnv {
  return { ...process.env, DATABASE_URL: process.env.TEST_APP_DATABASE_URL ?? process.env.DATABASE_URL };
}

/**
 * An API process built in-process around the suite's database and Temporal, with config or
 * clock overrides — for behaviour that depends on settings (grace window 0) or on the minute.
 * Connects as the app role, as the stack's API does; its metrics are on a port of their own.
 */
export async function startApp(overrides: Partial<Config> = {}, now: () => number = Date.now) {
  const config = { ...loadConfig(appEnv()), ...overrides };
  const sql = createSql(config.DATABASE_URL, { max: 5 });
  const temporal = await temporalClient(config);
  const deps: AppDeps = {
    config,
    sql,
    temporal,
    log: pino({ level: 'silent' }),
    secretBox: new SecretBox(config.SECRETS_ENCRYPTION_KEY),
    now,
    uploadBudget: UploadBudget.fromConfig(config),
    passwordHashes: PasswordHashGate.fromConfig(config),
  };
  const metrics = new Registry();
  const server = keepIdleConnections(answerClientErrors(createApp(deps, metrics).listen(0, '127.0.0.1')));
  await new Promise((resolve) => server.once('listening', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const metricsServer = await startApiMetricsServerOnFreePort('127.0.0.1', metrics);
  return {
    url,
    /** Its Prometheus endpoint (the API's own port answers 404 for /metrics). */
    metricsUrl: metricsServer.url,
    sql,
    /** Upload bytes this app holds unverified (api/auth/unverified-uploads.ts). */
    uploadBudget: deps.uploadBudget,
    async close() {
      server.close();
      server.closeAllConnections();
      await metricsServer.close();
      await sql.end();
      await temporal.connection.close();
    },
  };
}

export function testSql() {
  return createSql(process.env.DATABASE_URL!, { max: 10 });
}
