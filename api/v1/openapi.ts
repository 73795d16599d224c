/**
 * What the V1 adapter adds to the OpenAPI document besides its routes: its tag, its credentials
 * (the security schemes its routes name) and the legacy webhooks it sends (OpenAPI 3.1 `webhooks`).
 */
import { registerTag, registry } from '../openapi';
import { V1_TAG } from './route';
import './schemas';

registerTag({ name: V1_TAG, description: 'The legacy V1 adapter: deprecated, 410 Gone after its sunset' });

const V1_AUTH =
  'Legacy V1 signature: headers MERCHANT (merchant id), TIMESTAMP (unix seconds) and SIGNATURE = lowercase hex ' +
  'HMAC-SHA512(secret string incl. whsec_, payload), payload = fields joined by ";": PayIn create {timestamp};{payInId};{salt}, ' +
  'PayOut create {timestamp};{payOutId};{salt}, withdraw {timestamp};{requestId};{wallet};{salt}, dispute create ' +
  '{timestamp};{paymentId}, GET by id {timestamp};{id}, banks list, other lists and statistics {timestamp}. Replay window 300 s ' +
  'back, 60 s forward; a signature accepted on one route is refused on another. Only merchants with api_version v1 (a v2 ' +
  'merchant correctly signed: 403).';
registry.registerComponent('securitySchemes', 'V1Merchant', { type: 'apiKey', in: 'header', name: 'MERCHANT', description: V1_AUTH });
registry.registerComponent('securitySchemes', 'V1Timestamp', {
  type: 'apiKey',
  in: 'header',
  name: 'TIMESTAMP',
  description: 'Unix seconds, the first payload field',
});
registry.registerComponent('securitySchemes', 'V1Signature', {
  type: 'apiKey',
  in: 'header',
  name: 'SIGNATURE',
  description: 'lowercase hex HMAC-SHA512, 128 characters',
});

/**
 * The legacy V1 webhooks (OpenAPI 3.1 `webhooks`): what the gateway POSTs to a V1 merchant's
 * webhook_url, with the bodies ./schemas.ts registers as components.
 */
for (const [name, schema, what] of [
  ['v1-incoming', 'V1WebhookIncoming', 'a PayIn'],
  ['v1-outgoing', 'V1WebhookOutgoing', 'a PayOut'],
] as const) {
  registry.registerWebhook({
    method: 'post',
    path: name,
    operationId: `${name.replace(/-(\w)/g, (_m, c: string) => c.toUpperCase())}Webhook`,
    summary: `V1 webhook: an event of ${what}, POSTed to the webhook_url of an api_version v1 merchant`,
    description: `Headers and signature: see the ${schema} schema. Deliveries are retried like V2 ones (WEBHOOK_RETRY_DELAYS).`,
    tags: [V1_TAG],
    deprecated: true,
    // The receiver checks SIGNATURE (HMAC-SHA512 with the merchant's secret); it is not an API credential.
    security: [],
    request: { body: { required: true, content: { 'application/json': { schema: { $ref: `#/components/schemas/${schema}` } } } } },
    responses: {
      200: { description: 'any answer below 400 acknowledges the event' },
      default: { description: 'an answer of 400 or more (or none within WEBHOOK_TIMEOUT_MS) is retried' },
    },
  });
}
