import { writeFileSync } from 'node:fs';
import postgres from 'postgres';

export type Sql = postgres.Sql<{ bigint: bigint }>;
/** A pool or a transaction: query functions accept either. */
export type Db = Sql | postgres.TransactionSql<{ bigint: bigint }>;

export function createSql(url: string, options: { max?: number } = {}): Sql {
  return postgres(url, {
    max: options.max ?? 10,
    types: { bigint: postgres.BigInt },
    onnotice: () => {},
    connection: { application_name: 'merchant-gateway' },
    ...(process.env.SQL_STATS_DIR ? { debug: countStatement(process.env.SQL_STATS_DIR) } : {}),
  }) as unknown as Sql;
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
    const flush = () => writeFileSync(statsFile!, JSON.stringify({ pid: process.pid, argv: process.argv.slice(1, 3), counts: Object.fromEntries(statementCounts) }));
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
