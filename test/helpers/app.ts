import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { answerClientErrors, createApp } from '../../api/app';
import type { AppDeps } from '../../api/deps';
import { UploadBudget } from '../../api/auth/upload-budget';
import { PasswordHashGate } from '../../api/auth/password-hashes';
import { loadConfig, type Config } from '../../config';
import { createSql } from '../../db/sql';
import { SecretBox } from '../../domain/secret-box';
import { createTemporalClient } from '../../temporal/client';

/**
 * An API process built in-process around the suite's database and Temporal, with config or
 * clock overrides — for behaviour that depends on settings (grace window 0) or on the minute.
 */
export async function startApp(overrides: Partial<Config> = {}, now: () => number = Date.now) {
  const config = { ...loadConfig(process.env), ...overrides };
  const sql = createSql(config.DATABASE_URL, { max: 5 });
  const temporal = await createTemporalClient(config);
  const deps: AppDeps = {
    config,
    sql,
    temporal,
    log: pino({ level: 'silent' }),
    secretBox: new SecretBox(config.SECRETS_ENCRYPTION_KEY),
    now,
    uploadBudget: UploadBudget.fromConfig(config),
    passwordHashes: PasswordHashGate.fromConfig(config),
  };
  const server = answerClientErrors(createApp(deps).listen(0, '127.0.0.1'));
  await new Promise((resolve) => server.once('listening', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    sql,
    /** Upload bytes this app holds unverified (api/auth/unverified-uploads.ts). */
    uploadBudget: deps.uploadBudget,
    async close() {
      server.close();
      server.closeAllConnections();
      await sql.end();
      await temporal.connection.close();
    },
  };
}

export function testSql() {
  return createSql(process.env.DATABASE_URL!, { max: 10 });
}
