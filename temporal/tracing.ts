/**
 * The Temporal side of tracing (config/tracing.ts): @temporalio/interceptors-opentelemetry's
 * interceptors, loaded only when tracing is on. The client interceptor puts the caller's span in
 * the headers of a start, update or signal; the workflow interceptors (workflows/tracing-interceptors.ts,
 * bundled in) continue it in the sandbox and hand their spans out through the `exporter` sink; the
 * activity interceptors continue it around each activity, so its SQL and webhook POST spans join.
 */
import type { ClientInterceptors } from '@temporalio/client';
import type { OpenTelemetrySinks } from '@temporalio/interceptors-opentelemetry';
import type { InjectedSinks, WorkerInterceptors } from '@temporalio/worker';
import { tracing } from '../config/tracing';

/** The client interceptors of a traced process (none when tracing is off). */
export async function tracingClientInterceptors(): Promise<ClientInterceptors | undefined> {
  if (!tracing()) return undefined;
  const { OpenTelemetryWorkflowClientInterceptor } = await import('@temporalio/interceptors-opentelemetry/lib/client/index.js');
  return { workflow: [new OpenTelemetryWorkflowClientInterceptor()] };
}

/** The worker's activity interceptors and the workflow spans' sink (undefined when tracing is off). */
export async function tracingWorkerOptions(): Promise<{ interceptors: WorkerInterceptors; sinks: InjectedSinks<OpenTelemetrySinks> } | undefined> {
  const on = tracing();
  if (!on) return undefined;
  const { OpenTelemetryActivityInboundInterceptor, OpenTelemetryActivityOutboundInterceptor, makeWorkflowExporter } = await import(
    '@temporalio/interceptors-opentelemetry/lib/worker/index.js'
  );
  return {
    interceptors: {
      activity: [(ctx) => ({ inbound: new OpenTelemetryActivityInboundInterceptor(ctx), outbound: new OpenTelemetryActivityOutboundInterceptor(ctx) })],
    },
    // Workflow spans are made in the sandbox and leave it through this sink (not called on replay).
    sinks: { exporter: makeWorkflowExporter(on.spanProcessor, on.resource) },
  };
}
