import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { STATUS_CODES, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Koa, { type Context, type Next } from 'koa';
import Router from '@koa/router';
import { Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { getAbsoluteFSPath } from 'swagger-ui-dist';
import { OTEL_TRACE_ID_RE, tracing, type Tracing } from '../config/tracing';
import { InvalidArgument, NotFound } from '../domain/errors';
import { closeUnreadBodies } from './body';
import { lingeringCloseOf } from './lingering-close';
import { clientIpResolver } from './auth/client-ip';
import { codecRouter } from './codec';
import type { AppDeps } from './deps';
import { errorMiddleware, problemFor } from './errors';
import type { ApiPart } from './mount';
import { MERCHANT_DOCUMENT_PATH, merchantOpenApiDocument, openApiDocument, SIGNING_GUIDE_PATH, swaggerHtml } from './openapi';
import { v2Api } from './routes';
import { adapterParts } from './adapters';
import { consolePages } from './pages/console';
import { apiMetrics } from '../config/metrics';

/**
 * The parts of the API in the order a request meets them: the adapters beside V2 (api/adapters.ts:
 * the legacy V1 one, a leaf that only translates), then V2. Loaded after V2's routes, as the
 * OpenAPI document lists them.
 */
const API: ApiPart[] = [...(await adapterParts()), v2Api];

/** Every route of the API with its full path; each is registered in the OpenAPI document. */
export const allRoutes = API.flatMap((part) => part.routes);

const TRACE_ID_RE = /^[A-Za-z0-9._-]{8,128}$/;
/** The signing guide the documents link to (SIGNING_GUIDE_PATH), served from the repository's docs/ (the image copies it). */
const SIGNING_GUIDE_FILE = fileURLToPath(new URL('../docs/signing.md', import.meta.url));

/**
 * Every request's trace id (X-Trace-Id, echoed), its duration metric and its log line, by the
 * matched route pattern — never the raw path: paths can carry checkout hashes.
 *
 * With tracing on (config/tracing.ts) the request also gets a server span with the request's
 * trace id. A valid W3C `traceparent` makes the span its child and X-Trace-Id its trace id; an
 * incoming X-Trace-Id that is a trace id (32 hex) becomes the span's; without either the span's
 * new trace id is the X-Trace-Id. An incoming X-Trace-Id of another form is still echoed and
 * logged (callers rely on it) and rides the span as `gateway.request_id`; the span then has a
 * trace id of its own. Attributes: method, matched route pattern and status only — never the
 * path, the query, headers or body. With tracing off no span is started and nothing of
 * OpenTelemetry is called.
 */
function traceMiddleware(deps: AppDeps, httpDuration: Histogram<string>, traces: Tracing | undefined) {
  return async (ctx: Context, next: Next) => {
    const incoming = ctx.get('X-Trace-Id');
    const server = traces && { api: traces.api, ...traces.startServerSpan(ctx.method, { traceparent: ctx.get('traceparent'), traceId: incoming }) };
    let traceId: string;
    if (server) {
      const ownId = !server.continued && TRACE_ID_RE.test(incoming) && !OTEL_TRACE_ID_RE.test(incoming.toLowerCase());
      traceId = ownId ? incoming : server.span.spanContext().traceId;
      if (ownId) server.span.setAttribute('gateway.request_id', incoming);
    } else {
      traceId = TRACE_ID_RE.test(incoming) ? incoming : randomBytes(16).toString('hex');
    }
    ctx.state.traceId = traceId;
    ctx.state.log = deps.log;
    ctx.set('X-Trace-Id', traceId);
    const started = process.hrtime.bigint();
    try {
      await (server ? server.api.context.with(server.context, next) : next());
    } finally {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      const route = (ctx as { _matchedRoute?: string })._matchedRoute ?? 'unmatched';
      httpDuration.observe({ method: ctx.method, route, status: String(ctx.status) }, ms / 1000);
      if (server) {
        const { span, api } = server;
        span.updateName(`${ctx.method} ${route}`);
        span.setAttributes({ 'http.request.method': ctx.method, 'http.route': route, 'http.response.status_code': ctx.status });
        if (ctx.status >= 500) span.setStatus({ code: api.SpanStatusCode.ERROR });
        span.end();
      }
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

function docsRouter(): Router {
  const router = new Router({ sensitive: true });
  const assets = getAbsoluteFSPath();
  router.get('/openapi.json', (ctx) => {
    ctx.body = openApiDocument();
  });
  router.get(MERCHANT_DOCUMENT_PATH, (ctx) => {
    ctx.body = merchantOpenApiDocument();
  });
  router.get('/docs', (ctx) => {
    ctx.type = 'text/html';
    ctx.body = swaggerHtml();
  });
  router.get(SIGNING_GUIDE_PATH, (ctx) => {
    ctx.type = 'text/markdown; charset=utf-8';
    ctx.body = createReadStream(SIGNING_GUIDE_FILE);
  });
  router.get('/docs/assets/init.js', (ctx) => {
    ctx.type = 'application/javascript';
    // Both documents, the full one first; the top bar's list switches between them.
    const urls = JSON.stringify([
      { url: '/openapi.json', name: 'Full API (merchant, operator, payer page, V1)' },
      { url: MERCHANT_DOCUMENT_PATH, name: 'Merchant API' },
    ]);
    ctx.body = `window.ui = SwaggerUIBundle({ urls: ${urls}, dom_id: '#swagger-ui', deepLinking: true, presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset], layout: 'StandaloneLayout' });`;
  });
  for (const file of ['swagger-ui.css', 'swagger-ui-bundle.js', 'swagger-ui-standalone-preset.js']) {
    router.get(`/docs/assets/${file}`, (ctx) => {
      ctx.type = file.endsWith('.css') ? 'text/css' : 'application/javascript';
      ctx.set('Cache-Control', 'public, max-age=86400');
      ctx.body = createReadStream(join(assets, file));
    });
  }
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

/**
 * The API is never the side that closes an idle keep-alive connection its client is about to
 * reuse. Node's default (5 s) is shorter than nginx's upstream keepalive_timeout (60 s): the proxy
 * could send a request on a connection the API was closing at that moment and get a reset (for a
 * POST, a 502 it may not retry); a client whose timers run late on a loaded host (Node's fetch keeps
 * a connection for the server's hint minus 1 s) meets the same race. 65 s outlasts both, and Node
 * announces it (`Keep-Alive: timeout=65`), so clients drop their side first.
 */
const KEEP_ALIVE_MS = 65_000;

export function keepIdleConnections(server: Server): Server {
  server.keepAliveTimeout = KEEP_ALIVE_MS;
  // Above the keep-alive time, as Node requires for the next request's headers on a kept connection.
  server.headersTimeout = KEEP_ALIVE_MS + 1_000;
  return server;
}

/**
 * The API. Its metrics go to `metrics`, which the caller serves on a port of its own
 * (api/metrics-server.ts, METRICS_PORT): this app answers 404 for /metrics.
 */
export function createApp(given: AppDeps, metrics: Registry = new Registry()): Koa {
  // Koa's own proxy trust stays off: the client address comes from api/auth/client-ip.ts, which
  // believes X-Forwarded-For only from TRUSTED_PROXIES.
  const app = new Koa({ proxy: false });
  collectDefaultMetrics({ register: metrics });
  // The gateway's own API metrics (config/metrics.ts) ride on deps to the services that record them.
  const deps: AppDeps = { ...given, metrics: apiMetrics(metrics) };
  const clientIp = clientIpResolver(deps.config.TRUSTED_PROXIES);
  const httpDuration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request duration by route and status',
    labelNames: ['method', 'route', 'status'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [metrics],
  });

  new Gauge({
    name: 'unverified_upload_bytes_in_flight',
    help: 'Upload bytes being read before their signature is checked (UNVERIFIED_UPLOAD_BYTES_TOTAL bounds it)',
    registers: [metrics],
    collect() {
      this.set(deps.uploadBudget.inFlight());
    },
  });

  const docs = docsRouter();
  const codec = codecRouter(deps);

  // Read once here: with tracing off (the default) the middleware starts no span.
  app.use(traceMiddleware(deps, httpDuration, tracing()));
  app.use(closeUnreadBodies(lingeringCloseOf(deps.config)));
  app.use((ctx, next) => {
    ctx.state.clientIp = clientIp(ctx.req);
    return next();
  });
  app.use(errorMiddleware());
  app.use(notFoundMiddleware);
  app.use(jsonMiddleware);
  app.use(codec.routes()); // reads its own body (protobuf JSON, larger limit)
  app.use(docs.routes());
  app.use(consolePages());
  for (const part of API) for (const middleware of part.middleware(deps, metrics)) app.use(middleware);
  app.silent = true;
  return app;
}
