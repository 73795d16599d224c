/** The readiness check: Postgres, Temporal, and workers polling the API's task queues. */
import { z } from 'zod';
import { taskQueuesPolled } from '../../temporal/client';
import { defineRoute, Reply } from '../route';
import { ping } from '../../db/queries/health';

const healthResponse = z
  .object({
    status: z.enum(['ok', 'degraded']),
    postgres: z.enum(['ok', 'down']),
    temporal: z.enum(['ok', 'down']),
    /** 'ok' when a worker polls both the deal and the webhook task queue (DescribeTaskQueue). */
    workers: z.enum(['ok', 'down']),
  })
  .openapi('Health');

async function probe(check: () => Promise<unknown>): Promise<'ok' | 'down'> {
  try {
    await Promise.race([check(), new Promise((_, reject) => setTimeout(() => reject(new Error('timeout')), 5000))]);
    return 'ok';
  } catch {
    return 'down';
  }
}

export const healthRoutes = [
  defineRoute(
    {
      method: 'get',
      path: '/health',
      operationId: 'getHealth',
      auth: 'public',
      summary: 'Readiness of the API: Postgres, Temporal, and workers polling its task queues (503 when one is down)',
      tags: ['Ops'],
      response: healthResponse,
      replies: { 503: 'degraded: Postgres, Temporal or the workers are down (the same body says which)' },
    },
    async (_input, deps) => {
      const queues = [deps.config.TEMPORAL_TASK_QUEUE, deps.config.WEBHOOK_TASK_QUEUE];
      const [postgres, temporal, workers] = await Promise.all([
        probe(() => ping(deps.sql)),
        probe(() => deps.temporal.workflowService.getSystemInfo({})),
        probe(async () => {
          const polled = await taskQueuesPolled(deps.temporal.workflowService, deps.config.TEMPORAL_NAMESPACE, queues);
          if (!Object.values(polled).every(Boolean)) throw new Error('no poller');
        }),
      ]);
      const body = { status: postgres === 'ok' && temporal === 'ok' && workers === 'ok' ? 'ok' : 'degraded', postgres, temporal, workers };
      return body.status === 'ok' ? body : new Reply(503, body);
    },
  ),
];
