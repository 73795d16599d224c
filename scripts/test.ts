/**
 * npm test: one stack per run — its own database (gateway_test_<pid>), its own Temporal dev
 * server (in memory) and its own ports, so it runs beside `npm start` — then ava over unit and
 * integration tests, then teardown. Durations are short so timers fire within the suite.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import postgres from 'postgres';
import { loadConfig } from '../config';
import { prepareDatabase } from './database';
import {
  DATA_DIR,
  ensurePostgresServer,
  freePort,
  onInterrupt,
  ROOT,
  say,
  startNode,
  startTemporal,
  stopAll,
  waitForHttp,
  withDatabase,
} from './stack';

const base = loadConfig({ ...process.env, NODE_ENV: 'test' });
const server = await ensurePostgresServer(process.env.DATABASE_URL ?? base.DATABASE_URL);
const database = `gateway_test_${process.pid}`;
const databaseUrl = withDatabase(server.url, database);

async function dropDatabase() {
  const admin = postgres(withDatabase(server.url, 'postgres'), { max: 1, onnotice: () => {} });
  await admin.unsafe(`drop database if exists "${database}" with (force)`).catch(() => {});
  await admin.end();
}

function showLogTails(names: string[]) {
  for (const name of names) {
    const file = join(DATA_DIR, 'logs', `${name}.log`);
    if (!existsSync(file)) continue;
    const lines = readFileSync(file, 'utf8').trimEnd().split('\n').slice(-60);
    console.log(`\n--- last lines of .data/logs/${name}.log ---\n${lines.join('\n')}`);
  }
}

async function teardown() {
  await stopAll();
  await dropDatabase();
}
onInterrupt(teardown);

let exitCode = 1;
try {
  const secretsKey = randomBytes(32).toString('base64');
  await prepareDatabase(databaseUrl, secretsKey, 'http://127.0.0.1:9/unused');
  const temporalAddress = await startTemporal({ port: await freePort() });
  const apiPort = await freePort();
  const env: NodeJS.ProcessEnv = {
    NODE_ENV: 'test',
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
    DATABASE_URL: databaseUrl,
    TEMPORAL_ADDRESS: temporalAddress,
    TEMPORAL_TASK_QUEUE: 'gateway-test',
    PORT: String(apiPort),
    JWT_SECRET: 'test-jwt-secret-for-the-suite-only',
    SECRETS_ENCRYPTION_KEY: secretsKey,
    CHECKOUT_BASE_URL: `http://127.0.0.1:${apiPort}`,
    MERCHANT_KEY_GRACE_PERIOD: '900',
    PAYIN_TIMEOUT_SECONDS: '30',
    PAYOUT_ASSIGN_SLA_SECONDS: '30',
    PAYOUT_RETRY_MATCH_SECONDS: '1',
    FEE_DISTRIBUTION_DELAY_SECONDS: '1',
    WEBHOOK_RETRY_DELAYS: '200ms,400ms,600ms,800ms,1s',
    CALLBACK_RETRY_COOLDOWN_SECONDS: '2',
    WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
  };
  // Their logs go to .data/logs/test-*.log and are shown when the suite fails.
  rmSync(join(DATA_DIR, 'logs', 'test-api.log'), { force: true });
  rmSync(join(DATA_DIR, 'logs', 'test-worker.log'), { force: true });
  startNode('test-worker', 'workers/main.ts', env, { quiet: true });
  startNode('test-api', 'api/server.ts', env, { quiet: true });
  const apiUrl = `http://127.0.0.1:${apiPort}`;
  await waitForHttp(`${apiUrl}/health`);
  say(`stack ready: api ${apiUrl}, temporal ${temporalAddress}, database ${database}`);

  exitCode = await new Promise<number>((done) => {
    const ava = spawn(process.execPath, [join(ROOT, 'node_modules', 'ava', 'entrypoints', 'cli.mjs'), ...process.argv.slice(2)], {
      cwd: ROOT,
      stdio: 'inherit',
      env: { ...process.env, ...env, TEST_API_URL: apiUrl },
    });
    ava.on('exit', (code) => done(code ?? 1));
  });
} catch (error) {
  console.error(error);
} finally {
  await teardown();
  if (exitCode !== 0) showLogTails(['test-api', 'test-worker']);
}
process.exit(exitCode);
