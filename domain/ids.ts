import { createHash, randomBytes, randomUUID } from 'node:crypto';

export const newId = (): string => randomUUID();
/** Public merchant token: 64 hex characters. */
export const newApiToken = (): string => randomBytes(32).toString('hex');
/**
 * Signing secret: `whsec_` + standard base64 of 32 random bytes — the Standard Webhooks form,
 * which its libraries take as issued (domain/crypto/standard-webhooks.ts). The merchant API's HMACs
 * (request signatures, X-Signature, V1) key on the whole string, prefix included.
 */
export const newSigningSecret = (): string => `whsec_${randomBytes(32).toString('base64')}`;
/** Checkout hash in payment_url: 64 hex characters. */
export const newCheckoutHash = (): string => randomBytes(32).toString('hex');

export const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** RFC 4122 name-based UUID (version 5, SHA-1): the same name always gives the same id. */
export function uuidV5(name: string, namespace: string): string {
  const ns = Buffer.from(namespace.replace(/-/g, ''), 'hex');
  const hash = createHash('sha1').update(ns).update(name, 'utf8').digest();
  hash[6] = (hash[6]! & 0x0f) | 0x50;
  hash[8] = (hash[8]! & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

const DEAL_NAMESPACE = '6f1c2a52-5b1e-4f0e-9a51-2d4c8e7b9a10';
const EVENT_NAMESPACE = '0b7d4a8e-3c2f-4e61-8f0a-9c5e1d2b3a47';

/**
 * A deal's id follows from (merchant, type, idempotency key): concurrent creates with one key
 * address the same workflow id, so Temporal itself lets only one of them create the deal.
 */
export const dealIdFor = (merchantId: string, dealType: 'PAYIN' | 'PAYOUT', idempotencyKey: string) =>
  uuidV5(`${merchantId}\u0000${dealType}\u0000${idempotencyKey}`, DEAL_NAMESPACE);

/** Outbox event ids are deterministic per (deal, event, version): a retried step writes nothing new. */
export const eventIdFor = (dealId: string, eventType: string, discriminator: string | number) =>
  uuidV5(`${dealId}\u0000${eventType}\u0000${discriminator}`, EVENT_NAMESPACE);

const CALLBACK_NAMESPACE = '3f0f5b0e-8a7c-4d0b-9a8e-5c2b7e61d4aa';

/** A delivery's callback_id is fixed by (event, target): a re-dispatched event maps to the same delivery. */
export const callbackIdFor = (eventId: string, url: string) => uuidV5(`${eventId}\u0000${createHash('sha256').update(url).digest('hex')}`, CALLBACK_NAMESPACE);

/**
 * An id as an operator types it: a whole UUID or its start (the console shows the first 8 hex
 * digits), at least 4 hex digits, dashes where a UUID has them or none. Selects every id from `lo`
 * to `hi` — one range of a uuid index, since uuids order by their hex digits; `prefix` is the
 * start in the dashed form (for ids kept as text).
 */
export interface IdPrefix {
  prefix: string;
  lo: string;
  hi: string;
}

export const ID_PREFIX_MIN_DIGITS = 4;

const dashed = (hex: string) => [hex.slice(0, 8), hex.slice(8, 12), hex.slice(12, 16), hex.slice(16, 20), hex.slice(20, 32)].filter(Boolean).join('-');

export function idPrefix(input: string): IdPrefix | undefined {
  const text = input.trim().toLowerCase();
  if (!/^[0-9a-f-]+$/.test(text)) return undefined;
  const hex = text.replace(/-/g, '');
  if (hex.length < ID_PREFIX_MIN_DIGITS || hex.length > 32) return undefined;
  // Dashes only where the UUID has them: "3fa8-5f64" is not the start of any id.
  const prefix = dashed(hex);
  if (text !== prefix && text !== hex && !(text.endsWith('-') && text.slice(0, -1) === prefix)) return undefined;
  return { prefix, lo: dashed(hex.padEnd(32, '0')), hi: dashed(hex.padEnd(32, 'f')) };
}
