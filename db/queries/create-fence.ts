/**
 * The create fence (db/migrations/00001_baseline.sql): a create step that its workflow run gave up on can never
 * commit afterwards. activities/deadline.ts bounds every attempt by its own deadline, but that
 * deadline is counted from when the worker's event loop ran the attempt, which on a starved
 * worker is later than when the engine started (and timed out) the local activity: a last
 * attempt could still commit its deal and hold after the run had answered "not created" —
 * an orphan hold. The database settles it: the create transaction and the give-up take the
 * same lock on the id; the give-up leaves a tombstone for its run, which later attempts of that
 * run see and refuse, and then adopts a row an earlier attempt committed.
 */
import type { Db, Sql } from '../sql';

/** A create attempt of a run that has already given its create up: it writes nothing. */
export class CreateAbandoned extends Error {
  constructor(runId: string) {
    super(`the workflow run ${runId} gave this create up; this late attempt writes nothing`);
  }
}

export type FencedTable = 'deals' | 'withdrawals';

const rowOf = async <Row extends object>(db: Db, table: FencedTable, id: string): Promise<Row | undefined> =>
  (await db<Row[]>`select * from ${db(table)} where id = ${id}`)[0];

/**
 * The row a create made, by the id derived from its idempotency key (domain/ids.ts): what the
 * create step reads under the fence to answer a repeat (the owner of create idempotency), and
 * the API's read-only fast path before it starts anything. Without the fence's lock.
 */
export const findCreated = <Row extends object>(db: Db, table: FencedTable, id: string): Promise<Row | undefined> => rowOf<Row>(db, table, id);

/**
 * Opens a create step's transaction: takes the fence's lock on `id` for the rest of the
 * transaction and answers the row an earlier attempt committed, if any. With no row, throws
 * CreateAbandoned when the run gave its create up. Without a run (outside a workflow) it only
 * reads the row.
 *
 * The row is read by a statement of its own, after the claim: under READ COMMITTED a statement
 * sees what was committed when it started, so a read joined to the claim would carry a snapshot
 * from before the lock wait and miss the row of the earlier attempt of the same run it queued
 * behind — and create again, fail its business checks against that attempt's hold, and leave
 * the deal or withdrawal and its hold with no workflow (docs/decisions/0004-create-fence-reads-after-claim.md). The two statements
 * are sent together (pipelined, one round trip); the server runs the read after the claim.
 */
export async function claimCreate<Row extends object>(tx: Db, table: FencedTable, id: string, runId: string | undefined): Promise<Row | undefined> {
  if (!runId) return rowOf<Row>(tx, table, id);
  // postgres.js sends a query when it is first awaited or executed: execute() them in this order.
  const claim = tx<{ fence_open: boolean }[]>`select claim_create(${runId}, ${id}) as fence_open`.execute();
  const read = tx<Row[]>`select * from ${tx(table)} where id = ${id}`.execute();
  const [[claimed], [row]] = await Promise.all([claim, read]);
  if (row) return row; // committed by an earlier attempt: nothing to write
  if (!claimed!.fence_open) throw new CreateAbandoned(runId);
  return undefined;
}

/**
 * The run gives its create up: waits for any attempt holding the fence (it commits or rolls
 * back), leaves the run's tombstone so no later attempt commits, and answers the row if an
 * attempt committed it (the run adopts it). Without a run it only reads the row.
 */
export async function abandonCreate<Row extends object>(sql: Sql, table: FencedTable, id: string, runId: string | undefined): Promise<Row | undefined> {
  if (!runId) return rowOf<Row>(sql, table, id);
  return sql.begin(async (tx) => {
    await tx`select abandon_create(${runId}, ${id})`;
    // A new statement: its snapshot is taken after the lock, so a row committed meanwhile is seen.
    return rowOf<Row>(tx, table, id);
  }) as Promise<Row | undefined>;
}
