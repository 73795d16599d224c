/**
 * OpenTelemetry tracing: on only when OTEL_EXPORTER_OTLP_ENDPOINT is set. Off, nothing
 * of the SDK is loaded (every import below is `import type` or a dynamic import inside
 * startTracing) and `tracing()` answers undefined, which is the one check the traced places make:
 * when it is undefined they install no interceptor, no SQL wrapper and no middleware of their own.
 *
 * On: a BasicTracerProvider with an AsyncLocalStorage context manager (the span of a request or
 * an activity reaches its SQL without being passed around), the W3C propagator, and a batching
 * OTLP/HTTP exporter; the standard OTEL_* variables (OTEL_BSP_SCHEDULE_DELAY, OTEL_TRACES_SAMPLER,
 * OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES, OTEL_EXPORTER_OTLP_HEADERS…) apply as the SDK reads them.
 */
import type * as OtelApi from '@opentelemetry/api';
import type { Resource } from '@opentelemetry/resources';
import type { SpanProcessor } from '@opentelemetry/sdk-trace-base';

export interface Tracing {
  api: typeof OtelApi;
  tracer: OtelApi.Tracer;
  /** What workflow spans (made in the sandbox, exported through a sink) are tagged with and sent through. */
  resource: Resource;
  spanProcessor: SpanProcessor;
  /**
   * Starts the span of an incoming request: the child of a valid W3C `traceparent` when there is
   * one, else a root span whose trace id is `traceId` when that is a valid trace id (32 hex), else
   * a root span of a new trace. The caller answers with the span's trace id.
   */
  startServerSpan(name: string, incoming: { traceparent?: string; traceId?: string }): { span: OtelApi.Span; context: OtelApi.Context; continued: boolean };
  /** Sends what is buffered and stops (process shutdown). */
  shutdown(): Promise<void>;
}

/** A W3C trace id: 32 lowercase hex digits, not all zero. */
export const OTEL_TRACE_ID_RE = /^(?!0{32})[0-9a-f]{32}$/;

let current: Tracing | undefined;

/** The process's tracing, or undefined when it is off (the no-cost check of every traced place). */
export const tracing = (): Tracing | undefined => current;

export async function startTracing(serviceName: string, env: NodeJS.ProcessEnv = process.env): Promise<Tracing | undefined> {
  if (!env.OTEL_EXPORTER_OTLP_ENDPOINT) return undefined;
  if (current) return current;
  const [api, base, resources, semconv, { AsyncLocalStorageContextManager }, { OTLPTraceExporter }] = await Promise.all([
    import('@opentelemetry/api'),
    import('@opentelemetry/sdk-trace-base'),
    import('@opentelemetry/resources'),
    import('@opentelemetry/semantic-conventions'),
    import('@opentelemetry/context-async-hooks'),
    import('@opentelemetry/exporter-trace-otlp-http'),
  ]);
  const resource = resources.Resource.default()
    .merge(new resources.Resource({ [semconv.ATTR_SERVICE_NAME]: env.OTEL_SERVICE_NAME ?? serviceName }))
    .merge(resources.detectResourcesSync({ detectors: [resources.envDetectorSync] }));

  // The API's trace id is chosen before its span exists (X-Trace-Id): the id generator hands out
  // that id for the one root span started synchronously in startServerSpan, random ids otherwise.
  const random = new base.RandomIdGenerator();
  let nextTraceId: string | undefined;
  const idGenerator = {
    generateTraceId: () => nextTraceId ?? random.generateTraceId(),
    generateSpanId: () => random.generateSpanId(),
  };
  const spanProcessor = new base.BatchSpanProcessor(new OTLPTraceExporter());
  const provider = new base.BasicTracerProvider({ resource, idGenerator, spanProcessors: [spanProcessor] });
  provider.register({ contextManager: new AsyncLocalStorageContextManager().enable() });
  const tracer = provider.getTracer('merchant-gateway');

  current = {
    api,
    tracer,
    resource,
    spanProcessor,
    startServerSpan(name, incoming) {
      const options = { kind: api.SpanKind.SERVER };
      if (incoming.traceparent) {
        const parent = api.propagation.extract(api.ROOT_CONTEXT, { traceparent: incoming.traceparent }, api.defaultTextMapGetter);
        if (api.trace.getSpanContext(parent)) {
          const span = tracer.startSpan(name, options, parent);
          return { span, context: api.trace.setSpan(parent, span), continued: true };
        }
      }
      const wanted = incoming.traceId?.toLowerCase();
      nextTraceId = wanted && OTEL_TRACE_ID_RE.test(wanted) ? wanted : undefined;
      try {
        const span = tracer.startSpan(name, options, api.ROOT_CONTEXT);
        return { span, context: api.trace.setSpan(api.ROOT_CONTEXT, span), continued: false };
      } finally {
        nextTraceId = undefined;
      }
    },
    async shutdown() {
      await provider.shutdown().catch(() => {});
    },
  };
  return current;
}
