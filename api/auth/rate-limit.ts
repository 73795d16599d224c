import type { Sql } from '../../db/sql';

export interface RateLimitResult {
  limit: number;
  remaining: number;
  /** Unix seconds at which the current window resets. */
  reset: number;
  allowed: boolean;
}

/**
 * Calendar-minute (UTC) counter per merchant, kept in Postgres so that every API process
 * shares it. One upsert per request; the row lock serialises a merchant's increments.
 */
export async function takeRateLimitToken(sql: Sql, merchantId: string, limit: number, nowMs: number): Promise<RateLimitResult> {
  const windowStartMs = Math.floor(nowMs / 60_000) * 60_000;
  const [row] = await sql<{ count: number }[]>`
    insert into rate_limit_windows (merchant_id, window_start, count)
    values (${merchantId}, ${new Date(windowStartMs)}, 1)
    on conflict (merchant_id, window_start) do update set count = rate_limit_windows.count + 1
    returning count`;
  const count = row!.count;
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
  const [row] = await sql<{ count: number }[]>`
    select count from rate_limit_windows where merchant_id = ${merchantId} and window_start = ${new Date(windowStartMs)}`;
  const count = row?.count ?? 0;
  return { limit, remaining: Math.max(0, limit - count), reset: (windowStartMs + 60_000) / 1000, allowed: count < limit };
}

/** Old windows are useless after their minute; any process may sweep them. */
export async function sweepRateLimitWindows(sql: Sql, nowMs: number): Promise<void> {
  await sql`delete from rate_limit_windows where window_start < ${new Date(nowMs - 10 * 60_000)}`;
}
