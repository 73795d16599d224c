import { fileURLToPath } from 'node:url';
import postgres from 'postgres';
import shift from 'postgres-shift';

const MIGRATIONS_DIR = fileURLToPath(new URL('./migrations', import.meta.url));
const MIGRATION_LOCK = 7_303_001;

/** Creates the database named in `url` if it does not exist yet. */
export async function ensureDatabase(url: string): Promise<void> {
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.slice(1));
  if (!/^[A-Za-z0-9_-]+$/.test(name)) throw new Error(`refusing unusual database name "${name}"`);
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const sql = postgres(admin.toString(), { max: 1, onnotice: () => {} });
  try {
    const [row] = await sql`select 1 as one from pg_database where datname = ${name}`;
    if (!row) {
      await sql.unsafe(`create database "${name}"`).catch((error: { code?: string }) => {
        // Created concurrently: Postgres says so as duplicate_database, or, when both creates passed
        // its own check, as a unique violation of pg_database's name index.
        if (error.code !== '42P04' && error.code !== '23505') throw error;
      });
    }
  } finally {
    await sql.end();
  }
}

/** Runs pending migrations under an advisory lock, so concurrent starters are safe. */
export async function migrate(url: string, log: (line: string) => void = () => {}): Promise<void> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    await sql`select pg_advisory_lock(${MIGRATION_LOCK})`;
    await shift({ sql, path: MIGRATIONS_DIR, before: ({ migration_id, name }) => log(`migrating ${migration_id} ${name}`) });
    await sql`select pg_advisory_unlock(${MIGRATION_LOCK})`;
  } finally {
    await sql.end();
  }
}
