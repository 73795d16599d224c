/**
 * What the cabinet's deals and developers pages read and do beyond the merchant's HMAC routes: a
 * deal with its timeline (events, every webhook attempt with its answer), a test event through the
 * real delivery path, and the webhook endpoint's state as its attempts show it (docs/cabinet.md).
 */
import { randomUUID } from 'node:crypto';
import type { AppDeps } from '../deps';
import type { AuditActor } from '../../domain/audit';
import { FailedPrecondition } from '../../domain/errors';
import { eventIdFor } from '../../domain/ids';
import { insertAudit } from '../../db/queries/audit';
import { dealEvents, writeOutboxEvent } from '../../db/queries/outbox';
import { dealWebhookAttempts, latestEndpointAttempts } from '../../db/queries/webhooks';
import { getMerchantDeal, present, type MerchantScope } from './payins';
import { getMerchantProfile } from './merchants';

/** A deal of the merchant (another merchant's or an unknown id is 404) with its events and webhook attempts, oldest first. */
export async function cabinetDealTimeline(deps: AppDeps, scope: MerchantScope, dealId: string) {
  const row = await getMerchantDeal(deps, scope, dealId);
  const [events, attempts] = await Promise.all([dealEvents(deps.sql, dealId), dealWebhookAttempts(deps.sql, dealId)]);
  return {
    deal: present(deps, row),
    events: events.map((e) => ({
      event_id: e.id,
      event_type: e.event_type,
      created_at: e.created_at.toISOString(),
      dispatched_at: e.dispatched_at?.toISOString() ?? '',
    })),
    webhook_attempts: attempts.map((a) => ({
      callback_id: a.callback_id,
      event_id: a.event_id,
      event_type: a.event_type,
      url: a.url,
      delivery_status: a.delivery_status,
      attempt: a.attempt ?? 0,
      status: a.status ?? '',
      http_status: a.http_status ?? 0,
      duration_ms: a.duration_ms ?? 0,
      error: a.error ?? '',
      response_body: a.response_body ?? '',
      at: a.at.toISOString(),
    })),
  };
}

/**
 * A webhook.test event to the merchant's webhook URL: written to the outbox like every event, so
 * the relay, the endpoint's stream, its breaker, signatures and the delivery log treat it as they
 * treat a deal's. No URL set is 400. Audited with the event in one transaction.
 */
export async function sendTestEvent(deps: AppDeps, merchantId: string, actor: AuditActor, requestedBy: string) {
  const profile = await getMerchantProfile(deps, merchantId);
  if (!profile.webhook_url) throw new FailedPrecondition('the merchant has no webhook URL: set one first');
  const subjectId = randomUUID();
  const eventId = eventIdFor(subjectId, 'webhook.test', 0);
  await deps.sql.begin(async (tx) => {
    await writeOutboxEvent(tx, {
      merchantId,
      dealId: null,
      subjectId,
      type: 'webhook.test',
      discriminator: 0,
      payload: { test: { requested_by: requestedBy, message: 'A test event from the merchant cabinet: no deal, no money.' } },
    });
    await insertAudit(tx, actor, {
      action: 'webhook.test_event',
      objectType: 'merchant',
      objectId: merchantId,
      before: null,
      after: { event_id: eventId, url: profile.webhook_url },
    });
  });
  return { event_id: eventId, event_type: 'webhook.test', url: profile.webhook_url };
}

/**
 * The webhook URL's state as its latest attempts show it. The breaker itself lives in each
 * delivery worker's memory (activities/webhook-isolation.ts): after WEBHOOK_BREAKER_FAILURES
 * failures in a row it parks the endpoint for WEBHOOK_BREAKER_COOLDOWN_MS, then one probe goes.
 * So: PAUSED when that many attempts in a row failed and the last is within the cooldown; FAILING
 * when the last failed but fewer than that; OK when the last succeeded; NO_URL, DISABLED (the
 * kill-switch), UNUSED (nothing sent yet) otherwise.
 */
export async function webhookEndpointState(deps: AppDeps, merchantId: string) {
  const profile = await getMerchantProfile(deps, merchantId);
  const threshold = deps.config.WEBHOOK_BREAKER_FAILURES;
  const cooldownMs = deps.config.WEBHOOK_BREAKER_COOLDOWN_MS;
  const base = {
    url: profile.webhook_url,
    breaker_failures: threshold,
    breaker_cooldown_seconds: Math.round(cooldownMs / 1000),
    key_grace_seconds: deps.config.MERCHANT_KEY_GRACE_PERIOD,
  };
  if (!profile.webhook_url)
    return {
      ...base,
      state: 'NO_URL',
      reason: 'no webhook URL is set: events wait in the events feed',
      consecutive_failures: 0,
      last_attempt_at: '',
      paused_until: '',
    };
  const attempts = await latestEndpointAttempts(deps.sql, merchantId, profile.webhook_url, Math.max(threshold, 1));
  const failures = attempts.findIndex((a) => a.status === 'SUCCESS');
  const consecutive = failures === -1 ? attempts.length : failures;
  const last = attempts[0];
  const lastAt = last?.created_at.toISOString() ?? '';
  const what = last ? (last.http_status ? `HTTP ${last.http_status}` : last.error || 'no answer') : '';
  if (profile.disabled_at)
    return {
      ...base,
      state: 'DISABLED',
      reason: 'an operator disabled the merchant: nothing is delivered',
      consecutive_failures: consecutive,
      last_attempt_at: lastAt,
      paused_until: '',
    };
  if (!last) return { ...base, state: 'UNUSED', reason: 'nothing was sent to this URL yet', consecutive_failures: 0, last_attempt_at: '', paused_until: '' };
  if (consecutive === 0)
    return { ...base, state: 'OK', reason: `the last attempt was answered ${what}`, consecutive_failures: 0, last_attempt_at: lastAt, paused_until: '' };
  const until = new Date(last.created_at.getTime() + cooldownMs);
  if (threshold > 0 && consecutive >= threshold && until.getTime() > Date.now())
    return {
      ...base,
      state: 'PAUSED',
      reason: `the last ${consecutive} attempts failed (the last: ${what}); deliveries wait, then one probe goes — its success resumes them`,
      consecutive_failures: consecutive,
      last_attempt_at: lastAt,
      paused_until: until.toISOString(),
    };
  return {
    ...base,
    state: 'FAILING',
    reason: `the last ${consecutive} attempt${consecutive === 1 ? '' : 's'} failed (the last: ${what}); retries follow the schedule`,
    consecutive_failures: consecutive,
    last_attempt_at: lastAt,
    paused_until: '',
  };
}
