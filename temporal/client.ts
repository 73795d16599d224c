/** The one Temporal client module, shared by the API, the relay, scripts, tests and the bench. */
import { Client, Connection } from '@temporalio/client';
import { temporalConnectionOptions, type TemporalConfig } from './connection';
import { temporalDataConverter } from './payload-codec';
import { tracingClientInterceptors } from './tracing';

export async function createTemporalClient(config: TemporalConfig): Promise<Client> {
  const connection = await Connection.connect(temporalConnectionOptions(config));
  // With tracing on (config/tracing.ts), starts, updates and signals carry the caller's span.
  const interceptors = await tracingClientInterceptors();
  return new Client({
    connection,
    namespace: config.TEMPORAL_NAMESPACE,
    dataConverter: temporalDataConverter(config),
    ...(interceptors ? { interceptors } : {}),
  });
}

/**
 * Whether every given task queue has a workflow poller right now (DescribeTaskQueue). Readiness
 * of a stack is "the API answers and a worker polls every queue": a request sent before the
 * first poll waits for it (seconds while the worker bundles), which the bench would otherwise
 * count as latency.
 */
export async function taskQueuesPolled(service: Client['workflowService'], namespace: string, taskQueues: string[]): Promise<Record<string, boolean>> {
  const entries = await Promise.all(
    taskQueues.map(async (name) => {
      const response = await service.describeTaskQueue({
        namespace,
        taskQueue: { name, kind: 1 /* TASK_QUEUE_KIND_NORMAL */ },
        taskQueueType: 1 /* TASK_QUEUE_TYPE_WORKFLOW */,
      });
      return [name, (response.pollers?.length ?? 0) > 0] as const;
    }),
  );
  return Object.fromEntries(entries);
}
