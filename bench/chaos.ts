/**
 * npm run chaos [-- --short]: fault injection under load (docs/reliability.md). Starts its own stack with a
 * file-backed Temporal (history survives a kill), drives a bounded mixed load — PayIns to every
 * end state (completed, cancelled, expired, appealed and resolved), PayOuts (completed,
 * rejected), withdrawals, webhooks to receivers that sometimes fail or hang — and SIGKILLs the
 * worker, the API, Temporal, and all three at once, each restarted. Then it waits for quiescence
 * and checks:
 *   - every answered create has its row and its workflow;
 *   - no deal is stuck past its deadline;
 *   - the ledger audit with the business invariants passes;
 *   - every outbox event reached its receiver, a deal's events in the order they were written
 *     (duplicates counted: at-least-once is the promise,
 *     receivers dedupe by event_id / X-Event-Id);
 *   - no 5xx outside the fault windows; recovery time per fault.
 * Prints one summary line and exits non-zero on loss, stuck deals, a broken ledger or invariant.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ChildProcess } from 'node:child_process';
import { spawnSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import postgres from 'postgres';
import { signJwt } from '../api/auth/jwt';
import { loadConfig } from '../config';
import { signatureHeader } from '../domain/crypto/signature';
import { encodeTronAddress } from '../domain/tron/address';
import { createTemporalClient } from '../temporal/client';
import { prepareDatabase } from '../scripts/database';
import { ledgerCheck } from '../scripts/ledger-check';
import { DATA_DIR, ensurePostgresServer, freePort, onInterrupt, say, startNode, startTemporal, stopAll, waitFor, withDatabase } from '../scripts/stack';

const SHORT = process.argv.includes('--short') || process.env.CHAOS_SHORT === '1';
const LOAD_SECONDS = Number(process.env.CHAOS_SECONDS ?? (SHORT ? 50 : 150));
const CLIENTS = Number(process.env.CHAOS_CLIENTS ?? (SHORT ? 4 : 8));
/** Seconds into the load at which each fault strikes. */
const FAULTS: Array<{ at: number; kill: Array<'worker' | 'api' | 'temporal'> }> = (SHORT ? [6, 16, 26, 36] : [20, 50, 80, 110]).map((at, i) => ({
  at,
  kill: [['worker'], ['api'], ['temporal'], ['temporal', 'worker', 'api']][i] as Array<'worker' | 'api' | 'temporal'>,
}));

// ---- the stack -----------------------------------------------------------------------------
const base = loadConfig({ ...process.env, NODE_ENV: 'test' });
const pg = await ensurePostgresServer(process.env.DATABASE_URL ?? base.DATABASE_URL);
const database = `gateway_chaos_${process.pid}`;
const databaseUrl = withDatabase(pg.url, database);
const temporalDb = join(DATA_DIR, `chaos-temporal-${process.pid}.db`);
const teardown = async () => {
  await stopAll();
  rmSync(temporalDb, { force: true });
  const admin = postgres(withDatabase(pg.url, 'postgres'), { max: 1, onnotice: () => {} });
  await admin.unsafe(`drop database if exists "${database}" with (force)`).catch(() => {});
  await admin.end();
};
onInterrupt(teardown);

const secretsKey = randomBytes(32).toString('base64');
// Migrated and seeded as the owner; the API and worker connect as the app role, as everywhere.
const { appDatabaseUrl } = await prepareDatabase(databaseUrl, secretsKey, 'http://127.0.0.1:9/unused', { mode: 'demo' });
const temporalPort = await freePort();
const apiPort = await freePort();
const api = `http://127.0.0.1:${apiPort}`;
const env: NodeJS.ProcessEnv = {
  NODE_ENV: 'test',
  LOG_LEVEL: 'warn',
  DATABASE_URL: appDatabaseUrl,
  TEMPORAL_ADDRESS: `127.0.0.1:${temporalPort}`,
  TEMPORAL_TASK_QUEUE: 'gateway-chaos',
  PORT: String(apiPort),
  // No scraper here: the API serves no metrics port (two chaos runs never fight over one).
  METRICS_PORT: '0',
  JWT_SECRET: 'chaos-jwt-secret-for-this-run-only',
  SECRETS_ENCRYPTION_KEY: secretsKey,
  TEMPORAL_PAYLOAD_KEYS: `chaos:${randomBytes(32).toString('base64')}`,
  CHECKOUT_BASE_URL: api,
  WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
  PAYIN_TIMEOUT_SECONDS: '20',
  PAYOUT_ASSIGN_SLA_SECONDS: '20',
  PAYOUT_RETRY_MATCH_SECONDS: '2',
  PAYOUT_TRANSFER_SLA_SECONDS: '40',
  FEE_DISTRIBUTION_DELAY_SECONDS: '1',
  WEBHOOK_RETRY_DELAYS: '1s,2s,3s,5s,8s',
  WEBHOOK_TIMEOUT_MS: '2000',
  OUTBOX_POLL_MS: '200',
  DEAL_STEP_TIMEOUT_MS: '3000',
};
const config = loadConfig(env);
const children: Partial<Record<'worker' | 'api', ChildProcess>> = {};
const start = {
  temporal: () => startTemporal({ port: temporalPort, dbFile: temporalDb }),
  worker: async () => {
    children.worker = startNode('chaos-worker', 'workers/main.ts', env, { quiet: true });
  },
  api: async () => {
    children.api = startNode('chaos-api', 'api/server.ts', env, { quiet: true });
  },
};
function kill(which: 'worker' | 'api' | 'temporal') {
  if (which === 'temporal') spawnSync('pkill', ['-KILL', '-f', temporalDb]);
  else children[which]?.kill('SIGKILL');
}
await start.temporal();
await start.worker();
await start.api();
const healthy = async () => (await fetch(`${api}/health`, { signal: AbortSignal.timeout(2000) })).status === 200;
await waitFor('the API', healthy);
say(`chaos stack ready: api ${api}, temporal 127.0.0.1:${temporalPort} (file ${temporalDb}), database ${database}`);

// ---- receivers: a clean one, one that fails the first attempt of every 3rd event, one that hangs on every 5th
const received = new Map<string, number>();
/** The order in which events were first accepted by a receiver (a deal's must follow its outbox order). */
const acceptedAt = new Map<string, number>();
function receiver(behaviour: 'ok' | 'flaky' | 'hang') {
  const firstSeen = new Map<string, number>();
  let events = 0;
  const srv = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const id = String(req.headers['x-event-id'] ?? '');
      const first = !firstSeen.has(id);
      if (first) {
        events += 1;
        firstSeen.set(id, events);
      }
      const n = firstSeen.get(id)!;
      if (first && behaviour === 'flaky' && n % 3 === 0) return void res.writeHead(503).end('try again');
      if (first && behaviour === 'hang' && n % 5 === 0) return; // never answers: the attempt times out
      received.set(id, (received.get(id) ?? 0) + 1);
      if (!acceptedAt.has(id)) acceptedAt.set(id, acceptedAt.size + 1);
      res.writeHead(204).end();
    });
  });
  srv.listen(0, '127.0.0.1');
  srv.unref();
  return new Promise<string>((resolve) => srv.once('listening', () => resolve(`http://127.0.0.1:${(srv.address() as AddressInfo).port}/hook`)));
}

// ---- clients ------------------------------------------------------------------------------
const operator = await signJwt({ sub: 'chaos', role: 'admin' }, env.JWT_SECRET!);
interface Pair {
  token: string;
  secret: string;
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const statuses: Array<{ at: number; status: number; what: string }> = [];

async function call(what: string, method: string, path: string, init: { body?: unknown; pair?: Pair; bearer?: string } = {}) {
  const raw = init.body === undefined ? '' : JSON.stringify(init.body);
  const headers: Record<string, string> = raw ? { 'Content-Type': 'application/json' } : {};
  if (init.pair) {
    // Signed as the spec's signing rule says, with the current second: a signature is accepted on any route (api/auth/replay.ts).
    const t = Math.floor(Date.now() / 1000);
    Object.assign(headers, { 'X-Merchant-Token': init.pair.token, 'X-Timestamp': String(t), 'X-Signature': signatureHeader(init.pair.secret, t, raw) });
  }
  if (init.bearer) headers.Authorization = `Bearer ${init.bearer}`;
  try {
    const res = await fetch(api + path, { method, headers, ...(raw ? { body: raw } : {}), signal: AbortSignal.timeout(30_000) });
    const text = await res.text();
    statuses.push({ at: Date.now(), status: res.status, what });
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  } catch {
    statuses.push({ at: Date.now(), status: 0, what }); // refused connection or timeout: a fault window
    await sleep(250); // do not spin while the API is down
    return { status: 0, body: undefined };
  }
}
/**
 * A follow-up move (confirm, complete, resolve …) is repeated until the stack answers at all: a
 * real operator or payer retries, and a move given up on would leave a deal waiting for a person
 * (a PROCESSING payout never expires by design).
 */
async function persist(what: string, method: string, path: string, init: { body?: unknown; pair?: Pair; bearer?: string } = {}) {
  for (let i = 0; i < 120; i += 1) {
    const res = await call(what, method, path, init);
    if (res.status !== 0 && res.status < 500) return res;
    await sleep(500);
  }
  return { status: 0, body: undefined };
}
const asOperator = (what: string, method: string, path: string, body?: unknown) => persist(what, method, path, { body, bearer: operator });

async function merchant(webhookUrl: string) {
  const m = await asOperator('setup', 'POST', '/api/v1/p2p/admin/merchants', {
    name: 'Chaos',
    email: `chaos-${randomUUID()}@example.test`,
    webhook_url: webhookUrl,
    rate_limit_per_minute: 1_000_000,
  });
  const pair = (await asOperator('setup', 'POST', '/api/v1/p2p/merchant/api-keys', { merchant_id: m.body.merchant.id })).body as Pair;
  await asOperator('setup', 'POST', '/api/v1/p2p/admin/deposits', {
    merchant_id: m.body.merchant.id,
    amount: 500_000_000,
    tx_hash: randomBytes(32).toString('hex'),
  });
  const balance = await call('setup', 'GET', '/api/v1/p2p/merchant/balance', { pair });
  return { id: m.body.merchant.id as string, pair, walletId: balance.body.wallets[0].wallet_id as string };
}
const merchants = [await merchant(await receiver('ok')), await merchant(await receiver('flaky')), await merchant(await receiver('hang'))];

const answered: Array<{ kind: 'payin' | 'payout' | 'withdrawal'; id: string }> = [];
const pick = <T>(xs: readonly T[]) => xs[Math.floor(Math.random() * xs.length)]!;

async function payinScenario(m: Awaited<ReturnType<typeof merchant>>) {
  const created = await call('payin create', 'POST', '/api/v1/p2p/merchant/deals/payin', {
    pair: m.pair,
    body: { idempotency_key: randomUUID(), amount: 10_000 + Math.floor(Math.random() * 90_000), currency: 'RUB', payment_method_id: 'card-rub' },
  });
  if (created.status !== 200) return;
  const deal = created.body.deal as { deal_id: string; payment_url: string };
  answered.push({ kind: 'payin', id: deal.deal_id });
  const hash = deal.payment_url.split('/pay/')[1];
  switch (pick(['complete', 'complete', 'cancel', 'expire', 'appeal'] as const)) {
    case 'complete':
      await persist('notify', 'POST', `/api/v1/p2p/checkout/${hash}/notify-payment`);
      await asOperator('confirm', 'POST', `/api/v1/p2p/admin/deals/${deal.deal_id}/confirm`);
      return;
    case 'cancel':
      await persist('cancel', 'POST', `/api/v1/p2p/merchant/deals/${deal.deal_id}/cancel`, { pair: m.pair });
      return;
    case 'expire':
      return; // the payment timeout ends it
    case 'appeal': {
      const appeal = await persist('appeal', 'POST', '/api/v1/p2p/merchant/appeals', {
        pair: m.pair,
        body: { deal_id: deal.deal_id, reason: 'chaos: payer says it paid' },
      });
      if (appeal.status === 200) {
        await asOperator('resolve', 'POST', `/api/v1/p2p/admin/appeals/${appeal.body.data.appeal_id}/resolve`, {
          outcome: pick(['SATISFIED', 'REJECTED']),
          note: 'chaos',
        });
      }
    }
  }
}

async function payoutScenario(m: Awaited<ReturnType<typeof merchant>>) {
  const created = await call('payout create', 'POST', '/api/v1/p2p/merchant/deals/payout', {
    pair: m.pair,
    body: {
      idempotency_key: randomUUID(),
      amount: 50_000,
      currency: 'RUB',
      wallet_id: m.walletId,
      target_requisite: '4111111111111111',
      payment_method: 'card-rub',
    },
  });
  if (created.status !== 200) return;
  const id = created.body.deal.deal_id as string;
  answered.push({ kind: 'payout', id });
  if (created.body.deal.status !== 'MATCHED') return;
  await asOperator('payout start', 'POST', `/api/v1/p2p/admin/deals/${id}/payout/start`);
  if (Math.random() < 0.7) await asOperator('payout complete', 'POST', `/api/v1/p2p/admin/deals/${id}/payout/complete`);
  else await asOperator('payout reject', 'POST', `/api/v1/p2p/admin/deals/${id}/payout/reject`, { reason: 'chaos' });
}

/** A valid mainnet address (0x41 + 20 bytes, Base58Check) nobody holds the key of. */
const TRON_SAMPLE = encodeTronAddress(Uint8Array.from([0x41, ...randomBytes(20)]));
async function withdrawalScenario(m: Awaited<ReturnType<typeof merchant>>) {
  const res = await call('withdraw', 'POST', '/api/v1/p2p/merchant/wallet/withdraw', {
    pair: m.pair,
    body: { address: TRON_SAMPLE, amount: 1_000 + Math.floor(Math.random() * 50_000) },
  });
  if (res.status === 200) answered.push({ kind: 'withdrawal', id: res.body.withdrawal_id });
}

// ---- load and faults --------------------------------------------------------------------------
const loadStart = Date.now();
const loadEnd = loadStart + LOAD_SECONDS * 1000;
const windows: Array<{ kill: string; from: number; to?: number; recoveryMs?: number }> = [];

async function faults() {
  for (const fault of FAULTS) {
    await sleep(Math.max(0, loadStart + fault.at * 1000 - Date.now()));
    const window: (typeof windows)[number] = { kill: fault.kill.join('+'), from: Date.now() };
    windows.push(window);
    say(`fault: SIGKILL ${window.kill}`);
    for (const which of fault.kill) kill(which);
    await sleep(1000);
    if (fault.kill.includes('temporal')) await start.temporal();
    if (fault.kill.includes('worker')) await start.worker();
    if (fault.kill.includes('api')) await start.api();
    // Recovered when the API is healthy and a PayIn can be created end to end.
    await waitFor(
      'recovery',
      async () => {
        if (!(await healthy())) return false;
        const probe = await call('probe', 'POST', '/api/v1/p2p/merchant/deals/payin', {
          pair: merchants[0]!.pair,
          body: { idempotency_key: randomUUID(), amount: 10_000, currency: 'RUB', payment_method_id: 'card-rub' },
        });
        if (probe.status === 200) answered.push({ kind: 'payin', id: probe.body.deal.deal_id });
        return probe.status === 200;
      },
      120_000,
    );
    window.to = Date.now();
    window.recoveryMs = window.to - window.from;
    say(`recovered from ${window.kill} in ${window.recoveryMs} ms`);
  }
}

async function client() {
  while (Date.now() < loadEnd) {
    const m = pick(merchants);
    const scenario = pick([payinScenario, payinScenario, payinScenario, payoutScenario, withdrawalScenario]);
    await scenario(m).catch(() => undefined);
  }
}
await Promise.all([faults(), ...Array.from({ length: CLIENTS }, client)]);
say(`load done: ${answered.length} creates answered, ${statuses.length} requests`);

// ---- quiescence and checks ------------------------------------------------------------------------
const sql = postgres(databaseUrl, { max: 2, onnotice: () => {}, types: { bigint: postgres.BigInt } });
const temporal = await createTemporalClient(config);
const TERMINAL = ['COMPLETED', 'EXPIRED', 'CANCELLED', 'SPAM_REJECTED', 'FAILED'];
const quiet = await waitFor(
  'quiescence (deals terminal or held by an appeal, outbox dispatched, deliveries finished)',
  async () => {
    const [row] = await sql<{ live: number; undispatched: number; delivering: number }[]>`
      select (select count(*)::int from deals where status <> all(${TERMINAL}) and status <> 'APPEALED') as live,
        (select count(*)::int from outbox_events where dispatched_at is null) as undispatched,
        (select count(*)::int from webhook_deliveries where status in ('PENDING', 'RETRY')) as delivering`;
    return row!.live === 0 && row!.undispatched === 0 && row!.delivering === 0;
  },
  180_000,
)
  .then(() => true)
  .catch((error: Error) => {
    say(error.message);
    return false;
  });

const problems: string[] = [];
if (!quiet) {
  const live = await sql<{ deal_type: string; status: string; n: number }[]>`
    select deal_type, status, count(*)::int as n from deals where status <> all(${TERMINAL}) group by 1, 2`;
  const pending = await sql<
    { status: string; n: number }[]
  >`select status, count(*)::int as n from webhook_deliveries where status in ('PENDING', 'RETRY') group by 1`;
  problems.push(`no quiescence: live deals ${JSON.stringify(live)}, deliveries ${JSON.stringify(pending)}`);
}
// 1. every answered create has its row and its workflow
for (const { kind, id } of answered) {
  const table = kind === 'withdrawal' ? 'withdrawals' : 'deals';
  const [row] = await sql.unsafe(`select 1 from ${table} where id = $1`, [id]);
  if (!row) problems.push(`${kind} ${id} answered but has no row`);
  const workflowId = `${kind}:${id}`;
  const exists = await temporal.workflow
    .getHandle(workflowId)
    .describe()
    .then(() => true)
    .catch(() => false);
  if (!exists) problems.push(`${kind} ${id} has no workflow ${workflowId}`);
}
// 2. no deal stuck past its deadline
const stuck = await sql<{ id: string; status: string }[]>`
  select id, status from deals where status <> all(${TERMINAL}) and status <> 'APPEALED' and (
    (deal_type = 'PAYIN' and payment_timeout_at < now() - interval '30 seconds') or
    (deal_type = 'PAYOUT' and status = 'UNASSIGNED' and assign_deadline_at < now() - interval '30 seconds') or
    (deal_type = 'PAYOUT' and status = 'MATCHED' and transfer_deadline_at < now() - interval '30 seconds'))`;
for (const s of stuck) problems.push(`deal ${s.id} stuck in ${s.status}`);
// 3. the ledger with its invariants
const ledgerOk = await ledgerCheck(config);
if (!ledgerOk) problems.push('ledger audit failed');
// 4. every event reached its receiver
const events = await sql<{ id: string }[]>`select id from outbox_events where merchant_id = any(${merchants.map((m) => m.id)})`;
const lost = events.filter((e) => !received.has(e.id));
for (const e of lost.slice(0, 20)) problems.push(`event ${e.id} never reached its receiver`);
if (lost.length > 20) problems.push(`… ${lost.length - 20} more events lost`);
const duplicates = [...received.values()].filter((n) => n > 1).length;
// 4b. a deal's events were accepted in the order they were written (one lane per deal on its endpoint stream)
const dealEvents = await sql<{ id: string; deal_id: string; event_type: string }[]>`
  select id, deal_id, event_type from outbox_events where merchant_id = any(${merchants.map((m) => m.id)}) and deal_id is not null order by deal_id, seq`;
let outOfOrder = 0;
for (let i = 1; i < dealEvents.length; i += 1) {
  const [before, after] = [dealEvents[i - 1]!, dealEvents[i]!];
  if (before.deal_id !== after.deal_id) continue;
  const [a, b] = [acceptedAt.get(before.id), acceptedAt.get(after.id)];
  if (a !== undefined && b !== undefined && b < a) {
    outOfOrder += 1;
    if (outOfOrder <= 10) problems.push(`deal ${after.deal_id}: ${after.event_type} was accepted before the earlier ${before.event_type}`);
  }
}
// 5. no 5xx outside the fault windows (a request that failed while a fault was being recovered is expected)
const inWindow = (at: number) => windows.some((w) => at >= w.from - 1000 && at <= (w.to ?? Infinity) + 5000);
const errors5xx = statuses.filter((s) => s.status >= 500 && !inWindow(s.at));
for (const s of errors5xx.slice(0, 10)) problems.push(`5xx outside a fault window: ${s.what} → ${s.status}`);

const summary = {
  seconds: LOAD_SECONDS,
  creates: answered.length,
  requests: statuses.length,
  faults: windows.map((w) => `${w.kill}:${w.recoveryMs ?? 'never'}ms`).join(' '),
  events: events.length,
  lost: lost.length,
  duplicates,
  outOfOrder,
  stuck: stuck.length,
  ledger: ledgerOk ? 'ok' : 'BROKEN',
  errors5xxOutsideFaults: errors5xx.length,
};
await sql.end();
await temporal.connection.close();
await teardown();
const byOutcome = new Map<string, number>();
for (const s of statuses) byOutcome.set(`${s.what} ${s.status}`, (byOutcome.get(`${s.what} ${s.status}`) ?? 0) + 1);
say(
  `answers: ${[...byOutcome]
    .sort()
    .map(([k, n]) => `${k}×${n}`)
    .join(', ')}`,
);
console.log(`chaos ${problems.length === 0 ? 'PASSED' : 'FAILED'}: ${JSON.stringify(summary)}`);
for (const p of problems.slice(0, 40)) console.log(`  ${p}`);
process.exit(problems.length === 0 ? 0 : 1);
