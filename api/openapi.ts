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
        'Errors are RFC 9457 problem+json; every response carries X-Trace-Id.',
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
