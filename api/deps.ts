import type { Logger } from 'pino';
import type { Client } from '@temporalio/client';
import type { Config } from '../config';
import type { ApiMetrics } from '../config/metrics';
import type { Sql } from '../db/sql';
import type { SecretBox } from '../domain/crypto/secret-box';
import type { FileStorage } from './services/file-storage';
import type { UploadBudget } from './auth/upload-budget';
import type { PasswordHashGate } from './auth/password-hashes';

/** Everything the API needs, injected so tests can build the app around a test database. */
export interface AppDeps {
  config: Config;
  sql: Sql;
  temporal: Client;
  log: Logger;
  secretBox: SecretBox;
  /** Wall clock in milliseconds; injectable for signature-window tests. */
  now: () => number;
  /** Upload bytes read before their signature is checked, in flight in this process (api/auth/unverified-uploads.ts). */
  uploadBudget: UploadBudget;
  /** Operator password hashes running and waiting in this process (api/auth/password-hashes.ts). */
  passwordHashes: PasswordHashGate;
  /** Where evidence file bytes live; the Postgres storage when absent. */
  fileStorage?: FileStorage;
  /** The gateway's API metrics (config/metrics.ts), registered by createApp on its /metrics registry. */
  metrics?: ApiMetrics;
}
