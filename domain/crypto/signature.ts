import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The V2 HMAC scheme, byte-compatible with Stripe's webhook signatures:
 * X-Signature: t=<unix seconds>,v1=<hex hmac-sha256(secret, "<t>.<raw body>")>.
 * The HMAC key is the secret string exactly as issued (whsec_ prefix included).
 *
 * v1 does not name the request: two body-less requests of one second carry the same v1. The
 * optional request-bound scheme adds `v2=<hex hmac-sha256(secret, "<t>.<METHOD>.<target>.<raw body>")>`,
 * where target is the path and query exactly as sent (`/api/v1/p2p/merchant/deals?page_size=100`):
 * a v2 signature cannot be moved to another method, path or query. Stripe's library ignores
 * schemes it does not know, so a header carrying both still verifies there.
 */
export function computeSignature(secret: string, timestamp: number, body: string | Buffer): string {
  return createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest('hex');
}

/** The request the v2 scheme binds: method (upper case) and target (path + query as sent). */
export interface SignedRequest {
  method: string;
  target: string;
}

export function computeBoundSignature(secret: string, timestamp: number, request: SignedRequest, body: string | Buffer): string {
  return createHmac('sha256', secret).update(`${timestamp}.${request.method.toUpperCase()}.${request.target}.`).update(body).digest('hex');
}

/** `t=…,v1=…`, plus `,v2=…` when the request to bind is given. */
export function signatureHeader(secret: string, timestamp: number, body: string | Buffer, bind?: SignedRequest): string {
  const v1 = `t=${timestamp},v1=${computeSignature(secret, timestamp, body)}`;
  return bind ? `${v1},v2=${computeBoundSignature(secret, timestamp, bind, body)}` : v1;
}

/**
 * X-Signature of an outgoing V2 webhook: `t=<t>,v1=<sig>` with one v1 per secret, the current
 * secret first. During a key rotation's grace window the old secret signs too (as Stripe does
 * while an endpoint secret rolls): the spec's rotation rule, "signed with the new secret from the
 * moment of rotation", holds, and a receiver still configured with the old secret keeps verifying until it
 * switches. Verifiers (Stripe's included) accept a header when any v1 matches.
 */
export function webhookSignatureHeader(secrets: string[], timestamp: number, body: string | Buffer): string {
  if (secrets.length === 0) throw new Error('no secret to sign with');
  return [`t=${timestamp}`, ...secrets.map((s) => `v1=${computeSignature(s, timestamp, body)}`)].join(',');
}

export interface ParsedSignature {
  timestamp: number;
  v1: string[];
  /** Request-bound signatures; empty when the client sent none. */
  v2: string[];
}

const HEX64 = /^[0-9a-f]{64}$/i;

/**
 * Parses "t=…,v1=…[,v1=…][,v2=…]"; returns undefined when malformed or when it carries no
 * signature of either scheme. Unknown schemes (v0 …) are ignored, as Stripe does; a v2 that is
 * not 64 hex characters makes the header malformed (a v2 present must be checked, never skipped).
 */
export function parseSignatureHeader(header: string | undefined): ParsedSignature | undefined {
  if (!header) return undefined;
  let timestamp: number | undefined;
  const v1: string[] = [];
  const v2: string[] = [];
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    if (eq < 0) return undefined;
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === 't') {
      if (!/^\d{1,12}$/.test(value) || timestamp !== undefined) return undefined;
      timestamp = Number(value);
    } else if (key === 'v1') {
      if (HEX64.test(value)) v1.push(value.toLowerCase());
    } else if (key === 'v2') {
      if (!HEX64.test(value)) return undefined;
      v2.push(value.toLowerCase());
    }
  }
  if (timestamp === undefined || v1.length + v2.length === 0) return undefined;
  return { timestamp, v1, v2 };
}

/** Constant-time: does one of the candidates equal the expected hex digest? */
function anyMatches(expectedHex: string, candidates: string[]): boolean {
  const expected = Buffer.from(expectedHex, 'hex');
  let ok = false;
  for (const candidate of candidates) {
    const given = Buffer.from(candidate, 'hex');
    if (given.length === expected.length && timingSafeEqual(given, expected)) ok = true;
  }
  return ok;
}

/** Timing-safe check that one of the v1 signatures matches. */
export function signatureMatches(secret: string, parsed: Pick<ParsedSignature, 'timestamp' | 'v1'>, body: string | Buffer): boolean {
  return anyMatches(computeSignature(secret, parsed.timestamp, body), parsed.v1);
}

/** Timing-safe check that one of the v2 signatures matches this request. */
export function boundSignatureMatches(secret: string, parsed: ParsedSignature, request: SignedRequest, body: string | Buffer): boolean {
  return anyMatches(computeBoundSignature(secret, parsed.timestamp, request, body), parsed.v2);
}

export const REPLAY_WINDOW_PAST_SECONDS = 300;
const REPLAY_WINDOW_FUTURE_SECONDS = 60;

export type TimestampCheck = 'ok' | 'too_old' | 'too_new';

export function checkTimestamp(timestamp: number, nowSeconds: number): TimestampCheck {
  if (nowSeconds - timestamp > REPLAY_WINDOW_PAST_SECONDS) return 'too_old';
  if (timestamp - nowSeconds > REPLAY_WINDOW_FUTURE_SECONDS) return 'too_new';
  return 'ok';
}
