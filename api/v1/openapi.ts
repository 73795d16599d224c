/**
 * What the V1 adapter adds to the OpenAPI document besides its routes: its tag, its credentials
 * (the security schemes its routes name) and the legacy webhooks it sends (OpenAPI 3.1 `webhooks`).
 */
import { registerTag, registry } from '../openapi';
import { V1_TAG } from './route';
import { z } from 'zod';
import { v1WebhookIncoming, v1WebhookOutgoing } from './schemas';

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

/** The headers of a V1 webhook delivery (api/v1/webhooks.ts). */
const V1_WEBHOOK_HEADERS = z.object({
  MERCHANT: z.string().openapi({ description: 'the merchant id' }),
  TIMESTAMP: z.string().openapi({ description: '00:00:00 UTC of the send day, unix seconds', example: '1763769600' }),
  SIGNATURE: z.string().openapi({
    description: 'lowercase hex `HMAC-SHA512(secret, "<TIMESTAMP>;<raw body>")`, the key being the whole secret string (`whsec_` included)',
  }),
  'X-Event-Id': z.string().uuid().openapi({ description: 'the eventId of the body, stable across retries' }),
});

/**
 * The legacy V1 webhooks (OpenAPI 3.1 `webhooks`): what the gateway POSTs to a V1 merchant's
 * webhook_url. Their bodies are inline (./schemas.ts says why).
 */
for (const [name, schema, what] of [
  ['v1-incoming', v1WebhookIncoming, 'a PayIn'],
  ['v1-outgoing', v1WebhookOutgoing, 'a PayOut'],
] as const) {
  registry.registerWebhook({
    method: 'post',
    path: name,
    operationId: `${name.replace(/-(\w)/g, (_m, c: string) => c.toUpperCase())}Webhook`,
    summary: `V1 webhook: an event of ${what}, POSTed to the webhook_url of an api_version v1 merchant`,
    description:
      'Signed by the current secret alone, also during a rotation (docs/signing.md, "V1"). Deliveries are retried like V2 ones ' + '(WEBHOOK_RETRY_DELAYS).',
    tags: [V1_TAG],
    deprecated: true,
    // The receiver checks SIGNATURE (HMAC-SHA512 with the merchant's secret); it is not an API credential.
    security: [],
    request: { headers: V1_WEBHOOK_HEADERS, body: { required: true, content: { 'application/json': { schema } } } },
    responses: {
      200: { description: 'any answer below 400 acknowledges the event' },
      default: { description: 'an answer of 400 or more (or none within WEBHOOK_TIMEOUT_MS) is retried' },
    },
  });
}
