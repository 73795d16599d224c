/**
 * The fetch the typed client runs on: every attempt signed afresh (a timestamp of its own, never a
 * signature the gateway would refuse as a repeat), retried per ./retry.ts, each attempt bounded by
 * a timeout.
 */
import { signatureHeaders } from './signing.js';
import { NetworkError } from './errors.js';
import { backoffMs, DEFAULT_RETRY, isIdempotent, retryableStatus, retryAfterMs, type RetryOptions } from './retry.js';

export interface SignedFetchOptions {
  token: string;
  secret: string;
  /** Send the request-bound v2 signature beside v1 (default true). */
  bindRequests?: boolean;
  /** false: one attempt only. */
  retry?: RetryOptions | false;
  /** Per attempt (default 30 s). */
  timeoutMs?: number;
  /** The fetch to send with (default globalThis.fetch). */
  fetch?: typeof fetch;
  /** Clock and sleep, replaceable in tests. */
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
  userAgent?: string;
}

/**
 * Signatures this client must not send again. The gateway accepts a repeated signature on
 * ordinary routes, but refuses a second use on the same route for its single-use routes (key
 * rotation, callback retry, appeal messages, passes, uploads), and an unbound key rotation
 * whose signature any earlier request carried (a body-less request of the same second). So a
 * non-GET request never reuses a signature this client already sent on its route, an unbound
 * rotation never uses a second of an earlier body-less request, and the attempts of one request
 * never share a timestamp (a fresh signature per try). On a collision the client signs with the
 * second before (the replay window reaches 300 s back). GETs are never held back.
 */
class SignatureMemory {
  private readonly onRoute = new Map<string, number>();
  private readonly bodilessSeconds = new Set<number>();
  private inserts = 0;

  choose(
    request: { route: string; safe: boolean; bodiless: boolean; bound: boolean; rotation: boolean; tried: Set<number> },
    nowSeconds: number,
    sign: (t: number) => { v1: string; headers: Record<string, string> },
  ): Record<string, string> {
    this.prune(nowSeconds);
    for (let t = nowSeconds; t > nowSeconds - 250; t -= 1) {
      if (request.tried.has(t)) continue;
      const signed = sign(t);
      const key = `${request.route}|${signed.v1}`;
      if (!request.safe && this.onRoute.has(key)) continue;
      if (request.rotation && !request.bound && this.bodilessSeconds.has(t)) continue;
      request.tried.add(t);
      if (!request.safe) this.onRoute.set(key, t);
      if (request.bodiless && !request.bound) this.bodilessSeconds.add(t);
      this.inserts += 1;
      return signed.headers;
    }
    return sign(nowSeconds).headers; // 250 collisions in a row: let the gateway judge
  }

  private prune(nowSeconds: number): void {
    if (this.inserts < 1000) return;
    this.inserts = 0;
    for (const [key, t] of this.onRoute) if (t < nowSeconds - 310) this.onRoute.delete(key);
    for (const t of this.bodilessSeconds) if (t < nowSeconds - 310) this.bodilessSeconds.delete(t);
  }
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export function createSignedFetch(options: SignedFetchOptions): (request: Request) => Promise<Response> {
  const baseFetch = options.fetch ?? globalThis.fetch;
  const retry = options.retry === false ? { ...DEFAULT_RETRY, maxAttempts: 1 } : { ...DEFAULT_RETRY, ...options.retry };
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? defaultSleep;
  const timeoutMs = options.timeoutMs ?? 30_000;
  const memory = new SignatureMemory();

  return async function signedFetch(request: Request): Promise<Response> {
    const body = request.method === 'GET' || request.method === 'HEAD' ? undefined : new Uint8Array(await request.arrayBuffer());
    const url = new URL(request.url);
    const target = url.pathname + url.search;
    const idempotent = isIdempotent(request.method, url.pathname, body);
    const bound = options.bindRequests ?? true;
    const shape = {
      route: `${request.method} ${url.pathname}`,
      safe: request.method === 'GET' || request.method === 'HEAD',
      bodiless: !body || body.length === 0 || new TextDecoder().decode(body).trim() === '{}',
      bound,
      rotation: request.method === 'POST' && url.pathname.endsWith('/api-keys/rotate'),
      tried: new Set<number>(),
    };

    for (let attempt = 1; ; attempt += 1) {
      const headers = new Headers(request.headers);
      const signed = memory.choose(shape, Math.floor(now() / 1000), (t) => {
        const value = signatureHeaders({
          token: options.token,
          secret: options.secret,
          method: request.method,
          target,
          body: body ?? '',
          timestamp: t,
          bind: bound,
        });
        return { v1: value['X-Signature']!.split(',')[1]!, headers: value };
      });
      for (const [name, value] of Object.entries(signed)) headers.set(name, value);
      if (options.userAgent) headers.set('User-Agent', options.userAgent);

      const signal = request.signal ? AbortSignal.any([request.signal, AbortSignal.timeout(timeoutMs)]) : AbortSignal.timeout(timeoutMs);
      let response: Response;
      try {
        const payload = body && body.length > 0 ? body : undefined;
        response = await baseFetch(new Request(request.url, { method: request.method, headers, body: payload, signal, redirect: 'manual' }));
      } catch (error) {
        if (request.signal?.aborted) throw error; // the caller gave up
        if (!idempotent || attempt >= retry.maxAttempts) {
          throw new NetworkError(`${request.method} ${url.pathname}: ${error instanceof Error ? error.message : String(error)} (attempt ${attempt})`, {
            cause: error,
          });
        }
        await sleep(backoffMs(attempt, retry));
        continue;
      }
      if (attempt >= retry.maxAttempts || !retryableStatus(response.status, idempotent)) return response;
      const after = retryAfterMs(response.headers.get('Retry-After'), now());
      if (after !== undefined && after > retry.maxRetryAfterMs) return response;
      await response.arrayBuffer().catch(() => undefined);
      await sleep(Math.max(backoffMs(attempt, retry), after ?? 0));
    }
  };
}
