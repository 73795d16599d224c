/**
 * One webhook POST: no redirects followed, a hard deadline, the response body read up to a cap,
 * and — unless private targets are allowed — the resolved address checked at connect time (the
 * socket connects to exactly the address that was checked, so DNS rebinding cannot slip past).
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { tracing } from '../config/tracing';
import { isPrivateAddress } from '../domain/net-guard';

/** The stored response_body is at most this many bytes (of UTF-8). */
export const RESPONSE_BODY_LIMIT = 2048;

/**
 * Text that Postgres stores as it is, from any bytes or string, cut to at most `limit` bytes of
 * UTF-8 on a character boundary. Invalid UTF-8 becomes U+FFFD (one per maximal invalid sequence,
 * as WHATWG decoding does), and so does NUL, the one character a Postgres text value cannot hold;
 * everything else, other control characters included, is kept. `cut`: the bytes are the start of
 * a longer answer, so a multi-byte character they end inside is dropped, not replaced.
 */
export function storableText(input: Uint8Array | string, limit = RESPONSE_BODY_LIMIT, cut = false): string {
  const bytes = typeof input === 'string' ? Buffer.from(input, 'utf8') : input; // a lone surrogate encodes as U+FFFD
  const text = new TextDecoder('utf-8').decode(bytes, { stream: cut }).replace(/\0/g, '\uFFFD');
  if (Buffer.byteLength(text, 'utf8') <= limit) return text;
  let size = 0;
  let end = 0;
  for (const ch of text) {
    const n = Buffer.byteLength(ch, 'utf8');
    if (size + n > limit) break;
    size += n;
    end += ch.length;
  }
  return text.slice(0, end);
}

class BlockedTarget extends Error {}

export interface PostResult {
  status?: number;
  /** The answer's first bytes as storable text (storableText): at most RESPONSE_BODY_LIMIT bytes of UTF-8. */
  body: string;
  error?: string;
  /** Refused before sending (blocked address, bad URL): retrying cannot help. */
  permanent: boolean;
  durationMs: number;
}

function guardedLookup(allowPrivate: boolean) {
  return (hostname: string, options: { all?: boolean }, callback: (error: Error | null, address?: string | LookupAddress[], family?: number) => void) => {
    dnsLookup(hostname, { all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error);
      const safe = allowPrivate ? addresses : addresses.filter((a) => !isPrivateAddress(a.address));
      if (safe.length === 0) return callback(new BlockedTarget(`webhook target ${hostname} resolves to a private address`));
      if (options.all) return callback(null, safe);
      return callback(null, safe[0]!.address, safe[0]!.family);
    });
  };
}

/**
 * postWebhook with tracing on (config/tracing.ts): a client span with the method, the target's
 * host and port and the answer's status — not the path or query (a merchant's URL can carry a
 * token), never the body or the headers (signatures). No `traceparent` goes to the merchant: our
 * trace ids are ours, and a receiver that traces would hang its work into our traces.
 */
export function postWebhook(
  target: string,
  body: string,
  headers: Record<string, string>,
  options: { timeoutMs: number; allowPrivate: boolean },
): Promise<PostResult> {
  const traces = tracing();
  if (!traces) return post(target, body, headers, options);
  const { api } = traces;
  let address: Record<string, string | number> = {};
  try {
    const url = new URL(target);
    address = { 'server.address': url.hostname, 'server.port': Number(url.port || (url.protocol === 'https:' ? 443 : 80)) };
  } catch {
    // An invalid URL: post() refuses it; the span says so without it.
  }
  return traces.tracer.startActiveSpan('POST', { kind: api.SpanKind.CLIENT, attributes: { 'http.request.method': 'POST', ...address } }, async (span) => {
    try {
      const result = await post(target, body, headers, options);
      if (result.status !== undefined) span.setAttribute('http.response.status_code', result.status);
      if (result.status === undefined || result.status >= 400) {
        span.setAttribute('error.type', result.status !== undefined ? String(result.status) : result.permanent ? 'refused' : 'network');
        span.setStatus({ code: api.SpanStatusCode.ERROR });
      }
      return result;
    } finally {
      span.end();
    }
  });
}

function post(target: string, body: string, headers: Record<string, string>, options: { timeoutMs: number; allowPrivate: boolean }): Promise<PostResult> {
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
        // Any bytes the receiver sent (NUL, invalid UTF-8) become storable text of at most 2048 bytes.
        const done = (cut: boolean) =>
          finish({
            status: res.statusCode,
            body: storableText(Buffer.concat(chunks).subarray(0, RESPONSE_BODY_LIMIT), RESPONSE_BODY_LIMIT, cut),
            permanent: false,
          });
        res.on('data', (chunk: Buffer) => {
          if (size < RESPONSE_BODY_LIMIT) chunks.push(chunk);
          size += chunk.length;
          if (size >= RESPONSE_BODY_LIMIT) {
            done(true);
            res.destroy();
          }
        });
        res.on('end', () => done(false));
        res.on('error', () => done(true));
      },
    );
    const deadline = setTimeout(() => {
      req.destroy(new Error(`timed out after ${options.timeoutMs} ms`));
    }, options.timeoutMs);
    req.on('error', (error) => finish({ body: '', error: storableText(error.message, 500), permanent: error instanceof BlockedTarget }));
    req.end(body);
  });
}
