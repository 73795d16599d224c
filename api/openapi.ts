import { OpenAPIRegistry, OpenApiGeneratorV31, extendZodWithOpenApi } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';

extendZodWithOpenApi(z);

/** The one module-level registry: every defineRoute call adds its path here. */
export const registry = new OpenAPIRegistry();

registry.registerComponent('securitySchemes', 'MerchantToken', {
  type: 'apiKey',
  in: 'header',
  name: 'X-Merchant-Token',
  description:
    'Merchant HMAC pair (spec 5.1): send X-Merchant-Token, X-Timestamp (unix seconds) and ' +
    'X-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>. ' +
    'Replay window 300 s back, 60 s forward. Stripe-compatible.',
});
registry.registerComponent('securitySchemes', 'CabinetJwt', {
  type: 'http',
  scheme: 'bearer',
  bearerFormat: 'JWT',
  description: 'HS256 JWT with claims { sub, role: "merchant", merchant_id, exp }.',
});
registry.registerComponent('securitySchemes', 'OperatorJwt', {
  type: 'http',
  scheme: 'bearer',
  bearerFormat: 'JWT',
  description: 'HS256 JWT with claims { sub, role: "admin" | "platform_admin", exp }.',
});

const V1_AUTH =
  'Legacy V1 signature (spec 5.5): headers MERCHANT (merchant id), TIMESTAMP (unix seconds) and SIGNATURE = lowercase hex ' +
  'HMAC-SHA512(secret string incl. whsec_, payload), payload = fields joined by ";": PayIn create {timestamp};{payInId};{salt}, ' +
  'PayOut create {timestamp};{payOutId};{salt}, withdraw {timestamp};{requestId};{wallet};{salt}, dispute create ' +
  '{timestamp};{paymentId}, GET by id {timestamp};{id}, banks list, other lists and statistics {timestamp}. Replay window 300 s ' +
  'back, 60 s forward; a signature accepted on one route is refused on another. Only merchants with api_version v1 (a v2 ' +
  'merchant correctly signed: 403).';
registry.registerComponent('securitySchemes', 'V1Merchant', { type: 'apiKey', in: 'header', name: 'MERCHANT', description: V1_AUTH });
registry.registerComponent('securitySchemes', 'V1Timestamp', { type: 'apiKey', in: 'header', name: 'TIMESTAMP', description: 'Unix seconds, the first payload field' });
registry.registerComponent('securitySchemes', 'V1Signature', { type: 'apiKey', in: 'header', name: 'SIGNATURE', description: 'lowercase hex HMAC-SHA512, 128 characters' });

/**
 * The legacy V1 webhooks (OpenAPI 3.1 `webhooks`): what the gateway POSTs to a V1 merchant's
 * webhook_url, with the bodies api/v1/schemas.ts registers as components.
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
    tags: ['V1 (legacy, deprecated)'],
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

let cached: object | undefined;

export function openApiDocument(): object {
  cached ??= new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Merchant Payment Gateway API',
      version: '2.0.0',
      description:
        'Merchant API V2 (spec merchant-api-v2.md) plus the operator, payer and trader routes of ' +
        'contract.md. int64 values are strings in responses and integers in request bodies. ' +
        'Errors are RFC 9457 problem+json; every response carries X-Trace-Id. Each operation lists every status it ' +
        'answers. Outside the operations: a path no operation has is 404 problem+json, and a known path with a ' +
        'method it lacks is 405 problem+json (OPTIONS answers 200 with Allow); a request line or headers too large ' +
        'for the HTTP parser is 431 problem+json, a request it cannot parse 400.',
    },
    servers: [{ url: '/' }],
  });
  return cached;
}

export function swaggerHtml(): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Merchant Gateway API</title>
<link rel="stylesheet" href="/docs/assets/swagger-ui.css"></head>
<body><div id="swagger-ui"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script src="/docs/assets/init.js"></script>
</body></html>`;
}
