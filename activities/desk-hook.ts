/**
 * The desk hook's attempt: one desk event POSTed to DESK_HOOK_URL as JSON (domain/events/desk-payload.ts),
 * signed the Standard Webhooks way with DESK_HOOK_SECRET (webhook-id `desk_<id>`, stable across
 * attempts: the receiver's dedupe key). The URL is the operators' own setting, so a private
 * address is allowed. A 2xx is delivered; anything else throws, and the workflow's retry policy
 * tries again on a durable timer. Each attempt is recorded on the event's row.
 */
import { ApplicationFailure } from '@temporalio/activity';
import type { ActivityDeps } from './deps';
import { deskEventPayload } from '../domain/events/desk-payload';
import { standardWebhooksHeaders } from '../domain/crypto/standard-webhooks';
import { findDeskEvent, recordDeskAttempt } from '../db/queries/desk-events';
import { postWebhook } from './webhook-http';

export function createDeskHookActivities(deps: ActivityDeps) {
  const { sql, config } = deps;
  return {
    async deliverDeskEvent(eventId: string): Promise<{ status: number }> {
      const url = config.DESK_HOOK_URL;
      const secret = config.DESK_HOOK_SECRET;
      if (!url || !secret) throw ApplicationFailure.nonRetryable('no desk hook is configured (DESK_HOOK_URL, DESK_HOOK_SECRET)', 'DESK_HOOK_OFF');
      const event = await findDeskEvent(sql, BigInt(eventId));
      if (!event) throw ApplicationFailure.nonRetryable(`desk event ${eventId} not found`, 'NOT_FOUND');
      if (event.delivered_at) return { status: event.last_status ?? 200 };
      const body = JSON.stringify(deskEventPayload(event, config.CONSOLE_BASE_URL ?? config.CHECKOUT_BASE_URL));
      const headers = {
        ...standardWebhooksHeaders([secret], `desk_${event.id}`, Math.floor(Date.now() / 1000), body),
        'User-Agent': 'merchant-gateway-desk-hook/1',
      };
      const answer = await postWebhook(url, body, headers, { timeoutMs: config.WEBHOOK_TIMEOUT_MS, allowPrivate: true });
      const delivered = answer.status !== undefined && answer.status >= 200 && answer.status < 300;
      await recordDeskAttempt(sql, event.id, { status: answer.status ?? null, error: delivered ? '' : (answer.error ?? `HTTP ${answer.status}`), delivered });
      if (delivered) return { status: answer.status! };
      const why = answer.error ?? `the desk hook answered ${answer.status}`;
      if (answer.permanent) throw ApplicationFailure.nonRetryable(why, 'DESK_HOOK_REFUSED');
      throw new Error(why);
    },
  };
}
