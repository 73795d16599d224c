/**
 * The legacy V1 webhook format, registered for api_version v1 through the
 * adapter list (api/adapters.ts → workers/main.ts → domain/events/webhook-formats.ts): the same events
 * as V2 but the V2-only ones, through the same delivery workflows, with V1's body and headers.
 * Pure: the delivery activity calls it with the stored event and the send time.
 */
import { createHmac } from 'node:crypto';
import { DEPOSIT_CONFIRMED_EVENT } from '../../domain/records/deposit-info';
import type { WebhookFormat } from '../../domain/events/webhook-formats';
import { startOfUtcDay, v1WebhookBody, v1Withdrawal, type PresentedWithdrawal } from './records';

/** Events V1 has no form for: deal.amount_changed, the deposit events and the cabinet's test event are V2-only. */
const V2_ONLY_EVENTS = new Set(['deal.amount_changed', DEPOSIT_CONFIRMED_EVENT, 'webhook.test']);

/**
 * The deal's V1 record (numeric status codes of the webhook view, decimal
 * amounts, V1 names) plus eventId, eventType and paymentType; headers MERCHANT, TIMESTAMP (the
 * start of the current UTC day) and SIGNATURE = hex HMAC-SHA512(secret, "<TIMESTAMP>;<raw body>").
 * The status and amounts are the event's (its payload), not the deal's current ones.
 */
export const v1WebhookFormat: WebhookFormat = {
  apiVersion: 'v1',
  receives: (eventType) => !V2_ONLY_EVENTS.has(eventType),
  body: (e) => {
    const withdrawal = e.payload.withdrawal as PresentedWithdrawal | undefined;
    if (withdrawal) return { eventId: e.event_id, eventType: e.event_type, paymentType: 'withdraw', ...v1Withdrawal(withdrawal, e.merchant_id) };
    const deal = e.payload.deal as Record<string, string> | undefined;
    if (!deal || !e.deal_type || e.currency_exponent === null) {
      return { eventId: e.event_id, eventType: e.event_type, createdAt: e.created_at.toISOString(), ...e.payload };
    }
    return v1WebhookBody(
      e,
      {
        id: deal.deal_id!,
        idempotency_key: e.idempotency_key ?? '',
        status: deal.status!,
        amount: BigInt(deal.amount ?? '0'),
        received_amount: BigInt(deal.received_amount || '0'),
        amount_match_status: deal.amount_match_status ?? '',
        has_channel: e.requisite_id !== null,
        client_id: deal.client_id ?? '',
        payment_url: deal.payment_url ?? '',
        target_requisite: deal.target_requisite ?? '',
        target_name: e.target_name ?? '',
        method_slug: e.method_slug ?? '',
        currency_numeric: e.currency_numeric,
        currency_exponent: e.currency_exponent,
        created_at: new Date(deal.created_at!),
        updated_at: new Date(deal.updated_at!),
      },
      e.deal_type,
    );
  },
  // The current secret alone signs the legacy envelope, even in a rotation's grace window (V2 signs with both).
  headers: ([secret = ''], sentAt, body, e) => {
    const timestamp = startOfUtcDay(sentAt * 1000);
    return {
      MERCHANT: e.merchant_id,
      TIMESTAMP: String(timestamp),
      SIGNATURE: createHmac('sha512', secret).update(`${timestamp};${body}`).digest('hex'),
      'X-Event-Id': e.event_id,
    };
  },
};
