import { randomBytes, randomUUID } from 'node:crypto';

export const newId = (): string => randomUUID();
/** Public merchant token: 64 hex characters. */
export const newApiToken = (): string => randomBytes(32).toString('hex');
/** Signing secret: 32 random bytes, base64url, with Stripe's whsec_ prefix. */
export const newSigningSecret = (): string => `whsec_${randomBytes(32).toString('base64url')}`;
/** Checkout hash in payment_url: 64 hex characters. */
export const newCheckoutHash = (): string => randomBytes(32).toString('hex');

export const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
