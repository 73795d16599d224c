/**
 * Standard Webhooks (https://www.standardwebhooks.com, spec v1) beside the spec's own headers:
 * every V2 delivery also carries
 *
 *   webhook-id: <event_id>                  (stable across retries: the receiver's dedupe key)
 *   webhook-timestamp: <unix seconds>       (the send time, the same as X-Timestamp)
 *   webhook-signature: v1,<base64 sig> [v1,<base64 sig> …]
 *
 * where sig = HMAC-SHA256(key, "<webhook-id>.<webhook-timestamp>.<raw body>") and the key is the
 * bytes the signing secret encodes: the secret is `whsec_` + base64 of random bytes, and those
 * bytes are the key (the `standardwebhooks` libraries decode it exactly so). During a key
 * rotation's grace window the new and the old secret both sign, space-separated, the new first.
 *
 * Anything else (a secret not made by the gateway) keys the HMAC with its whole string as UTF-8.
 */
import { createHmac } from 'node:crypto';

const PREFIX = 'whsec_';
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** The HMAC key a signing secret stands for in the Standard Webhooks scheme. */
export function standardWebhooksKey(secret: string): Buffer {
  const body = secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret;
  if (body.length > 0 && BASE64.test(body) && body.length % 4 === 0) return Buffer.from(body, 'base64');
  return Buffer.from(secret, 'utf8');
}

/** One signature of the scheme: `v1,<base64 HMAC-SHA256(key, "<id>.<timestamp>.<body>")>`. */
function standardSignature(secret: string, msgId: string, timestamp: number, body: string | Buffer): string {
  const mac = createHmac('sha256', standardWebhooksKey(secret)).update(`${msgId}.${timestamp}.`).update(body).digest('base64');
  return `v1,${mac}`;
}

/** The three headers, signed by each secret in order (the current one first). */
export function standardWebhooksHeaders(secrets: string[], msgId: string, timestamp: number, body: string | Buffer) {
  if (secrets.length === 0) throw new Error('no secret to sign with');
  return {
    'webhook-id': msgId,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': secrets.map((s) => standardSignature(s, msgId, timestamp, body)).join(' '),
  };
}
