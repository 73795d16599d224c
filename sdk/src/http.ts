/**
 * The fetch the typed client runs on: every attempt signed afresh (a new timestamp, never a
 * signature this client already sent), retried per ./retry.ts, each attempt bounded by a timeout.
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
 * The gateway refuses a second use of one signature on its single-use routes (key rotation,
 * callback retry, …), and two identical requests within one second carry one signature. This
 * client never sends a v1 signature twice within the replay window: on a collision it signs with
 * the second before (the window is 300 s back).
 */
class SentSignatures {
  private readonly seen = new Map<string, number>();

  take(sign: (t: number) => { key: string; value: Record<string, string> }, nowSeconds: number): Record<string, string> {
    if (this.seen.size > 10_000) for (const [k, t] of this.seen) if (t < nowSeconds - 310) this.seen.delete(k);
    for (let t = nowSeconds; ; t -= 1) {
      const { key, value } = sign(t);
      if (!this.seen.has(key)) {
        this.seen.set(key, t);
        return value;
      }
    }
  }
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export function createSignedFetch(options: SignedFetchOptions): (request: Request) => Promise<Response> {
  const baseFetch = options.fetch ?? globalThis.fetch;
  const retry = options.retry === false ? { ...DEFAULT_RETRY, maxAttempts: 1 } : { ...DEFAULT_RETRY, ...options.retry };
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? defaultSleep;
  const timeoutMs = options.timeoutMs ?? 30_000;
  const sent = new SentSignatures();

  return async function signedFetch(request: Request): Promise<Response> {
    const body = request.method === 'GET' || request.method === 'HEAD' ? undefined : new Uint8Array(await request.arrayBuffer());
    const url = new URL(request.url);
    const target = url.pathname + url.search;
    const idempotent = isIdempotent(request.method, url.pathname, body);

    for (let attempt = 1; ; attempt += 1) {
      const headers = new Headers(request.headers);
      const signed = sent.take((t) => {
        const value = signatureHeaders({
          token: options.token,
          secret: options.secret,
          method: request.method,
          target,
          body: body ?? '',
          timestamp: t,
          bind: options.bindRequests ?? true,
        });
        return { key: value['X-Signature']!.split(',')[1]!, value };
      }, Math.floor(now() / 1000));
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
          throw new NetworkError(`${request.method} ${url.pathname}: ${error instanceof Error ? error.message : String(error)} (attempt ${attempt})`, { cause: error });
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
