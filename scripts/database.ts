import { ensureDatabase, migrate } from '../db/migrate';
import { appDatabaseUrl, DEFAULT_APP_ROLE, grantAppRole } from '../db/roles';
import { seed, type SeedMode, type SeedResult } from '../db/seed';
import { createSql } from '../db/sql';
import { SecretBox } from '../domain/crypto/secret-box';
import { virtualDeviceKeys } from '../domain/crypto/device-signature';
import { DEFAULT_TENANT_ID } from '../db/queries/merchants';
import { cardDataRing } from '../db/queries/requisite-secrets';
import type { PayloadKey } from '../config';
import { say } from './stack';

export interface PrepareOptions {
  /** `catalogue` in production (no trader, liquidity, merchant or requisite); `demo` elsewhere. */
  mode: SeedMode;
  /** The role the API and workers connect as (DATABASE_APP_ROLE) and its password, if the server asks for one. */
  appRole?: string;
  appPassword?: string;
  /** CARD_DATA_KEYS (the demo requisites' numbers are sealed under them); unset: derived from the secrets key. */
  cardDataKeys?: PayloadKey[] | undefined;
}

/**
 * Creates the database if missing, migrates it and grants the app role as the owner (`ownerUrl`),
 * then seeds it (all idempotent). Answers the seed's result and the URL the API and workers
 * connect with: the app role's, never the owner's.
 */
export async function prepareDatabase(
  ownerUrl: string,
  secretsKey: string,
  demoWebhookUrl: string,
  options: PrepareOptions,
): Promise<SeedResult & { appDatabaseUrl: string }> {
  const appRole = options.appRole ?? DEFAULT_APP_ROLE;
  await ensureDatabase(ownerUrl);
  await migrate(ownerUrl, (line) => say(line));
  await grantAppRole(ownerUrl, { role: appRole, ...(options.appPassword ? { password: options.appPassword } : {}) });
  const sql = createSql(ownerUrl, { max: 1 });
  try {
    const cardData = cardDataRing({ SECRETS_ENCRYPTION_KEY: secretsKey, CARD_DATA_KEYS: options.cardDataKeys });
    const seeded = await seed(sql, new SecretBox(secretsKey), {
      demoWebhookUrl,
      mode: options.mode,
      cardData,
      virtualDeviceKey: virtualDeviceKeys(secretsKey, DEFAULT_TENANT_ID).publicKey,
    });
    return { ...seeded, appDatabaseUrl: appDatabaseUrl(ownerUrl, appRole, options.appPassword) };
  } finally {
    await sql.end();
  }
}
