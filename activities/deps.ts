import type { Client } from '@temporalio/client';
import type { Logger } from 'pino';
import type { Config } from '../config';
import type { WorkerMetrics } from '../config/metrics';
import type { Sql } from '../db/sql';
import type { SecretBox } from '../domain/crypto/secret-box';
import type { WebhookFormats } from '../domain/events/webhook-formats';

/** What every activity is built around (createActivities): injected, no module-level clients. */
export interface ActivityDeps {
  config: Config;
  sql: Sql;
  log: Logger;
  secretBox: SecretBox;
  /** The webhook format of each merchant api_version (filled at startup from api/adapters.ts). */
  webhookFormats: WebhookFormats;
  /** The worker's Temporal client: the sandbox trader (activities/sandbox.ts) sends deal updates with it. */
  temporal?: Client;
  /** The worker process's gateway metrics (config/metrics.ts); absent in tests that build activities alone. */
  metrics?: WorkerMetrics;
}
