import type { Logger } from 'pino';
import type { Config } from '../config';
import type { Sql } from '../db/sql';
import type { SecretBox } from '../domain/secret-box';
import { createAppealActivities } from './appeals';
import { withBusinessFailures } from './errors';
import { createPayinActivities } from './payins';
import { createPayoutActivities } from './payouts';
import { createWebhookActivities } from './webhooks';

export interface ActivityDeps {
  config: Config;
  sql: Sql;
  log: Logger;
  secretBox: SecretBox;
}

/** All activities, built around injected dependencies (no module-level clients). */
export function createActivities(deps: ActivityDeps) {
  return withBusinessFailures({
    ...createPayinActivities(deps),
    ...createPayoutActivities(deps),
    ...createWebhookActivities(deps),
    ...createAppealActivities(deps),
  });
}

export type Activities = ReturnType<typeof createActivities>;
