import { writeFileSync } from 'node:fs';
import postgres from 'postgres';
import { tracing } from '../config/tracing';
import { tracedSql } from './tracing';

export type Sql = postgres.Sql<{ bigint: bigint }>;
/** A transaction: what a query function takes when it needs one (a savepoint, a lock held to the commit). */
export type Tx = postgres.TransactionSql<{ bigint: bigint }>;
/** A pool or a transaction: query functions accept either. */
export type Db = Sql | Tx;

export function createSql(url: string, options: { max?: number } = {}): Sql {
  const sql = postgres(url, {
    max: options.max ?? 10,
    types: { bigint: postgres.BigInt },
    onnotice: () => {},
    connection: { application_name: 'merchant-gateway' },
    ...(process.env.SQL_STATS_DIR ? { debug: countStatement(process.env.SQL_STATS_DIR) } : {}),
  }) as unknown as Sql;
  // With tracing on (config/tracing.ts) statements and transactions get spans; off, the pool is untouched.
  const traces = tracing();
  return retryingTransactions(traces ? tracedSql(sql, traces) : sql);
}

/** SQLSTATEs of a transaction Postgres rolled back to resolve a conflict: running it again may pass. */
const RETRYABLE = new Set(['40P01' /* deadlock_detected */, '40001' /* serialization_failure */]);
/** Attempts of one transaction in all; waits between them grow (5, 10, 20, 40 ms) with jitter. */
const TRANSACTION_ATTEMPTS = 5;

const isRetryableTransactionError = (error: unknown) => RETRYABLE.has((error as { code?: string } | null)?.code ?? '');

/**
 * `sql.begin` that runs the transaction again when Postgres rolled it back for a deadlock or a
 * serialization failure, up to TRANSACTION_ATTEMPTS times, before anything answers: the lock
 * order (docs/reliability.md, "Locks") makes those rare, and this keeps the rare one from
 * reaching a caller as a 500. Every transaction body may therefore run more than
 * once: it does nothing outside its transaction that cannot be repeated (the outbox relay's
 * signals are idempotent; nothing else leaves it).
 */
function retryingTransactions(sql: Sql): Sql {
  const begin = async (...args: unknown[]) => {
    for (let attempt = 1; ; attempt++) {
      try {
        return await (sql.begin as (...a: unknown[]) => Promise<unknown>)(...args);
      } catch (error) {
        if (attempt >= TRANSACTION_ATTEMPTS || !isRetryableTransactionError(error)) throw error;
        const wait = 5 * 2 ** (attempt - 1);
        await new Promise((resolve) => setTimeout(resolve, wait / 2 + Math.random() * wait));
      }
    }
  };
  return new Proxy(sql, { get: (target, property, receiver) => (property === 'begin' ? begin : Reflect.get(target, property, receiver)) });
}

/**
 * A diagnostic for the performance budget (bench/run.ts `actions`): with SQL_STATS_DIR set, every
 * statement this process sends — one round trip each — is counted by its text, and the counts are
 * written to `<dir>/sql-<pid>.json` once a second. Off by default; parameters are never recorded.
 */
const statementCounts = new Map<string, number>();
let statsFile: string | undefined;
function countStatement(dir: string) {
  if (!statsFile) {
    statsFile = `${dir}/sql-${process.pid}.json`;
    const flush = () =>
      writeFileSync(statsFile!, JSON.stringify({ pid: process.pid, argv: process.argv.slice(1, 3), counts: Object.fromEntries(statementCounts) }));
    setInterval(flush, 1000).unref();
    process.on('exit', flush);
  }
  return (_connection: number, query: string) => {
    const text = query.replace(/\s+/g, ' ').trim().slice(0, 160);
    statementCounts.set(text, (statementCounts.get(text) ?? 0) + 1);
  };
}

/** Bounds the rest of a transaction: its statements and lock waits time out after `ms` (activities/deadline.ts). */
export async function limitTransaction(tx: Db, ms: number): Promise<void> {
  await tx`select set_config('statement_timeout', ${String(ms)}, true), set_config('lock_timeout', ${String(ms)}, true)`;
}
