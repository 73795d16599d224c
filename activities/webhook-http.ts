/**
 * One webhook POST: no redirects followed, a hard deadline, the response body read up to a cap,
 * and — unless private targets are allowed — the resolved address checked at connect time (the
 * socket connects to exactly the address that was checked, so DNS rebinding cannot slip past).
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { isPrivateAddress } from '../domain/net-guard';

export const RESPONSE_BODY_LIMIT = 2048;

export class BlockedTarget extends Error {}

export interface PostResult {
  status?: number;
  body: string;
  error?: string;
  /** Refused before sending (blocked address, bad URL): retrying cannot help. */
  permanent: boolean;
  durationMs: number;
}

function guardedLookup(allowPrivate: boolean) {
  return (hostname: string, options: { all?: boolean }, callback: (...args: any[]) => void) => {
    dnsLookup(hostname, { all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error);
      const safe = allowPrivate ? addresses : addresses.filter((a) => !isPrivateAddress(a.address));
      if (safe.length === 0) return callback(new BlockedTarget(`webhook target ${hostname} resolves to a private address`));
      if (options.all) return callback(null, safe);
      return callback(null, safe[0]!.address, safe[0]!.family);
    });
  };
}

export function postWebhook(
  target: string,
  body: string,
  headers: Record<string, string>,
  options: { timeoutMs: number; allowPrivate: boolean },
): Promise<PostResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  let url: URL;
  try {
    url = new URL(target);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('scheme');
  } catch {
    return Promise.resolve({ body: '', error: 'invalid webhook URL', permanent: true, durationMs: 0 });
  }
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) && !options.allowPrivate && isPrivateAddress(host)) {
    return Promise.resolve({ body: '', error: `webhook target ${host} is a private address`, permanent: true, durationMs: 0 });
  }
  return new Promise((resolve) => {
    let settled = false;
    const finish = (result: Omit<PostResult, 'durationMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      resolve({ ...result, durationMs: elapsed() });
    };
    const client = url.protocol === 'https:' ? https : http;
    const req = client.request(
      url,
      {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body), 'User-Agent': 'merchant-gateway-webhooks/1', ...headers },
        lookup: guardedLookup(options.allowPrivate) as never,
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        const done = () => finish({ status: res.statusCode, body: Buffer.concat(chunks).subarray(0, RESPONSE_BODY_LIMIT).toString('utf8'), permanent: false });
        res.on('data', (chunk: Buffer) => {
          if (size < RESPONSE_BODY_LIMIT) chunks.push(chunk);
          size += chunk.length;
          if (size >= RESPONSE_BODY_LIMIT) {
            done();
            res.destroy();
          }
        });
        res.on('end', done);
        res.on('error', done);
      },
    );
    const deadline = setTimeout(() => {
      req.destroy(new Error(`timed out after ${options.timeoutMs} ms`));
    }, options.timeoutMs);
    req.on('error', (error) => finish({ body: '', error: error.message, permanent: error instanceof BlockedTarget }));
    req.end(body);
  });
}
