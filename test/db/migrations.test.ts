/**
 * The baseline (db/migrations/00001_baseline.sql, docs/decisions/0001-v0-baseline.md): the schema
 * of the first release in one file that creates and never rewrites — a scratch database is
 * migrated by it as a deploy would, and what it made works from its first row.
 */
import test from 'ava';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import postgres from 'postgres';
import shift from 'postgres-shift';
import { ensureDatabase } from '../../db/migrate';
import { verifyAuditChain } from '../../db/queries/audit-chain';
import { listMerchantEvents, markEventsDispatched } from '../../db/queries/outbox';
import type { Db } from '../../db/sql';

const MIGRATIONS = fileURLToPath(new URL('../../db/migrations', import.meta.url));
const BASELINE = '00001_baseline.sql';

async function scratchDatabase() {
  const url = new URL(process.env.DATABASE_URL!);
  // A random part: two tests of this file start in the same millisecond.
  url.pathname = `/gateway_migrations_${process.pid}_${randomBytes(6).toString('hex')}`;
  await ensureDatabase(url.toString());
  const sql = postgres(url.toString(), { max: 1, onnotice: () => {} });
  const drop = async () => {
    await sql.end();
    const admin = new URL(url);
    admin.pathname = '/postgres';
    const root = postgres(admin.toString(), { max: 1, onnotice: () => {} });
    await root.unsafe(`drop database if exists "${url.pathname.slice(1)}" with (force)`);
    await root.end();
  };
  return { sql, drop };
}

/** The baseline's statements without comments, lower-cased and on one line each. */
function baselineStatements(): string[] {
  const text = readFileSync(`${MIGRATIONS}/${BASELINE}`, 'utf8')
    .split('\n')
    .map((line) => line.replace(/--.*$/, ''))
    .join(' ');
  // Function bodies ($$ … $$) are one statement each; only their heads matter here.
  return text
    .replace(/\$\$.*?\$\$/gs, '$$body$$')
    .split(';')
    .map((s) => s.replace(/\s+/g, ' ').trim().toLowerCase())
    .filter(Boolean);
}

test('the migrations start with one baseline, five-digit names without a gap after it', (t) => {
  const files = readdirSync(MIGRATIONS).filter((f) => f.endsWith('.sql'));
  t.is(files[0], BASELINE);
  for (const [i, file] of files.entries()) t.regex(file, new RegExp(`^${String(i + 1).padStart(5, '0')}_[a-z0-9_]+\\.sql$`), file);
});

test('the baseline creates and never rewrites: no altered or dropped object, no backfill, no grant of the app role', (t) => {
  const statements = baselineStatements();
  const rewrites = statements.filter((s) => /^(alter|drop|update|delete|do|grant)\b/.test(s) || /^create or replace\b/.test(s));
  t.deepEqual(rewrites, [], 'the app role is granted by db/roles.ts after the migrations');
  // The only rows it writes: the platform's own tenant and the audit chain's empty head.
  t.deepEqual(
    statements.filter((s) => s.startsWith('insert')).map((s) => s.split(' ')[2]),
    ['tenants', 'audit_log_head'],
  );
});

test('a database migrated by the baseline and the migrations after it: each once, the platform tenant, a working audit chain and event feed from the first row', async (t) => {
  const { sql, drop } = await scratchDatabase();
  t.teardown(drop);
  await shift({ sql, path: MIGRATIONS });
  t.deepEqual(
    (await sql<{ name: string }[]>`select name from migrations order by migration_id`).map((r) => r.name),
    readdirSync(MIGRATIONS)
      .filter((f) => f.endsWith('.sql'))
      .sort()
      .map((f) => f.slice(6)),
  );
  t.deepEqual(
    (await sql<{ name: string }[]>`select name from tenants`).map((r) => r.name),
    ['default'],
  );

  for (const key of ['k1', 'k2']) {
    await sql`insert into audit_log (actor_kind, actor_id, role, action, object_type, object_id, request_id, request_key)
      values ('system', 'sandbox-trader', 'arbiter', 'appeal.review', 'appeal', 'a1', 'trace', ${key})`;
  }
  t.deepEqual(
    (await sql<{ chain_seq: string }[]>`select chain_seq::text from audit_log order by id`).map((r) => r.chain_seq),
    ['1', '2'],
  );
  t.deepEqual(await verifyAuditChain(sql as unknown as Db), { rows: 2, breaks: [] });

  const [tenant] = await sql<{ id: string }[]>`select id from tenants`;
  const merchant = '00000000-0000-4000-8000-0000000000e2';
  await sql`insert into merchants (id, tenant_id, name, email) values (${merchant}, ${tenant!.id}, 'Shop', 'shop@example.test')`;
  const ids = ['00000000-0000-4000-8000-0000000002a1', '00000000-0000-4000-8000-0000000002a2'];
  for (const [i, id] of ids.entries()) {
    await sql`insert into outbox_events (id, merchant_id, event_type, payload) values (${id}, ${merchant}, 'deal.created', ${sql.json({ n: i })})`;
  }
  await markEventsDispatched(sql as unknown as Db, ids);
  const feed = await listMerchantEvents(sql as unknown as Db, merchant, { after: 0n, limit: 10 });
  t.deepEqual(
    feed.rows.map((r) => r.event_id),
    ids,
  );
  t.is(feed.horizon, feed.rows[1]!.position);
});
