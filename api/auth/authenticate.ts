import type { Context } from 'koa';
import { PermissionDenied, Unauthenticated } from '../../domain/errors';
import { checkTimestamp, computeSignature, parseSignatureHeader, signatureMatches } from '../../domain/signature';
import { rememberSignature } from './replay';
import { findKeyForAuth, findMerchantGate } from '../../db/queries/api-keys';
import type { AppDeps } from '../deps';
import { verifyJwt } from './jwt';
import { admitMerchant, MERCHANT_DISABLED } from './admit';
import { authenticateV1, type V1Payload } from '../v1/auth';

/**
 * hmac: merchant HMAC pair (H); cabinet: merchant cabinet JWT (J); operator: admin JWT (A);
 * cabinet_or_hmac: J or H; public: no identity (P); v1: the legacy V1 signature (spec 5.5, api/v1/auth.ts).
 */
export type AuthMode = 'public' | 'hmac' | 'cabinet' | 'operator' | 'cabinet_or_hmac' | 'v1';

export type Identity =
  | { kind: 'public' }
  | { kind: 'merchant'; via: 'hmac' | 'cabinet' | 'v1'; merchantId: string; tenantId: string; subject: string }
  | { kind: 'operator'; operatorId: string; role: 'admin' | 'platform_admin' };

/** once: the route accepts a given HMAC signature a single time (see replay.ts). */
export interface AuthOptions {
  once: boolean;
  /** v1 routes: the fields after the timestamp in the route's signed payload. */
  v1Payload?: V1Payload;
}

export const ADMIN_REQUIRED = 'admin role required';
export { MERCHANT_DISABLED };

async function authenticateHmac(ctx: Context, deps: AppDeps, options: AuthOptions): Promise<Identity & { kind: 'merchant' }> {
  const token = ctx.get('X-Merchant-Token');
  const parsed = parseSignatureHeader(ctx.get('X-Signature') || undefined);
  const timestampHeader = ctx.get('X-Timestamp');
  if (!token || !parsed || !timestampHeader) throw new Unauthenticated('missing or malformed signature headers');
  if (timestampHeader !== String(parsed.timestamp)) throw new Unauthenticated('X-Timestamp does not match the signature timestamp');
  const nowMs = deps.now();
  const window = checkTimestamp(parsed.timestamp, Math.floor(nowMs / 1000));
  if (window === 'too_old') throw new Unauthenticated('timestamp is outside the replay window');
  if (window === 'too_new') throw new Unauthenticated('timestamp is too far in the future');

  const key = await findKeyForAuth(deps.sql, token);
  if (!key || (key.grace_until !== null && key.grace_until.getTime() <= nowMs)) {
    throw new Unauthenticated('invalid merchant credentials');
  }
  const secret = deps.secretBox.open(key.secret_sealed, key.key_id);
  if (!signatureMatches(secret, parsed, ctx.state.rawBody ?? '')) throw new Unauthenticated('invalid merchant credentials');
  await rememberSignature(deps.sql, {
    signature: computeSignature(secret, parsed.timestamp, ctx.state.rawBody ?? ''),
    method: ctx.method,
    path: ctx.path,
    timestamp: parsed.timestamp,
    once: options.once,
  });

  await admitMerchant(ctx, deps, key, nowMs);
  return { kind: 'merchant', via: 'hmac', merchantId: key.merchant_id, tenantId: key.tenant_id, subject: key.key_id };
}

function bearerToken(ctx: Context): string | undefined {
  const header = ctx.get('Authorization');
  const match = /^Bearer\s+(\S+)$/i.exec(header);
  return match?.[1];
}

async function authenticateJwt(ctx: Context, deps: AppDeps, token: string): Promise<Identity> {
  const claims = await verifyJwt(token, deps.config.JWT_SECRET);
  if (claims.role === 'admin' || claims.role === 'platform_admin') {
    return { kind: 'operator', operatorId: claims.sub, role: claims.role };
  }
  if (claims.role !== 'merchant' || !claims.merchant_id) throw new PermissionDenied('merchant identity required');
  const merchant = await findMerchantGate(deps.sql, claims.merchant_id);
  if (!merchant) throw new Unauthenticated('merchant not found');
  // The cabinet may still read its profile while the kill-switch is on, but not mutate.
  if (merchant.disabled_at && ctx.method !== 'GET' && ctx.method !== 'HEAD') throw new PermissionDenied(MERCHANT_DISABLED);
  return { kind: 'merchant', via: 'cabinet', merchantId: merchant.id, tenantId: merchant.tenant_id, subject: claims.sub };
}

/** Resolves the caller's identity for a route's auth mode, or throws 401/403. */
export async function authenticate(ctx: Context, mode: AuthMode, deps: AppDeps, options: AuthOptions = { once: false }): Promise<Identity> {
  if (mode === 'public') return { kind: 'public' };
  if (mode === 'v1') return authenticateV1(ctx, deps, options);

  if (ctx.get('X-Merchant-Token')) {
    const identity = await authenticateHmac(ctx, deps, options);
    if (mode === 'hmac' || mode === 'cabinet_or_hmac') return identity;
    if (mode === 'operator') throw new PermissionDenied(ADMIN_REQUIRED);
    throw new PermissionDenied('this operation needs a cabinet session; HMAC is not accepted');
  }

  const token = bearerToken(ctx);
  if (!token) throw new Unauthenticated('authentication required');
  const identity = await authenticateJwt(ctx, deps, token);
  if (mode === 'operator') {
    if (identity.kind !== 'operator') throw new PermissionDenied(ADMIN_REQUIRED);
    return identity;
  }
  if (identity.kind !== 'merchant') throw new PermissionDenied('merchant identity required');
  if (mode === 'hmac') throw new Unauthenticated('merchant HMAC signature required');
  return identity;
}

export function merchantOf(identity: Identity): { merchantId: string; tenantId: string } {
  if (identity.kind !== 'merchant') throw new PermissionDenied('merchant identity required');
  return identity;
}
