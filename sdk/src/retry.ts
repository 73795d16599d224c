/**
 * When and how long to retry: 4xx answers are final except 408 and 429;
 * 5xx answers and network failures are retried — with the same idempotency key (the same body)
 * and a fresh signature — when the request is safe to repeat: a GET, an operation the gateway's
 * OpenAPI document marks `x-idempotent: true` (a deal create, whose idempotency_key makes a repeat
 * answer the first deal; a cancel, whose repeat on CANCELLED answers 200), a withdrawal carrying
 * an idempotency_key. 408 and 429 say the gateway did not act, so they are retried for every
 * request. Pauses grow exponentially with jitter; a Retry-After is honoured (waited at least) up
 * to maxRetryAfterMs.
 */
import { IDEMPOTENT_OPERATIONS } from './generated/idempotent.js';

export interface RetryOptions {
  /** Attempts in all, the first one included (default 3; 1 turns retries off). */
  maxAttempts?: number;
  /** The first pause (default 500 ms); doubled per retry, up to maxDelayMs (default 8 s), with jitter. */
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** The longest Retry-After the SDK waits for (default 60 s); a longer one ends the retries at once. */
  maxRetryAfterMs?: number;
}

export const DEFAULT_RETRY: Required<RetryOptions> = { maxAttempts: 3, baseDelayMs: 500, maxDelayMs: 8_000, maxRetryAfterMs: 60_000 };

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The operations whose repeat cannot act twice, as patterns of a request's path: a `{parameter}`
 * of the document's path is one segment; anchored at the end only, so a base URL with a path of
 * its own (a proxy's prefix) still matches.
 */
const IDEMPOTENT = IDEMPOTENT_OPERATIONS.map(({ method, path }) => ({
  method,
  path: new RegExp(
    `${path
      .split(/\{[^}]+\}/)
      .map(escapeRegExp)
      .join('[^/]+')}$`,
  ),
}));
/** The withdrawal: the one POST the SDK repeats only when the merchant sent it with an idempotency_key. */
const WITHDRAW = /\/wallet\/withdraw$/;

/** Safe to send again after a 5xx or a network failure? */
export function isIdempotent(method: string, path: string, body: Uint8Array | undefined): boolean {
  const m = method.toUpperCase();
  if (m === 'GET' || m === 'HEAD' || m === 'OPTIONS') return true;
  if (IDEMPOTENT.some((operation) => operation.method === m && operation.path.test(path))) return true;
  if (m === 'POST' && WITHDRAW.test(path) && body) {
    try {
      const parsed: unknown = JSON.parse(new TextDecoder().decode(body));
      return typeof (parsed as { idempotency_key?: unknown }).idempotency_key === 'string' && (parsed as { idempotency_key: string }).idempotency_key !== '';
    } catch {
      return false;
    }
  }
  return false;
}

/** Should an answer with this status be retried? */
export function retryableStatus(status: number, idempotent: boolean): boolean {
  if (status === 408 || status === 429) return true;
  return idempotent && status >= 500;
}

/** The pause before retry n (1 = the first retry): exponential, with "equal jitter" (half fixed, half random). */
export function backoffMs(retry: number, options: Required<RetryOptions>, random: () => number = Math.random): number {
  const ceiling = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** (retry - 1));
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}

/** Retry-After as milliseconds (delta-seconds or an HTTP date); undefined when absent or unreadable. */
export function retryAfterMs(header: string | null, now: number = Date.now()): number | undefined {
  if (!header) return undefined;
  if (/^\d+$/.test(header.trim())) return Number(header.trim()) * 1000;
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}
