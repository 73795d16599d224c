import type { Context } from 'koa';
import type { z, ZodType } from 'zod';
import type { ResponseConfig, RouteConfig } from '@asteasolutions/zod-to-openapi';
import { registry } from './openapi';
import { problemSchema } from './schemas/common';
import type { AuthMode, Identity, RouteAuth } from './auth/authenticate';
import type { SingleUse } from './auth/replay';
import type { AppDeps } from './deps';
import type { AuditActor } from '../domain/audit';
import { ROUTE_ROLES, type Party } from '../domain/roles';

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
/** What the OpenAPI registry takes as path or query parameters: an object schema. */
type RouteParameter = NonNullable<RouteConfig['request']>['params'];

interface RouteInput<P, Q, B> {
  params: P;
  query: Q;
  body: B;
  identity: Identity;
  /** Who acts, for the audit trail: set for a person — an operator, a merchant's member or its cabinet JWT (api/mount.ts). */
  actor?: AuditActor;
}

/**
 * How an operator route that changes something is audited (docs/console.md, "Audit"): the
 * action's name and object type. `by: 'service'` is the only way: its service, or the workflow
 * step its update drives (the actor rides the update), writes the row in the transaction of the
 * effect — never the request pipeline after the effect.
 */
interface RouteAudit {
  action: string;
  objectType: string;
  by: 'service';
}

/** What a status means, the same on every route that answers it (the problem's detail says the rest). */
interface ErrorMeaning {
  name: string;
  description: string;
}

/**
 * How a family of routes documents its error answers when they are not problem+json (the V1
 * adapter's envelope): the shared response components are `<name><status name>`, with the
 * envelope's schema (a component its owner registers) as their body.
 */
export interface ErrorEnvelope {
  /** Prefix of the response components, e.g. V1 → V1BadRequest. */
  name: string;
  /** Appended to each status's meaning. */
  note: string;
  contentType: string;
  /** The envelope's schema, e.g. #/components/schemas/V1Error. */
  schemaRef: string;
  /** Statuses only this family answers, with what they mean. */
  meanings?: Record<number, ErrorMeaning>;
  /** Headers every answer of the family carries, successes included (V1: its deprecation headers). */
  headers?: ResponseHeaderName[];
}

export interface RouteSpec<P extends ZodType, Q extends ZodType, B extends ZodType> {
  method: Method;
  /**
   * OpenAPI-style path, e.g. /deals/{deal_id}: relative to its router's prefix as defined, the
   * full path (/api/v1/p2p/merchant/deals/{deal_id}) once its group mounted it (routeGroup).
   */
  path: string;
  /** One of the API's auth modes, or a scheme of the route's own (a legacy adapter's). */
  auth: RouteAuth;
  /**
   * The operation's stable name in the OpenAPI document — what code generators name their
   * methods after (createPayin, listDeals; V1 routes v1…, /admin/ routes admin…). Unique across
   * the API (registering a second one throws); never renamed once shipped: it is an SDK method name.
   */
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  params?: P;
  query?: Q;
  body?: B;
  /** A multipart/form-data body, documented only: the handler parses the raw bytes itself (file uploads). */
  multipartBody?: ZodType;
  /** Body is optional (e.g. cancel with an optional reason). */
  bodyOptional?: boolean;
  /** The usual success status (default 200). */
  status?: number;
  /**
   * Other statuses the handler answers with the same kind of body as `status` (a `Reply`), each
   * with what it means: e.g. { 200: 'a repeat answers the first deposit' } on a 201 create.
   */
  replies?: Record<number, string>;
  response?: ZodType;
  responseDescription?: string;
  /**
   * Examples shown beside the schemas (and checked against them by `npm run lint:openapi`):
   * a request body and the usual success answer.
   */
  example?: { request?: unknown; response?: unknown };
  /** Non-JSON responses (HTML, CSV) documented by content type. */
  responseContentType?: string;
  /**
   * Where a repeat of one HMAC signature is refused (api/auth/replay.ts): 'rotation' (a route
   * that hands out a secret: refuses a signature seen on any request) or 'route' (a repeat would
   * act again: refuses a second use on this route). Every other route accepts repeats.
   */
  singleUse?: SingleUse;
  /** A JSON body larger than the usual small one (api/body.ts); it is read only after the caller's gates. */
  maxBodyBytes?: number;
  /** The merchant's cabinet may call it while the kill-switch is on (GET my-merchant only). */
  openWhileDisabled?: boolean;
  /** Documented as deprecated. */
  deprecated?: boolean;
  /**
   * A POST whose repeat cannot act twice (a create keyed by its idempotency_key, a cancel whose
   * repeat on CANCELLED answers 200): documented as `x-idempotent: true`, which the SDK reads to
   * send it again after a 5xx or a network failure.
   */
  idempotent?: boolean;
  /** Headers of the success answers (and `replies`), documented: e.g. IDEMPOTENT_REPLAYED_HEADER. */
  responseHeaders?: Record<string, { description: string; schema: Record<string, unknown> }>;
  /** Operator routes that change something: how the action reaches the audit trail. */
  audit?: RouteAudit;
  /** The error answers are this envelope, not problem+json. */
  errorEnvelope?: ErrorEnvelope;
  /**
   * Error statuses this route answers beyond those every route of its kind answers (see
   * documentedErrors: auth, body, path-parameter 404 and 500 are added by defineRoute).
   */
  errors?: number[];
}

export type Handler<P, Q, B> = (input: RouteInput<P, Q, B>, deps: AppDeps, ctx: Context) => Promise<unknown> | unknown;

/** The header of an answer to a create that is idempotent by key (Stripe's name: the merchant API's idempotency by key, made visible). */
const IDEMPOTENT_REPLAYED = 'Idempotent-Replayed';

/** How IDEMPOTENT_REPLAYED is documented on the create operations (RouteSpec.responseHeaders). */
export const IDEMPOTENT_REPLAYED_HEADER = {
  [IDEMPOTENT_REPLAYED]: {
    description:
      '`true` when this answer is a replay: an earlier request with the same key made the object, and this one is answered ' +
      'with it (its body ignored); `false` when this request made it. Of concurrent requests with one key exactly one is `false`.',
    schema: { type: 'string', enum: ['true', 'false'] },
  },
};

/**
 * The headers the API sends beside a route's own (RouteSpec.responseHeaders), as components/headers
 * that every response carrying one names: X-Trace-Id on every answer (api/app.ts, the parser's
 * 431 included), the rate-limit headers on the answers to a signed merchant request once its
 * signature verified (api/auth/admit.ts: V2 HMAC and V1 alike), Retry-After on every 429
 * (api/errors.ts), and the headers of a family of routes (V1's deprecation headers,
 * api/v1/deprecation.ts). All optional in the document: a header is absent where its rule says so.
 */
const RESPONSE_HEADERS = {
  'X-Trace-Id': {
    component: 'TraceId',
    description:
      "On every answer: the request's trace id — the X-Trace-Id it came with (8 to 128 letters, digits, `.`, `_` or `-`; with " +
      'tracing on, the trace id of a W3C `traceparent` comes first), else a new one (32 hex digits). Quote it when you report a ' +
      'problem: a 500 is logged under it.',
    schema: { type: 'string', example: '4bf92f3577b34da6a3ce929d0e0e4736' },
  },
  'X-RateLimit-Limit': {
    component: 'RateLimitLimit',
    description:
      "On an answer to a request signed with the merchant's key pair (V2 HMAC or V1), once its signature verified: the " +
      "merchant's requests per calendar minute (UTC), rate_limit_per_minute or the default. Absent on cabinet and operator calls.",
    schema: { type: 'integer', example: 600 },
  },
  'X-RateLimit-Remaining': {
    component: 'RateLimitRemaining',
    description: 'With X-RateLimit-Limit: the requests left in the current minute (0 on the 429 that refuses one).',
    schema: { type: 'integer', example: 599 },
  },
  'X-RateLimit-Reset': {
    component: 'RateLimitReset',
    description: 'With X-RateLimit-Limit: when the current minute ends and the count starts afresh, unix seconds.',
    schema: { type: 'integer', example: 1763805660 },
  },
  'Retry-After': {
    component: 'RetryAfter',
    description: 'On every 429: seconds to wait before trying again (the rest of the minute for the rate limit).',
    schema: { type: 'integer', example: 42 },
  },
  Deprecation: {
    component: 'Deprecation',
    description: '`true`: this operation is deprecated (every /v1/ answer, errors included, and the deprecated mirrors of V2 routes).',
    schema: { type: 'string', example: 'true' },
  },
  Sunset: {
    component: 'Sunset',
    description: 'On every /v1/ answer: the HTTP-date (RFC 8594) from which every /v1/ request is 410 Gone (V1_SUNSET_AT).',
    schema: { type: 'string', example: 'Tue, 12 Jan 2027 00:00:00 GMT' },
  },
  Link: {
    component: 'Link',
    description: 'On every /v1/ answer: `</docs>; rel="successor-version", </openapi.json>; rel="service-desc"`.',
    schema: { type: 'string' },
  },
} as const;
type ResponseHeaderName = keyof typeof RESPONSE_HEADERS;
for (const { component, description, schema } of Object.values(RESPONSE_HEADERS)) {
  registry.registerComponent('headers', component, { description, schema: { ...schema } });
}
const RATE_LIMIT_HEADERS: ResponseHeaderName[] = ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'];
/**
 * The error statuses a signed merchant request can meet after its signature verified (the gates
 * of api/auth/admit.ts set the rate-limit headers there): the others (401, 403, 410, 413, 415,
 * 431) are answered before, without them.
 */
const RATE_LIMITED_ERRORS = new Set([400, 404, 409, 429, 500]);
const headerRefs = (names: ResponseHeaderName[]) =>
  Object.fromEntries(names.map((name) => [name, { $ref: `#/components/headers/${RESPONSE_HEADERS[name].component}` }]));

/** How an export's Content-Disposition is documented (every text/csv answer). */
const CSV_ATTACHMENT: RouteSpec<ZodType, ZodType, ZodType>['responseHeaders'] = {
  'Content-Disposition': {
    description: '`attachment; filename="<name>.csv"`, the name made of the filters',
    schema: { type: 'string', example: 'attachment; filename="deals.csv"' },
  },
};

/** An export's answer: the CSV stream as an attachment named for its filters (the handler then returns undefined). */
export function sendCsv(ctx: Context, csv: { fileName: string; body: unknown }): undefined {
  ctx.type = 'text/csv; charset=utf-8';
  ctx.set('Content-Disposition', `attachment; filename="${csv.fileName}"`);
  ctx.body = csv.body;
  return undefined;
}

/** Sets IDEMPOTENT_REPLAYED on a create's answer. */
export const markReplayed = (ctx: Context, replayed: boolean) => ctx.set(IDEMPOTENT_REPLAYED, String(replayed));

/** Returned by a handler whose status differs from the route's usual one (e.g. 200 on an idempotent repeat). */
export class Reply {
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {}
}

export interface RouteDef {
  spec: RouteSpec<ZodType, ZodType, ZodType>;
  /** Called with what the route's own schemas parsed (api/mount.ts), so its input types hold. */
  handler: Handler<unknown, unknown, unknown>;
}

const SECURITY: Record<AuthMode, Array<Record<string, string[]>>> = {
  public: [],
  hmac: [{ MerchantToken: [] }],
  cabinet: [{ CabinetJwt: [] }, { CabinetSessionCookie: [] }],
  operator: [{ OperatorJwt: [] }, { OperatorSessionCookie: [] }],
  cabinet_or_hmac: [{ CabinetJwt: [] }, { CabinetSessionCookie: [] }, { MerchantToken: [] }],
  trader: [{ TraderSessionCookie: [] }],
};
const securityOf = (auth: RouteAuth) => (typeof auth === 'string' ? SECURITY[auth] : auth.security);

/**
 * Error statuses by auth mode. Every authenticated mode answers 429: an X-Merchant-Token header
 * sends any request through the HMAC path, rate limit included, before the mode is checked.
 */
const AUTH_ERRORS: Record<AuthMode, number[]> = {
  public: [],
  hmac: [401, 403, 429],
  cabinet: [401, 403, 429],
  operator: [401, 403, 429],
  cabinet_or_hmac: [401, 403, 429],
  trader: [401, 403, 429],
};
const authErrorsOf = (auth: RouteAuth) => (typeof auth === 'string' ? AUTH_ERRORS[auth] : auth.errors);
/** Whether a route takes the merchant's signed requests, which pass its rate limit (api/auth/admit.ts). */
const rateLimitedOf = (auth: RouteAuth) => (typeof auth === 'string' ? auth === 'hmac' || auth === 'cabinet_or_hmac' : auth.rateLimited === true);

/** What each error status means, the same on every route (the problem's detail says the rest). */
const ERROR_MEANING: Record<number, ErrorMeaning> = {
  400: { name: 'BadRequest', description: 'INVALID_ARGUMENT (malformed or invalid input) or FAILED_PRECONDITION (the state does not allow it)' },
  401: { name: 'Unauthorized', description: 'UNAUTHENTICATED: credentials missing, invalid, expired or replayed' },
  403: { name: 'Forbidden', description: 'PERMISSION_DENIED: wrong role or auth mode, kill-switch on, or address not in ip_whitelist' },
  404: { name: 'NotFound', description: 'NOT_FOUND: no such resource for the caller (foreign ids included)' },
  409: { name: 'Conflict', description: 'ABORTED: conflicts with the current state or a concurrent request (see the operation)' },
  413: {
    name: 'PayloadTooLarge',
    description:
      'the request body is larger than the route accepts (JSON: 64 KiB, the V1 dispute 1 MiB; uploads EVIDENCE_MAX_BYTES + 64 KiB), refused from the announced length before it is read',
  },
  415: { name: 'UnsupportedMediaType', description: 'the body is not of a media type the route accepts (JSON: application/json, UTF-8)' },
  429: {
    name: 'TooManyRequests',
    description:
      "RESOURCE_EXHAUSTED: over the merchant's rate limit, or (uploads and the V1 dispute, refused before their body is read) too many upload bytes in flight before their signatures are checked; for operators, too many failed sign-ins or too many passwords being checked at once, or a workflow busy with concurrent commands; Retry-After says when to retry",
  },
  431: { name: 'HeadersTooLarge', description: 'the request line or headers are too large (refused before routing)' },
  500: { name: 'InternalError', description: 'INTERNAL: an unexpected failure; opaque, logged under the X-Trace-Id of the answer' },
};

/**
 * Every error status a route answers: 400 and 500 everywhere, 431 (Node's parser, before any
 * route), its auth mode's, 413 and 415 on every method with a body (the body is read before the
 * route runs), 404 on a path with parameters, and the route's own `errors`.
 */
export function documentedErrors(spec: Pick<RouteSpec<ZodType, ZodType, ZodType>, 'method' | 'path' | 'auth' | 'errors'>): number[] {
  const statuses = new Set([400, 431, 500, ...authErrorsOf(spec.auth), ...(spec.errors ?? [])]);
  if (spec.method !== 'get') {
    statuses.add(413);
    statuses.add(415);
  }
  if (/\{[^}]+\}/.test(spec.path)) statuses.add(404);
  return [...statuses].sort((a, b) => a - b);
}

registry.register('Problem', problemSchema);
const errorResponses = new Map<string, { ref: { $ref: string }; headers: string }>();

/**
 * The shared response component of an error status (components/responses): problem+json, or
 * the route family's envelope — except 431, which Node's parser answers before any route is
 * known, always as problem+json with X-Trace-Id alone. Signed merchant routes name components of
 * their own for the statuses that carry the rate-limit headers (`Signed…`; V1's carry them in its own).
 */
function errorResponse(status: number, envelope: ErrorEnvelope | undefined, rateLimited: boolean): { $ref: string } {
  const wrapped = envelope && status !== 431 ? envelope : undefined;
  const meaning = wrapped?.meanings?.[status] ?? ERROR_MEANING[status];
  if (!meaning) throw new Error(`no meaning documented for error status ${status}`);
  const limited = rateLimited && RATE_LIMITED_ERRORS.has(status);
  const headers: ResponseHeaderName[] = [
    'X-Trace-Id',
    ...(wrapped?.headers ?? []),
    ...(limited ? RATE_LIMIT_HEADERS : []),
    ...(status === 429 ? (['Retry-After'] as const) : []),
  ];
  const name = `${wrapped?.name ?? ''}${limited && !wrapped ? 'Signed' : ''}${meaning.name}`;
  const known = errorResponses.get(name);
  if (known) {
    if (known.headers !== headers.join()) throw new Error(`error response ${name} documented with two sets of headers`);
    return known.ref;
  }
  const { ref } = registry.registerComponent('responses', name, {
    description: wrapped ? `${meaning.description}${wrapped.note}` : meaning.description,
    headers: headerRefs(headers),
    content: wrapped
      ? { [wrapped.contentType]: { schema: { $ref: wrapped.schemaRef } } }
      : { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
  });
  errorResponses.set(name, { ref, headers: headers.join() });
  return ref;
}

/** The party whose column of the role table a route's people are checked against (x-roles): none for public, HMAC-only and own schemes. */
function rolesParty(auth: RouteAuth): Party | undefined {
  if (auth === 'operator') return 'operator';
  if (auth === 'trader') return 'trader';
  if (auth === 'cabinet' || auth === 'cabinet_or_hmac') return 'merchant';
  return undefined;
}

/** The operationIds registered so far: each must be unique. */
const operationIds = new Set<string>();

/**
 * One definition drives validation, the handler's types and the OpenAPI document: the route is
 * registered in the document when its group mounts it under its prefix (routeGroup).
 */
export function defineRoute<P extends ZodType = ZodType, Q extends ZodType = ZodType, B extends ZodType = ZodType>(
  spec: RouteSpec<P, Q, B>,
  handler: Handler<z.output<P>, z.output<Q>, z.output<B>>,
): RouteDef {
  return { spec: spec as unknown as RouteSpec<ZodType, ZodType, ZodType>, handler: handler as Handler<unknown, unknown, unknown> };
}

function registerRoute(spec: RouteDef['spec']): void {
  const status = spec.status ?? 200;
  const rateLimited = rateLimitedOf(spec.auth);
  const headers: Pick<ResponseConfig, 'headers'> = {
    headers: {
      ...headerRefs(['X-Trace-Id', ...(spec.errorEnvelope?.headers ?? []), ...(rateLimited ? RATE_LIMIT_HEADERS : [])]),
      ...(spec.responseContentType?.startsWith('text/csv') ? CSV_ATTACHMENT : undefined),
      ...spec.responseHeaders,
    },
  };
  const success = (description: string): ResponseConfig =>
    spec.responseContentType
      ? { description, ...headers, content: { [spec.responseContentType]: { schema: { type: 'string' } } } }
      : spec.response
        ? { description, ...headers, content: { 'application/json': { schema: spec.response } } }
        : { description, ...headers };
  const responses: RouteConfig['responses'] = { [status]: success(spec.responseDescription ?? (status === 201 ? 'Created' : 'OK')) };
  const answerExample = spec.example?.response;
  if (answerExample !== undefined && spec.response && !spec.responseContentType) {
    (responses[status] as { content: Record<string, object> }).content['application/json'] = { schema: spec.response, example: answerExample };
  }
  for (const [code, description] of Object.entries(spec.replies ?? {})) {
    responses[code] = success(description);
    // A reply answers the same schema (a repeat answering the first object): it shows the same example.
    if (answerExample !== undefined && spec.response && !spec.responseContentType) {
      (responses[code] as { content: Record<string, object> }).content['application/json'] = { schema: spec.response, example: answerExample };
    }
  }
  for (const code of documentedErrors(spec)) responses[code] ??= errorResponse(code, spec.errorEnvelope, rateLimited);
  const { operationId } = spec;
  if (!/^[a-z][A-Za-z0-9]*$/.test(operationId)) throw new Error(`operationId ${operationId} is not lowerCamelCase`);
  if (operationIds.has(operationId)) throw new Error(`two routes have the operationId ${operationId}`);
  operationIds.add(operationId);
  registry.registerPath({
    method: spec.method,
    path: spec.path,
    operationId,
    summary: spec.summary,
    description: spec.description,
    tags: spec.tags,
    ...(spec.deprecated ? { deprecated: true } : {}),
    ...(spec.idempotent ? { 'x-idempotent': true } : {}),
    ...(rolesParty(spec.auth) ? { 'x-roles': [...(ROUTE_ROLES[rolesParty(spec.auth)!][operationId] ?? [])] } : {}),
    security: securityOf(spec.auth),
    request: {
      ...(spec.params ? { params: spec.params as RouteParameter } : {}),
      ...(spec.query ? { query: spec.query as RouteParameter } : {}),
      ...(spec.body
        ? {
            body: {
              required: !spec.bodyOptional,
              content: {
                'application/json': { schema: spec.body, ...(spec.example?.request !== undefined ? { example: spec.example.request } : {}) },
              },
            },
          }
        : {}),
      ...(spec.multipartBody ? { body: { required: true, content: { 'multipart/form-data': { schema: spec.multipartBody } } } } : {}),
    },
    responses,
  });
}

/** Routes mounted under one path prefix: one nested router of the API (api/mount.ts). */
export interface RouteGroup {
  prefix: string;
  /** The group's routes with their full paths, in the order they are tried. */
  routes: RouteDef[];
}

/**
 * Mounts routes defined relative to `prefix` ('' for none) under it, and registers each in the
 * OpenAPI document with its full path — the path the replay rule and the document name it by.
 */
export function routeGroup(prefix: string, defs: RouteDef[]): RouteGroup {
  const routes = defs.map(({ spec, handler }) => ({ spec: { ...spec, path: `${prefix}${spec.path}` }, handler }));
  for (const route of routes) registerRoute(route.spec);
  return { prefix, routes };
}

export const koaPath = (openApiPath: string) => openApiPath.replace(/\{([^}]+)\}/g, ':$1');
