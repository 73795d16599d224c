/**
 * A throwaway stack for `npm test` and `npm run bench`: its own database (<prefix>_<pid>), its
 * own in-memory Temporal dev server and its own ports, so it runs beside `npm start`.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import postgres from 'postgres';
import { loadConfig, parsePayloadKeys } from '../config';
import { prepareDatabase } from './database';
import { dropTemporalDatabases, freeServerPort, startTemporalServer, temporalMode, temporalServerMetricsPort } from './temporal-server';
import {
  DATA_DIR,
  ensurePostgresServer,
  freePort,
  say,
  startExtraWorker,
  startNode,
  startWorkers,
  startTemporal,
  stopAll,
  type WorkerPorts,
  waitForHttp,
  waitForWorkers,
  withDatabase,
} from './stack';

export interface EphemeralStack {
  apiUrl: string;
  /** The API's metrics port (METRICS_PORT): /metrics is served there, not on the API's port. */
  apiMetricsUrl: string;
  /** The database as its owner (migrations, the seed, tests that play the DBA); env.DATABASE_URL is the app role's. */
  ownerDatabaseUrl: string;
  temporalMode: string;
  apiPid: number;
  /** The worker processes' metric ports (gateway /metrics + /health, Temporal SDK /metrics). */
  workerPorts: WorkerPorts[];
  /** The Temporal server's Prometheus endpoint (dev server or real server). */
  temporalMetricsUrl: string;
  env: NodeJS.ProcessEnv;
  /** Starts one more worker process like the first (a replica, its log beside the others); teardown stops it. */
  addWorker(): ReturnType<typeof startExtraWorker>;
  teardown(): Promise<void>;
  showLogTails(): void;
}

export async function startEphemeralStack(name: 'test' | 'bench' | 'replicas' | 'tracing', overrides: NodeJS.ProcessEnv = {}): Promise<EphemeralStack> {
  const base = loadConfig({ ...process.env, NODE_ENV: 'test' });
  const server = await ensurePostgresServer(process.env.DATABASE_URL ?? base.DATABASE_URL);
  const database = `gateway_${name}_${process.pid}`;
  const databaseUrl = withDatabase(server.url, database);
  const logNames = [`${name}-api`, `${name}-worker`, `${name}-webhooks`];

  // dev-memory by default (fast to start, nothing to clean); TEMPORAL_MODE=server or dev-file
  // run the same suite or bench on the durable stacks (throwaway databases / file, dropped after).
  const mode = temporalMode('dev-memory');
  const temporalDatabases = { main: `temporal_${name}_${process.pid}`, visibility: `temporal_${name}_${process.pid}_visibility` };
  const temporalFile = join(DATA_DIR, `temporal-${name}-${process.pid}.db`);
  const teardown = async () => {
    await stopAll();
    const admin = postgres(withDatabase(server.url, 'postgres'), { max: 1, onnotice: () => {} });
    await admin.unsafe(`drop database if exists "${database}" with (force)`).catch(() => {});
    await admin.end();
    if (mode === 'server') await dropTemporalDatabases(server.url, temporalDatabases);
    if (mode === 'dev-file') for (const suffix of ['', '-wal', '-shm']) rmSync(temporalFile + suffix, { force: true });
  };
  const showLogTails = () => {
    for (const log of logNames) {
      const file = join(DATA_DIR, 'logs', `${log}.log`);
      if (!existsSync(file)) continue;
      const lines = readFileSync(file, 'utf8').trimEnd().split('\n').slice(-60);
      console.log(`\n--- last lines of .data/logs/${log}.log ---\n${lines.join('\n')}`);
    }
  };

  const secretsKey = randomBytes(32).toString('base64');
  // Card data is sealed under a key of this run, by id (tests read it from their env).
  const cardDataKeys = `${name}-cards-${process.pid}:${randomBytes(32).toString('base64')}`;
  // Migrated and seeded as the owner; the API and workers connect as the app role (db/roles.ts).
  const { appDatabaseUrl } = await prepareDatabase(databaseUrl, secretsKey, 'http://127.0.0.1:9/unused', {
    mode: 'demo',
    cardDataKeys: parsePayloadKeys(cardDataKeys),
  });
  let temporalAddress: string;
  let temporalMetricsPort: number;
  try {
    if (mode === 'server') {
      const port = await freeServerPort();
      temporalMetricsPort = temporalServerMetricsPort(port);
      temporalAddress = await startTemporalServer({ postgresUrl: server.url, port, databases: temporalDatabases });
    } else {
      temporalMetricsPort = await freePort();
      temporalAddress = await startTemporal({
        port: await freePort(),
        metricsPort: temporalMetricsPort,
        ...(mode === 'dev-file' ? { dbFile: temporalFile } : {}),
      });
    }
  } catch (error) {
    await teardown(); // nothing of a stack that never came up is left behind (databases included)
    throw error;
  }
  const apiPort = await freePort();
  const apiMetricsPort = await freePort();
  const env: NodeJS.ProcessEnv = {
    NODE_ENV: 'test',
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
    DATABASE_URL: appDatabaseUrl,
    TEMPORAL_ADDRESS: temporalAddress,
    TEMPORAL_TASK_QUEUE: `gateway-${name}`,
    PORT: String(apiPort),
    METRICS_PORT: String(apiMetricsPort),
    JWT_SECRET: `${name}-jwt-secret-for-this-run-only`,
    SECRETS_ENCRYPTION_KEY: secretsKey,
    CARD_DATA_KEYS: cardDataKeys,
    // Temporal payloads are sealed under a key of this run (tests read it from their env).
    TEMPORAL_PAYLOAD_KEYS: `${name}-${process.pid}:${randomBytes(32).toString('base64')}`,
    CHECKOUT_BASE_URL: `http://127.0.0.1:${apiPort}`,
    WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    ...overrides,
  };
  // Their logs go to .data/logs/<name>-*.log; showLogTails() prints them when something fails.
  for (const log of logNames) rmSync(join(DATA_DIR, 'logs', `${log}.log`), { force: true });
  // One worker process unless WORKER_SPLIT=1 (deals and deliveries apart, as npm start runs them).
  const workerPorts = await startWorkers(`${name}-`, env, { split: false, quiet: true });
  const api = startNode(`${name}-api`, 'api/server.ts', env, { quiet: true });
  const apiUrl = `http://127.0.0.1:${apiPort}`;
  await waitForHttp(`${apiUrl}/health`);
  const config = loadConfig(env);
  const pollWaitMs = await waitForWorkers({
    address: temporalAddress,
    namespace: config.TEMPORAL_NAMESPACE,
    taskQueues: [config.TEMPORAL_TASK_QUEUE, config.WEBHOOK_TASK_QUEUE],
  });
  say(
    `stack ready, Temporal ${mode} (workers polling ${pollWaitMs} ms after the API answered): api ${apiUrl}, temporal ${temporalAddress}, database ${database}`,
  );
  const temporalMetricsUrl = `http://127.0.0.1:${temporalMetricsPort}/metrics`;
  const addWorker = () => {
    const log = `${name}-worker-${logNames.length - 2}`;
    logNames.push(log);
    rmSync(join(DATA_DIR, 'logs', `${log}.log`), { force: true });
    return startExtraWorker(log, env);
  };
  const apiMetricsUrl = `http://127.0.0.1:${apiMetricsPort}/metrics`;
  return {
    apiUrl,
    apiMetricsUrl,
    ownerDatabaseUrl: databaseUrl,
    temporalMode: mode,
    apiPid: api.pid!,
    workerPorts,
    temporalMetricsUrl,
    env,
    addWorker,
    teardown,
    showLogTails,
  };
}
