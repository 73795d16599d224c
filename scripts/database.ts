import { ensureDatabase, migrate } from '../db/migrate';
import { seed, type SeedResult } from '../db/seed';
import { createSql } from '../db/sql';
import { SecretBox } from '../domain/secret-box';
import { say } from './stack';

/** Creates the database if missing, migrates it and seeds the demo tenant (all idempotent). */
export async function prepareDatabase(url: string, secretsKey: string, demoWebhookUrl: string): Promise<SeedResult> {
  await ensureDatabase(url);
  await migrate(url, (line) => say(line));
  const sql = createSql(url, { max: 1 });
  try {
    return await seed(sql, new SecretBox(secretsKey), { demoWebhookUrl });
  } finally {
    await sql.end();
  }
}
