import type { Logger } from 'pino';
import type { Config } from '../config';
import type { Sql } from '../db/sql';
import type { SecretBox } from '../domain/secret-box';
import { deadlineBoundSql } from './deadline';
import { createAppealActivities } from './appeals';
import { withBusinessFailures } from './errors';
import { createPayinActivities } from './payins';
import { createPayoutActivities } from './payouts';
import { createWebhookActivities } from './webhooks';
import { createWithdrawalActivities } from './withdrawals';

export interface ActivityDeps {
  config: Config;
  sql: Sql;
  log: Logger;
  secretBox: SecretBox;
}

/** All activities, built around injected dependencies (no module-level clients). */
export function createActivities(input: ActivityDeps) {
  // Every transaction an activity opens is bounded by that activity's deadline (deadline.ts).
  const deps = { ...input, sql: deadlineBoundSql(input.sql) };
  return withBusinessFailures({
    ...createPayinActivities(deps),
    ...createPayoutActivities(deps),
    ...createWebhookActivities(deps),
    ...createWithdrawalActivities(deps),
    ...createAppealActivities(deps),
  });
}

export type Activities = ReturnType<typeof createActivities>;
