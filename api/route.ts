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
  status?: number;
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
  /** Extra documented error statuses beyond the common ones. */
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

const COMMON_ERRORS: Record<AuthMode, number[]> = {
  public: [400],
  hmac: [400, 401, 403, 429],
  cabinet: [400, 401, 403],
  operator: [400, 401, 403],
  cabinet_or_hmac: [400, 401, 403, 429],
  v1: [400, 401, 403, 410, 429],
};

/** One definition drives validation, the handler's types and the OpenAPI document. */
export function defineRoute<P extends ZodType = ZodType, Q extends ZodType = ZodType, B extends ZodType = ZodType>(
  spec: RouteSpec<P, Q, B>,
  handler: Handler<z.output<P>, z.output<Q>, z.output<B>>,
): RouteDef {
  const status = spec.status ?? 200;
  const responses: Record<string, object> = {
    [status]: spec.responseContentType
      ? { description: spec.responseDescription ?? 'OK', content: { [spec.responseContentType]: { schema: { type: 'string' } } } }
      : spec.response
        ? { description: spec.responseDescription ?? 'OK', content: { 'application/json': { schema: spec.response } } }
        : { description: spec.responseDescription ?? 'OK' },
  };
  for (const code of new Set([...COMMON_ERRORS[spec.auth], ...(spec.errors ?? [])])) {
    responses[code] =
      spec.auth === 'v1'
        ? { description: 'V1 error envelope', content: { 'application/json': { schema: v1ErrorSchema } } }
        : { description: 'problem+json', content: { 'application/problem+json': { schema: problemSchema } } };
  }
  registry.registerPath({
    method: spec.method,
    path: spec.path,
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
