/**
 * Route definitions become Koa routers here: each group a nested router under its prefix, each
 * route the one request pipeline — authenticate (reading the body on the way), refuse unsafe
 * path and query text, parse params, query and body with the route's schemas, run the handler,
 * answer with its result.
 */
import type { Context } from 'koa';
import type { Registry } from 'prom-client';
import Router, { type RouterMiddleware } from '@koa/router';
import type { ZodType } from 'zod';
import { randomUUID } from 'node:crypto';
import { InvalidArgument, PermissionDenied } from '../domain/errors';
import type { AuditActor } from '../domain/audit';
import { ENROLMENT_OPERATIONS, enrolmentRequired, mayCall, ROUTE_ROLES, type Party } from '../domain/roles';
import type { Identity } from './auth/authenticate';
import { firstUnsafeText } from '../domain/text';
import { authenticate } from './auth/authenticate';
import { MULTIPART_OVERHEAD_BYTES, readRequestBody, readsLargeBody, SMALL_BODY_BYTES, type BodyRule } from './body';
import type { AppDeps } from './deps';
import { invalidInput } from './errors';
import { koaPath, Reply, type RouteDef, type RouteGroup } from './route';

/** Paths match case-sensitively everywhere (/V1/… is no route); a trailing slash is the same route. */
const ROUTER_OPTIONS = { sensitive: true, strict: false } as const;

/** Path and query parameters follow the same text rule as bodies (no control characters). */
function refuseUnsafeText(values: Record<string, unknown>, where: string) {
  const unsafe = firstUnsafeText(values);
  if (unsafe) throw new InvalidArgument(`${where} parameter ${unsafe.field} contains ${unsafe.problem}`);
}

/** A route that takes no body accepts none at all, or an empty JSON object (`{}`). */
const isEmptyBody = (body: unknown) =>
  body === undefined || (body !== null && typeof body === 'object' && !Array.isArray(body) && Object.keys(body).length === 0);

/** Parses with the route's schema; a refusal names each field with its stable code (api/errors.ts). */
function parseWith<T extends ZodType>(schema: T, value: unknown) {
  const result = schema.safeParse(value);
  if (!result.success) throw invalidInput(result.error, value);
  return result.data;
}

/** What the route may receive: uploads take multipart up to the evidence cap, the rest small JSON (api/body.ts). */
function bodyRuleOf(spec: RouteDef['spec'], deps: AppDeps): BodyRule {
  if (spec.multipartBody) return { multipart: true, maxBytes: deps.config.EVIDENCE_MAX_BYTES + MULTIPART_OVERHEAD_BYTES };
  return { multipart: false, maxBytes: spec.maxBodyBytes ?? SMALL_BODY_BYTES };
}

/**
 * The route a request acts on, one spelling per route: the defined path with its parameters as
 * the router decoded them, lower-cased (ids are UUIDs, lower-cased at the schema too). A trailing
 * slash, percent-encoding or an upper-cased id is the same route for the replay rule.
 */
const routeKeyOf = (spec: RouteDef['spec'], ctx: Context) =>
  `${ctx.method} ${spec.path.replace(/\{([^}]+)\}/g, (_, name: string) => String(ctx.params?.[name] ?? '').toLowerCase())}`;

/**
 * The actor of a person's request — an operator (console session or operator JWT), a merchant's
 * person (member session or cabinet JWT) or a trader's account (its session): who, with which role, under which request (no secrets).
 * The merchant's HMAC pair is its servers, no person: undefined.
 */
function actorOf(identity: Identity, ctx: Context): AuditActor | undefined {
  const request = {
    requestId: String(ctx.state.traceId ?? ''),
    requestKey: randomUUID(),
    ...(identity.kind !== 'public' && identity.kind !== 'device' && identity.credential ? { credential: identity.credential } : {}),
  };
  if (identity.kind === 'operator') {
    return { kind: identity.via === 'session' ? 'operator_account' : 'operator_jwt', id: identity.operatorId, role: identity.role, ...request };
  }
  if (identity.kind === 'merchant' && identity.role !== undefined) {
    return { kind: identity.via === 'session' ? 'merchant_account' : 'merchant_jwt', id: identity.subject, role: identity.role, ...request };
  }
  if (identity.kind === 'trader') return { kind: 'trader_account', id: identity.accountId, role: identity.role, ...request };
  return undefined;
}

/** The person and its party an identity is, for the role table: operators, the merchant's people, traders (the HMAC pair is none). */
function personOf(identity: Identity): { party: Party; role: string; enrolmentPending: boolean } | undefined {
  if (identity.kind === 'operator') return { party: 'operator', role: identity.role, enrolmentPending: identity.enrolmentPending === true };
  if (identity.kind === 'merchant' && identity.role !== undefined)
    return { party: 'merchant', role: identity.role, enrolmentPending: identity.enrolmentPending === true };
  if (identity.kind === 'trader') return { party: 'trader', role: identity.role, enrolmentPending: identity.enrolmentPending };
  return undefined;
}

/**
 * The role table (domain/roles.ts): a person whose role may not call the route is refused,
 * nothing done. An account that must set up an authenticator first may call only its door's
 * enrolment routes until it has.
 */
function checkRole(spec: RouteDef['spec'], identity: Identity) {
  const person = personOf(identity);
  if (!person) return;
  if (person.enrolmentPending && !ENROLMENT_OPERATIONS[person.party].includes(spec.operationId)) {
    throw new PermissionDenied(enrolmentRequired(person.party));
  }
  if (!mayCall(person.party, spec.operationId, person.role)) {
    const allowed = ROUTE_ROLES[person.party][spec.operationId] ?? [];
    throw new PermissionDenied(`the ${person.party} role ${person.role} may not call ${spec.operationId} (allowed: ${allowed.join(', ') || 'none'})`);
  }
}

function mountRoute(router: Router, path: string, def: RouteDef, deps: AppDeps) {
  const { spec, handler } = def;
  const bodyRule = bodyRuleOf(spec, deps);
  router[spec.method](koaPath(path), async (ctx: Context) => {
    const identity = await authenticate(ctx, spec.auth, deps, {
      singleUse: spec.singleUse,
      routeKey: routeKeyOf(spec, ctx),
      readBody: () => readRequestBody(ctx, bodyRule),
      gateBeforeBody: readsLargeBody(bodyRule),
      maxBodyBytes: bodyRule.maxBytes,
      openWhileDisabled: spec.openWhileDisabled,
      authorize: (who) => checkRole(spec, who),
    });
    ctx.state.identity = identity;
    const actor = actorOf(identity, ctx);
    refuseUnsafeText(ctx.params, 'path');
    refuseUnsafeText(ctx.query, 'query');
    const params = spec.params ? parseWith(spec.params, ctx.params) : {};
    const query = spec.query ? parseWith(spec.query, ctx.query) : {};
    let body: unknown;
    if (!spec.body && !spec.multipartBody && !isEmptyBody(ctx.state.body)) throw new InvalidArgument('this operation takes no request body');
    if (spec.body) {
      if (ctx.state.body === undefined && !spec.bodyOptional) throw new InvalidArgument('request body is required');
      body = ctx.state.body === undefined ? undefined : parseWith(spec.body, ctx.state.body);
    }
    const result = await handler({ params, query, body, identity, ...(actor ? { actor } : {}) }, deps, ctx);
    if (result === undefined) return; // the handler wrote the response itself (HTML, CSV stream)
    if (result instanceof Reply) {
      ctx.status = result.status;
      ctx.body = result.body;
    } else {
      ctx.status = spec.status ?? 200;
      ctx.body = result;
    }
  });
}

/** The nested router of one group: its routes under its prefix, tried in their order. */
export function groupRouter(group: RouteGroup, deps: AppDeps): Router {
  const router = new Router({ ...ROUTER_OPTIONS, ...(group.prefix ? { prefix: group.prefix } : {}) });
  for (const route of group.routes) mountRoute(router, route.spec.path.slice(group.prefix.length), route, deps);
  return router;
}

/** One router over several groups, each nested under its prefix; its allowedMethods answers 405 for all of them. */
export function routerOf(groups: RouteGroup[], deps: AppDeps): Router {
  const router = new Router({ ...ROUTER_OPTIONS });
  for (const group of groups) router.use(groupRouter(group, deps).routes());
  return router;
}

/**
 * A part of the API as createApp mounts it: its routes with their full paths (what the OpenAPI
 * document lists) and the middleware that serves them.
 */
export interface ApiPart {
  routes: RouteDef[];
  // The router's middleware, typed with what the router adds to the context; plain middleware fits too.
  middleware(deps: AppDeps, metrics: Registry): RouterMiddleware[];
}
