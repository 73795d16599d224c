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
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  const seconds = (Date.now() - (measuredStart || warmupEnd)) / 1000;
  return {
    name,
    requests: latencies.length,
    errors,
    seconds: Math.round(seconds * 10) / 10,
    rps: Math.round(latencies.length / seconds),
    p50: Math.round(at(0.5) * 10) / 10,
    p90: Math.round(at(0.9) * 10) / 10,
    p99: Math.round(at(0.99) * 10) / 10,
    max: Math.round((latencies[latencies.length - 1] ?? 0) * 10) / 10,
    statuses,
  };
}

export function printResult(r: LoadResult) {
  console.log(
    `${r.name.padEnd(44)} ${String(r.rps).padStart(6)} req/s  p50 ${String(r.p50).padStart(6)} ms  p90 ${String(r.p90).padStart(6)} ms  p99 ${String(r.p99).padStart(6)} ms  max ${r.max} ms  ` +
      `errors ${r.errors}/${r.requests}  statuses ${JSON.stringify(r.statuses)}`,
  );
}
