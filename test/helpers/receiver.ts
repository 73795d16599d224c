import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  /** The request's path and query as sent (several endpoints may share one receiver). */
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

/**
 * A real local webhook receiver. `respond` decides each answer (by the request's index, or its
 * path), so a test can fail N times, redirect, hang or send a huge body; the receiver answers
 * every path, so several endpoints (merchants) can share one host.
 */
export async function startReceiver(respond: (index: number, res: ServerResponse, request: Received) => void = (_, res) => res.writeHead(200).end('ok')) {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      const request = { path: req.url ?? '', headers: req.headers, body, at: Date.now() };
      received.push(request);
      respond(received.length - 1, res, request);
    });
  });
  server.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  return {
    url,
    received,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
