import type { Context } from 'koa';
import type Router from '@koa/router';
import { z, type ZodType } from 'zod';
import { registry } from './openapi';
import { problemSchema } from './schemas/common';
import type { AuthMode, Identity } from './auth/authenticate';
import type { SingleUse } from './auth/replay';
import type { V1Payload } from './v1/auth';
import { v1ErrorSchema } from './v1/envelope';
import type { AppDeps } from './deps';

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

export interface RouteInput<P, Q, B> {
  params: P;
  query: Q;
  body: B;
  identity: Identity;
}

export interface RouteSpec<P extends ZodType, Q extends ZodType, B extends ZodType> {
  method: Method;
  /** OpenAPI-style path, e.g. /api/v1/p2p/merchant/deals/{deal_id}. */
  path: string;
  auth: AuthMode;
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
  /** auth 'v1': the fields of the signed payload after `{timestamp}` (spec 5.5, api/v1/auth.ts). */
  v1Payload?: V1Payload;
  /**
   * Error statuses this route answers beyond those every route of its kind answers (see
   * documentedErrors: auth, body, path-parameter 404 and 500 are added by defineRoute).
   */
  errors?: number[];
}

export type Handler<P, Q, B> = (
  input: RouteInput<P, Q, B>,
  deps: AppDeps,
  ctx: Context,
) => Promise<unknown> | unknown;

/** Returned by a handler whose status differs from the route's usual one (e.g. 200 on an idempotent repeat). */
export class Reply {
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {}
}

export interface RouteDef {
  spec: RouteSpec<ZodType, ZodType, ZodType>;
  handler: Handler<any, any, any>;
}

const SECURITY: Record<AuthMode, Array<Record<string, string[]>>> = {
  public: [],
  hmac: [{ MerchantToken: [] }],
  cabinet: [{ CabinetJwt: [] }],
  operator: [{ OperatorJwt: [] }],
  cabinet_or_hmac: [{ CabinetJwt: [] }, { MerchantToken: [] }],
  v1: [{ V1Merchant: [], V1Timestamp: [], V1Signature: [] }],
};

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
  v1: [401, 403, 410, 429],
};

/** What each error status means, the same on every route (the problem's detail says the rest). */
const ERROR_MEANING: Record<number, { name: string; description: string }> = {
  400: { name: 'BadRequest', description: 'INVALID_ARGUMENT (malformed or invalid input) or FAILED_PRECONDITION (the state does not allow it)' },
  401: { name: 'Unauthorized', description: 'UNAUTHENTICATED: credentials missing, invalid, expired or replayed' },
  403: { name: 'Forbidden', description: 'PERMISSION_DENIED: wrong role or auth mode, kill-switch on, or address not in ip_whitelist' },
  404: { name: 'NotFound', description: 'NOT_FOUND: no such resource for the caller (foreign ids included)' },
  409: { name: 'Conflict', description: 'ABORTED: conflicts with the current state or a concurrent request (see the operation)' },
  410: { name: 'Gone', description: 'API V1 was retired at V1_SUNSET_AT' },
  413: { name: 'PayloadTooLarge', description: 'the request body is larger than the route accepts (JSON: 64 KiB, the V1 dispute 1 MiB; uploads EVIDENCE_MAX_BYTES + 64 KiB), refused from the announced length before it is read' },
  415: { name: 'UnsupportedMediaType', description: 'the body is not of a media type the route accepts (JSON: application/json, UTF-8)' },
  429: { name: 'TooManyRequests', description: "RESOURCE_EXHAUSTED: over the merchant's rate limit; Retry-After says when to retry" },
  431: { name: 'HeadersTooLarge', description: 'the request line or headers are too large (refused before routing)' },
  500: { name: 'InternalError', description: 'INTERNAL: an unexpected failure; opaque, logged under the X-Trace-Id of the answer' },
};

/**
 * Every error status a route answers: 400 and 500 everywhere, 431 (Node's parser, before any
 * route), its auth mode's, 413 and 415 on every method with a body (the body is read before the
 * route runs), 404 on a path with parameters, and the route's own `errors`.
 */
export function documentedErrors(spec: Pick<RouteSpec<ZodType, ZodType, ZodType>, 'method' | 'path' | 'auth' | 'errors'>): number[] {
  const statuses = new Set([400, 431, 500, ...AUTH_ERRORS[spec.auth], ...(spec.errors ?? [])]);
  if (spec.method !== 'get') [413, 415].forEach((s) => statuses.add(s));
  if (/\{[^}]+\}/.test(spec.path)) statuses.add(404);
  return [...statuses].sort((a, b) => a - b);
}

registry.register('Problem', problemSchema);
registry.register('V1Error', v1ErrorSchema);
const errorResponses = new Map<string, { $ref: string }>();

/**
 * The shared response component of an error status (components/responses): problem+json, or
 * for /v1/ routes the V1 envelope — except 431, which Node's parser answers before any route
 * is known, always as problem+json.
 */
function errorResponse(status: number, v1: boolean): { $ref: string } {
  const meaning = ERROR_MEANING[status];
  if (!meaning) throw new Error(`no meaning documented for error status ${status}`);
  const envelope = v1 && status !== 431;
  const name = `${envelope ? 'V1' : ''}${meaning.name}`;
  let ref = errorResponses.get(name);
  if (!ref) {
    ref = registry.registerComponent('responses', name, {
      description: envelope ? `${meaning.description} (V1 error envelope)` : meaning.description,
      content: envelope
        ? { 'application/json': { schema: { $ref: '#/components/schemas/V1Error' } } }
        : { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
    }).ref;
    errorResponses.set(name, ref);
  }
  return ref;
}

/** A stable operationId from method and path: POST /api/v1/p2p/merchant/deals/{deal_id}/cancel → postMerchantDealsByDealIdCancel. */
export function operationIdOf(method: string, path: string): string {
  const words = path
    .replace(/^\/api\/v1\/p2p\//, '/')
    .split('/')
    .filter(Boolean)
    .flatMap((segment) => (segment.startsWith('{') ? ['by', segment.slice(1, -1)] : [segment]))
    .flatMap((word) => word.split(/[^A-Za-z0-9]+/))
    .filter(Boolean);
  return [method, ...words].map((w, i) => (i === 0 ? w.toLowerCase() : w[0]!.toUpperCase() + w.slice(1))).join('');
}
const operationIds = new Set<string>();

/** One definition drives validation, the handler's types and the OpenAPI document. */
export function defineRoute<P extends ZodType = ZodType, Q extends ZodType = ZodType, B extends ZodType = ZodType>(
  spec: RouteSpec<P, Q, B>,
  handler: Handler<z.output<P>, z.output<Q>, z.output<B>>,
): RouteDef {
  const status = spec.status ?? 200;
  const success = (description: string) =>
    spec.responseContentType
      ? { description, content: { [spec.responseContentType]: { schema: { type: 'string' } } } }
      : spec.response
        ? { description, content: { 'application/json': { schema: spec.response } } }
        : { description };
  const responses: Record<string, object> = { [status]: success(spec.responseDescription ?? (status === 201 ? 'Created' : 'OK')) };
  for (const [code, description] of Object.entries(spec.replies ?? {})) responses[code] = success(description);
  for (const code of documentedErrors(spec)) responses[code] ??= errorResponse(code, spec.auth === 'v1');
  const operationId = operationIdOf(spec.method, spec.path);
  if (operationIds.has(operationId)) throw new Error(`two routes make the operationId ${operationId}`);
  operationIds.add(operationId);
  registry.registerPath({
    method: spec.method,
    path: spec.path,
    operationId,
    summary: spec.summary,
    description: spec.description,
    tags: spec.tags,
    ...(spec.auth === 'v1' ? { deprecated: true } : {}),
    security: SECURITY[spec.auth],
    request: {
      ...(spec.params ? { params: spec.params as any } : {}),
      ...(spec.query ? { query: spec.query as any } : {}),
      ...(spec.body
        ? { body: { required: !spec.bodyOptional, content: { 'application/json': { schema: spec.body } } } }
        : {}),
      ...(spec.multipartBody ? { body: { required: true, content: { 'multipart/form-data': { schema: spec.multipartBody } } } } : {}),
    },
    responses: responses as any,
  });
  return { spec: spec as unknown as RouteSpec<ZodType, ZodType, ZodType>, handler };
}

export const koaPath = (openApiPath: string) => openApiPath.replace(/\{([^}]+)\}/g, ':$1');
export type { Router };
