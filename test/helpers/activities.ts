/**
 * The deal, appeal and withdrawal activities themselves, built around the suite's database and called
 * directly (no engine, no retry): for tests of what one attempt does — alone, twice under one run
 * (the activity test environment), or many at once. The withdrawal steps used here never call the
 * chain.
 */
import pino from 'pino';
import { loadConfig } from '../../config';
import type { ChainAdapter } from '../../activities/chain';
import type { ActivityDeps } from '../../activities/deps';
import { createAppealActivities } from '../../activities/appeals';
import { createPayinActivities } from '../../activities/payins';
import { createPayoutActivities } from '../../activities/payouts';
import { createSettlementActivities } from '../../activities/settlements';
import { createWithdrawalActivities } from '../../activities/withdrawals';
import type { Sql } from '../../db/sql';
import { SecretBox } from '../../domain/crypto/secret-box';
import { WebhookFormats } from '../../domain/events/webhook-formats';

export function directActivities(sql: Sql) {
  const config = loadConfig(process.env);
  // No webhook activities here: V2's format alone is enough.
  const deps: ActivityDeps = {
    config,
    sql,
    log: pino({ level: 'silent' }),
    secretBox: new SecretBox(config.SECRETS_ENCRYPTION_KEY),
    webhookFormats: new WebhookFormats(),
  };
  return {
    config,
    payins: createPayinActivities(deps),
    payouts: createPayoutActivities(deps),
    appeals: createAppealActivities(deps),
    settlements: createSettlementActivities(deps),
    withdrawals: createWithdrawalActivities(deps, {} as ChainAdapter),
  };
}
