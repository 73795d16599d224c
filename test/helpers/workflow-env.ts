/**
 * Workflow tests without HTTP: the workflows of workflows/index.ts on a worker of their own (a
 * unique task queue) with stub activities, on the test workflow environment. In `npm test` the
 * environment is the suite's Temporal (TEMPORAL_ADDRESS); run alone, a dev server from the
 * Temporal CLI the stack builds (.tools/bin/temporal, or TEMPORAL_CLI).
 */
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { bundleWorkflowCode, DefaultLogger, Runtime, Worker, type WorkflowBundle } from '@temporalio/worker';
import type { Activities } from '../../activities';
import type { AuditActor } from '../../domain/audit';
import {
  AppealIdKey,
  DealIdKey,
  DealStatusKey,
  DealTypeKey,
  MerchantIdKey,
  OriginAppealIdKey,
  ParentDealIdKey,
} from '../../workflows/contracts/search-attributes';

const TEMPORAL_CLI = process.env.TEMPORAL_CLI ?? fileURLToPath(new URL('../../.tools/bin/temporal', import.meta.url));

export async function workflowEnvironment(): Promise<TestWorkflowEnvironment> {
  // Refusals the stubs raise on purpose are logged as failed activities: errors only.
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  if (process.env.TEMPORAL_ADDRESS) {
    return TestWorkflowEnvironment.createFromExistingServer({ address: process.env.TEMPORAL_ADDRESS, namespace: process.env.TEMPORAL_NAMESPACE ?? 'default' });
  }
  return TestWorkflowEnvironment.createLocal({
    server: {
      executable: { type: 'existing-path', path: TEMPORAL_CLI },
      searchAttributes: [MerchantIdKey, DealIdKey, DealTypeKey, DealStatusKey, ParentDealIdKey, OriginAppealIdKey, AppealIdKey],
    },
  });
}

let bundle: Promise<WorkflowBundle> | undefined;
/** The workflow bundle, built once per test file. */
export const workflowBundle = () =>
  (bundle ??= bundleWorkflowCode({ workflowsPath: fileURLToPath(new URL('../../workflows/index.ts', import.meta.url)), logger: new DefaultLogger('ERROR') }));

let traced: Promise<WorkflowBundle> | undefined;
/**
 * The bundle a worker builds with tracing on (workers/main.ts): the same workflows with the
 * OpenTelemetry workflow interceptors (workflows/tracing-interceptors.ts). Replay tests run both.
 */
export const tracedWorkflowBundle = () =>
  (traced ??= bundleWorkflowCode({
    workflowsPath: fileURLToPath(new URL('../../workflows/index.ts', import.meta.url)),
    workflowInterceptorModules: [fileURLToPath(new URL('../../workflows/tracing-interceptors.ts', import.meta.url))],
    logger: new DefaultLogger('ERROR'),
  }));

/** Runs `body` while a worker polls a fresh task queue with the given (stub) activities. */
export async function withWorker<T>(env: TestWorkflowEnvironment, activities: Partial<Activities>, body: (taskQueue: string) => Promise<T>): Promise<T> {
  const taskQueue = `workflow-test-${randomUUID()}`;
  const worker = await Worker.create({
    connection: env.nativeConnection,
    namespace: env.namespace ?? 'default',
    taskQueue,
    workflowBundle: await workflowBundle(),
    activities,
  });
  return worker.runUntil(body(taskQueue));
}

/** What an update answered: its value, or the refusal (kind and message) it failed with. */
export async function outcomeOf<T>(update: Promise<T>): Promise<{ ok: true; value: T } | { ok: false; kind: string; message: string }> {
  try {
    return { ok: true, value: await update };
  } catch (error) {
    if (error instanceof WorkflowUpdateFailedError && error.cause instanceof ApplicationFailure) {
      return { ok: false, kind: error.cause.type ?? '', message: error.cause.message };
    }
    throw error;
  }
}

/** A business refusal as an activity raises it (withBusinessFailures in production). */
export const refusedByActivity = (kind: string, message: string) => ApplicationFailure.nonRetryable(message, kind);

export const inAnHour = () => new Date(Date.now() + 3_600_000).toISOString();

/** An operator as the actor of a move sent in a test: each call its own request (its own audit row where a step writes one). */
export const testActor = (): AuditActor => ({ kind: 'operator_jwt', id: 'test-operator', role: 'admin', requestId: 'test', requestKey: randomUUID() });
