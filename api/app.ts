import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { STATUS_CODES, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { join } from 'node:path';
import Koa, { type Context, type Next } from 'koa';
import Router from '@koa/router';
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { type ZodType } from 'zod';
import { getAbsoluteFSPath } from 'swagger-ui-dist';
import { InvalidArgument, NotFound } from '../domain/errors';
import { authenticate } from './auth/authenticate';
import { closeUnreadBodies, MULTIPART_OVERHEAD_BYTES, readRequestBody, readsLargeBody, SMALL_BODY_BYTES, type BodyRule } from './body';
import { clientIpResolver } from './auth/client-ip';
import { codecRouter } from './codec';
import { firstUnsafeText } from '../domain/text';
import type { AppDeps } from './deps';
import { errorMiddleware, problemFor } from './errors';
import { openApiDocument, swaggerHtml } from './openapi';
import { koaPath, Reply, type RouteDef } from './route';
import { allRoutes } from './routes';
import { v1Middleware } from './v1/deprecation';

const TRACE_ID_RE = /^[A-Za-z0-9._-]{8,128}$/;

function traceMiddleware(deps: AppDeps, httpDuration: Histogram<string>) {
  return async (ctx: Context, next: Next) => {
    const incoming = ctx.get('X-Trace-Id');
    const traceId = TRACE_ID_RE.test(incoming) ? incoming : randomBytes(16).toString('hex');
    ctx.state.traceId = traceId;
    ctx.state.log = deps.log;
    ctx.set('X-Trace-Id', traceId);
    const started = process.hrtime.bigint();
    try {
      await next();
    } finally {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      // The matched route pattern, never the raw path: paths can carry checkout hashes.
      const route = (ctx as { _matchedRoute?: string })._matchedRoute ?? 'unmatched';
      httpDuration.observe({ method: ctx.method, route, status: String(ctx.status) }, ms / 1000);
      deps.log.info(
        { traceId, method: ctx.method, route, status: ctx.status, ms: Math.round(ms * 10) / 10, merchantId: ctx.state.identity?.merchantId },
        'request',
      );
    }
  };
}

/** Nothing answered: a problem+json 404 (after allowedMethods has had its say about 405). */
async function notFoundMiddleware(ctx: Context, next: Next) {
  await next();
  if (ctx.status === 404 && ctx.body == null) throw new NotFound('no such route');
}

/** Objects become JSON here, with bigint as digit strings as a last safety net. */
async function jsonMiddleware(ctx: Context, next: Next) {
  await next();
  const body = ctx.body;
  if (body !== null && typeof body === 'object' && !Buffer.isBuffer(body) && typeof (body as { pipe?: unknown }).pipe !== 'function') {
    ctx.type = ctx.type && ctx.type !== 'application/json' ? ctx.type : 'application/json';
    ctx.body = JSON.stringify(body, (_key, value) => (typeof value === 'bigint' ? value.toString() : value));
  }
}

/** Path and query parameters follow the same text rule as bodies (no control characters). */
function refuseUnsafeText(values: Record<string, unknown>, where: string) {
  const unsafe = firstUnsafeText(values);
  if (unsafe) throw new InvalidArgument(`${where} parameter ${unsafe.field} contains ${unsafe.problem}`);
}

/** A route that takes no body accepts none at all, or an empty JSON object (`{}`). */
const isEmptyBody = (body: unknown) =>
  body === undefined || (body !== null && typeof body === 'object' && !Array.isArray(body) && Object.keys(body).length === 0);

function parseWith<T extends ZodType>(schema: T, value: unknown) {
  return schema.parse(value);
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

function mountRoute(router: Router, def: RouteDef, deps: AppDeps) {
  const { spec, handler } = def;
  const bodyRule = bodyRuleOf(spec, deps);
  router[spec.method](koaPath(spec.path), async (ctx: Context) => {
    const identity = await authenticate(ctx, spec.auth, deps, {
      singleUse: spec.singleUse,
      routeKey: routeKeyOf(spec, ctx),
      v1Payload: spec.v1Payload,
      readBody: () => readRequestBody(ctx, bodyRule),
      gateBeforeBody: readsLargeBody(bodyRule),
      openWhileDisabled: spec.openWhileDisabled,
    });
    ctx.state.identity = identity;
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
    const result = await handler({ params, query, body, identity }, deps, ctx);
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

function docsRouter(metrics: Registry): Router {
  const router = new Router({ sensitive: true });
  const assets = getAbsoluteFSPath();
  router.get('/openapi.json', (ctx) => {
    ctx.body = openApiDocument();
  });
  router.get('/docs', (ctx) => {
    ctx.type = 'text/html';
    ctx.body = swaggerHtml();
  });
  router.get('/docs/assets/init.js', (ctx) => {
    ctx.type = 'application/javascript';
    ctx.body = "window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#swagger-ui', deepLinking: true });";
  });
  for (const file of ['swagger-ui.css', 'swagger-ui-bundle.js']) {
    router.get(`/docs/assets/${file}`, (ctx) => {
      ctx.type = file.endsWith('.css') ? 'text/css' : 'application/javascript';
      ctx.set('Cache-Control', 'public, max-age=86400');
      ctx.body = createReadStream(join(assets, file));
    });
  }
  router.get('/metrics', async (ctx) => {
    ctx.type = metrics.contentType;
    ctx.body = await metrics.metrics();
  });
  return router;
}

/**
 * Requests Node's HTTP parser refuses before Koa sees them (a 100 kB URL, broken framing) still
 * get a problem+json answer with a trace id, like every other error.
 */
export function answerClientErrors(server: Server): Server {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const tooLarge = error.code === 'HPE_HEADER_OVERFLOW';
    const refusal = new InvalidArgument(tooLarge ? 'request line or headers too large' : 'malformed HTTP request');
    refusal.httpStatus = tooLarge ? 431 : 400;
    const { status, body } = problemFor(refusal, '');
    const text = JSON.stringify(body);
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/problem+json\r\n` +
        `X-Trace-Id: ${randomBytes(16).toString('hex')}\r\nContent-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`,
    );
  });
  return server;
}

export function createApp(deps: AppDeps): Koa {
  // Koa's own proxy trust stays off: the client address comes from api/auth/client-ip.ts, which
  // believes X-Forwarded-For only from TRUSTED_PROXIES.
  const app = new Koa({ proxy: false });
  const clientIp = clientIpResolver(deps.config.TRUSTED_PROXIES);
  const metrics = new Registry();
  collectDefaultMetrics({ register: metrics });
  const httpDuration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request duration by route and status',
    labelNames: ['method', 'route', 'status'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [metrics],
  });

  const v1Calls = new Counter({
    name: 'v1_requests_total',
    help: 'Legacy /v1/ requests per merchant (merchant_id "unauthenticated" when none verified): who still has to migrate',
    labelNames: ['merchant_id'],
    registers: [metrics],
  });

  // Paths match case-sensitively everywhere: /V1/… is no route (404), never V1 without its headers.
  const router = new Router({ sensitive: true, strict: false });
  for (const def of allRoutes) mountRoute(router, def, deps);
  const docs = docsRouter(metrics);
  const codec = codecRouter(deps);

  app.use(traceMiddleware(deps, httpDuration));
  app.use(closeUnreadBodies);
  app.use((ctx, next) => {
    ctx.state.clientIp = clientIp(ctx.req);
    return next();
  });
  app.use(errorMiddleware());
  app.use(v1Middleware(deps, v1Calls));
  app.use(notFoundMiddleware);
  app.use(jsonMiddleware);
  app.use(codec.routes()); // reads its own body (protobuf JSON, larger limit)
  app.use(docs.routes());
  app.use(router.routes());
  app.use(router.allowedMethods({ throw: true }));
  app.silent = true;
  return app;
}
