/**
 * Request signing of the Merchant API V2 (the v1 signature over the body, and the request-bound v2):
 *
 *   X-Merchant-Token: <token>
 *   X-Timestamp:      <unix seconds>
 *   X-Signature:      t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>[,v2=<hex HMAC-SHA256(secret, "<t>.<METHOD>.<path?query>.<raw body>")>]
 *
 * The HMAC key is the secret string exactly as issued (`whsec_` included). v2 binds the signature
 * to the method and the path and query exactly as sent, so it cannot be replayed on another
 * route; the SDK sends it by default (`bindRequests: false` sends v1 only).
 */
import { createHmac } from 'node:crypto';

export interface SignInput {
  token: string;
  secret: string;
  method: string;
  /** Path and query exactly as sent: /api/v1/p2p/merchant/deals?page_size=100 */
  target: string;
  body: Uint8Array | string;
  timestamp: number;
  /** Add the request-bound v2 signature (default true). */
  bind?: boolean;
}

/** hex HMAC-SHA256(secret, "<t>.<raw body>"): the v1 signature, over the timestamp and the raw body. */
export function v1Signature(secret: string, timestamp: number, body: Uint8Array | string): string {
  return createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest('hex');
}

/** hex HMAC-SHA256(secret, "<t>.<METHOD>.<path?query>.<raw body>"): the request-bound v2. */
export function v2Signature(secret: string, timestamp: number, method: string, target: string, body: Uint8Array | string): string {
  return createHmac('sha256', secret).update(`${timestamp}.${method.toUpperCase()}.${target}.`).update(body).digest('hex');
}

/** The three headers of a signed request. */
export function signatureHeaders(input: SignInput): Record<string, string> {
  const { token, secret, method, target, body, timestamp, bind = true } = input;
  const v1 = `t=${timestamp},v1=${v1Signature(secret, timestamp, body)}`;
  return {
    'X-Merchant-Token': token,
    'X-Timestamp': String(timestamp),
    'X-Signature': bind ? `${v1},v2=${v2Signature(secret, timestamp, method, target, body)}` : v1,
  };
}
