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
    'Merchant HMAC pair: send X-Merchant-Token (the token), X-Timestamp (unix seconds) and ' +
    'X-Signature: `t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>`, the HMAC key being the whole secret ' +
    'string as issued (`whsec_` included). Replay window 300 s back, 60 s forward. Stripe-compatible. Optionally (required for ' +
    'a merchant whose signature_binding is required) also `,v2=<hex HMAC-SHA256(secret, "<t>.<METHOD>.<path and query as sent>.<raw body>")>`, ' +
    'which binds the signature to the request; the merchant SDK (sdk/) sends both. Every language, with test vectors: ' +
    '[docs/signing.md](/docs/signing.md).',
});
registry.registerComponent('securitySchemes', 'CabinetJwt', {
  type: 'http',
  scheme: 'bearer',
  bearerFormat: 'JWT',
  description: 'HS256 JWT with claims { sub, role: "merchant", merchant_id, exp }. Stands for the member role owner (x-roles).',
});
registry.registerComponent('securitySchemes', 'CabinetSessionCookie', {
  type: 'apiKey',
  in: 'cookie',
  name: 'gw_merchant',
  description:
    'The merchant cabinet: the session cookie of a member of the merchant, from POST /api/v1/p2p/cabinet/session (HttpOnly, ' +
    'SameSite=Strict). Every request but GET/HEAD also sends X-CSRF-Token (answered by sign-in and GET ' +
    "/api/v1/p2p/cabinet/session), else 403. Accepted wherever the cabinet JWT is, scoped to the member's merchant; the " +
    "operation's x-roles lists the member roles that may call it (the cabinet JWT is the role owner; the HMAC pair is not checked).",
});
registry.registerComponent('securitySchemes', 'TraderSessionCookie', {
  type: 'apiKey',
  in: 'cookie',
  name: 'gw_trader',
  description:
    "The trader app: the session cookie of a trader's account, from POST /api/v1/p2p/trader/session (HttpOnly, SameSite=Strict). " +
    'Every request but GET/HEAD also sends X-CSRF-Token (answered by sign-in and GET /api/v1/p2p/trader/session), else 403. ' +
    "Scoped to the account's trader: its requisites, deals, wallet and appeals (another trader's id is 404).",
});
const DEVICE_PROTOCOL = 'The bank device protocol: a paired device signs every request with its Ed25519 key. ';
registry.registerComponent('securitySchemes', 'DeviceId', {
  type: 'apiKey',
  in: 'header',
  name: 'X-Device-Id',
  description: `${DEVICE_PROTOCOL}The device's id, answered by its pairing. A revoked device is refused (401) for good.`,
});
registry.registerComponent('securitySchemes', 'DeviceTimestamp', {
  type: 'apiKey',
  in: 'header',
  name: 'X-Device-Timestamp',
  description: `${DEVICE_PROTOCOL}Unix seconds of the signature; within 300 seconds of the gateway's clock, else 401.`,
});
registry.registerComponent('securitySchemes', 'DeviceSignature', {
  type: 'apiKey',
  in: 'header',
  name: 'X-Device-Signature',
  description:
    `${DEVICE_PROTOCOL}base64url (no padding) of the Ed25519 signature of \`"<X-Device-Timestamp>.<METHOD>.<path and query>.<hex sha-256 of the raw body>"\`. ` +
    'Every body also carries the device’s `sequence` number (a replay is 409: see each operation). The pairing request is signed by the key it registers.',
});
registry.registerComponent('securitySchemes', 'OperatorJwt', {
  type: 'http',
  scheme: 'bearer',
  bearerFormat: 'JWT',
  description:
    'HS256 JWT with claims { sub, role: "admin" | "platform_admin", exp }. Checked against the role table as the role admin (x-roles of each operation).',
});
registry.registerComponent('securitySchemes', 'OperatorSessionCookie', {
  type: 'apiKey',
  in: 'cookie',
  name: 'gw_operator',
  description:
    'The operator console: the session cookie of POST /api/v1/p2p/admin/session (HttpOnly, SameSite=Strict). Every request ' +
    "but GET/HEAD also sends X-CSRF-Token (answered by sign-in and GET /api/v1/p2p/admin/session), else 403. The operation's " +
    'x-roles lists the operator roles that may call it.',
});

/**
 * The document's tags, one per aggregate, in reading order: every tag an operation names must be
 * here (`operation-tag-defined` in redocly.yaml), so a generator groups methods by them. An API
 * adapter beside V2 (api/adapters.ts) adds its own after these (registerTag).
 */
const TAGS: Array<{ name: string; description: string }> = [
  { name: 'Deals', description: 'PayIn and PayOut deals: create, read, cancel, list, export, turnover' },
  { name: 'Events', description: "The merchant's events feed: every event its webhooks carried, oldest first, resumable" },
  { name: 'Webhooks', description: 'Webhook delivery history and manual retry' },
  { name: 'Balance', description: 'USDT wallets: available, frozen, total, pending' },
  { name: 'Wallet', description: 'TRC-20 deposit address, deposits, withdrawal fee, withdrawals' },
  { name: 'Appeals', description: 'Disputes on PayIn deals and the conversation with the arbiter' },
  { name: 'Appeals: evidence files', description: 'Evidence files for appeals and their messages' },
  { name: 'Passes', description: 'Whitelist passes that bypass cascade routing' },
  { name: 'Sandbox', description: "Sandbox merchants: the amount table, firing a deal's timer now, play USDT" },
  { name: 'Catalogs', description: 'Payment methods, banks and currencies of the tenant' },
  { name: 'Keys', description: 'API key pairs: issue (operator) and rotation' },
  { name: 'Profile', description: "The caller's merchant profile and limits" },
  {
    name: 'Cabinet',
    description: "The merchant's people: sign-in, the member's session, TOTP and password, the team (owner) and invitations",
  },
  { name: 'Trader', description: "A trader's account: sign-in, the session, TOTP (required) and password, accepting an invitation" },
  { name: 'Trader: requisites', description: "The trader's own requisites: add (an operator approves before first use), edit, pause, archive, limits" },
  { name: 'Trader: presence', description: 'Online or offline, the heartbeat and working hours: the matcher takes only present traders' },
  { name: 'Trader: deals', description: "The trader's deal queue: PayIns to confirm, PayOuts to take, start, complete with proof or reject" },
  { name: 'Trader: wallet', description: "The trader's USDT: deposit address, security deposit, earnings, withdrawals" },
  { name: 'Trader: appeals', description: "Appeals on the trader's deals: the merchant's statement and evidence, the trader's answer" },
  { name: 'Trader: devices', description: "The trader's paired bank devices: pairing by QR code, the requisites each serves, revocation, what they forwarded" },
  { name: 'Bank devices', description: 'The bank device protocol: a paired phone signs its heartbeats and the bank notifications it forwards (Ed25519)' },
  { name: 'Checkout (payer)', description: 'The hosted payment page and its API, used by the payer (public)' },
  { name: 'Operator', description: 'Operator bootstrap and merchant administration (operator JWT or console session)' },
  { name: 'Operator: deals', description: 'Operator commands on deals: the trader side of PayIns and PayOuts, amount changes' },
  { name: 'Operator: appeals', description: 'The arbiter: appeal queue, review, resolution, settlement' },
  { name: 'Operator: withdrawals', description: 'The manual withdrawal queue: approve (four-eyes above WITHDRAWAL_FOUR_EYES_ABOVE_USDT_CENTS) or cancel' },
  { name: 'Bank notifications', description: 'Bank notifications that matched no deal: the operators’ queue, attach to a deal or dismiss' },
  { name: 'Operator: console', description: 'Console accounts and sessions, the audit trail, the queues of the home page' },
  { name: 'Ops', description: 'Health of the API and what it depends on' },
];

/** An adapter's tag, after V2's (once: a second registration of a name changes nothing). */
export function registerTag(tag: { name: string; description: string }): void {
  if (!TAGS.some((t) => t.name === tag.name)) TAGS.push(tag);
}

/** The merchant document's path beside /openapi.json (README names it). */
export const MERCHANT_DOCUMENT_PATH = '/openapi.merchant.json';
/** The signing guide, served beside the documents (docs/signing.md). */
export const SIGNING_GUIDE_PATH = '/docs/signing.md';

/** What both documents say of the whole API, after their first sentence. */
const API_NOTES =
  `How to sign requests and verify webhooks in any language, with test vectors: [docs/signing.md](${SIGNING_GUIDE_PATH}). ` +
  'int64 values are strings in responses and integers in request bodies. ' +
  'Errors are RFC 9457 problem+json; every response carries X-Trace-Id. Each operation lists every status it ' +
  'answers and the headers it sends. Fields documented as open (`x-extensible-enum`) may get new values without notice. ' +
  'Outside the operations: a path no operation has is 404 problem+json, and a known path with a ' +
  'method it lacks is 405 problem+json (OPTIONS answers 200 with Allow); a request line or headers too large ' +
  'for the HTTP parser is 431 problem+json, a request it cannot parse 400.';

let cached: object | undefined;

export function openApiDocument(): object {
  cached ??= new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Merchant Payment Gateway API',
      version: '2.0.0',
      description: `Merchant API V2, plus the operator, payer and trader routes (the merchant's part alone: ${MERCHANT_DOCUMENT_PATH}). ${API_NOTES}`,
    },
    servers: [{ url: '/' }],
    tags: TAGS,
  });
  return cached;
}

/** The security schemes of a merchant's own credentials: its HMAC key pair and its cabinet session. */
const MERCHANT_SCHEMES = new Set(['MerchantToken', 'CabinetJwt', 'CabinetSessionCookie']);

type Json = Record<string, unknown>;

/** Every `#/components/<kind>/<name>` a part of the document refers to, followed through the components it reaches. */
function reachableComponents(document: { components?: Record<string, Record<string, unknown>> }, roots: unknown[]): Set<string> {
  const seen = new Set<string>();
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (const item of node) visit(item);
    } else if (node !== null && typeof node === 'object') {
      for (const [key, value] of Object.entries(node)) {
        if (key === '$ref' && typeof value === 'string' && value.startsWith('#/components/') && !seen.has(value)) {
          seen.add(value);
          const [, , kind, name] = value.split('/');
          visit(document.components?.[kind!]?.[name!]);
        } else {
          visit(value);
        }
      }
    }
  };
  visit(roots);
  return seen;
}

let merchantCached: object | undefined;

/**
 * The merchant's document (MERCHANT_DOCUMENT_PATH): the operations a merchant calls with its own
 * credentials (the HMAC key pair or its cabinet session) and the V2 webhook it receives, with only
 * the components they reach — no operator, payer-page, checkout, health or V1 operation. Cut from
 * the full document, so both describe every operation they share identically; a client generated
 * from it (tools/go-client checks oapi-codegen's and ogen's) carries only what a merchant uses.
 */
export function merchantOpenApiDocument(): object {
  if (merchantCached) return merchantCached;
  const full = structuredClone(openApiDocument()) as Json & {
    info: Json;
    tags: Array<{ name: string }>;
    paths: Record<string, Record<string, Json & { security?: Array<Record<string, string[]>>; tags?: string[] }>>;
    webhooks?: Record<string, Record<string, Json & { deprecated?: boolean }>>;
    components: Record<string, Record<string, unknown>>;
  };
  const paths: typeof full.paths = {};
  for (const [path, item] of Object.entries(full.paths)) {
    const kept = Object.entries(item).filter(([, operation]) =>
      (operation.security ?? []).some((requirement) => Object.keys(requirement).some((scheme) => MERCHANT_SCHEMES.has(scheme))),
    );
    if (kept.length > 0) paths[path] = Object.fromEntries(kept);
  }
  const webhooks = Object.fromEntries(
    Object.entries(full.webhooks ?? {}).filter(([, item]) => Object.values(item).every((operation) => operation.deprecated !== true)),
  );
  const refs = reachableComponents(full, [paths, webhooks]);
  const components: Record<string, Record<string, unknown>> = {};
  for (const [kind, entries] of Object.entries(full.components)) {
    const kept = Object.entries(entries).filter(([name]) =>
      kind === 'securitySchemes' ? MERCHANT_SCHEMES.has(name) : refs.has(`#/components/${kind}/${name}`),
    );
    if (kept.length > 0) components[kind] = Object.fromEntries(kept);
  }
  const usedTags = new Set(
    Object.values({ ...paths, ...webhooks }).flatMap((item) => Object.values(item).flatMap((operation) => (operation.tags as string[]) ?? [])),
  );
  merchantCached = {
    ...full,
    info: {
      ...full.info,
      title: 'Merchant Payment Gateway API: the merchant operations',
      description:
        'Merchant API V2: what a merchant calls with its HMAC key pair or its cabinet session, and the webhook it receives. The full ' +
        'document (/openapi.json) adds the operator, payer-page, health and legacy V1 operations and describes each operation it shares ' +
        `with this one identically. ${API_NOTES}`,
    },
    tags: full.tags.filter((tag) => usedTags.has(tag.name)),
    components,
    paths,
    webhooks,
  };
  return merchantCached;
}

export function swaggerHtml(): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Merchant Gateway API</title>
<link rel="stylesheet" href="/docs/assets/swagger-ui.css"></head>
<body><div id="swagger-ui"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script src="/docs/assets/swagger-ui-standalone-preset.js"></script>
<script src="/docs/assets/init.js"></script>
</body></html>`;
}
