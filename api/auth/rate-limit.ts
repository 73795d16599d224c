import type { Sql } from '../../db/sql';
import { countRequest, deleteWindowsBefore, requestsCounted } from '../../db/queries/rate-limits';

export interface RateLimitResult {
  limit: number;
  remaining: number;
  /** Unix seconds at which the current window resets. */
  reset: number;
  allowed: boolean;
}

/**
 * Calendar-minute (UTC) counter per merchant, kept in Postgres so that every API process
 * shares it (db/queries/rate-limits.ts). One upsert per request.
 */
export async function takeRateLimitToken(sql: Sql, merchantId: string, limit: number, nowMs: number): Promise<RateLimitResult> {
  const windowStartMs = Math.floor(nowMs / 60_000) * 60_000;
  const count = await countRequest(sql, merchantId, new Date(windowStartMs));
  return {
    limit,
    remaining: Math.max(0, limit - count),
    reset: (windowStartMs + 60_000) / 1000,
    allowed: count <= limit,
  };
}

/**
 * The merchant's window as it stands, nothing taken: an upload is refused before it is read when
 * the merchant has nothing left, but only a request whose signature verified spends a token
 * (someone who knows a token or merchant id without the secret cannot use up the merchant's limit).
 */
export async function peekRateLimit(sql: Sql, merchantId: string, limit: number, nowMs: number): Promise<RateLimitResult> {
  const windowStartMs = Math.floor(nowMs / 60_000) * 60_000;
  const count = await requestsCounted(sql, merchantId, new Date(windowStartMs));
  return { limit, remaining: Math.max(0, limit - count), reset: (windowStartMs + 60_000) / 1000, allowed: count < limit };
}

/** Old windows are useless after their minute; any process may sweep them. */
export async function sweepRateLimitWindows(sql: Sql, nowMs: number): Promise<void> {
  await deleteWindowsBefore(sql, new Date(nowMs - 10 * 60_000));
}
