/**
 * The rows every test file of a run shares: the seeded catalogue (currencies, their rates, payment
 * methods) and the requisites live deals are matched to on those methods. Test files run in
 * parallel, so a test that changes one of them — even if it puts it back — changes what another
 * file reads at that moment (a settlement priced at TRY's rate saw 34 where it had set 17). Tests
 * own what they change instead: a currency of their own (test/helpers/catalog.ts), a payment
 * method of their own (isolatedMethod, methodIn). `npm test` (scripts/test.ts) takes this
 * snapshot before the tests and checks it after them: any difference, and any rate an operator
 * set on a shared currency in between, fails the run and names the rows.
 */
import type { Sql } from '../../db/sql';

/** Test-owned rows: currencies QMA–QZZ (TEST_CURRENCY_RE of catalog.ts), methods whose slug starts with `iso-`. */
const TEST_CURRENCY_SQL = '^Q[M-Z][A-Z]$';
const TEST_METHOD_SQL = 'iso-%';

export interface SharedRows {
  takenAt: Date;
  rows: Record<string, string>;
}

export async function sharedRows(sql: Sql): Promise<SharedRows> {
  const [clock] = await sql<{ now: Date }[]>`select now()`;
  const currencies = await sql<{ key: string; value: string }[]>`
    select 'currency ' || c.code as key, concat_ws(' ', c.status, c.exponent, c.numeric_code, r.buy_rate_micro, r.sell_rate_micro) as value
    from currencies c left join rates r on r.tenant_id = c.tenant_id and r.currency_code = c.code
    where c.code !~ ${TEST_CURRENCY_SQL}`;
  const methods = await sql<{ key: string; value: string }[]>`
    select 'payment method ' || slug as key, concat_ws(' ', status, currency_code, array_to_string(requisite_types, ',')) as value
    from payment_methods where slug not like ${TEST_METHOD_SQL}`;
  // The sandbox trader's requisites are made on demand by the gateway itself (ensureSandboxRequisite).
  const requisites = await sql<{ key: string; value: string }[]>`
    select 'requisite ' || r.id || ' (' || pm.slug || ', trader ' || t.name || ')' as key, concat_ws(' ', r.status, r.min_amount, r.max_amount, r.daily_limit) as value
    from requisites r join payment_methods pm on pm.id = r.payment_method_id join traders t on t.id = r.trader_id
    where pm.slug not like ${TEST_METHOD_SQL} and not t.sandbox`;
  return { takenAt: clock!.now, rows: Object.fromEntries([...currencies, ...methods, ...requisites].map((r) => [r.key, r.value])) };
}

/** What changed in the shared rows since `before`, and every rate set on a shared currency meanwhile (even if put back). */
export async function sharedRowChanges(sql: Sql, before: SharedRows): Promise<string[]> {
  const after = await sharedRows(sql);
  const problems: string[] = [];
  for (const key of new Set([...Object.keys(before.rows), ...Object.keys(after.rows)])) {
    const [was, is] = [before.rows[key], after.rows[key]];
    if (was === is) continue;
    problems.push(was === undefined ? `${key} added (${is})` : is === undefined ? `${key} removed (was ${was})` : `${key} changed: ${was} → ${is}`);
  }
  const rateSets = await sql<{ object_id: string; after: unknown; at: Date }[]>`
    select object_id, after, at from audit_log
    where action = 'rate.set' and at >= ${before.takenAt} and object_id !~ ${TEST_CURRENCY_SQL}
    order by id`;
  for (const r of rateSets) problems.push(`rate of ${r.object_id} set to ${JSON.stringify(r.after)} at ${r.at.toISOString()}`);
  return problems;
}
