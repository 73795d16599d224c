/**
 * npm run bench [-- scenario ...]: starts a throwaway full stack (Postgres, Temporal dev server,
 * worker, API) and drives it over HTTP with signed requests (a fresh timestamp and a real HMAC
 * each). Prints requests/s, p50, p99 and errors per scenario. BENCH_CLIENTS, BENCH_SECONDS tune it.
 * `npm run bench -- parse-rate` needs no stack and starts none.
 */
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import postgres from 'postgres';
import { signJwt } from '../api/auth/jwt';
import { parseRateOf } from '../domain/bank-notifications/parse';
import { signatureHeader } from '../domain/crypto/signature';
import { startEphemeralStack } from '../scripts/ephemeral-stack';
import { childPids, onInterrupt, startNode, waitForWorkers } from '../scripts/stack';
import { failingEndpoints } from './failing-endpoints';
import { cpuSeconds, eventTimeMs, loadAverage, percentile, postgresBackends, printResult, runLoad, runOpenLoop, type LoadResult } from './load';

const clients = Number(process.env.BENCH_CLIENTS ?? 32);
const durationMs = Number(process.env.BENCH_SECONDS ?? 10) * 1000;
const wanted = new Set(process.argv.slice(2));

/**
 * parse-rate: the bank notification parsers on their fixture corpus
 * (test/fixtures/bank-notifications/<bank>.json), per parser and version. Pure code: no stack.
 */
function parseRate() {
  const dir = new URL('../test/fixtures/bank-notifications/', import.meta.url);
  const corpus = readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .flatMap((f) => JSON.parse(readFileSync(new URL(f, dir), 'utf8')) as Parameters<typeof parseRateOf>[0]);
  const rows = parseRateOf(corpus);
  console.log(`parse-rate: ${corpus.length} fixture messages (test/fixtures/bank-notifications/)`);
  console.log(
    `  ${'bank'.padEnd(12)} ${'version'.padStart(7)} ${'messages'.padStart(8)} ${'credits expected'.padStart(16)} ${'credits parsed'.padStart(14)} ${'parse rate'.padStart(10)} ${'mismatches'.padStart(10)}`,
  );
  for (const r of rows) {
    console.log(
      `  ${r.bank.padEnd(12)} ${String(r.version).padStart(7)} ${String(r.total).padStart(8)} ${String(r.expectedCredits).padStart(16)} ${String(r.credits).padStart(14)} ${`${(r.rate * 100).toFixed(1)} %`.padStart(10)} ${String(r.mismatches).padStart(10)}`,
    );
  }
  const mismatches = rows.reduce((sum, r) => sum + r.mismatches, 0);
  if (mismatches > 0) {
    console.log(`  ${mismatches} mismatches: a fixture parses to something other than it expects`);
    process.exitCode = 1;
  }
}

/** Scenarios that need no stack: they run first, and alone (nothing started) when only they are named. */
const stackless: Record<string, () => void> = { 'parse-rate': parseRate };
for (const [name, run] of Object.entries(stackless)) if (wanted.size === 0 || wanted.has(name)) run();
if (wanted.size > 0 && [...wanted].every((name) => name in stackless)) process.exit();

/**
 * BENCH_TRACING=1: the stack traces (config/tracing.ts) to an in-process OTLP/HTTP sink that only
 * counts what it gets, so the exporters do their real work (serialise, POST) — tracing's cost.
 */
let spansReceived = 0;
const otlpSink =
  process.env.BENCH_TRACING === '1'
    ? await (async () => {
        const { createServer } = await import('node:http');
        const server = createServer((req, res) => {
          const chunks: Buffer[] = [];
          req.on('data', (c: Buffer) => chunks.push(c));
          req.on('end', () => {
            // Counting by the id field is enough; parsing every batch would bill the sink's CPU to the bench.
            spansReceived += (
              Buffer.concat(chunks)
                .toString('utf8')
                .match(/"spanId"/g) ?? []
            ).length;
            res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
          });
        });
        server.listen(0, '127.0.0.1');
        await new Promise((r) => server.once('listening', r));
        server.unref();
        return `http://127.0.0.1:${(server.address() as { port: number }).port}`;
      })()
    : undefined;

const stack = await startEphemeralStack('bench', {
  ...(otlpSink ? { OTEL_EXPORTER_OTLP_ENDPOINT: otlpSink, OTEL_BSP_SCHEDULE_DELAY: '1000' } : {}),
  LOG_LEVEL: 'warn',
  DATABASE_POOL_SIZE: '20',
  FEE_DISTRIBUTION_DELAY_SECONDS: '0',
  // Failing deliveries keep retrying during a bench run (the spec's schedule is minutes to hours).
  WEBHOOK_RETRY_DELAYS: process.env.WEBHOOK_RETRY_DELAYS ?? '1s,2s,4s,8s,16s',
  WEBHOOK_TIMEOUT_MS: process.env.WEBHOOK_TIMEOUT_MS ?? '5000',
  // bank-notify: the sandbox trader acts after this long (only sandbox deals: no other scenario has one); a bench device sends many a minute.
  SANDBOX_TRADER_DELAY_SECONDS: process.env.SANDBOX_TRADER_DELAY_SECONDS ?? '1',
  DEVICE_MESSAGES_PER_MINUTE: '1000000',
});
onInterrupt(() => stack.teardown());
const api = stack.apiUrl;
const operator = await signJwt({ sub: 'bench', role: 'admin' }, stack.env.JWT_SECRET!);

type CreatedMerchant = { merchant: { id: string } };
type KeyPair = { token: string; secret: string };

/** An operator's POST; the caller names the answer's shape it reads. */
async function operatorPost<T = unknown>(path: string, body: unknown): Promise<T> {
  const response = await fetch(api + path, {
    method: 'POST',
    headers: { Authorization: `Bearer ${operator}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

// The bench merchant's webhooks go to a fast local receiver, as a working merchant's would.
const benchSink = await (async () => {
  const { createServer } = await import('node:http');
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(204).end());
  });
  server.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  server.unref();
  return `http://127.0.0.1:${(server.address() as { port: number }).port}/hooks`;
})();

const merchant = await operatorPost<CreatedMerchant>('/api/v1/p2p/admin/merchants', {
  name: 'Bench merchant',
  email: `bench-${Date.now()}@example.test`,
  webhook_url: benchSink,
  rate_limit_per_minute: 1_000_000,
  payin_fee_bps: 250,
});
const keys = await operatorPost<KeyPair>('/api/v1/p2p/merchant/api-keys', { merchant_id: merchant.merchant.id });

function signedFetch(method: string, path: string, body = '') {
  const t = Math.floor(Date.now() / 1000);
  return fetch(api + path, {
    method,
    headers: {
      'Content-Type': 'application/json',
      'X-Merchant-Token': keys.token,
      'X-Timestamp': String(t),
      'X-Signature': signatureHeader(keys.secret, t, body),
    },
    ...(body ? { body } : {}),
  });
}

let keyCounter = 0;
const payinBody = () =>
  JSON.stringify({ idempotency_key: `bench-${process.pid}-${keyCounter++}`, amount: 150_000, currency: 'RUB', payment_method_id: 'card-rub' });

let completedLifecycles = 0;
async function lifecycle(): Promise<Response> {
  const created = await signedFetch('POST', '/api/v1/p2p/merchant/deals/payin', payinBody());
  if (!created.ok) return created;
  const { deal } = (await created.json()) as { deal: { deal_id: string; payment_url: string } };
  const hash = deal.payment_url.split('/pay/')[1];
  const notified = await fetch(`${api}/api/v1/p2p/checkout/${hash}/notify-payment`, { method: 'POST' });
  if (!notified.ok) return notified;
  await notified.arrayBuffer();
  const confirmed = await fetch(`${api}/api/v1/p2p/admin/deals/${deal.deal_id}/confirm`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${operator}` },
  });
  if (confirmed.ok) completedLifecycles += 1;
  return confirmed;
}

async function pendingCredits(): Promise<bigint> {
  const res = await signedFetch('GET', '/api/v1/p2p/my-merchant');
  const body = (await res.json()) as { merchant: { balance_usdt: string } };
  return BigInt(body.merchant.balance_usdt);
}

/** A second merchant for the 1M-deal scenarios, so the other scenarios' rows do not mix in. */
async function bulkMerchant(rows: number) {
  const created = await operatorPost<CreatedMerchant>('/api/v1/p2p/admin/merchants', {
    name: 'Bulk merchant',
    email: `bulk-${Date.now()}@example.test`,
    rate_limit_per_minute: 1_000_000,
  });
  const bulkKeys = await operatorPost<KeyPair>('/api/v1/p2p/merchant/api-keys', { merchant_id: created.merchant.id });
  const { createSql } = await import('../db/sql');
  // As the owner, as the bench's own statements all are: ANALYZE is the owner's (the app role's is skipped).
  const sql = createSql(stack.ownerDatabaseUrl, { max: 1 });
  const started = Date.now();
  await sql`
    insert into deals (id, tenant_id, merchant_id, deal_type, status, idempotency_key, amount, currency, client_id,
      target_tail, target_masked, payment_method_id, amount_usdt, exchange_rate_micro, created_at, updated_at)
    select gen_random_uuid(), '00000000-0000-4000-8000-000000000001', ${created.merchant.id},
      case when g % 3 = 0 then 'PAYOUT' else 'PAYIN' end,
      (array['COMPLETED','EXPIRED','CANCELLED','ESCROW_LOCKED','MATCHED'])[1 + g % 5],
      'bulk-' || ${created.merchant.id} || '-' || g, 1000 + g % 100000, 'RUB', 'client-' || (g % 5000),
      -- A recipient's tail and mask only (its sealed number is the application's to write): what search and listings index.
      case when g % 3 = 0 then right('0000' || g, 4) end, case when g % 3 = 0 then '•••• ' || right('0000' || g, 4) else '' end,
      '20000000-0000-4000-8000-000000000001', 10, 92500000,
      now() - make_interval(secs => g), now()
    from generate_series(1, ${rows}) g`;
  await sql`analyze deals`;
  console.log(`  inserted ${rows} deals in ${Math.round((Date.now() - started) / 1000)} s`);
  return { merchantId: created.merchant.id as string, keys: bulkKeys, sql };
}

function signedAs(pair: { token: string; secret: string }, path: string) {
  const t = Math.floor(Date.now() / 1000);
  return fetch(api + path, { headers: { 'X-Merchant-Token': pair.token, 'X-Timestamp': String(t), 'X-Signature': signatureHeader(pair.secret, t, '') } });
}

function peakRssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Math.round(Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024);
}

/** A local receiver: 'fast' answers 204 at once, 'hang' never answers (the worker's timeout ends each try). */
async function startSink(mode: 'fast' | 'hang') {
  const { createServer } = await import('node:http');
  let count = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      count += 1;
      if (mode === 'fast') res.writeHead(204).end();
    });
  });
  server.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received: () => count,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

async function merchantWithWebhook(url: string) {
  const created = await operatorPost<CreatedMerchant>('/api/v1/p2p/admin/merchants', {
    name: 'Webhook bench',
    email: `wh-${Date.now()}-${Math.random()}@example.test`,
    webhook_url: url,
    rate_limit_per_minute: 1_000_000,
  });
  return await operatorPost<KeyPair>('/api/v1/p2p/merchant/api-keys', { merchant_id: created.merchant.id });
}

function createPayinAs(pair: { token: string; secret: string }) {
  const body = payinBody();
  const t = Math.floor(Date.now() / 1000);
  return fetch(`${api}/api/v1/p2p/merchant/deals/payin`, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      'X-Merchant-Token': pair.token,
      'X-Timestamp': String(t),
      'X-Signature': signatureHeader(pair.secret, t, body),
    },
    body,
  });
}

// ---- The bare-Temporal baseline: a trivial workflow started as a deal is, on the same server. ----
const baselineQueue = `bench-baseline-${process.pid}`;
let baselineClient: import('@temporalio/client').Client | undefined;
/** Starts the baseline's worker (its own process) and client; ready once the worker polls. */
async function startBaseline() {
  if (baselineClient) return;
  const { createTemporalClient } = await import('../temporal/client');
  const { loadConfig } = await import('../config');
  baselineClient = await createTemporalClient(loadConfig(stack.env));
  startNode('bench-baseline-worker', 'bench/baseline/worker.ts', { ...stack.env, BENCH_BASELINE_QUEUE: baselineQueue }, { quiet: true });
  await waitForWorkers({ address: stack.env.TEMPORAL_ADDRESS!, namespace: 'default', taskQueues: [baselineQueue] });
  await baselineRequest(-1); // first start: connection and caches warm
}

async function baselineRequest(i: number): Promise<Response> {
  const { WithStartWorkflowOperation } = await import('@temporalio/client');
  const { baselineCreateUpdate } = await import('./baseline/workflows');
  const { DealIdKey, DealStatusKey, DealTypeKey, MerchantIdKey } = await import('../workflows/contracts/search-attributes');
  if (!baselineClient) throw new Error('startBaseline() first');
  const id = `${process.pid}-${i}-${keyCounter++}`;
  try {
    await baselineClient.workflow.executeUpdateWithStart(baselineCreateUpdate, {
      startWorkflowOperation: new WithStartWorkflowOperation('baselineWorkflow', {
        workflowId: `baseline:${id}`,
        taskQueue: baselineQueue,
        workflowIdConflictPolicy: 'USE_EXISTING',
        args: [],
        typedSearchAttributes: [
          { key: MerchantIdKey, value: 'bench' },
          { key: DealIdKey, value: id },
          { key: DealTypeKey, value: 'PAYIN' },
          { key: DealStatusKey, value: 'INITIALIZED' },
        ],
      } as never),
    });
    return new Response(null, { status: 200 });
  } catch {
    return new Response(null, { status: 599 });
  }
}

/** CPU seconds per part of the stack (from /proc), to divide by the operations of a run. */
function cpuByPart(): Record<string, number> {
  const pids = childPids();
  const byName = (match: (name: string) => boolean) =>
    Object.entries(pids)
      .filter(([n]) => match(n))
      .map(([, pid]) => pid);
  const databases = [new URL(stack.env.DATABASE_URL!).pathname.slice(1), `temporal_bench_${process.pid}`, `temporal_bench_${process.pid}_visibility`];
  return {
    api: cpuSeconds(byName((n) => n === 'bench-api')),
    worker: cpuSeconds(byName((n) => n === 'bench-worker')),
    webhookWorker: cpuSeconds(byName((n) => n === 'bench-webhooks')),
    baselineWorker: cpuSeconds(byName((n) => n === 'bench-baseline-worker')),
    temporal: cpuSeconds(byName((n) => n.startsWith('temporal'))),
    postgres: cpuSeconds(postgresBackends(databases)),
    generator: cpuSeconds([process.pid]),
  };
}

/**
 * Transactions committed in the gateway's database so far (pg_stat_database; every statement
 * outside an explicit transaction is one). Postgres flushes these counters about once a second,
 * so a 10 s run's per-operation figure is good to a few per cent.
 */
const statsSql = postgres(stack.ownerDatabaseUrl, { max: 1, onnotice: () => {} });
async function gatewayTransactions(): Promise<number> {
  await new Promise((r) => setTimeout(r, 1_100)); // let the backends flush their counters
  const [row] = await statsSql<{ n: string }[]>`select xact_commit + xact_rollback as n from pg_stat_database where datname = current_database()`;
  return Number(row!.n);
}

/** Runs a load and prints it with the CPU milliseconds per operation of every part. */
async function withCpu(run: () => Promise<LoadResult>): Promise<LoadResult & { cpuMs: Record<string, number> }> {
  const transactionsBefore = await gatewayTransactions();
  const before = cpuByPart();
  const result = await run();
  const after = cpuByPart();
  const transactions = (await gatewayTransactions()) - transactionsBefore - 2; // minus this probe's own
  printResult(result);
  const cpuMs = Object.fromEntries(
    Object.entries(after).map(([part, seconds]) => [part, ((seconds - before[part]!) * 1000) / Math.max(1, result.requests)] as const),
  );
  const perOp = Object.entries(cpuMs)
    .filter(([, ms]) => ms > 0.05)
    .map(([part, ms]) => `${part} ${ms.toFixed(1)}`)
    .join(', ');
  console.log(
    `  CPU ms per operation (warm-up included): ${perOp}; gateway Postgres transactions per operation ${(transactions / Math.max(1, result.requests)).toFixed(1)}`,
  );
  if (otlpSink) console.log(`  tracing on: ${spansReceived} spans received by the OTLP sink so far`);
  return { ...result, cpuMs };
}

/**
 * Saturation then open loop: closed loop with BENCH_CLIENTS finds the throughput ceiling, then a
 * fixed arrival rate at 50 % and 80 % of it gives the latency a user sees below saturation.
 */
async function saturationAndOpenLoop(label: string, request: (i: number) => Promise<Response>): Promise<number> {
  await request(-1); // warm (a first create of each kind pays for caches and connections)
  const saturated = await withCpu(() => runLoad(`${label}, closed loop (${clients} clients)`, { clients, durationMs }, (_c, i) => request(i)));
  for (const share of [0.5, 0.8]) {
    const rate = Math.max(1, Math.round(saturated.rps * share));
    await withCpu(() => runOpenLoop(`${label}, open loop ${rate}/s (${share * 100} %)`, { rate, durationMs }, request));
  }
  return saturated.rps;
}

/**
 * BENCH_EVENTS_PER_DEAL (5, a PayIn's lifecycle: created … completed): the events of one deal
 * share its delivery stream; 1 = every event a deal-less stream of its own.
 */
const eventsPerDeal = () => Math.max(1, Number(process.env.BENCH_EVENTS_PER_DEAL ?? 5));

/** Writes `count` outbox events for one merchant, `perDeal` of them per (made-up) deal, in lifecycle order. */
async function writeDealEvents(sql: import('../db/sql').Sql, merchantId: string, count: number, perDeal: number) {
  const types = ['deal.created', 'deal.escrow_locked', 'deal.payment_notified', 'deal.payment_verified'];
  await sql`
    insert into outbox_events (id, merchant_id, deal_id, event_type, payload)
    select gen_random_uuid(), ${merchantId}, case when ${perDeal} > 1 then d.id end,
      case when k = ${perDeal} then 'deal.completed' else (${types}::text[])[1 + (k - 1) % 4] end,
      jsonb_build_object('deal', jsonb_build_object('deal_id', d.id::text, 'amount', '1'))
    from (select gen_random_uuid() as id from generate_series(1, ${Math.ceil(count / perDeal)})) d, generate_series(1, ${perDeal}) k
    order by d.id, k
    limit ${count}`;
}

/** Polls the merchant's GET deal until COMPLETED (or the deadline): the time it was seen, or undefined. */
async function seenCompleted(get: (path: string) => Promise<Response>, dealId: string, deadlineMs = 60_000): Promise<number | undefined> {
  const end = Date.now() + deadlineMs;
  while (Date.now() < end) {
    const res = await get(`/api/v1/p2p/merchant/deals/${dealId}`);
    const { deal } = (await res.json()) as { deal?: { status: string } };
    if (deal?.status === 'COMPLETED') return Date.now();
    if (deal && ['CANCELLED', 'EXPIRED'].includes(deal.status)) return undefined;
    await new Promise((r) => setTimeout(r, 20));
  }
  return undefined;
}

/** Of these deals: how many completed, how many of those the bank device's notification confirmed (deal.confirm's actor). */
async function confirmedByDevice(dealIds: string[]) {
  if (dealIds.length === 0) return { completed: 0, byDevice: 0 };
  const [row] = await statsSql<{ completed: number; by_device: number }[]>`
    select count(*) filter (where d.status = 'COMPLETED')::int as completed,
      count(*) filter (where d.status = 'COMPLETED' and exists (
        select 1 from audit_log a where a.object_id = d.id::text and a.action = 'deal.confirm' and a.actor_kind = 'bank_device'))::int as by_device
    from deals d where d.id = any(${dealIds}::uuid[])`;
  return { completed: row!.completed, byDevice: row!.by_device };
}

function printSamples(label: string, samples: number[], seconds: number) {
  const sorted = [...samples].sort((a, b) => a - b);
  console.log(
    `  ${label}: ${sorted.length} deals, p50 ${percentile(sorted, 50)} ms, p99 ${percentile(sorted, 99)} ms, max ${sorted.at(-1) ?? 0} ms, ${(sorted.length / seconds).toFixed(1)} completed/s`,
  );
}

/**
 * bank-notify (docs/performance.md): PayIns confirmed by a bank device's notification, on the
 * stack whose workers already poll. (a) sandbox: a sandbox merchant's …00 PayIns — the sandbox
 * trader's payer says "I paid", the virtual bank device sends the bank's credit, the exact match
 * confirms: create → COMPLETED as the merchant sees it, and notification stored → deal.confirm from
 * the rows. (b) live: a trader with an account, a requisite on a payment method of its own and a
 * paired device the bench plays (test/helpers/bank-device.ts: its own key, signed requests): each
 * PayIn (an amount of its own: one live PayIn per amount and requisite) gets the payer's "I paid",
 * then the device's T-Bank credit; timed from the notification's POST to COMPLETED seen by the
 * merchant's GET. Both report the share of completed PayIns confirmed with no human step (the
 * deal.confirm actor is the device), beside the bare workflow's closed loop measured first.
 */
async function bankNotify() {
  await startBaseline();
  await withCpu(() =>
    runLoad(`bare Temporal: trivial workflow, Update-With-Start, closed loop (${clients} clients)`, { clients, durationMs }, (_c, i) => baselineRequest(i)),
  );

  // (a) The sandbox: nobody but the gateway acts after the create.
  const sandboxMerchant = await operatorPost<CreatedMerchant>('/api/v1/p2p/admin/merchants', {
    name: 'Bench sandbox merchant',
    email: `bench-sandbox-${Date.now()}@example.test`,
    webhook_url: benchSink,
    rate_limit_per_minute: 1_000_000,
    sandbox: true,
  });
  const sandboxKeys = await operatorPost<KeyPair>('/api/v1/p2p/merchant/api-keys', { merchant_id: sandboxMerchant.merchant.id });
  const asSandbox = (method: string, path: string, body = '') => {
    const t = Math.floor(Date.now() / 1000);
    return fetch(api + path, {
      method,
      headers: {
        'Content-Type': 'application/json',
        'X-Merchant-Token': sandboxKeys.token,
        'X-Timestamp': String(t),
        'X-Signature': signatureHeader(sandboxKeys.secret, t, body),
      },
      ...(body ? { body } : {}),
    });
  };
  const sandboxDeals: string[] = [];
  const sandboxSamples: number[] = [];
  let sandboxAmount = 0;
  const sandboxStarted = Date.now();
  const sandbox = await runLoad(
    `bank-notify (a) sandbox PayIn …00 create→virtual device→COMPLETED (${clients} clients)`,
    { clients, durationMs, warmupMs: 0 },
    async () => {
      // An amount of its own (…00): the device's credit then matches its deal exactly.
      const amount = 100_000 + 100 * ++sandboxAmount;
      const body = JSON.stringify({ idempotency_key: `bench-sandbox-${process.pid}-${keyCounter++}`, amount, currency: 'RUB', payment_method_id: 'card-rub' });
      const started = Date.now();
      const created = await asSandbox('POST', '/api/v1/p2p/merchant/deals/payin', body);
      if (!created.ok) return created;
      const { deal } = (await created.json()) as { deal: { deal_id: string } };
      sandboxDeals.push(deal.deal_id);
      const seen = await seenCompleted((path) => asSandbox('GET', path), deal.deal_id);
      if (seen === undefined) return new Response(null, { status: 598 });
      sandboxSamples.push(seen - started);
      return new Response(null, { status: 200 });
    },
  );
  printResult(sandbox);
  printSamples(
    `create → COMPLETED (the sandbox trader waits ${stack.env.SANDBOX_TRADER_DELAY_SECONDS} s first)`,
    sandboxSamples,
    (Date.now() - sandboxStarted) / 1000,
  );
  const serverSide = await statsSql<{ ms: number }[]>`
    select extract(epoch from (a.at - n.created_at)) * 1000 as ms
    from bank_notifications n join audit_log a on a.object_id = n.deal_id::text and a.action = 'deal.confirm' and a.actor_kind = 'bank_device'
    where n.deal_id = any(${sandboxDeals}::uuid[]) and n.status = 'MATCHED'`;
  printSamples(
    'virtual notification stored → deal.confirm (rows)',
    serverSide.map((r) => Math.round(Number(r.ms))),
    (Date.now() - sandboxStarted) / 1000,
  );
  const a = await confirmedByDevice(sandboxDeals);
  console.log(
    `  no human step: ${a.byDevice} of ${a.completed} completed sandbox PayIns confirmed by the virtual device (${a.completed ? ((100 * a.byDevice) / a.completed).toFixed(1) : '0'} %)`,
  );

  // (b) Live: a trader's paired device forwards the bank's credit of each PayIn.
  process.env.TEST_API_URL = api;
  process.env.JWT_SECRET = stack.env.JWT_SECRET;
  const { asOperator } = await import('../test/helpers/api');
  const { newTrader } = await import('../test/helpers/trader-session');
  const { pairedDevice, sendNotification, tbankCredit } = await import('../test/helpers/bank-device');
  const method = `bench-device-${process.pid}`;
  await statsSql`insert into payment_methods (id, tenant_id, slug, name, currency_code, requisite_types)
    values (gen_random_uuid(), '00000000-0000-4000-8000-000000000001', ${method}, 'Bench device card (RUB)', 'RUB', ${['BANK_CARD']})`;
  const trader = await newTrader({ name: 'Bench device trader' });
  const requisite = await asOperator('POST', `/api/v1/p2p/admin/traders/${trader.traderId}/requisites`, {
    payment_method: method,
    requisite_type: 'BANK_CARD',
    card_number: '2200700012344242',
    holder_name: 'Bench Holder',
    bank_name: 'tbank',
    min_amount: 100,
    max_amount: 100_000_000,
  });
  if (requisite.status !== 201) throw new Error(`bench requisite: ${requisite.status} ${requisite.text}`);
  const device = await pairedDevice(trader, [requisite.body.requisite.requisite_id as string], 'Bench phone');
  const liveDeals: string[] = [];
  const liveSamples: number[] = [];
  let liveAmount = 0;
  const liveStarted = Date.now();
  const live = await runLoad(
    `bank-notify (b) live PayIn create→"I paid"→device credit→COMPLETED (${clients} clients)`,
    { clients, durationMs, warmupMs: 0 },
    async () => {
      const amount = 100_000 + ++liveAmount;
      const body = JSON.stringify({ idempotency_key: `bench-device-${process.pid}-${keyCounter++}`, amount, currency: 'RUB', payment_method_id: method });
      const created = await signedFetch('POST', '/api/v1/p2p/merchant/deals/payin', body);
      if (!created.ok) return created;
      const { deal } = (await created.json()) as { deal: { deal_id: string; payment_url: string } };
      liveDeals.push(deal.deal_id);
      const notified = await fetch(`${api}/api/v1/p2p/checkout/${deal.payment_url.split('/pay/')[1]}/notify-payment`, { method: 'POST' });
      await notified.arrayBuffer();
      if (!notified.ok) return notified;
      const sent = Date.now();
      const posted = await sendNotification(device, tbankCredit(amount));
      if (posted.status !== 202) return new Response(posted.text, { status: posted.status });
      const seen = await seenCompleted((path) => signedFetch('GET', path), deal.deal_id);
      if (seen === undefined) return new Response(null, { status: 598 });
      liveSamples.push(seen - sent);
      return new Response(null, { status: 200 });
    },
  );
  printResult(live);
  printSamples('notification POST → COMPLETED (merchant GET)', liveSamples, (Date.now() - liveStarted) / 1000);
  const b = await confirmedByDevice(liveDeals);
  console.log(
    `  no human step: ${b.byDevice} of ${b.completed} completed live PayIns confirmed by the device (${b.completed ? ((100 * b.byDevice) / b.completed).toFixed(1) : '0'} %), load ${loadAverage()}`,
  );
}

const scenarios: Record<string, () => Promise<void>> = {
  /** The bare-Temporal ceiling alone (closed loop, then open loop at 50/80 %). */
  baseline: async () => {
    await startBaseline();
    await saturationAndOpenLoop('bare Temporal: trivial workflow, Update-With-Start', baselineRequest);
  },
  /** PayIn create beside the baseline in the same invocation: the ratio is the gateway's overhead. */
  'payin-open': async () => {
    await startBaseline();
    const base = await saturationAndOpenLoop('bare Temporal: trivial workflow, Update-With-Start', baselineRequest);
    const payin = await saturationAndOpenLoop('PayIn create (webhooks on)', () => signedFetch('POST', '/api/v1/p2p/merchant/deals/payin', payinBody()));
    console.log(
      `  PayIn create saturation = ${Math.round((100 * payin) / Math.max(1, base))} % of the bare-Temporal baseline (${payin}/s vs ${base}/s), load ${loadAverage()}`,
    );
  },
  'my-merchant': async () =>
    printResult(await runLoad(`signed GET my-merchant (${clients} clients)`, { clients, durationMs }, () => signedFetch('GET', '/api/v1/p2p/my-merchant'))),
  'payin-create': async () =>
    void (await withCpu(() =>
      runLoad(`PayIn create, distinct keys (${clients} clients)`, { clients, durationMs }, () =>
        signedFetch('POST', '/api/v1/p2p/merchant/deals/payin', payinBody()),
      ),
    )),
  /** Sequential creates; for the slowest, the gaps between its workflow history events (where the time went). */
  'payin-trace': async () => {
    const { createTemporalClient } = await import('../temporal/client');
    const { loadConfig } = await import('../config');
    const client = await createTemporalClient(loadConfig(stack.env));
    const samples: { ms: number; dealId: string }[] = [];
    const until = Date.now() + durationMs;
    while (Date.now() < until) {
      const started = performance.now();
      const res = await signedFetch('POST', '/api/v1/p2p/merchant/deals/payin', payinBody());
      const body = (await res.json()) as { deal: { deal_id: string } };
      samples.push({ ms: performance.now() - started, dealId: body.deal.deal_id });
    }
    samples.sort((a, b) => b.ms - a.ms);
    for (const slow of samples.slice(0, 3)) {
      const history = await client.workflow.getHandle(`payin:${slow.dealId}`).fetchHistory();
      const events = history.events ?? [];
      const t0 = events[0] ? eventTimeMs(events[0]) : 0;
      const steps = events.slice(0, 8).map((e) => {
        const t = eventTimeMs(e);
        return `${e.eventType}@+${Math.round(t - t0)}ms`;
      });
      console.log(`  ${Math.round(slow.ms)} ms: ${steps.join(' ')}`);
    }
    console.log(`  median ${Math.round(samples[Math.floor(samples.length / 2)]!.ms)} ms over ${samples.length} creates`);
    await client.connection.close();
  },
  'payout-create': async () => {
    await operatorPost('/api/v1/p2p/admin/deposits', { merchant_id: merchant.merchant.id, amount: 100_000_000_000, tx_hash: randomBytes(32).toString('hex') });
    const balance = (await (await signedFetch('GET', '/api/v1/p2p/merchant/balance')).json()) as { wallets: { wallet_id: string }[] };
    const walletId = balance.wallets[0]!.wallet_id;
    printResult(
      await runLoad(`PayOut create, distinct keys (${clients} clients)`, { clients, durationMs }, () =>
        signedFetch(
          'POST',
          '/api/v1/p2p/merchant/deals/payout',
          JSON.stringify({
            idempotency_key: `bench-po-${process.pid}-${keyCounter++}`,
            amount: 95_000,
            currency: 'RUB',
            wallet_id: walletId,
            target_requisite: '4111111111111111',
            payment_method: 'card-rub',
          }),
        ),
      ),
    );
  },
  'listing-1m': async () => {
    const rows = Number(process.env.BENCH_ROWS ?? 1_000_000);
    const bulk = await bulkMerchant(rows);
    printResult(
      await runLoad(`GET /deals page 1 of ${rows} (${clients} clients)`, { clients, durationMs }, () =>
        signedAs(bulk.keys, '/api/v1/p2p/merchant/deals?page_size=50'),
      ),
    );
    let token = '';
    const walkStarted = Date.now();
    for (let page = 1; page < 1000; page += 1) {
      const res = (await (
        await signedAs(bulk.keys, `/api/v1/p2p/merchant/deals?page_size=50${token ? `&page_token=${encodeURIComponent(token)}` : ''}`)
      ).json()) as { next_page_token: string };
      token = res.next_page_token;
    }
    console.log(`  walked 999 pages sequentially in ${Date.now() - walkStarted} ms`);
    const deep = `/api/v1/p2p/merchant/deals?page_size=50&page_token=${encodeURIComponent(token)}`;
    printResult(await runLoad(`GET /deals page 1000 of ${rows} (${clients} clients)`, { clients, durationMs }, () => signedAs(bulk.keys, deep)));
    const nothing = `/api/v1/p2p/merchant/deals?page_size=50&deal_type=PAYOUT&statuses=FAILED`;
    printResult(await runLoad(`GET /deals status filter matching nothing (${clients} clients)`, { clients, durationMs }, () => signedAs(bulk.keys, nothing)));
    const many = `/api/v1/p2p/merchant/deals?page_size=50&statuses=COMPLETED&statuses=CANCELLED`;
    printResult(await runLoad(`GET /deals two statuses, 400k matches (${clients} clients)`, { clients, durationMs }, () => signedAs(bulk.keys, many)));
    printResult(await runLoad('GET /deals page 1000, 1 client', { clients: 1, durationMs }, () => signedAs(bulk.keys, deep)));
    const plan = await bulk.sql.unsafe(
      `explain (analyze, buffers) select * from deals where merchant_id = $1 and (created_at, id) < (now() - interval '50000 seconds', '00000000-0000-0000-0000-000000000000'::uuid) order by created_at desc, id desc limit 51`,
      [bulk.merchantId],
    );
    console.log('  EXPLAIN ANALYZE of a page 1000 query:');
    for (const line of plan) console.log(`    ${(line as Record<string, string>)['QUERY PLAN']}`);
    await bulk.sql.end();
  },
  'export-1m': async () => {
    const rows = Number(process.env.BENCH_ROWS ?? 1_000_000);
    const bulk = await bulkMerchant(rows);
    await bulk.sql.end();
    const before = peakRssMb(stack.apiPid);
    const started = Date.now();
    const res = await signedAs(bulk.keys, '/api/v1/p2p/merchant/deals/export');
    let lines = 0;
    let bytes = 0;
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      bytes += chunk.length;
      for (const b of chunk) if (b === 10) lines += 1;
    }
    const seconds = (Date.now() - started) / 1000;
    console.log(
      `CSV export of ${lines - 1} rows: ${seconds.toFixed(1)} s, ${Math.round((lines - 1) / seconds)} rows/s, ${Math.round(bytes / 1e6)} MB; ` +
        `API peak RSS ${peakRssMb(stack.apiPid)} MB (before the export ${before} MB)`,
    );
  },
  webhooks: async () => {
    // Deliveries/s: events are written straight into the outbox (2,000 of them), so the relay,
    // the delivery workflows and the HTTP POSTs are what is measured.
    const sink = await startSink('fast');
    const pair = await merchantWithWebhook(sink.url);
    const { createSql } = await import('../db/sql');
    const sql = createSql(stack.ownerDatabaseUrl, { max: 1 });
    const [row] = await sql<{ merchant_id: string }[]>`select merchant_id from api_keys where token = ${pair.token}`;
    const perDeal = eventsPerDeal();
    const events = Math.ceil(Number(process.env.BENCH_EVENTS ?? 2000) / perDeal) * perDeal;
    const cpuBefore = cpuByPart();
    const started = Date.now();
    await writeDealEvents(sql, row!.merchant_id, events, perDeal);
    while (sink.received() < events && Date.now() - started < 300_000) await new Promise((r) => setTimeout(r, 100));
    const seconds = (Date.now() - started) / 1000;
    const cpuAfter = cpuByPart();
    console.log(
      `webhook deliveries to a fast local sink (${perDeal} events per deal): ${sink.received()} in ${seconds.toFixed(1)} s = ${Math.round(sink.received() / seconds)} deliveries/s, load ${loadAverage()}`,
    );
    console.log(
      `  CPU ms per delivery: ${Object.entries(cpuAfter)
        .map(([part, sec]) => `${part} ${(((sec - cpuBefore[part]!) * 1000) / Math.max(1, sink.received())).toFixed(1)}`)
        .join(', ')}`,
    );
    if (process.env.BENCH_WEBHOOKS_ONLY) {
      await sql.end();
      sink.close();
      return;
    }
    await sql.end();
    sink.close();

    // Deal-create latency for one merchant while another merchant's receiver hangs on every delivery.
    const baseline = await runLoad(`PayIn create, no hanging receiver (${clients} clients)`, { clients, durationMs }, () => createPayinAs(pair));
    printResult(baseline);
    const hanging = await startSink('hang');
    const victim = await merchantWithWebhook(hanging.url);
    const flood = runLoad(
      '  (background: PayIn creates of a merchant whose receiver hangs, 8 clients)',
      { clients: 8, durationMs: durationMs + 2000, warmupMs: 0 },
      () => createPayinAs(victim),
    );
    printResult(await runLoad(`PayIn create while another merchant's receiver hangs (${clients} clients)`, { clients, durationMs }, () => createPayinAs(pair)));
    printResult(await flood);
    hanging.close();
  },
  /**
   * Isolation: PayIn create latency (open loop, BENCH_RATE/s) before and while BENCH_DEAD (1,000)
   * deliveries to dead receivers retry — half to a port that refuses connections, half to
   * receivers that never answer — spread over 10 merchants. Run it again with
   * WEBHOOK_BREAKER_FAILURES=0 WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT=1000 WEBHOOK_MAX_IN_FLIGHT_PER_HOST=1000 to see it without the breaker and caps.
   */
  'dead-receivers': async () => {
    const rate = Number(process.env.BENCH_RATE ?? 5);
    const perDeal = eventsPerDeal();
    const pair = await merchantWithWebhook(benchSink);
    const create = () => createPayinAs(pair);
    await create(); // warm
    const before = await withCpu(() => runOpenLoop(`PayIn create, open loop ${rate}/s, no dead receivers`, { rate, durationMs }, create));
    const { createServer } = await import('node:net');
    const refused = await (async () => {
      const probe = createServer();
      await new Promise<void>((r) => probe.listen(0, '127.0.0.1', () => r()));
      const { port } = probe.address() as { port: number };
      await new Promise((r) => probe.close(r));
      return `http://127.0.0.1:${port}/hooks`; // nothing listens there any more
    })();
    const hanging = await Promise.all(Array.from({ length: 5 }, () => startSink('hang')));
    const targets = [...Array.from({ length: 5 }, () => refused), ...hanging.map((h) => h.url)];
    const { createSql } = await import('../db/sql');
    const sql = createSql(stack.ownerDatabaseUrl, { max: 1 });
    const dead = Number(process.env.BENCH_DEAD ?? 1000);
    for (const [i, url] of targets.entries()) {
      const victim = await merchantWithWebhook(url);
      const [row] = await sql<{ merchant_id: string }[]>`select merchant_id from api_keys where token = ${victim.token}`;
      const count = Math.floor(dead / targets.length) + (i < dead % targets.length ? 1 : 0);
      await writeDealEvents(sql, row!.merchant_id, count, perDeal);
    }
    const queued = Date.now();
    const streams = perDeal > 1 ? Math.ceil(dead / perDeal) : dead;
    while (Date.now() - queued < 120_000) {
      const [left] = await sql<{ n: number }[]>`select count(*)::int as n from outbox_events where dispatched_at is null`;
      if (left!.n === 0) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    console.log(
      `  ${dead} deliveries to dead receivers (${perDeal} per deal: ${streams} streams) relayed in ${((Date.now() - queued) / 1000).toFixed(1)} s; load ${loadAverage()}`,
    );
    const during = await withCpu(() => runOpenLoop(`PayIn create, open loop ${rate}/s, ${dead} dead deliveries retrying`, { rate, durationMs }, create));
    // And once their first round is over (hosts parked, deliveries sleeping on timers).
    const later = await withCpu(() => runOpenLoop(`PayIn create, open loop ${rate}/s, the same deliveries a round later`, { rate, durationMs }, create));
    const [attempts] = await sql<{ n: number }[]>`
      select count(*)::int as n from webhook_attempts a join webhook_deliveries d on d.id = a.callback_id where d.created_at >= to_timestamp(${queued / 1000})`;
    console.log(
      `  p99 ${before.p99} → ${during.p99} ms (${during.p99 > 0 && before.p99 > 0 ? Math.round((100 * during.p99) / before.p99 - 100) : '?'} %), p50 ${before.p50} → ${during.p50} ms; ` +
        `${attempts!.n} attempts recorded to dead receivers meanwhile (the breaker parks a host after ${process.env.WEBHOOK_BREAKER_FAILURES ?? 20} failures; 0 = off)`,
    );
    console.log(`  a round later: p99 ${later.p99} ms (${before.p99 > 0 ? Math.round((100 * later.p99) / before.p99 - 100) : '?'} %), p50 ${later.p50} ms`);
    await sql.end();
    for (const h of hanging) h.close();
  },
  /**
   * The engine-action budget of one PayIn lifecycle (docs/performance.md): BENCH_LIFECYCLES (5) sequential
   * create → notify → confirm → COMPLETED with webhooks on and fee distribution; then, per
   * lifecycle, every workflow it started and what each history holds, and — with SQL_STATS_DIR
   * set — the gateway's statements (round trips) by process.
   */
  actions: async () => {
    const { createTemporalClient } = await import('../temporal/client');
    const { loadConfig } = await import('../config');
    const client = await createTemporalClient(loadConfig(stack.env));
    const n = Number(process.env.BENCH_LIFECYCLES ?? 5);
    const statsDir = process.env.SQL_STATS_DIR;
    const readStats = async () => {
      await new Promise((r) => setTimeout(r, 1500));
      const files = statsDir ? readdirSync(statsDir).filter((f) => f.startsWith('sql-')) : [];
      return files.map((f) => JSON.parse(readFileSync(`${statsDir}/${f}`, 'utf8')) as { pid: number; argv: string[]; counts: Record<string, number> });
    };
    await lifecycle(); // warm
    await new Promise((r) => setTimeout(r, 2000));
    const before = await readStats();
    const measuredFrom = Date.now();
    const deals: string[] = [];
    for (let i = 0; i < n; i += 1) {
      const created = await signedFetch('POST', '/api/v1/p2p/merchant/deals/payin', payinBody());
      const { deal } = (await created.json()) as { deal: { deal_id: string; payment_url: string } };
      deals.push(deal.deal_id);
      await (await fetch(`${api}/api/v1/p2p/checkout/${deal.payment_url.split('/pay/')[1]}/notify-payment`, { method: 'POST' })).arrayBuffer();
      await (
        await fetch(`${api}/api/v1/p2p/admin/deals/${deal.deal_id}/confirm`, { method: 'POST', headers: { Authorization: `Bearer ${operator}` } })
      ).arrayBuffer();
    }
    // Until every deal's workflow has closed (fee distributed) and its stream delivered deal.completed.
    const closed = async (id: string) => (await client.workflow.getHandle(id).describe()).status.name !== 'RUNNING';
    const until = Date.now() + 60_000;
    while (Date.now() < until && !(await Promise.all(deals.map((d) => closed(`payin:${d}`)))).every(Boolean)) await new Promise((r) => setTimeout(r, 250));
    const delivered = async (d: string) =>
      Number((await statsSql`select count(*)::int as n from webhook_deliveries where deal_id = ${d} and status = 'SUCCESS'`)[0]!.n) >= 5;
    while (Date.now() < until && !(await Promise.all(deals.map(delivered))).every(Boolean)) await new Promise((r) => setTimeout(r, 250));
    const after = await readStats();
    const measuredUntil = Date.now();

    const totals = new Map<string, number>();
    const add = (k: string, v = 1) => totals.set(k, (totals.get(k) ?? 0) + v);
    const tally = (kind: string, e: { [k: string]: unknown }) => {
      // The event's kind is the one attributes field it fills (e.g. workflowTaskScheduledEventAttributes).
      const key = Object.keys(e).find((k) => k.endsWith('EventAttributes') && e[k]) ?? '';
      const name = key.replace(/EventAttributes$/, '').replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
      add(`history events (${kind})`);
      if (name === 'workflow_execution_started') add(`workflow starts (${kind})`);
      else if (name === 'workflow_task_scheduled') add(`workflow tasks (${kind})`);
      else if (name === 'activity_task_scheduled') add(`activity tasks (${kind})`);
      else if (name === 'marker_recorded')
        add(`${(e.markerRecordedEventAttributes as { markerName?: string })?.markerName === 'core_patch' ? 'patch markers' : 'local activities'} (${kind})`);
      else if (name === 'timer_started') add(`timers (${kind})`);
      else if (name === 'workflow_execution_signaled') add(`signals (${kind})`);
      else if (name === 'workflow_execution_update_accepted') add(`updates (${kind})`);
      else if (name === 'upsert_workflow_search_attributes') add(`search-attribute upserts (${kind})`);
      else if (name === 'workflow_execution_continued_as_new') add(`continue-as-new (${kind})`);
    };
    for (const dealId of deals) {
      const workflows: string[] = [];
      for await (const wf of client.workflow.list({ query: `DealId = "${dealId}"` })) workflows.push(wf.workflowId);
      if (!workflows.includes(`payin:${dealId}`)) workflows.push(`payin:${dealId}`);
      for (const id of workflows) {
        const kind = id.split(':')[0]!;
        for (const e of (await client.workflow.getHandle(id).fetchHistory()).events ?? []) tally(kind, e as never);
      }
    }
    // The merchant endpoint's stream is shared by the deals: its events while these lifecycles ran.
    for await (const wf of client.workflow.list({ query: `MerchantId = "${merchant.merchant.id}" AND WorkflowType = "webhookEndpointWorkflow"` })) {
      const events = (await client.workflow.getHandle(wf.workflowId, wf.runId).fetchHistory()).events ?? [];
      for (const e of events) if (eventTimeMs(e) >= measuredFrom && eventTimeMs(e) <= measuredUntil) tally('endpoint stream', e as never);
    }
    console.log(`  engine actions per PayIn lifecycle (create → notify → confirm → COMPLETED → fee distribution; 5 webhooks), mean of ${n}:`);
    for (const [k, v] of [...totals].sort()) console.log(`    ${k.padEnd(44)} ${(v / n).toFixed(1)}`);
    if (statsDir) {
      const count = (stats: Awaited<ReturnType<typeof readStats>>) => {
        const byProcess = new Map<string, Map<string, number>>();
        for (const st of stats) {
          const role = st.argv.join(' ').includes('api/server') ? 'api' : `worker ${st.pid}`;
          const m = byProcess.get(role) ?? new Map<string, number>();
          for (const [q, c] of Object.entries(st.counts)) m.set(q, (m.get(q) ?? 0) + c);
          byProcess.set(role, m);
        }
        return byProcess;
      };
      const b = count(before);
      for (const [role, m] of count(after)) {
        const was = b.get(role) ?? new Map<string, number>();
        const diff = [...m].map(([q, c]) => [q, c - (was.get(q) ?? 0)] as const).filter(([, c]) => c > 0);
        const total = diff.reduce((sum, [, c]) => sum + c, 0);
        console.log(`  SQL statements (round trips) per lifecycle, ${role}: ${(total / n).toFixed(1)}`);
        for (const [q, c] of diff.sort((x, y) => y[1] - x[1]).slice(0, 40)) console.log(`    ${(c / n).toFixed(1).padStart(5)}  ${q.slice(0, 130)}`);
      }
    }
    await client.connection.close();
  },
  'bank-notify': bankNotify,
  /**
   * The routing score refresh (workers/routing-scores.ts, once a minute) over BENCH_ROWS (1,000,000)
   * live deals spread over the stack's requisites within the score window: its time, three runs.
   */
  'routing-refresh': async () => {
    const rows = Number(process.env.BENCH_ROWS ?? 1_000_000);
    const { createSql } = await import('../db/sql');
    const { refreshRequisiteScores } = await import('../db/queries/routing');
    const sql = createSql(stack.ownerDatabaseUrl, { max: 1 });
    const requisites = await sql<
      { id: string; trader_id: string }[]
    >`select r.id, r.trader_id from requisites r join traders t on t.id = r.trader_id where not t.sandbox`;
    if (requisites.length === 0) throw new Error('routing-refresh: the stack has no requisites');
    const started = Date.now();
    await sql`
      insert into deals (id, tenant_id, merchant_id, deal_type, status, idempotency_key, amount, currency, client_id, payment_method_id,
        amount_usdt, exchange_rate_micro, requisite_id, trader_id, created_at, updated_at)
      select gen_random_uuid(), '00000000-0000-4000-8000-000000000001', ${merchant.merchant.id}, 'PAYIN',
        (array['COMPLETED','COMPLETED','COMPLETED','EXPIRED','CANCELLED'])[1 + g % 5], 'routing-' || g, 1000 + g % 100000, 'RUB', 'client-' || (g % 5000),
        '20000000-0000-4000-8000-000000000001', 10, 92500000,
        (${requisites.map((r) => r.id)}::uuid[])[1 + g % ${requisites.length}], (${requisites.map((r) => r.trader_id)}::uuid[])[1 + g % ${requisites.length}],
        now() - make_interval(secs => (g % (${Number(stack.env.ROUTING_SCORE_WINDOW_HOURS ?? 168)} * 3600 - 60))), now()
      from generate_series(1, ${rows}) g`;
    await sql`analyze deals`;
    console.log(`routing-refresh: ${rows} deals over ${requisites.length} requisites inserted in ${Math.round((Date.now() - started) / 1000)} s`);
    for (let run = 1; run <= 3; run += 1) {
      const t0 = performance.now();
      const cpu0 = cpuSeconds(postgresBackends([new URL(stack.env.DATABASE_URL!).pathname.slice(1)]));
      const result = await refreshRequisiteScores(sql, Number(stack.env.ROUTING_SCORE_WINDOW_HOURS ?? 168));
      const cpu1 = cpuSeconds(postgresBackends([new URL(stack.env.DATABASE_URL!).pathname.slice(1)]));
      console.log(
        `  refresh ${run}: ${Math.round(performance.now() - t0)} ms, ${result.requisites} requisites scored, Postgres CPU ${Math.round((cpu1 - cpu0) * 1000)} ms (${result.refreshed ? 'refreshed' : 'skipped: another refresh held the turn'})`,
      );
    }
    await sql.end();
  },
  'failing-endpoints': async () => {
    const { createSql } = await import('../db/sql');
    const sql = createSql(stack.ownerDatabaseUrl, { max: 2 });
    let client: import('@temporalio/client').Client | undefined;
    try {
      await failingEndpoints({
        clients,
        durationMs,
        env: stack.env,
        sql,
        temporal: async () => {
          const { createTemporalClient } = await import('../temporal/client');
          const { loadConfig } = await import('../config');
          client ??= await createTemporalClient(loadConfig(stack.env));
          return client;
        },
        cpuByPart,
        operatorPost,
        startBaseline,
        baselineRequest,
        createPayin: () => signedFetch('POST', '/api/v1/p2p/merchant/deals/payin', payinBody()),
        lifecycle,
        withCpu,
      });
    } finally {
      await sql.end();
      await client?.connection.close();
    }
  },
  'payin-lifecycle': async () => {
    const before = await pendingCredits();
    completedLifecycles = 0;
    const result = await runLoad(`PayIn create→notify→confirm=COMPLETED (${clients} clients)`, { clients, durationMs }, lifecycle);
    printResult(result);
    // Fee distribution (delay 0 here) then moves every net credit to available: time the drain.
    const ended = Date.now();
    const expected = before + BigInt(completedLifecycles) * 1581n; // 1622 − 2.5 % fee (41), warm-up included
    let now = await pendingCredits();
    while (Date.now() - ended < 120_000 && now < expected) {
      await new Promise((r) => setTimeout(r, 200));
      now = await pendingCredits();
    }
    console.log(`  all net credits available ${Date.now() - ended} ms after the last completion (balance ${now}, expected ≥ ${expected})`);
  },
};

try {
  console.log(
    `bench: Temporal ${stack.temporalMode}, tracing ${otlpSink ? 'on' : 'off'}, ${clients} clients, ${durationMs / 1000} s per scenario, all services on this machine (${(await import('node:os')).cpus().length} cores), load ${loadAverage()}`,
  );
  for (const [name, run] of Object.entries(scenarios)) {
    if (wanted.size === 0 || wanted.has(name)) await run();
  }
} finally {
  await statsSql.end({ timeout: 1 }).catch(() => {});
  if (process.env.STACK_PROFILE_DIR) {
    // The gateway's processes write their CPU profiles when they exit: stop them while Temporal still runs, so they drain and exit.
    const gateway = Object.entries(childPids()).filter(([name]) => !name.startsWith('temporal'));
    for (const [, pid] of gateway) process.kill(pid, 'SIGTERM');
    const until = Date.now() + 30_000;
    const alive = (pid: number) => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    };
    while (Date.now() < until && gateway.some(([, pid]) => alive(pid))) await new Promise((r) => setTimeout(r, 200));
  }
  await stack.teardown();
}
process.exit(0);
