import { readdirSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
/** A closed-loop load generator: N clients each send the next request when the last one answers. */
export interface LoadResult {
  name: string;
  requests: number;
  errors: number;
  seconds: number;
  rps: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  statuses: Record<string, number>;
}

export async function runLoad(
  name: string,
  options: { clients: number; durationMs: number; warmupMs?: number },
  request: (client: number, i: number) => Promise<Response>,
  isOk: (response: Response) => boolean = (r) => r.status < 400,
): Promise<LoadResult> {
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  let errors = 0;
  let counter = 0;
  const warmupEnd = Date.now() + (options.warmupMs ?? 1000);
  const end = warmupEnd + options.durationMs;
  let measuredStart = 0;

  await Promise.all(
    Array.from({ length: options.clients }, async (_, client) => {
      while (Date.now() < end) {
        const i = counter++;
        const sentAt = Date.now();
        const started = performance.now();
        let ok = false;
        let status = 'network';
        try {
          const response = await request(client, i);
          await response.arrayBuffer();
          status = String(response.status);
          ok = isOk(response);
        } catch {
          ok = false;
        }
        // Requests *started* in the warm-up are dropped: those that merely finished after it
        // carry the warm-up's queueing into the figures.
        if (sentAt < warmupEnd) continue;
        measuredStart ||= sentAt;
        latencies.push(performance.now() - started);
        statuses[status] = (statuses[status] ?? 0) + 1;
        if (!ok) errors += 1;
      }
    }),
  );
  return summarize(name, latencies, errors, statuses, (Date.now() - (measuredStart || warmupEnd)) / 1000);
}

/** Percentiles and rate of one measured run (latencies in ms, over `seconds`). */
function summarize(name: string, latencies: number[], errors: number, statuses: Record<string, number>, seconds: number): LoadResult {
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  const tenth = (ms: number) => Math.round(ms * 10) / 10;
  return {
    name,
    requests: latencies.length,
    errors,
    seconds: tenth(seconds),
    rps: Math.round(latencies.length / seconds),
    p50: tenth(at(0.5)),
    p90: tenth(at(0.9)),
    p99: tenth(at(0.99)),
    max: tenth(latencies[latencies.length - 1] ?? 0),
    statuses,
  };
}

export function printResult(r: LoadResult) {
  console.log(
    `${r.name.padEnd(44)} ${String(r.rps).padStart(6)} req/s  p50 ${String(r.p50).padStart(6)} ms  p90 ${String(r.p90).padStart(6)} ms  p99 ${String(r.p99).padStart(6)} ms  max ${r.max} ms  ` +
      `errors ${r.errors}/${r.requests}  statuses ${JSON.stringify(r.statuses)}  load ${loadAverage()}`,
  );
}

/**
 * Open loop: requests are sent at a fixed rate whatever the answers, and each latency runs from
 * the request's *scheduled* send time, so queueing (in the generator too) shows in the figures
 * instead of lowering the offered load as a closed loop does. maxInFlight caps the requests
 * outstanding (a stalled system would otherwise pile up thousands); a request that could not go
 * out on time still counts from its scheduled time.
 */
export async function runOpenLoop(
  name: string,
  options: { rate: number; durationMs: number; warmupMs?: number; maxInFlight?: number },
  request: (i: number) => Promise<Response>,
  isOk: (response: Response) => boolean = (r) => r.status < 400,
): Promise<LoadResult> {
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  let errors = 0;
  const warmupMs = options.warmupMs ?? 1000;
  const total = Math.max(1, Math.round((options.rate * (warmupMs + options.durationMs)) / 1000));
  const intervalMs = 1000 / options.rate;
  const maxInFlight = options.maxInFlight ?? 2000;
  const t0 = performance.now();
  let inFlight = 0;
  let slotFreed: () => void = () => {};
  const pending: Promise<void>[] = [];
  for (let i = 0; i < total; i += 1) {
    const scheduled = t0 + i * intervalMs;
    const wait = scheduled - performance.now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    while (inFlight >= maxInFlight) await new Promise<void>((r) => (slotFreed = r));
    inFlight += 1;
    pending.push(
      (async () => {
        let status = 'network';
        let ok = false;
        try {
          const response = await request(i);
          await response.arrayBuffer();
          status = String(response.status);
          ok = isOk(response);
        } catch {
          ok = false;
        }
        inFlight -= 1;
        slotFreed();
        if (scheduled - t0 < warmupMs) return;
        latencies.push(performance.now() - scheduled);
        statuses[status] = (statuses[status] ?? 0) + 1;
        if (!ok) errors += 1;
      })(),
    );
  }
  await Promise.all(pending);
  return summarize(name, latencies, errors, statuses, (performance.now() - t0 - warmupMs) / 1000);
}

/** CPU seconds (user + system) of the given processes, read from /proc. */
export function cpuSeconds(pids: number[]): number {
  let ticks = 0;
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks += Number(fields[11]) + Number(fields[12]); // utime, stime
    } catch {
      /* gone */
    }
  }
  return ticks / 100; // USER_HZ
}

/** Postgres backends serving the given databases (their process titles name the database). */
export function postgresBackends(databases: string[]): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      if (cmdline.startsWith('postgres:') && databases.some((db) => cmdline.includes(` ${db} `))) pids.push(Number(entry));
    } catch {
      /* gone */
    }
  }
  return pids;
}

/** Percentile of sorted milliseconds. */
export const percentile = (sorted: number[], p: number) =>
  sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

/** A workflow history event's time, in ms since the epoch. */
export const eventTimeMs = (e: { eventTime?: { seconds?: unknown; nanos?: number | null } | null }) =>
  Number(e.eventTime?.seconds ?? 0) * 1000 + (e.eventTime?.nanos ?? 0) / 1e6;

export function loadAverage(): string {
  return loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');
}
