import type { Context } from 'koa';
import { PermissionDenied, RateLimited } from '../../domain/errors';
import type { AppDeps } from '../deps';
import { peekRateLimit, takeRateLimitToken } from './rate-limit';

export const MERCHANT_DISABLED = 'merchant is disabled';

export interface MerchantGate {
  merchant_id: string;
  disabled_at: Date | null;
  ip_whitelist: string[];
  rate_limit_per_minute: number | null;
}

/**
 * The gates every signed merchant request passes after its signature verified, V2 HMAC and V1
 * alike (upload routes pass them once more before their large body is read, the rate limit then
 * only looked at, failed reads included, not spent: 'peek', api/auth/unverified-uploads.ts), in
 * this order: kill-switch (403), ip_whitelist (403, against the address api/auth/client-ip.ts
 * resolved), rate limit (429, with headers).
 */
export async function admitMerchant(ctx: Context, deps: AppDeps, gate: MerchantGate, nowMs: number, mode: 'take' | 'peek' = 'take'): Promise<void> {
  if (gate.disabled_at) throw new PermissionDenied(MERCHANT_DISABLED);
  if (gate.ip_whitelist.length > 0 && !gate.ip_whitelist.includes(ctx.state.clientIp)) {
    throw new PermissionDenied('request ip address is not in the merchant ip_whitelist');
  }
  const limit = gate.rate_limit_per_minute ?? deps.config.DEFAULT_RATE_LIMIT_PER_MINUTE;
  const rate = await (mode === 'take' ? takeRateLimitToken : peekRateLimit)(deps.sql, gate.merchant_id, limit, nowMs);
  ctx.set('X-RateLimit-Limit', String(rate.limit));
  ctx.set('X-RateLimit-Remaining', String(rate.remaining));
  ctx.set('X-RateLimit-Reset', String(rate.reset));
  if (!rate.allowed) {
    ctx.state.rateLimitRetryAfter = Math.max(1, Math.ceil(rate.reset - nowMs / 1000));
    throw new RateLimited(limit);
  }
}
