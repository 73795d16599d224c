import type { Sql } from '../../db/sql';
import { countFailedRead, countRequest, deleteWindowsBefore, windowCounts } from '../../db/queries/rate-limits';

export interface RateLimitResult {
  limit: number;
  remaining: number;
  /** Unix seconds at which the current window resets. */
  reset: number;
  allowed: boolean;
}

const windowStartOf = (nowMs: number) => Math.floor(nowMs / 60_000) * 60_000;

/**
 * Calendar-minute (UTC) counter per merchant, kept in Postgres so that every API process
 * shares it (db/queries/rate-limits.ts). One upsert per verified request; failed unverified reads
 * are counted beside it and never refuse a verified request.
 */
export async function takeRateLimitToken(sql: Sql, merchantId: string, limit: number, nowMs: number): Promise<RateLimitResult> {
  const windowStartMs = windowStartOf(nowMs);
  const count = await countRequest(sql, merchantId, new Date(windowStartMs));
  return {
    limit,
    remaining: Math.max(0, limit - count),
    reset: (windowStartMs + 60_000) / 1000,
    allowed: count <= limit,
  };
}

/**
 * The merchant's window as it stands, nothing taken, before a body is read whose signature can
 * only be checked after (uploads, the V1 dispute): refused when the verified requests and the
 * failed unverified reads of the minute together reach the limit. Failed reads count only here,
 * never against a verified request (takeRateLimitToken): someone who knows the public token can
 * spend the merchant's unverified reads, never its API (docs/design.md, "Unverified uploads").
 */
export async function peekRateLimit(sql: Sql, merchantId: string, limit: number, nowMs: number): Promise<RateLimitResult> {
  const windowStartMs = windowStartOf(nowMs);
  const { count, failedReads } = await windowCounts(sql, merchantId, new Date(windowStartMs));
  const spent = count + failedReads;
  return { limit, remaining: Math.max(0, limit - spent), reset: (windowStartMs + 60_000) / 1000, allowed: spent < limit };
}

/** An unverified read that did not verify (bad signature, replay, aborted, truncated) spends one of the window's unverified reads. */
export async function countFailedUnverifiedRead(sql: Sql, merchantId: string, nowMs: number): Promise<void> {
  await countFailedRead(sql, merchantId, new Date(windowStartOf(nowMs)));
}

/** Old windows are useless after their minute; any process may sweep them. */
export async function sweepRateLimitWindows(sql: Sql, nowMs: number): Promise<void> {
  await deleteWindowsBefore(sql, new Date(nowMs - 10 * 60_000));
}
