import type { Db } from '../sql';

/** The cheapest statement that proves Postgres answers (the readiness check). */
export async function ping(db: Db): Promise<void> {
  await db`select 1`;
}
