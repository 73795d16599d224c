/**
 * Migrations on existing data (issue 17): a scratch database is migrated to 00009, given the rows
 * an older gateway left, then migrated to the end — as a deploy would.
 */
import test from 'ava';
import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import postgres from 'postgres';
import shift from 'postgres-shift';
import { ensureDatabase } from '../../db/migrate';
import { txHashOf } from '../helpers/tx-hash';
import { verifyAuditChain } from '../../db/queries/audit-chain';
import { listMerchantEvents, markEventsDispatched } from '../../db/queries/outbox';
import type { Db } from '../../db/sql';

const MIGRATIONS = fileURLToPath(new URL('../../db/migrations', import.meta.url));

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

/** Migrates to `upTo` (inclusive) by giving postgres-shift only those files. */
async function migrateTo(sql: postgres.Sql, upTo: number) {
  const dir = mkdtempSync(join(tmpdir(), 'migrations-'));
  try {
    for (const file of readdirSync(MIGRATIONS).filter((f) => /^\d{5}_/.test(f) && Number(f.slice(0, 5)) <= upTo)) {
      copyFileSync(join(MIGRATIONS, file), join(dir, file));
    }
    await shift({ sql, path: dir });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('00010: tx_hash rows take the canonical form the code claims with; live replay memory survives the deploy', async (t) => {
  const { sql, drop } = await scratchDatabase();
  t.teardown(drop);
  await migrateTo(sql, 9);

  const tenant = '00000000-0000-4000-8000-0000000000f1';
  const merchant = '00000000-0000-4000-8000-0000000000f2';
  const wallet = '00000000-0000-4000-8000-0000000000f3';
  await sql`insert into tenants (id, name) values (${tenant}, 'old')`;
  await sql`insert into merchants (id, tenant_id, name, email) values (${merchant}, ${tenant}, 'Old shop', 'old@example.test')`;
  await sql`insert into wallets (id, owner_type, owner_id, currency) values (${wallet}, 'merchant', ${merchant}, 'USDT')`;
  const [prefixed, spaced, twin, legacy] = [txHashOf('a'), txHashOf('b'), txHashOf('c'), 'seed-demo-deposit'];
  const written = [`0x${prefixed.toUpperCase()}`, `\t${spaced.toUpperCase()} \n`, twin.toUpperCase(), twin, legacy];
  for (const [i, hash] of written.entries()) {
    await sql`insert into chain_credits (tx_hash, owner_type, owner_id, wallet_id, amount) values (${hash}, 'merchant', ${merchant}, ${wallet}, ${100 + i})`;
    await sql`insert into deposits (id, merchant_id, wallet_id, amount, tx_hash) values (${`00000000-0000-4000-8000-0000000001${String(i).padStart(2, '0')}`}, ${merchant}, ${wallet}, ${100 + i}, ${hash})`;
  }
  const future = new Date(Date.now() + 60_000);
  await sql`insert into hmac_signatures (signature, route, expires_at) values ('live', 'POST /api/v1/p2p/merchant/passes', ${future}), ('old', 'GET /x', now() - interval '1 minute')`;

  await migrateTo(sql, 99);
  for (const table of ['chain_credits', 'deposits'] as const) {
    const rows = (await sql<{ tx_hash: string }[]>`select tx_hash from ${sql(table)} order by amount`).map((r) => r.tx_hash);
    t.deepEqual(
      rows,
      [prefixed, spaced, twin.toUpperCase(), twin, legacy],
      `${table}: 0x and whitespace dropped, lower case; a row whose canonical twin exists and a non-hash stay as they were`,
    );
  }
  const uses = await sql<{ signature: string; route: string }[]>`select signature, route from signature_uses order by route`;
  t.deepEqual(
    uses.map((u) => `${u.signature} ${u.route}`),
    ['live ', 'live POST /api/v1/p2p/merchant/passes'],
  );
});

test('00015: relayed events keep their seq as feed position, the rest get theirs from the relay, above every earlier one', async (t) => {
  const { sql, drop } = await scratchDatabase();
  t.teardown(drop);
  await migrateTo(sql, 14);
  const tenant = '00000000-0000-4000-8000-0000000000e1';
  const merchant = '00000000-0000-4000-8000-0000000000e2';
  await sql`insert into tenants (id, name) values (${tenant}, 'old')`;
  await sql`insert into merchants (id, tenant_id, name, email) values (${merchant}, ${tenant}, 'Old shop', 'old-events@example.test')`;
  const ids = ['00000000-0000-4000-8000-0000000002a1', '00000000-0000-4000-8000-0000000002a2', '00000000-0000-4000-8000-0000000002a3'];
  for (const [i, id] of ids.entries()) {
    await sql`insert into outbox_events (id, merchant_id, event_type, payload, dispatched_at)
      values (${id}, ${merchant}, 'deal.created', ${sql.json({ n: i })}, ${i < 2 ? new Date() : null})`;
  }
  await migrateTo(sql, 99);
  const rows = await sql<
    { id: string; seq: string; feed_position: string | null }[]
  >`select id, seq::text, feed_position::text from outbox_events order by seq`;
  t.deepEqual(
    rows.map((r) => r.feed_position),
    [rows[0]!.seq, rows[1]!.seq, null],
    'relayed before: their seq; pending: none yet',
  );
  t.deepEqual(
    (await listMerchantEvents(sql as unknown as Db, merchant, { after: 0n, limit: 10 })).rows.map((r) => r.event_id),
    ids.slice(0, 2),
    'the feed shows what was relayed',
  );
  // The relay hands the pending one on: its position comes after every earlier one.
  await markEventsDispatched(sql as unknown as Db, [ids[2]!]);
  const feed = await listMerchantEvents(sql as unknown as Db, merchant, { after: 0n, limit: 10 });
  t.deepEqual(
    feed.rows.map((r) => r.event_id),
    ids,
  );
  t.true(BigInt(feed.rows[2]!.position) > BigInt(feed.rows[1]!.position));
  t.is(feed.horizon, feed.rows[2]!.position);
});

test('00028: audit rows written before the chain are linked into it in id order; new rows continue it', async (t) => {
  const { sql, drop } = await scratchDatabase();
  t.teardown(drop);
  await migrateTo(sql, 27);
  for (const [i, key] of ['k1', 'k2', 'k3'].entries()) {
    await sql`insert into audit_log (actor_kind, actor_id, role, action, object_type, object_id, before, after, request_id, request_key)
      values ('operator_account', 'op', 'admin', 'rate.update', 'rate', ${'RUB' + i}, ${i === 1 ? null : sql.json({ buy: String(i) })}, ${sql.json({ note: 'ü "x"' })}, 'trace', ${key})`;
  }
  await migrateTo(sql, 99);
  await sql`insert into audit_log (actor_kind, actor_id, role, action, object_type, object_id, request_id, request_key)
    values ('system', 'sandbox-arbiter', 'arbiter', 'appeal.review', 'appeal', 'a1', 'trace', 'k4')`;
  const rows = await sql<{ id: string; chain_seq: string }[]>`select id::text, chain_seq::text from audit_log order by id`;
  t.deepEqual(
    rows.map((r) => r.chain_seq),
    ['1', '2', '3', '4'],
  );
  t.deepEqual(await verifyAuditChain(sql as unknown as Db), { rows: 4, breaks: [] });
});
