/**
 * The API process's Prometheus endpoint on a port of its own (METRICS_PORT, on METRICS_HOST):
 * `GET /metrics` there serves the app's registry. The API's own port answers 404 for /metrics, so
 * whoever can reach the API (merchants, payers, the internet) does not read its internals; the
 * scraper reaches this port on the internal network.
 */
import { createServer, type Server } from 'node:http';
import type { Registry } from 'prom-client';

export interface ApiMetricsServer {
  url: string;
  close(): Promise<void>;
}

/** Serves `registry` at http://host:port/metrics (port 0 here: not served, undefined). */
export async function startApiMetricsServer(options: { host: string; port: number; registry: Registry }): Promise<ApiMetricsServer | undefined> {
  if (options.port === 0) return undefined;
  return listenMetrics(options.host, options.port, options.registry);
}

/** The same on a free port of `host` (tests). */
export function startApiMetricsServerOnFreePort(host: string, registry: Registry): Promise<ApiMetricsServer> {
  return listenMetrics(host, 0, registry);
}

async function listenMetrics(host: string, port: number, registry: Registry): Promise<ApiMetricsServer> {
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD' }).end();
      return;
    }
    if (path !== '/metrics') {
      res.writeHead(404).end();
      return;
    }
    registry.metrics().then(
      (text) => res.writeHead(200, { 'content-type': registry.contentType }).end(text),
      () => res.writeHead(500).end(),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const bound = (server.address() as { port: number }).port;
  return {
    url: `http://${host}:${bound}/metrics`,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
