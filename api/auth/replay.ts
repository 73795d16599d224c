import type { Sql } from '../../db/sql';
import { Unauthenticated } from '../../domain/errors';
import { REPLAY_WINDOW_PAST_SECONDS } from '../../domain/signature';

/**
 * Replay refusal for V2 HMAC requests. The signed string is `t.body` (the contract keeps it
 * Stripe-compatible), so it does not name the route: a GET signs an empty body, and its headers
 * would sign any other body-less request of the same second. Every accepted signature is
 * therefore remembered with the route (method and path) it was accepted on, in Postgres for all
 * API processes, until its timestamp leaves the window:
 *   - the same signature on another route is refused (401);
 *   - on a single-use route (`replay: 'once'`: key rotation, manual webhook retry …) any repeat
 *     is refused;
 *   - a repeat on the same ordinary route is legal: two identical requests in one second carry
 *     one signature, and a create repeated with its idempotency key or a GET polled twice must
 *     keep working.
 */
export async function rememberSignature(
  sql: Sql,
  input: { signature: string; method: string; path: string; timestamp: number; once: boolean },
): Promise<void> {
  const route = `${input.method} ${input.path}`.slice(0, 2000);
  const expiresAt = new Date((input.timestamp + REPLAY_WINDOW_PAST_SECONDS + 1) * 1000);
  const [row] = await sql<{ fresh: boolean; route: string | null }[]>`
    with claimed as (
      insert into hmac_signatures (signature, route, expires_at) values (${input.signature}, ${route}, ${expiresAt})
      on conflict (signature) do nothing
      returning true as fresh
    )
    select exists (select 1 from claimed) as fresh, (select route from hmac_signatures where signature = ${input.signature}) as route`;
  if (row!.fresh) {
    if (Math.random() < 0.01) void pruneSignatures(sql).catch(() => {});
    return;
  }
  // A concurrent first use that committed after this statement's snapshot is read afresh.
  const usedOn =
    row!.route ?? (await sql<{ route: string }[]>`select route from hmac_signatures where signature = ${input.signature}`)[0]?.route;
  if (usedOn !== route) throw new Unauthenticated('this signature was already used for another request');
  if (input.once) throw new Unauthenticated('this signature was already used; sign the request afresh');
}

/** Forgets signatures whose timestamps have left the window; any process may do it. */
export async function pruneSignatures(sql: Sql): Promise<void> {
  await sql`
    delete from hmac_signatures where signature in (
      select signature from hmac_signatures where expires_at < now() limit 5000)`;
}
