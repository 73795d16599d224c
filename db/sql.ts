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
  }) as unknown as Sql;
}

/** Bounds the rest of a transaction: its statements and lock waits time out after `ms` (activities/deadline.ts). */
export async function limitTransaction(tx: Db, ms: number): Promise<void> {
  await tx`select set_config('statement_timeout', ${String(ms)}, true), set_config('lock_timeout', ${String(ms)}, true)`;
}
