/**
 * Every activity transaction is bounded by the activity's own deadline, so a slow attempt gives
 * up by itself: the statements and lock waits of the transaction get `statement_timeout` /
 * `lock_timeout` set to the time left, and just before COMMIT the deadline is checked once more
 * (past it: rollback, and the retry — or the workflow's give-up path — decides). The deadline is
 * counted from when this process ran the attempt, which on a starved worker is later than the
 * engine's own timeout; that a create step the workflow gave up on never commits is therefore
 * the create fence's guarantee (db/queries/create-fence.ts), not this one's.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { Context } from '@temporalio/activity';
import { limitTransaction, type Sql } from '../db/sql';

const deadlines = new AsyncLocalStorage<number>();
/** Kept free at the end of an attempt for the COMMIT and the answer to reach the worker. */
const MARGIN_MS = 500;

class DeadlinePassed extends Error {
  constructor() {
    super('the activity deadline passed before the transaction could commit; rolled back');
  }
}

/** Runs an activity body with its deadline (start + start-to-close − margin) in scope. */
export function withActivityDeadline<T>(run: () => Promise<T>): Promise<T> {
  let timeoutMs = 0;
  try {
    timeoutMs = Context.current().info.startToCloseTimeoutMs;
  } catch {
    return run(); // called outside an activity (tests, scripts): no deadline
  }
  if (!timeoutMs) return run();
  return deadlines.run(Date.now() + Math.max(timeoutMs - MARGIN_MS, timeoutMs / 2), run);
}

/** The pool, with `begin` bounded by the current activity's deadline (unchanged outside one). */
export function deadlineBoundSql(sql: Sql): Sql {
  const begin = (...args: unknown[]) => {
    const deadline = deadlines.getStore();
    if (deadline === undefined) return (sql.begin as (...a: unknown[]) => unknown)(...args);
    const body = args[args.length - 1] as (tx: unknown) => Promise<unknown>;
    return (sql.begin as (...a: unknown[]) => unknown)(...args.slice(0, -1), async (tx: Sql) => {
      const left = Math.floor(deadline - Date.now());
      if (left <= 0) throw new DeadlinePassed();
      await limitTransaction(tx, left);
      const result = await body(tx);
      if (Date.now() >= deadline) throw new DeadlinePassed();
      return result;
    });
  };
  return new Proxy(sql, { get: (target, property, receiver) => (property === 'begin' ? begin : Reflect.get(target, property, receiver)) });
}

/** The workflow run of the current activity (the create fence's key, db/queries/create-fence.ts); undefined outside one. */
export function currentWorkflowRun(): string | undefined {
  try {
    return Context.current().info.workflowExecution?.runId;
  } catch {
    return undefined;
  }
}
