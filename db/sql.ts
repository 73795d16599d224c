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
