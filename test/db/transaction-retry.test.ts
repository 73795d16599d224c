/**
 * A transaction Postgres rolls back for a deadlock or a serialization failure runs again before
 * anything answers (db/sql.ts): two transactions locking two rows in opposite orders
 * deadlock once, and both still commit. A business error is not retried.
 */
import test from 'ava';
import { randomUUID } from 'node:crypto';
import { testSql } from '../helpers/app';

const sql = testSql();
test.after.always(() => sql.end());

test('a deadlocked transaction is run again and commits; the other commits too', async (t) => {
  const table = `retry_${randomUUID().replaceAll('-', '')}`;
  await sql`create table ${sql(table)} (id int primary key, n int not null default 0)`;
  t.teardown(() => sql`drop table ${sql(table)}`.then(() => undefined));
  await sql`insert into ${sql(table)} (id) values (1), (2)`;

  let bothHoldTheirFirstRow!: () => void;
  let held = 0;
  const barrier = new Promise<void>((resolve) => (bothHoldTheirFirstRow = resolve));
  const runs = { a: 0, b: 0 };
  const crossing = (name: 'a' | 'b', first: number, second: number) =>
    sql.begin(async (tx) => {
      runs[name]++;
      await tx`update ${sql(table)} set n = n + 1 where id = ${first}`;
      if (++held === 2) bothHoldTheirFirstRow();
      await barrier; // on a second run the barrier is already open
      await tx`update ${sql(table)} set n = n + 1 where id = ${second}`;
    });
  await Promise.all([crossing('a', 1, 2), crossing('b', 2, 1)]);
  // Without the retry the victim's error would reject Promise.all. One rerun is the usual count; a
  // loaded machine has been seen to make it two (cause not pinned down); both committing once is the rule.
  t.log(`runs: ${JSON.stringify(runs)}`);
  t.true(runs.a + runs.b >= 3, 'the transaction the deadlock detector rolled back ran again');
  t.deepEqual(
    (await sql<{ n: number }[]>`select n from ${sql(table)} order by id`).map((r) => r.n),
    [2, 2],
    'both committed once',
  );
});

test('an error that is not a deadlock or serialization failure is not retried', async (t) => {
  let runs = 0;
  await t.throwsAsync(
    sql.begin(async (tx) => {
      runs++;
      await tx`select 1 / 0`;
    }),
    { message: /division by zero/ },
  );
  t.is(runs, 1);
});
