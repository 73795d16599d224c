import type { Logger } from 'pino';
import type { Config } from '../config';
import type { Sql } from '../db/sql';
import type { SecretBox } from '../domain/secret-box';

/** What every activity is built around (createActivities): injected, no module-level clients. */
export interface ActivityDeps {
  config: Config;
  sql: Sql;
  log: Logger;
  secretBox: SecretBox;
}
