/**
 * Webhook verification. Every V2 delivery carries two signatures over the same raw body:
 *
 *   Standard Webhooks: webhook-id, webhook-timestamp, webhook-signature: v1,<base64 HMAC-SHA256(key, "<id>.<ts>.<body>")> …
 *                      (key: the bytes the secret encodes, `whsec_` + base64)
 *   the gateway's own: X-Timestamp, X-Signature: t=<ts>,v1=<hex HMAC-SHA256(secret, "<ts>.<body>")> …
 *                      (key: the secret string as issued)
 *
 * During a key rotation's grace window both secrets sign (two signatures in each header), so a
 * receiver may switch to the new secret at any moment; pass both secrets meanwhile. Verify the
 * raw bytes as received — parse the JSON afterwards (that is what this returns).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { components } from './generated/openapi.js';

/**
 * An event in the V2 envelope: the body of a webhook and an item of the events feed. A union
 * discriminated by `type`, one variant per family — narrow on `type` and the event's object is
 * typed:
 *
 *   if (event.type === 'deal.completed') console.log(event.deal.status);
 *   else if (event.type === 'p2p.finance.withdrawal_failed') console.log(event.withdrawal.withdrawal_id);
 *
 * The gateway adds event types without notice: at run time an event may carry a type
 * that is none of WebhookEventType. Handle the types you know and ignore the rest (a `switch` whose
 * default does nothing, or `isKnownEventType`). The union deliberately has no catch-all variant:
 * one with `type: string` would match every comparison and stop `type` from narrowing.
 */
export type WebhookEvent = components['schemas']['WebhookEvent'];
/** Every event type this SDK knows. */
export type WebhookEventType = WebhookEvent['type'];
/** The event variant of one type: `WebhookEventOf<'deal.completed'>` is a DealEvent whose type is 'deal.completed'. */
export type WebhookEventOf<T extends WebhookEventType> = WebhookEvent extends infer E
  ? E extends { type: infer U }
    ? T extends U
      ? E & { type: T }
      : never
    : never
  : never;
/** deal.* events (but deal.amount_changed): `deal`. */
export type DealEvent = components['schemas']['DealEvent'];
/** deal.amount_changed: `deal`, `old_amount`, `amount`, `amount_version`. */
export type DealAmountChangedEvent = components['schemas']['DealAmountChangedEvent'];
/** appeal.* events (but appeal.message): `appeal`, and the appeal's `deal`. */
export type AppealEvent = components['schemas']['AppealEvent'];
/** appeal.message: `appeal`, `message`, and the appeal's `deal`. */
export type AppealMessageEvent = components['schemas']['AppealMessageEvent'];
/** p2p.finance.withdrawal_* events: `withdrawal`. */
export type WithdrawalEvent = components['schemas']['WithdrawalEvent'];
/** p2p.finance.deposit_confirmed: `deposit`. */
export type DepositEvent = components['schemas']['DepositEvent'];
/** webhook.test (sent from the cabinet to check the endpoint): `test`. */
export type TestEvent = components['schemas']['TestEvent'];

/** Every known type once (a Record: the compiler refuses a missing or an unknown one). */
const KNOWN_EVENT_TYPES: Record<WebhookEventType, true> = {
  'deal.created': true,
  'deal.escrow_locked': true,
  'deal.payment_notified': true,
  'deal.payment_verified': true,
  'deal.completed': true,
  'deal.expired': true,
  'deal.appealed': true,
  'deal.refund_pending': true,
  'deal.cancelled': true,
  'deal.failed': true,
  'deal.amount_changed': true,
  'appeal.opened': true,
  'appeal.in_review': true,
  'appeal.resolved': true,
  'appeal.closed': true,
  'appeal.reopened': true,
  'appeal.message': true,
  'p2p.finance.withdrawal_failed': true,
  'p2p.finance.deposit_confirmed': true,
  'webhook.test': true,
};

/** Whether this SDK knows the event's type; events of newer types are to be ignored. */
export const isKnownEventType = (event: { type: string }): event is WebhookEvent => Object.hasOwn(KNOWN_EVENT_TYPES, event.type);

export type HeaderBag = Headers | Record<string, string | string[] | undefined>;

export interface VerifyOptions {
  /** Seconds the timestamp may be off the clock, either way (default 300). */
  toleranceSeconds?: number;
  /** 'auto' (default): Standard Webhooks when its headers are there, else X-Signature. */
  scheme?: 'auto' | 'standard' | 'x-signature';
  /** Unix milliseconds (tests). */
  now?: () => number;
}

export class WebhookVerificationError extends Error {
  override name = 'WebhookVerificationError';
}

function header(headers: HeaderBag, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const lower = name.toLowerCase();
  for (const [key, value] of Object.entries(headers as Record<string, string | string[] | undefined>)) {
    if (key.toLowerCase() === lower) return Array.isArray(value) ? value.join(', ') : value;
  }
  return undefined;
}

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** The HMAC key of the Standard Webhooks scheme: the bytes after `whsec_`, base64 (a secret in another form: its whole string). */
export function standardWebhooksKey(secret: string): Buffer {
  const body = secret.startsWith('whsec_') ? secret.slice(6) : secret;
  if (body.length > 0 && BASE64.test(body) && body.length % 4 === 0) return Buffer.from(body, 'base64');
  return Buffer.from(secret, 'utf8');
}

/** Constant time: does `given` equal `expected` (both already decoded)? */
function same(expected: Buffer, given: Buffer): boolean {
  return given.length === expected.length && timingSafeEqual(given, expected);
}

function checkTimestamp(raw: string | undefined, toleranceSeconds: number, nowMs: number): number {
  if (!raw || !/^\d{1,12}$/.test(raw.trim())) throw new WebhookVerificationError('missing or malformed timestamp');
  const t = Number(raw.trim());
  const now = Math.floor(nowMs / 1000);
  if (now - t > toleranceSeconds) throw new WebhookVerificationError('timestamp too old');
  if (t - now > toleranceSeconds) throw new WebhookVerificationError('timestamp too new');
  return t;
}

function verifyStandard(body: Buffer, headers: HeaderBag, secrets: string[], tolerance: number, nowMs: number): void {
  const id = header(headers, 'webhook-id');
  const signature = header(headers, 'webhook-signature');
  if (!id || !signature) throw new WebhookVerificationError('missing webhook-id or webhook-signature');
  const t = checkTimestamp(header(headers, 'webhook-timestamp'), tolerance, nowMs);
  const given = signature
    .split(' ')
    .map((entry) => entry.split(','))
    .filter(([version, value]) => version === 'v1' && value)
    .map(([, value]) => Buffer.from(value!, 'base64'));
  let ok = false;
  for (const secret of secrets) {
    const expected = createHmac('sha256', standardWebhooksKey(secret)).update(`${id}.${t}.`).update(body).digest();
    for (const g of given) if (same(expected, g)) ok = true;
  }
  if (!ok) throw new WebhookVerificationError('no matching signature');
}

function verifyXSignature(body: Buffer, headers: HeaderBag, secrets: string[], tolerance: number, nowMs: number): void {
  const signature = header(headers, 'x-signature');
  if (!signature) throw new WebhookVerificationError('missing X-Signature');
  let t: string | undefined;
  const given: Buffer[] = [];
  for (const part of signature.split(',')) {
    const eq = part.indexOf('=');
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === 't') t = value;
    else if (key === 'v1' && /^[0-9a-f]{64}$/i.test(value)) given.push(Buffer.from(value, 'hex'));
  }
  const xTimestamp = header(headers, 'x-timestamp');
  if (xTimestamp !== undefined && xTimestamp.trim() !== t) throw new WebhookVerificationError('X-Timestamp differs from the signature timestamp');
  const ts = checkTimestamp(t, tolerance, nowMs);
  let ok = false;
  for (const secret of secrets) {
    const expected = createHmac('sha256', secret).update(`${ts}.`).update(body).digest();
    for (const g of given) if (same(expected, g)) ok = true;
  }
  if (!ok) throw new WebhookVerificationError('no matching signature');
}

/**
 * Verifies a webhook and returns its event. `payload` is the raw body exactly as received (a
 * string or the bytes); `secrets` the merchant's signing secret, or during a rotation's grace
 * window the new and the old one. Throws WebhookVerificationError.
 */
export function verifyWebhook(payload: string | Uint8Array, headers: HeaderBag, secrets: string | string[], options: VerifyOptions = {}): WebhookEvent {
  const list = (Array.isArray(secrets) ? secrets : [secrets]).filter(Boolean);
  if (list.length === 0) throw new WebhookVerificationError('no secret to verify with');
  const body = typeof payload === 'string' ? Buffer.from(payload, 'utf8') : Buffer.from(payload);
  const tolerance = options.toleranceSeconds ?? 300;
  const nowMs = (options.now ?? Date.now)();
  const scheme = options.scheme ?? 'auto';
  if (scheme === 'standard' || (scheme === 'auto' && header(headers, 'webhook-signature') !== undefined)) {
    verifyStandard(body, headers, list, tolerance, nowMs);
  } else {
    verifyXSignature(body, headers, list, tolerance, nowMs);
  }
  try {
    return JSON.parse(body.toString('utf8')) as WebhookEvent;
  } catch {
    throw new WebhookVerificationError('the body is not JSON');
  }
}
