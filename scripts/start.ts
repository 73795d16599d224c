/**
 * npm start: the whole stack on this machine, seeded, with URLs printed. Ctrl-C stops it all.
 * Postgres: DATABASE_URL when it answers, else a project-local cluster. Temporal (unless
 * TEMPORAL_ADDRESS already answers), chosen by TEMPORAL_MODE: `server` (default) the real
 * Temporal server on the same Postgres (scripts/temporal-server.ts); `dev-file` the CLI's dev
 * server on a SQLite file in .data; `dev-memory` the dev server in memory.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { loadConfig } from '../config';
import { signJwt } from '../api/auth/jwt';
import { temporalTls } from '../temporal/connection';
import { prepareDatabase } from './database';
import { ensureDemoDispute } from './demo-dispute';
import { SEED_ADMIN_EMAIL, SEED_TRADER_EMAIL } from '../db/seed';
import { startTemporalServer, TEMPORAL_SERVER_VERSION, temporalMode, temporalServerMetricsPort } from './temporal-server';
import {
  DATA_DIR,
  ensurePostgresServer,
  onInterrupt,
  portIsFree,
  say,
  startNode,
  startWorkers,
  startTemporal,
  stopAll,
  temporalAnswers,
  waitForHttp,
  waitForWorkers,
  withDatabase,
} from './stack';

const config = loadConfig({ ...process.env, NODE_ENV: process.env.NODE_ENV ?? 'development' });
mkdirSync(DATA_DIR, { recursive: true });
onInterrupt(stopAll);

const demoWebhookPort = Number(process.env.DEMO_WEBHOOK_PORT ?? 3999);
const demoWebhookUrl = `http://127.0.0.1:${demoWebhookPort}/webhooks`;

const server = await ensurePostgresServer(config.DATABASE_URL);
const databaseUrl = withDatabase(server.url, new URL(config.DATABASE_URL).pathname.slice(1) || 'gateway');
// Migrated and seeded as the owner (DATABASE_URL's role); the API and workers connect as the app role.
const seeded = await prepareDatabase(databaseUrl, config.SECRETS_ENCRYPTION_KEY, demoWebhookUrl, {
  mode: config.NODE_ENV === 'production' ? 'catalogue' : 'demo',
  appRole: config.DATABASE_APP_ROLE,
  ...(config.DATABASE_APP_PASSWORD ? { appPassword: config.DATABASE_APP_PASSWORD } : {}),
});

// The demo secret is shown once by the seed; keep it in the ignored data folder so every start can print it.
const credentialsFile = join(DATA_DIR, `demo-merchant-${new URL(databaseUrl).port}-${new URL(databaseUrl).pathname.slice(1)}.json`);
if (seeded.demoCredentials) writeFileSync(credentialsFile, JSON.stringify(seeded.demoCredentials, null, 2), { mode: 0o600 });
const demo = existsSync(credentialsFile) ? (JSON.parse(readFileSync(credentialsFile, 'utf8')) as { token: string; secret: string }) : undefined;
// The live demo merchant's pair likewise (npm run call -- --live signs with it).
const liveFile = join(DATA_DIR, `live-demo-merchant-${new URL(databaseUrl).port}-${new URL(databaseUrl).pathname.slice(1)}.json`);
if (seeded.demoLiveCredentials) writeFileSync(liveFile, JSON.stringify(seeded.demoLiveCredentials, null, 2), { mode: 0o600 });
// Likewise the console admin's password (made at the first start): a development stack prints it every time.
const adminFile = join(DATA_DIR, `console-admin-${new URL(databaseUrl).port}-${new URL(databaseUrl).pathname.slice(1)}.json`);
if (seeded.adminOperator?.password) writeFileSync(adminFile, JSON.stringify(seeded.adminOperator, null, 2), { mode: 0o600 });
const admin = existsSync(adminFile) ? (JSON.parse(readFileSync(adminFile, 'utf8')) as { email: string; password: string }) : undefined;
// And the demo trader's (the trader app's): made at the first start, printed every time.
const traderFile = join(DATA_DIR, `demo-trader-${new URL(databaseUrl).port}-${new URL(databaseUrl).pathname.slice(1)}.json`);
if (seeded.demoTrader?.password) writeFileSync(traderFile, JSON.stringify(seeded.demoTrader, null, 2), { mode: 0o600 });
const demoTrader = existsSync(traderFile) ? (JSON.parse(readFileSync(traderFile, 'utf8')) as { email: string; password: string }) : undefined;

let temporalAddress = config.TEMPORAL_ADDRESS;
// The Temporal server's Prometheus endpoint: the frontend port + 767 (8000 with the default 7233) in
// every mode, so one scrape address fits; unknown for a Temporal already running elsewhere.
let temporalMetrics = "(the running server's own metrics endpoint)";
const uiPort = Number(process.env.TEMPORAL_UI_PORT ?? 8233);
// The UI decodes the encrypted payloads through the API (loopback callers need no token in development).
const codecEndpoint = `http://127.0.0.1:${config.PORT}/codec`;
if (await temporalAnswers(temporalAddress, temporalTls(config))) {
  say(`using the Temporal server already answering at ${temporalAddress}; point its UI's codec endpoint at ${codecEndpoint}`);
} else {
  const port = Number(temporalAddress.split(':')[1] ?? 7233);
  if (!(await portIsFree(port))) throw new Error(`port ${port} is busy but no Temporal answers there; set TEMPORAL_ADDRESS`);
  const mode = temporalMode('server');
  const metricsPort = temporalServerMetricsPort(port);
  if (!(await portIsFree(metricsPort)))
    throw new Error(`port ${metricsPort} (Temporal's metrics: frontend port + 767) is busy; free it or set another TEMPORAL_ADDRESS port`);
  temporalMetrics = `http://127.0.0.1:${metricsPort}/metrics`;
  if (mode === 'server') {
    say(
      `starting the Temporal server ${TEMPORAL_SERVER_VERSION} on Postgres (databases ${process.env.TEMPORAL_DB ?? 'temporal'}, ${process.env.TEMPORAL_VISIBILITY_DB ?? 'temporal_visibility'}; log in .data/logs/temporal-server.log)`,
    );
    temporalAddress = await startTemporalServer({ postgresUrl: server.url, port, uiPort, codecEndpoint, namespace: config.TEMPORAL_NAMESPACE });
  } else {
    say(
      mode === 'dev-file'
        ? 'starting the Temporal dev server (SQLite in .data/temporal.db)'
        : 'starting the Temporal dev server in memory (nothing survives a restart)',
    );
    temporalAddress = await startTemporal({
      port,
      uiPort,
      codecEndpoint,
      metricsPort,
      ...(mode === 'dev-file' ? { dbFile: join(DATA_DIR, 'temporal.db') } : {}),
      quiet: true,
    });
  }
}

// The API's metrics port (METRICS_PORT) is its own: a busy one is said here, not found missing later.
if (config.METRICS_PORT !== 0 && !(await portIsFree(config.METRICS_PORT))) {
  throw new Error(`port ${config.METRICS_PORT} (the API's metrics, METRICS_PORT) is busy; free it or set METRICS_PORT`);
}

// A demo webhook receiver, so deliveries to the demo merchant are visible in this console.
createServer((req, res) => {
  let body = '';
  req.on('data', (chunk) => (body += chunk));
  req.on('end', () => {
    say(`demo webhook received ${req.headers['x-event-id'] ?? ''}: ${body.slice(0, 300)}`);
    res.writeHead(200).end('ok');
  });
}).listen(demoWebhookPort, '127.0.0.1');

const env = {
  DATABASE_URL: seeded.appDatabaseUrl,
  TEMPORAL_ADDRESS: temporalAddress,
  PORT: String(config.PORT),
  METRICS_PORT: String(config.METRICS_PORT),
  CODEC_CORS_ORIGINS: process.env.CODEC_CORS_ORIGINS ?? `http://127.0.0.1:${uiPort},http://localhost:${uiPort}`,
};
// Deal work and webhook deliveries in two worker processes; the delivery one is niced, so when
// both want the CPU, deals get it first (docs/performance.md, "Isolation"). WORKER_SPLIT=0: one process.
// Their metric ports: WORKER_METRICS_BASE_PORT (9464) and on (deals 9464 gateway + 9465 SDK, webhooks 9466 + 9467).
const workerPorts = await startWorkers('', env, { split: true, basePort: Number(process.env.WORKER_METRICS_BASE_PORT ?? 9464) });
startNode('api', 'api/server.ts', env);
const apiUrl = `http://127.0.0.1:${config.PORT}`;
await waitForHttp(`${apiUrl}/health`);
const workerConfig = loadConfig({ ...process.env, ...env, NODE_ENV: process.env.NODE_ENV ?? 'development' });
say('waiting for the worker to poll its task queues');
await waitForWorkers({
  address: temporalAddress,
  namespace: workerConfig.TEMPORAL_NAMESPACE,
  taskQueues: [workerConfig.TEMPORAL_TASK_QUEUE, workerConfig.WEBHOOK_TASK_QUEUE],
  tls: temporalTls(workerConfig),
});

// A dispute waiting for an arbiter, so the console has one to resolve (made once; none while one is open).
let demoDispute = '';
if (demo) {
  try {
    const { appealId, created } = await ensureDemoDispute(apiUrl, demo);
    demoDispute = `${apiUrl}/console/appeals/${appealId}${created ? '' : '   (still open from an earlier start)'}`;
  } catch (error) {
    say(`the demo dispute could not be made: ${(error as Error).message}`);
  }
}

const operatorJwt = await signJwt({ sub: 'demo-operator', role: 'admin' }, config.JWT_SECRET, 12 * 3600);
const cabinetJwt = await signJwt({ sub: 'demo-user', role: 'merchant', merchant_id: seeded.demoMerchantId ?? '' }, config.JWT_SECRET, 12 * 3600);

console.log(`
  Merchant gateway is up.

  API              ${apiUrl}
  API docs         ${apiUrl}/docs        (OpenAPI: ${apiUrl}/openapi.json)
  Health           ${apiUrl}/health
  Metrics          API http://127.0.0.1:${config.METRICS_PORT}/metrics (its own port, METRICS_PORT; ${apiUrl}/metrics is 404);
                   workers ${workerPorts.map((p) => `http://127.0.0.1:${p.metrics}/metrics + :${p.sdkMetrics}/metrics (SDK)`).join(', ')}
  Temporal UI      http://127.0.0.1:${uiPort}   (payloads decoded via ${codecEndpoint})
  Temporal metrics ${temporalMetrics}   (the server's; the SDK's are the workers' (SDK) ports above)
  Database         ${seeded.appDatabaseUrl}   (the API and workers: app role ${config.DATABASE_APP_ROLE}, DML only, audit_log append-only)
                   ${databaseUrl}   (migrations and seed: the owner)
  Demo webhooks    ${demoWebhookUrl} (printed here)

  Demo merchant    ${seeded.demoMerchantId}
  X-Merchant-Token ${demo?.token ?? '(issued earlier; rotate to get a new pair)'}
  signing secret   ${demo?.secret ?? '(shown once at issue)'}
  Operator console ${apiUrl}/console   (sign in as ${admin?.email ?? seeded.adminOperator?.email ?? SEED_ADMIN_EMAIL}, role admin)
  console password ${admin?.password ?? '(set at the first start and shown once; an admin resets it: PATCH /api/v1/p2p/admin/operators/{id} { password })'}
  Demo dispute     ${demoDispute || '(none: the demo key pair is not in .data)'}
  (the API: POST ${apiUrl}/api/v1/p2p/admin/session { email, password } → cookie gw_operator + csrf_token
   for X-CSRF-Token; docs/console.md)
  Merchant cabinet ${apiUrl}/cabinet   (its people: an admin invites a merchant's first owner,
                   POST /api/v1/p2p/admin/merchants/{id}/owner-invitations { email }; the link is
                   in .data/mailbox/merchants.jsonl; docs/cabinet.md)
  Trader app       ${apiUrl}/trader   (sign in as ${demoTrader?.email ?? SEED_TRADER_EMAIL}, Demo trader Dana; on a phone too)
  trader password  ${demoTrader?.password ?? '(set at the first start and shown once)'}
                   (the first sign-in sets up an authenticator app; go online, then make a live PayIn
                   of a T-Bank payer, which meets Dana first, and confirm it in the app:
                   npm run call -- --live POST /api/v1/p2p/merchant/deals/payin '{"idempotency_key":"try-1","amount":150000,"currency":"RUB","payment_method_id":"card-rub","client_id":"payer-1","payer_bank":"tbank"}'
                   docs/trader.md)
  Operator JWT     ${operatorJwt}
  Cabinet JWT      ${cabinetJwt}
  (JWTs are valid 12 h, signed with the dev JWT_SECRET; more with
   npm run token -- operator   |   npm run token -- cabinet <merchant_id>)

  Try:  npm run call -- GET /api/v1/p2p/my-merchant      (signs with the demo pair)
  Ctrl-C stops everything.
`);
