/**
 * The two database roles (docs/operations.md, "Database roles"). Migrations and the seed run as
 * the owner of the database; the API and the workers connect as the app role, which owns nothing,
 * may not change the schema, may not set session_replication_role (superusers only), and may only
 * insert into and read audit_log — so neither a bug nor a stolen connection can rewrite the audit
 * trail. grantAppRole runs after every migration (npm start, npm test, the compose setup job):
 * a table a later migration adds gets its grants at the next setup.
 */
import postgres from 'postgres';
import type { Db } from './sql';

export const DEFAULT_APP_ROLE = 'gateway_app';

/** What the app role may do on a table, when it is less than DML (every other table of public). */
const RESTRICTED_TABLES: Record<string, string[]> = {
  // Read and appended to, never changed: no UPDATE, DELETE or TRUNCATE.
  audit_log: ['select', 'insert'],
  // The audit chain's head: written by its SECURITY DEFINER trigger only; read by the ledger check.
  audit_log_head: ['select'],
  // postgres-shift's bookkeeping: the owner's alone.
  migrations: [],
};

const ROLE_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/** The app role's connection string: the owner's with the app role's name (and password, when it has one). */
export function appDatabaseUrl(ownerUrl: string, role: string, password?: string): string {
  const url = new URL(ownerUrl);
  url.username = encodeURIComponent(role);
  url.password = password ? encodeURIComponent(password) : '';
  return url.toString();
}

const isDuplicateRole = (error: unknown) => {
  const e = error as { code?: string; constraint_name?: string };
  // 42710: the role exists; 23505 on pg_authid: another setup created it at the same moment.
  return e.code === '42710' || (e.code === '23505' && /pg_authid/.test(e.constraint_name ?? ''));
};

/**
 * Creates the app role when missing (LOGIN, nothing else), sets its password when one is given,
 * and grants it DML on the gateway's tables in the database of `ownerUrl` — less on the tables of
 * RESTRICTED_TABLES (audit_log: SELECT and INSERT). Run as the owner (who needs CREATEROLE to make
 * the role; an existing role is used as it is). Refuses a role that is a superuser or the owner
 * itself. Safe to run again and from several setups at once.
 */
export async function grantAppRole(ownerUrl: string, options: { role: string; password?: string }): Promise<void> {
  const { role } = options;
  if (!ROLE_NAME.test(role)) throw new Error(`DATABASE_APP_ROLE "${role}" is not a plain role name ([a-z_][a-z0-9_]*)`);
  const sql = postgres(ownerUrl, { max: 1, onnotice: () => {} });
  try {
    const [me] = await sql<{ user: string; database: string }[]>`select current_user as user, current_database() as database`;
    if (me!.user === role) throw new Error(`DATABASE_APP_ROLE "${role}" is the role migrations run as: the app role must be another one`);
    const [existing] = await sql<{ rolsuper: boolean; rolbypassrls: boolean; rolreplication: boolean }[]>`
      select rolsuper, rolbypassrls, rolreplication from pg_roles where rolname = ${role}`;
    if (!existing) {
      await sql.unsafe(`create role "${role}" login nosuperuser nocreatedb nocreaterole noreplication nobypassrls`).catch((error: unknown) => {
        if (!isDuplicateRole(error)) throw error;
      });
    } else if (existing.rolsuper || existing.rolbypassrls || existing.rolreplication) {
      throw new Error(`the app role "${role}" is a superuser or may bypass row security or replicate: give the API and workers a plain login role`);
    }
    if (options.password) {
      const [statement] = await sql<{ text: string }[]>`select format('alter role %I login password %L', ${role}::text, ${options.password}::text) as text`;
      await sql.unsafe(statement!.text);
    }
    const db = `"${me!.database.replaceAll('"', '""')}"`;
    // One transaction: the role never holds, even for a moment, more than the end state.
    await sql.begin(async (tx) => {
      // Nobody but the owner creates objects (PUBLIC could, in public, before Postgres 15) or temporary tables.
      await tx.unsafe(`revoke create on schema public from public`);
      await tx.unsafe(`revoke temporary on database ${db} from public`);
      await tx.unsafe(`grant connect on database ${db} to "${role}"`);
      await tx.unsafe(`grant usage on schema public to "${role}"`);
      await tx.unsafe(`grant select, insert, update, delete on all tables in schema public to "${role}"`);
      await tx.unsafe(`grant usage, select on all sequences in schema public to "${role}"`);
      const tables = await tx<{ name: string }[]>`
        select tablename as name from pg_tables where schemaname = 'public' and tablename = any(${Object.keys(RESTRICTED_TABLES)})`;
      for (const { name } of tables) {
        const allowed = RESTRICTED_TABLES[name]!;
        await tx.unsafe(`revoke all on table "${name}" from public, "${role}"`);
        if (allowed.length > 0) await tx.unsafe(`grant ${allowed.join(', ')} on table "${name}" to "${role}"`);
      }
    });
  } finally {
    await sql.end();
  }
}

/**
 * What makes the connected role more than the app role should be: a superuser, the owner of a
 * relation in this database, allowed to create in it, to set session_replication_role, or to
 * change or remove audit rows. Empty for the app role. The API and the workers ask at start
 * (production refuses to start on any finding; elsewhere it is logged).
 */
export async function appRoleFindings(sql: Db): Promise<string[]> {
  const [row] = await sql<
    { user: string; superuser: boolean; owned: number; create_db: boolean; create_schema: boolean; audit_changes: boolean; version: number }[]
  >`
    select current_user as user,
      (select rolsuper from pg_roles where rolname = current_user) as superuser,
      (select count(*)::int from pg_class c join pg_namespace n on n.oid = c.relnamespace
        where pg_has_role(current_user, c.relowner, 'USAGE') and n.nspname not in ('pg_catalog', 'information_schema')
          and n.nspname not like 'pg_toast%' and n.nspname not like 'pg_temp%') as owned,
      has_database_privilege(current_database(), 'CREATE') as create_db,
      has_schema_privilege('public', 'CREATE') as create_schema,
      (to_regclass('public.audit_log') is not null
        and (has_table_privilege('public.audit_log', 'UPDATE') or has_table_privilege('public.audit_log', 'DELETE')
          or has_table_privilege('public.audit_log', 'TRUNCATE'))) as audit_changes,
      current_setting('server_version_num')::int as version`;
  const r = row!;
  // SET on a superuser-only parameter can be granted from Postgres 15 on.
  const replicationRole =
    r.version >= 150000 && ((await sql<{ ok: boolean }[]>`select has_parameter_privilege('session_replication_role', 'SET') as ok`)[0]?.ok ?? false);
  const findings: string[] = [];
  if (r.superuser) findings.push(`${r.user} is a superuser`);
  if (r.owned > 0) findings.push(`${r.user} owns ${r.owned} relations of this database`);
  if (r.create_db || r.create_schema) findings.push(`${r.user} may create objects in this database`);
  if (replicationRole && !r.superuser) findings.push(`${r.user} may set session_replication_role`);
  if (r.audit_changes) findings.push(`${r.user} may update, delete or truncate audit_log`);
  return findings;
}
