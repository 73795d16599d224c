/**
 * Webhook wire formats, chosen per merchant `api_version`: which events a merchant receives, and
 * the body and headers of a delivery, built from the stored event. V2's format is
 * built in and is the default; an API adapter beside V2 (api/adapters.ts) brings its own, and the
 * worker process fills its registry from that list at startup (workers/main.ts, adapterWebhookFormats). The relay asks it
 * which events to deliver (workers/outbox-relay.ts), the delivery activity how to render them
 * (activities/webhooks.ts). Pure code: no I/O, no clock (the send time is passed in).
 */
import { webhookSignatureHeader } from '../crypto/signature';
import { standardWebhooksHeaders } from '../crypto/standard-webhooks';
import { v2Envelope, type StoredEvent } from './webhook-envelope';

/** A stored event as a format renders it: the event, its merchant, and its deal when it has one. */
export interface WebhookEvent extends StoredEvent {
  merchant_id: string;
  /** The event's deal, when it has one: what a format may show beyond the event payload. */
  deal_type: 'PAYIN' | 'PAYOUT' | null;
  idempotency_key: string | null;
  requisite_id: string | null;
  target_name: string | null;
  method_slug: string | null;
  currency_numeric: number | null;
  currency_exponent: number | null;
}

export interface WebhookFormat {
  /** The merchant `api_version` it serves. */
  apiVersion: string;
  /** Whether its merchants receive events of this type at all: the relay makes no delivery of the others. */
  receives(eventType: string): boolean;
  /** The JSON body; a throw means the stored event cannot be rendered (the delivery is given up). */
  body(event: WebhookEvent): Record<string, unknown>;
  /** secrets: the current one first, then any still in a rotation's grace window. sentAt: Unix seconds of the send. */
  headers(secrets: string[], sentAt: number, body: string, event: WebhookEvent): Record<string, string>;
}

/**
 * V2: { event_id, type, created_at, deal, … }, Stripe-style signature over the send time,
 * and the same delivery signed per Standard Webhooks (domain/crypto/standard-webhooks.ts). During a
 * rotation's grace window both secrets sign both schemes. Every event is delivered.
 */
const V2_WEBHOOK_FORMAT: WebhookFormat = {
  apiVersion: 'v2',
  receives: () => true,
  body: v2Envelope,
  headers: (secrets, sentAt, body, e) => ({
    'X-Timestamp': String(sentAt),
    'X-Signature': webhookSignatureHeader(secrets, sentAt, body),
    'X-Event-Id': e.event_id,
    ...standardWebhooksHeaders(secrets, e.event_id, sentAt, body),
  }),
};

/** The formats by api_version: V2's built in, the adapters' added at startup; an api_version without one gets V2's. */
export class WebhookFormats {
  private readonly byVersion = new Map<string, WebhookFormat>([[V2_WEBHOOK_FORMAT.apiVersion, V2_WEBHOOK_FORMAT]]);

  constructor(formats: Iterable<WebhookFormat> = []) {
    for (const format of formats) this.register(format);
  }

  register(format: WebhookFormat): this {
    if (this.byVersion.has(format.apiVersion)) throw new Error(`a webhook format for api_version ${format.apiVersion} is registered already`);
    this.byVersion.set(format.apiVersion, format);
    return this;
  }

  of(apiVersion: string): WebhookFormat {
    return this.byVersion.get(apiVersion) ?? V2_WEBHOOK_FORMAT;
  }
}
