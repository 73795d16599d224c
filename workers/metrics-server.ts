/**
 * The worker process's own HTTP server (WORKER_METRICS_PORT): `/metrics` serves the gateway's
 * prom-client registry of this process, `/health` says its role and where each of its metric
 * endpoints is (this server's and the Temporal SDK's exporter, TEMPORAL_SDK_METRICS_PORT).
 */
import { createServer, type Server } from 'node:http';
import type { Registry } from 'prom-client';

export interface WorkerMetricsServer {
  url: string;
  close(): Promise<void>;
}

export interface WorkerHealth {
  role: string;
  /** Every Prometheus endpoint this process serves (the gateway's, the Temporal SDK's). */
  metrics: { name: 'gateway' | 'temporal_sdk'; url: string }[];
}

export async function startWorkerMetricsServer(options: {
  host: string;
  port: number;
  registry: Registry;
  health: () => WorkerHealth;
}): Promise<WorkerMetricsServer | undefined> {
  if (options.port === 0) return undefined;
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD' }).end();
      return;
    }
    if (path === '/metrics') {
      options.registry.metrics().then(
        (text) => res.writeHead(200, { 'content-type': options.registry.contentType }).end(text),
        () => res.writeHead(500).end(),
      );
      return;
    }
    if (path === '/health') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ status: 'ok', ...options.health() }));
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  return {
    url: `http://${options.host}:${options.port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
