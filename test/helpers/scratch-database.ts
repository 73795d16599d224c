import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import type { SeedMode } from '../../db/seed';
import { createSql, type Sql } from '../../db/sql';
import { prepareDatabase } from '../../scripts/database';

/**
 * A database of its own, prepared as a deployment's setup does (migrations and grants as the
 * owner, then the seed of `mode`), for tests that tamper with what the suite's shared database
 * must keep intact (the audit chain, the ledger's sources). `owner` plays the DBA, `app` is the
 * role the API and workers connect as. drop() removes it.
 */
export async function scratchDatabase(label: string, mode: SeedMode) {
  const url = new URL(process.env.DATABASE_URL!);
  // A random part too: two tests of one file start in the same millisecond.
  url.pathname = `/gateway_${label}_${process.pid}_${randomBytes(6).toString('hex')}`;
  const ownerUrl = url.toString();
  const seeded = await prepareDatabase(ownerUrl, randomBytes(32).toString('base64'), 'http://127.0.0.1:9/unused', { mode });
  const owner: Sql = createSql(ownerUrl, { max: 2 });
  // 30 at once at most: the concurrency tests' parallel tries, on a server other stacks share.
  const app: Sql = createSql(seeded.appDatabaseUrl, { max: 30 });
  const drop = async () => {
    await Promise.all([owner.end(), app.end()]);
    const admin = new URL(ownerUrl);
    admin.pathname = '/postgres';
    const root = postgres(admin.toString(), { max: 1, onnotice: () => {} });
    await root.unsafe(`drop database if exists "${url.pathname.slice(1)}" with (force)`);
    await root.end();
  };
  return { ownerUrl, appUrl: seeded.appDatabaseUrl, owner, app, seeded, drop };
}
