/** rate_limit_windows: one counter row per merchant and calendar minute (api/auth/rate-limit.ts). */
import type { Db } from '../sql';

/** Counts one request in the window; the row lock serialises a merchant's increments. Returns the new count. */
export async function countRequest(db: Db, merchantId: string, windowStart: Date): Promise<number> {
  const [row] = await db<{ count: number }[]>`
    insert into rate_limit_windows (merchant_id, window_start, count)
    values (${merchantId}, ${windowStart}, 1)
    on conflict (merchant_id, window_start) do update set count = rate_limit_windows.count + 1
    returning count`;
  return row!.count;
}

/** Counts one unverified read that did not verify (an upload with a bad signature, an aborted one) in the window. */
export async function countFailedRead(db: Db, merchantId: string, windowStart: Date): Promise<void> {
  await db`
    insert into rate_limit_windows (merchant_id, window_start, count, failed_reads)
    values (${merchantId}, ${windowStart}, 0, 1)
    on conflict (merchant_id, window_start) do update set failed_reads = rate_limit_windows.failed_reads + 1`;
}

/** The window's verified requests and failed unverified reads as they stand (0 when nothing was counted yet). */
export async function windowCounts(db: Db, merchantId: string, windowStart: Date): Promise<{ count: number; failedReads: number }> {
  const [row] = await db<{ count: number; failed_reads: number }[]>`
    select count, failed_reads from rate_limit_windows where merchant_id = ${merchantId} and window_start = ${windowStart}`;
  return { count: row?.count ?? 0, failedReads: row?.failed_reads ?? 0 };
}

export async function deleteWindowsBefore(db: Db, before: Date): Promise<void> {
  await db`delete from rate_limit_windows where window_start < ${before}`;
}
