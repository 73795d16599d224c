/**
 * failing-endpoints (docs/performance.md, "Background work"): the gateway as production sees it —
 * merchants' endpoints that refuse, answer 503 or hang, their deliveries retrying — and the
 * merchant-facing work beside it, on a stack whose workers already poll.
 *
 * For each level of BENCH_FAILING_ENDPOINTS (0,100,1000: cumulative, 0 = the fresh stack), one
 * merchant per failing endpoint, BENCH_LANES_PER_ENDPOINT (2) deals' events each, retrying on the
 * stack's WEBHOOK_RETRY_DELAYS up to BENCH_FAILING_MAX_RETRIES (20) attempts; then, in one run:
 *   - idle: nothing but the background for BENCH_IDLE_SECONDS (10): CPU per part per attempt made;
 *   - the bare workflow and PayIn create, closed loop (BENCH_CLIENTS): throughput, the ratio, CPU
 *     per operation per part;
 *   - PayIn create, open loop at half of the first level's saturation (the same offered load at
 *     every level): p50/p99, and where a create's time goes, from a sample of their histories;
 *   - the PayIn lifecycle (create → notify → confirm), closed loop with half the clients.
 * Attempts to the failing endpoints during each window are counted from webhook_attempts.
 */
import { createHash } from 'node:crypto';
import type { Client } from '@temporalio/client';
import { endpointWorkflowId } from '../workflows/contracts/webhook-endpoint';
import type { Sql } from '../db/sql';
import { eventTimeMs, loadAverage, percentile, runLoad, runOpenLoop, type LoadResult } from './load';

export interface FailingEndpointsContext {
  clients: number;
  durationMs: number;
  env: NodeJS.ProcessEnv;
  sql: Sql;
  temporal: () => Promise<Client>;
  cpuByPart: () => Record<string, number>;
  operatorPost: <T>(path: string, body: unknown) => Promise<T>;
  startBaseline: () => Promise<void>;
  baselineRequest: (i: number) => Promise<Response>;
  createPayin: () => Promise<Response>;
  lifecycle: () => Promise<Response>;
  withCpu: (run: () => Promise<LoadResult>) => Promise<LoadResult & { cpuMs: Record<string, number> }>;
}

type Kind = 'refused' | 'error' | 'hang';

/** Receivers that fail: a port nothing listens on, a server answering 503 at once, one that never answers. */
async function failingTargets() {
  const { createServer } = await import('node:http');
  const { createServer: createTcpServer } = await import('node:net');
  const probe = createTcpServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', () => r()));
  const closedPort = (probe.address() as { port: number }).port;
  await new Promise((r) => probe.close(r));
  const servers = await Promise.all(
    (['error', 'hang'] as const).map(async (mode) => {
      const server = createServer((req, res) => {
        req.resume();
        req.on('end', () => {
          if (mode === 'error') res.writeHead(503).end('down for maintenance');
        });
      });
      server.listen(0, '127.0.0.1');
      await new Promise((r) => server.once('listening', r));
      return { mode, server, port: (server.address() as { port: number }).port };
    }),
  );
  const port: Record<Kind, number> = { refused: closedPort, error: servers[0]!.port, hang: servers[1]!.port };
  return {
    url: (kind: Kind, i: number) => `http://127.0.0.1:${port[kind]}/hooks/${i}`,
    close: () => {
      for (const { server } of servers) {
        server.closeAllConnections();
        server.close();
      }
    },
  };
}

const median = (values: number[]) =>
  percentile(
    [...values].sort((a, b) => a - b),
    50,
  );

/** A create as the open loop saw it, to read its history back after the run. */
interface Timed {
  dealId: string;
  sentAt: number;
  answeredAt: number;
}

/**
 * Where a create's time goes, from its deal workflow's history: before the workflow exists (the
 * API, the idempotency and matching checks it makes first, Temporal's start), waiting for a worker
 * (the workflow task's schedule-to-start: matching, the worker's slots and polls), the workflow
 * task itself (the create's local activity: matching and escrow in Postgres, the codec), and from
 * the task's completion to the merchant's answer (Temporal persisting it, the update's result
 * back through the API).
 */
async function createBreakdown(client: Client, samples: Timed[]) {
  const parts = { beforeStart: [] as number[], waitForWorker: [] as number[], workflowTask: [] as number[], afterTask: [] as number[] };
  for (const s of samples) {
    const events = (await client.workflow.getHandle(`payin:${s.dealId}`).fetchHistory()).events ?? [];
    const started = events.find((e) => e.workflowExecutionStartedEventAttributes);
    const scheduled = events.find((e) => e.workflowTaskScheduledEventAttributes);
    const taskStarted = events.find((e) => e.workflowTaskStartedEventAttributes);
    const completed = events.find((e) => e.workflowTaskCompletedEventAttributes);
    if (!started || !scheduled || !taskStarted || !completed) continue;
    parts.beforeStart.push(eventTimeMs(started) - s.sentAt);
    parts.waitForWorker.push(eventTimeMs(taskStarted) - eventTimeMs(scheduled));
    parts.workflowTask.push(eventTimeMs(completed) - eventTimeMs(taskStarted));
    parts.afterTask.push(s.answeredAt - eventTimeMs(completed));
  }
  return Object.fromEntries(Object.entries(parts).map(([k, v]) => [k, Math.round(median(v))])) as Record<keyof typeof parts, number>;
}

/**
 * The engine's work per attempt to a failing endpoint: over [from, to], the history events of a
 * sample of failing streams (every run of each), by kind, divided by the attempts recorded for
 * them in that window.
 */
async function enginePerAttempt(client: Client, sql: Sql, streams: { merchantId: string; url: string }[], from: number, to: number) {
  const counts = { events: 0, workflowTasks: 0, activityTasks: 0, timers: 0 };
  for (const { merchantId, url } of streams) {
    const workflowId = endpointWorkflowId(merchantId, createHash('sha256').update(url).digest('hex'));
    for await (const run of client.workflow.list({ query: `WorkflowId = "${workflowId}"` })) {
      for (const e of (await client.workflow.getHandle(workflowId, run.runId).fetchHistory()).events ?? []) {
        const t = eventTimeMs(e);
        if (t < from || t > to) continue;
        counts.events += 1;
        if (e.workflowTaskScheduledEventAttributes) counts.workflowTasks += 1;
        if (e.activityTaskScheduledEventAttributes) counts.activityTasks += 1;
        if (e.timerStartedEventAttributes) counts.timers += 1;
      }
    }
  }
  const [row] = await sql<{ n: number }[]>`
    select count(*)::int as n from webhook_attempts a join webhook_deliveries d on d.id = a.callback_id
    where d.merchant_id = any(${streams.map((s) => s.merchantId)}::uuid[]) and a.created_at between to_timestamp(${from / 1000}) and to_timestamp(${to / 1000})`;
  const attempts = row!.n;
  const per = (n: number) => (attempts > 0 ? (n / attempts).toFixed(2) : '–');
  return `${attempts} attempts of ${streams.length} streams: per attempt ${per(counts.events)} history events, ${per(counts.workflowTasks)} workflow tasks, ${per(counts.activityTasks)} activity tasks, ${per(counts.timers)} timers`;
}

interface Row {
  endpoints: number;
  retrying: number;
  attemptsPerSecond: number;
  idleCpuMsPerAttempt: Record<string, number>;
  bare: LoadResult & { cpuMs: Record<string, number> };
  payin: LoadResult & { cpuMs: Record<string, number> };
  open: LoadResult;
  breakdown: Record<string, number>;
  lifecycle: LoadResult;
}

const cpuTotal = (cpu: Record<string, number>) => Object.entries(cpu).reduce((sum, [part, ms]) => (part === 'generator' ? sum : sum + ms), 0);
const fmtCpu = (cpu: Record<string, number>) =>
  Object.entries(cpu)
    .filter(([part, ms]) => part !== 'generator' && ms >= 0.05)
    .map(([part, ms]) => `${part} ${ms.toFixed(1)}`)
    .join(', ');

export async function failingEndpoints(ctx: FailingEndpointsContext) {
  const levels = (process.env.BENCH_FAILING_ENDPOINTS ?? '0,100,1000').split(',').map(Number);
  const lanesPerEndpoint = Number(process.env.BENCH_LANES_PER_ENDPOINT ?? 2);
  const maxRetries = Number(process.env.BENCH_FAILING_MAX_RETRIES ?? 20);
  const idleMs = Number(process.env.BENCH_IDLE_SECONDS ?? 10) * 1000;
  const settleMs = Number(process.env.BENCH_SETTLE_SECONDS ?? 10) * 1000;
  const { sql } = ctx;
  const targets = await failingTargets();
  const failing: string[] = [];
  const failingStreams: { merchantId: string; url: string }[] = [];
  const kinds: Kind[] = ['refused', 'error', 'hang'];
  const client = await ctx.temporal();
  await ctx.startBaseline();
  await ctx.createPayin(); // warm
  console.log(
    `failing-endpoints: levels ${levels.join(', ')}, ${lanesPerEndpoint} retrying deals per endpoint, retry delays ${ctx.env.WEBHOOK_RETRY_DELAYS}, ` +
      `up to ${maxRetries} attempts, attempt timeout ${ctx.env.WEBHOOK_TIMEOUT_MS} ms, ${ctx.clients} clients, ${ctx.durationMs / 1000} s per run`,
  );

  const attemptsSoFar = async () =>
    Number(
      (
        await sql<
          { n: number }[]
        >`select count(*)::int as n from webhook_attempts a join webhook_deliveries d on d.id = a.callback_id where d.merchant_id = any(${failing}::uuid[])`
      )[0]!.n,
    );

  const rows: Row[] = [];
  let openRate = 0;
  for (const level of levels) {
    // The background: more failing endpoints (one merchant each, the three kinds in turn), their deals' events in the outbox.
    if (level > failing.length) {
      const added: string[] = [];
      const queue = Array.from({ length: level - failing.length }, (_, k) => failing.length + k);
      await Promise.all(
        Array.from({ length: 8 }, async () => {
          for (let i = queue.shift(); i !== undefined; i = queue.shift()) {
            const created = await ctx.operatorPost<{ merchant: { id: string } }>('/api/v1/p2p/admin/merchants', {
              name: `Failing endpoint ${i}`,
              email: `failing-${process.pid}-${i}@example.test`,
              webhook_url: targets.url(kinds[i % kinds.length]!, i),
              rate_limit_per_minute: 1_000_000,
            });
            // Its API key pair: the webhook secret its deliveries are signed with (without one an attempt fails for good, not retried).
            await ctx.operatorPost('/api/v1/p2p/merchant/api-keys', { merchant_id: created.merchant.id });
            added.push(created.merchant.id);
            failingStreams.push({ merchantId: created.merchant.id, url: targets.url(kinds[i % kinds.length]!, i) });
          }
        }),
      );
      await sql`update merchants set webhook_max_retries = ${maxRetries} where id = any(${added}::uuid[])`;
      // One lifecycle's events per deal (created … completed): the head retries, the rest wait behind it in its lane.
      await sql`
        insert into outbox_events (id, merchant_id, deal_id, event_type, payload)
        select gen_random_uuid(), m.id, d.id, (array['deal.created','deal.escrow_locked','deal.payment_notified','deal.payment_verified','deal.completed'])[k],
          jsonb_build_object('deal', jsonb_build_object('deal_id', d.id::text, 'amount', '1'))
        from unnest(${added}::uuid[]) m(id), lateral (select gen_random_uuid() as id from generate_series(1, ${lanesPerEndpoint}) where m.id is not null) d,
          generate_series(1, 5) k
        order by m.id, d.id, k`;
      failing.push(...added);
      const queued = Date.now();
      while (Date.now() - queued < 300_000) {
        const [left] = await sql<{ n: number }[]>`select count(*)::int as n from outbox_events where dispatched_at is null`;
        if (left!.n === 0) break;
        await new Promise((r) => setTimeout(r, 200));
      }
      console.log(
        `  +${added.length} failing endpoints (${failing.length} in all; ${added.length * lanesPerEndpoint} more deals' events) relayed in ${((Date.now() - queued) / 1000).toFixed(1)} s; settling ${settleMs / 1000} s, load ${loadAverage()}`,
      );
      await new Promise((r) => setTimeout(r, settleMs));
    }
    const label = failing.length === 0 ? 'fresh' : `${failing.length} failing endpoints`;
    console.log(`-- ${label}`);

    // Idle: what the background alone costs, per attempt it makes.
    const idleAttempts0 = await attemptsSoFar();
    const idleCpu0 = ctx.cpuByPart();
    const idleFrom = Date.now();
    await new Promise((r) => setTimeout(r, idleMs));
    const idleCpu1 = ctx.cpuByPart();
    const idleTo = Date.now();
    const idleAttempts = (await attemptsSoFar()) - idleAttempts0;
    const idleCpuMsPerAttempt = Object.fromEntries(
      Object.entries(idleCpu1).map(([part, s]) => [part, ((s - idleCpu0[part]!) * 1000) / Math.max(1, idleAttempts)]),
    );
    const idleCpuPerSecond = Object.entries(idleCpu1)
      .filter(([part]) => part !== 'generator')
      .reduce((sum, [part, s]) => sum + (s - idleCpu0[part]!), 0);
    console.log(
      `  idle ${idleMs / 1000} s: ${(idleAttempts / (idleMs / 1000)).toFixed(1)} attempts/s to failing endpoints, the stack busy ${((100 * idleCpuPerSecond) / (idleMs / 1000)).toFixed(0)} % of one core` +
        (idleAttempts > 0 ? `; CPU ms per attempt: ${fmtCpu(idleCpuMsPerAttempt)}` : ''),
    );
    if (failingStreams.length > 0) {
      // Every kind in the sample: refused, 503 and hanging endpoints in turn.
      const sample = failingStreams.filter((_, i) => i % Math.max(1, Math.floor(failingStreams.length / 100)) === 0).slice(0, 100);
      console.log(`  engine work in the idle window, ${await enginePerAttempt(client, sql, sample, idleFrom, idleTo)}`);
    }

    const attempts0 = await attemptsSoFar();
    const started = Date.now();
    const bare = await ctx.withCpu(() =>
      runLoad(`bare Temporal workflow, closed loop (${ctx.clients} clients), ${label}`, { clients: ctx.clients, durationMs: ctx.durationMs }, (_c, i) =>
        ctx.baselineRequest(i),
      ),
    );
    const payin = await ctx.withCpu(() =>
      runLoad(`PayIn create, closed loop (${ctx.clients} clients), ${label}`, { clients: ctx.clients, durationMs: ctx.durationMs }, () => ctx.createPayin()),
    );
    if (openRate === 0) openRate = Math.max(1, Math.round(payin.rps / 2));
    const timed: Timed[] = [];
    const open = await ctx.withCpu(() =>
      runOpenLoop(`PayIn create, open loop ${openRate}/s, ${label}`, { rate: openRate, durationMs: ctx.durationMs }, async () => {
        const sentAt = Date.now();
        const response = await ctx.createPayin();
        const answeredAt = Date.now();
        if (response.status !== 201 && response.status !== 200) return response;
        const body = (await response.json()) as { deal: { deal_id: string } };
        timed.push({ dealId: body.deal.deal_id, sentAt, answeredAt });
        return new Response(null, { status: response.status });
      }),
    );
    const lifecycleClients = Math.max(1, Math.floor(ctx.clients / 2));
    const lifecycle = await ctx.withCpu(() =>
      runLoad(
        `PayIn lifecycle create→notify→confirm, closed loop (${lifecycleClients} clients), ${label}`,
        { clients: lifecycleClients, durationMs: ctx.durationMs },
        () => ctx.lifecycle(),
      ),
    );
    const attemptsPerSecond = ((await attemptsSoFar()) - attempts0) / ((Date.now() - started) / 1000);
    const [retrying] = await sql<{ n: number }[]>`
      select count(*)::int as n from webhook_deliveries where merchant_id = any(${failing}::uuid[]) and status in ('PENDING', 'RETRY')`;
    // The sample: every fifth create of the open loop's measured part, at most 60.
    const sample = timed.filter((_, i) => i % 5 === 0).slice(-60);
    const breakdown = await createBreakdown(client, sample);
    console.log(
      `  ${label}: PayIn ${payin.rps}/s vs bare ${bare.rps}/s = ${(payin.rps / Math.max(1, bare.rps)).toFixed(2)}; CPU ms per create ${cpuTotal(payin.cpuMs).toFixed(0)} (${fmtCpu(payin.cpuMs)}) ` +
        `vs bare ${cpuTotal(bare.cpuMs).toFixed(0)} = ${(cpuTotal(payin.cpuMs) / Math.max(0.1, cpuTotal(bare.cpuMs))).toFixed(2)}×; open loop ${openRate}/s p50 ${open.p50} p99 ${open.p99} ms; ` +
        `${retrying!.n} deliveries pending or retrying, ${attemptsPerSecond.toFixed(1)} attempts/s meanwhile`,
    );
    console.log(
      `  where a create's time goes (median of ${sample.length}, ms): before the workflow starts ${breakdown.beforeStart}, waiting for a worker ${breakdown.waitForWorker}, ` +
        `the workflow task ${breakdown.workflowTask}, task completed → answer ${breakdown.afterTask}`,
    );
    rows.push({
      endpoints: failing.length,
      retrying: retrying!.n,
      attemptsPerSecond,
      idleCpuMsPerAttempt,
      bare,
      payin,
      open,
      breakdown,
      lifecycle,
    });
  }

  console.log('\nfailing-endpoints summary (each row one run beside its own bare workflow):');
  console.log(
    '| failing endpoints | retrying | attempts/s | bare /s | PayIn /s | ratio | CPU ms/create (bare) | ×bare | open p50/p99 ms | lifecycles/s | before start / wait / task / after ms |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|---|---|');
  for (const r of rows) {
    console.log(
      `| ${r.endpoints} | ${r.retrying} | ${r.attemptsPerSecond.toFixed(1)} | ${r.bare.rps} | ${r.payin.rps} | ${(r.payin.rps / Math.max(1, r.bare.rps)).toFixed(2)} | ` +
        `${cpuTotal(r.payin.cpuMs).toFixed(0)} (${cpuTotal(r.bare.cpuMs).toFixed(0)}) | ${(cpuTotal(r.payin.cpuMs) / Math.max(0.1, cpuTotal(r.bare.cpuMs))).toFixed(2)} | ` +
        `${r.open.p50}/${r.open.p99} | ${r.lifecycle.rps} | ${r.breakdown.beforeStart} / ${r.breakdown.waitForWorker} / ${r.breakdown.workflowTask} / ${r.breakdown.afterTask} |`,
    );
  }
  for (const r of rows.filter((x) => x.endpoints > 0))
    console.log(`  CPU ms per attempt to a failing endpoint, ${r.endpoints} endpoints (idle): ${fmtCpu(r.idleCpuMsPerAttempt)}`);
  targets.close();
}
