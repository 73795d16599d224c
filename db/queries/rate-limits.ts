/** rate_limit_windows: one counter per merchant and calendar minute (api/auth/rate-limit.ts). */
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

/** The window's count as it stands (0 when nothing was counted yet). */
export async function requestsCounted(db: Db, merchantId: string, windowStart: Date): Promise<number> {
  const [row] = await db<{ count: number }[]>`
    select count from rate_limit_windows where merchant_id = ${merchantId} and window_start = ${windowStart}`;
  return row?.count ?? 0;
}

export async function deleteWindowsBefore(db: Db, before: Date): Promise<void> {
  await db`delete from rate_limit_windows where window_start < ${before}`;
}
