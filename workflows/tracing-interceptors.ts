/**
 * The workflow interceptors of tracing (bundled only when tracing is on, workers/main.ts): exactly
 * those of @temporalio/interceptors-opentelemetry, nothing of ours. They are deterministic (no I/O:
 * spans leave through the `exporter` sink, which is not called on replay) and gate what they add
 * on the SDK's flags, so histories recorded without them replay with them (test/workflows/*-replay).
 */
import { interceptors } from '@temporalio/interceptors-opentelemetry/lib/workflow-interceptors';

export { interceptors };
