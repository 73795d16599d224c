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
