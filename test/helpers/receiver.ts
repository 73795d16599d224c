import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

/**
 * A real local webhook receiver. `respond` decides each answer (by the request's index), so a
 * test can fail N times, redirect, hang or send a huge body.
 */
export async function startReceiver(
  respond: (index: number, res: ServerResponse, request: Received) => void = (_, res) => res.writeHead(200).end('ok'),
) {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      const request = { headers: req.headers, body, at: Date.now() };
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
