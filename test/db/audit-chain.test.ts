/**
 * The audit trail cannot be rewritten by the gateway (docs/operations.md, "Database roles"): the
 * API and workers connect as the app role, which may only insert into and read audit_log — no
 * UPDATE, DELETE or TRUNCATE, not even with session_replication_role = replica (which it may not
 * set), no DDL — and every row is linked into one hash chain (db/migrations/00001_baseline.sql) that the ledger
 * check walks, so what only the owner can still do (the test does it as the owner) is found.
 * The tampering happens in a database of its own (test/helpers/scratch-database.ts); the stack's
 * own processes are checked to run as the app role.
 */
import test from 'ava';
import { randomUUID } from 'node:crypto';
import { loadConfig } from '../../config';
import { verifyAuditChain } from '../../db/queries/audit-chain';
import { insertAudit } from '../../db/queries/audit';
import { appRoleFindings } from '../../db/roles';
import type { Db } from '../../db/sql';
import type { AuditActor } from '../../domain/audit';
import { ledgerCheck } from '../../scripts/ledger-check';
import { API_URL } from '../helpers/api';
import { testSql } from '../helpers/app';
import { scratchDatabase } from '../helpers/scratch-database';

const config = loadConfig(process.env);
const ledgerCheckPasses = (databaseUrl: string) => ledgerCheck({ ...config, DATABASE_URL: databaseUrl });

const actor = (key = randomUUID()): AuditActor => ({ kind: 'operator_account', id: randomUUID(), role: 'admin', requestId: key, requestKey: key });
const audit = (db: Db, key = randomUUID(), objectId = randomUUID()) =>
  insertAudit(db, actor(key), { action: 'test.action', objectType: 'test', objectId, before: { n: 1 }, after: { n: 2, note: 'é ü "quoted" \n line' } });

/** The SQLSTATE a statement fails with ('' when it does not fail). */
const failure = (run: () => Promise<unknown>) =>
  run().then(
    () => '',
    (error: { code?: string }) => error.code ?? 'unknown',
  );

test('the app role owns nothing, has no DDL, cannot set session_replication_role, and only inserts into and reads audit_log', async (t) => {
  t.timeout(300_000);
  const db = await scratchDatabase('audit_role', 'demo');
  t.teardown(db.drop);
  t.deepEqual(await appRoleFindings(db.app), [], 'the app role is only the app role');
  t.true((await appRoleFindings(db.owner)).length > 0, 'the owner is more (the API and workers refuse it in production)');

  for (let i = 0; i < 3; i++) await audit(db.app);
  t.is((await db.app`select count(*)::int as n from audit_log`)[0]!.n, 3, 'it inserts and reads');

  const denied = '42501'; // insufficient_privilege
  t.is(await failure(() => db.app`delete from audit_log`), denied, 'DELETE');
  t.is(await failure(() => db.app`update audit_log set role = 'support'`), denied, 'UPDATE');
  t.is(await failure(() => db.app`truncate audit_log`), denied, 'TRUNCATE');
  t.is(
    await failure(() =>
      db.app.begin(async (tx) => {
        await tx`set local session_replication_role = replica`;
        await tx`delete from audit_log`;
      }),
    ),
    denied,
    'SET LOCAL session_replication_role = replica, then DELETE',
  );
  t.is(await failure(() => db.app`set session_replication_role = replica`), denied, 'session_replication_role for the session');
  t.is(await failure(() => db.app`alter table audit_log disable trigger audit_log_no_update`), denied, 'turning the append-only trigger off');
  t.is(await failure(() => db.app`drop trigger audit_log_chain on audit_log`), denied, 'dropping the chain trigger');
  t.is(await failure(() => db.app`update audit_log_head set seq = 0`), denied, 'moving the chain head');
  t.is(await failure(() => db.app`create table scratch_table (id int)`), denied, 'DDL');
  t.is(await failure(() => db.app`create temporary table scratch_temp (id int)`), denied, 'temporary tables');
  t.is((await db.owner`select count(*)::int as n from audit_log`)[0]!.n, 3, 'every row is still there');
  t.deepEqual((await verifyAuditChain(db.app)).breaks, []);
});

test("the test stack's API and workers connect as the app role", async (t) => {
  const sql = testSql();
  t.teardown(() => sql.end());
  t.is((await fetch(`${API_URL}/health`)).status, 200); // the API's pool has a connection open
  const roles = await sql<{ usename: string }[]>`
    select distinct usename from pg_stat_activity where datname = current_database() and usename <> current_user`;
  t.deepEqual(
    roles.map((r) => r.usename),
    [config.DATABASE_APP_ROLE],
    'nobody but the suite itself (the owner) and the app role',
  );
});

test('audit rows form one hash chain under 30 concurrent inserts; a retried row is written once; the ledger check walks it', async (t) => {
  t.timeout(300_000);
  const db = await scratchDatabase('audit_chain', 'demo');
  t.teardown(db.drop);
  const keys = Array.from({ length: 30 }, () => randomUUID());
  // Each in a transaction that holds on a moment after its insert, so the inserts overlap; every
  // key twice (a retried step), the second writing nothing.
  await Promise.all(
    [...keys, ...keys].map((key, i) =>
      db.app.begin(async (tx) => {
        await audit(tx, key, `object-${key}`);
        await tx`select pg_sleep(${(i % 5) / 100})`;
      }),
    ),
  );
  const rows = await db.owner<{ chain_seq: bigint; request_key: string }[]>`select chain_seq, request_key from audit_log order by chain_seq`;
  t.is(rows.length, 30);
  t.deepEqual(
    rows.map((r) => Number(r.chain_seq)),
    Array.from({ length: 30 }, (_, i) => i + 1),
    'one sequence, no gap',
  );
  t.is(new Set(rows.map((r) => r.request_key)).size, 30);
  const chain = await verifyAuditChain(db.app);
  t.deepEqual(chain, { rows: 30, breaks: [] });
  t.true(await ledgerCheckPasses(db.appUrl));
});

test('a row deleted, edited or cut from the end by the owner breaks the chain and fails the ledger check', async (t) => {
  t.timeout(300_000);
  const db = await scratchDatabase('audit_tamper', 'demo');
  t.teardown(db.drop);
  for (let i = 0; i < 6; i++) await audit(db.app);
  t.true(await ledgerCheckPasses(db.appUrl), 'intact');
  /** What only the owner can do: triggers off for its transaction (a superuser's session_replication_role). */
  const asOwner = (run: (tx: Db) => Promise<unknown>) =>
    db.owner.begin(async (tx) => {
      await tx`set local session_replication_role = replica`;
      await run(tx);
    });
  await db.owner`create table audit_saved as select * from audit_log where chain_seq = 3`;

  await asOwner((tx) => tx`delete from audit_log where chain_seq = 3`);
  let chain = await verifyAuditChain(db.app);
  t.regex(chain.breaks.map((b) => b.problem).join('; '), /rows 3\.\.3 are missing/);
  t.false(await ledgerCheckPasses(db.appUrl), 'a deleted row fails the check');
  await asOwner((tx) => tx`insert into audit_log select * from audit_saved`);
  t.deepEqual((await verifyAuditChain(db.app)).breaks, [], 'put back as it was, the chain holds again');

  await asOwner((tx) => tx`update audit_log set role = 'support' where chain_seq = 4`);
  chain = await verifyAuditChain(db.app);
  t.deepEqual(
    chain.breaks.map((b) => [b.chain_seq, b.problem]),
    [['4', 'content does not match its hash (edited)']],
  );
  t.false(await ledgerCheckPasses(db.appUrl), 'an edited row fails the check');
  await asOwner((tx) => tx`update audit_log set role = 'admin' where chain_seq = 4`);
  t.deepEqual((await verifyAuditChain(db.app)).breaks, []);

  // Re-hashing an edited row is not enough: the next row links to the old hash.
  await asOwner(
    (tx) => tx`
    update audit_log set object_id = 'rewritten',
      hash = sha256(prev_hash || audit_log_content(chain_seq, id, at, actor_kind, actor_id, role, action, object_type, 'rewritten', before, after, request_id, request_key))
    where chain_seq = 2`,
  );
  chain = await verifyAuditChain(db.app);
  t.deepEqual(
    chain.breaks.map((b) => [b.chain_seq, b.problem]),
    [['3', 'does not link to the row before it']],
  );
  t.false(await ledgerCheckPasses(db.appUrl));
});

test('rows removed from the end leave the head ahead of the chain', async (t) => {
  t.timeout(300_000);
  const db = await scratchDatabase('audit_tail', 'demo');
  t.teardown(db.drop);
  for (let i = 0; i < 4; i++) await audit(db.app);
  await db.owner.begin(async (tx) => {
    await tx`set local session_replication_role = replica`;
    await tx`delete from audit_log where chain_seq = 4`;
  });
  const chain = await verifyAuditChain(db.app);
  t.deepEqual(
    chain.breaks.map((b) => b.problem),
    ['the head is at 4 but the last row is 3 (rows removed from the end)'],
  );
  t.false(await ledgerCheckPasses(db.appUrl));
});
