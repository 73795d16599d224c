/** The in-process OTLP/HTTP receiver test/ops/tracing.test.ts starts for its traced stack. */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A span as the OTLP receiver keeps it: what test/ops/tracing.test.ts checks, no more. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  service: string;
  attributes: Record<string, unknown>;
}

/**
 * An in-process OTLP/HTTP receiver (JSON, what @opentelemetry/exporter-trace-otlp-http sends):
 * the stack's processes export their spans to it (OTEL_EXPORTER_OTLP_ENDPOINT), tests read a
 * trace's spans from GET /traces/<trace id>, and the ids of the traces with a span whose attribute
 * starts with a value from GET /traces?attribute=<key>&prefix=<value>. It keeps the last MAX_TRACES traces only.
 */
export async function startOtlpReceiver(): Promise<{ url: string; close(): Promise<void> }> {
  const MAX_TRACES = 5000;
  const traces = new Map<string, ReceivedSpan[]>();
  const attributeValue = (v: Record<string, unknown> | undefined): unknown => (v ? Object.values(v)[0] : undefined);
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const traceRoute = /^\/traces\/([0-9a-f]{32})$/.exec(req.url ?? '');
      const search = new URL(req.url ?? '/', 'http://receiver');
      if (req.method === 'GET' && search.pathname === '/traces') {
        const [key, prefix] = [search.searchParams.get('attribute') ?? '', search.searchParams.get('prefix') ?? ''];
        const ids = [...traces].filter(([, spans]) => spans.some((s) => String(s.attributes[key] ?? '').startsWith(prefix))).map(([id]) => id);
        res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(ids));
        return;
      }
      if (req.method === 'GET' && traceRoute) {
        res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(traces.get(traceRoute[1]!) ?? []));
        return;
      }
      if (req.method !== 'POST' || req.url !== '/v1/traces') return void res.writeHead(404).end();
      if (!String(req.headers['content-type']).startsWith('application/json')) return void res.writeHead(415).end();
      type Attr = { key: string; value: Record<string, unknown> };
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        resourceSpans?: {
          resource?: { attributes?: Attr[] };
          scopeSpans?: { spans?: (Omit<ReceivedSpan, 'service' | 'attributes'> & { attributes?: Attr[] })[] }[];
        }[];
      };
      for (const rs of body.resourceSpans ?? []) {
        const service = String(attributeValue(rs.resource?.attributes?.find((a) => a.key === 'service.name')?.value) ?? '');
        for (const ss of rs.scopeSpans ?? []) {
          for (const s of ss.spans ?? []) {
            const span: ReceivedSpan = {
              traceId: s.traceId,
              spanId: s.spanId,
              ...(s.parentSpanId ? { parentSpanId: s.parentSpanId } : {}),
              name: s.name,
              kind: s.kind,
              service,
              attributes: Object.fromEntries((s.attributes ?? []).map((a) => [a.key, attributeValue(a.value)])),
            };
            const list = traces.get(span.traceId) ?? [];
            if (list.length === 0) {
              traces.set(span.traceId, list);
              if (traces.size > MAX_TRACES) traces.delete(traces.keys().next().value!);
            }
            list.push(span);
          }
        }
      }
      res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
    });
  });
  server.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  server.unref();
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
