import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The V2 HMAC scheme, byte-compatible with Stripe's webhook signatures:
 * X-Signature: t=<unix seconds>,v1=<hex hmac-sha256(secret, "<t>.<raw body>")>.
 * The HMAC key is the secret string exactly as issued (whsec_ prefix included).
 */
export function computeSignature(secret: string, timestamp: number, body: string | Buffer): string {
  return createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest('hex');
}

export function signatureHeader(secret: string, timestamp: number, body: string | Buffer): string {
  return `t=${timestamp},v1=${computeSignature(secret, timestamp, body)}`;
}

export interface ParsedSignature {
  timestamp: number;
  v1: string[];
}

/** Parses "t=…,v1=…[,v1=…]"; returns undefined when malformed. Unknown schemes are ignored. */
export function parseSignatureHeader(header: string | undefined): ParsedSignature | undefined {
  if (!header) return undefined;
  let timestamp: number | undefined;
  const v1: string[] = [];
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    if (eq < 0) return undefined;
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === 't') {
      if (!/^\d{1,12}$/.test(value) || timestamp !== undefined) return undefined;
      timestamp = Number(value);
    } else if (key === 'v1') {
      if (/^[0-9a-f]{64}$/i.test(value)) v1.push(value.toLowerCase());
    }
  }
  if (timestamp === undefined || v1.length === 0) return undefined;
  return { timestamp, v1 };
}

/** Timing-safe check that one of the v1 signatures matches. */
export function signatureMatches(secret: string, parsed: ParsedSignature, body: string | Buffer): boolean {
  const expected = Buffer.from(computeSignature(secret, parsed.timestamp, body), 'hex');
  let ok = false;
  for (const candidate of parsed.v1) {
    const given = Buffer.from(candidate, 'hex');
    if (given.length === expected.length && timingSafeEqual(given, expected)) ok = true;
  }
  return ok;
}

export const REPLAY_WINDOW_PAST_SECONDS = 300;
export const REPLAY_WINDOW_FUTURE_SECONDS = 60;

export type TimestampCheck = 'ok' | 'too_old' | 'too_new';

export function checkTimestamp(timestamp: number, nowSeconds: number): TimestampCheck {
  if (nowSeconds - timestamp > REPLAY_WINDOW_PAST_SECONDS) return 'too_old';
  if (timestamp - nowSeconds > REPLAY_WINDOW_FUTURE_SECONDS) return 'too_new';
  return 'ok';
}
