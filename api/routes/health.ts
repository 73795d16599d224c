import { z } from 'zod';
import { defineRoute, Reply } from '../route';

const healthResponse = z
  .object({ status: z.enum(['ok', 'degraded']), postgres: z.enum(['ok', 'down']), temporal: z.enum(['ok', 'down']) })
  .openapi('Health');

async function probe(check: () => Promise<unknown>): Promise<'ok' | 'down'> {
  try {
    await Promise.race([check(), new Promise((_, reject) => setTimeout(() => reject(new Error('timeout')), 2000))]);
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
      auth: 'public',
      summary: 'Liveness of the API with its Postgres and Temporal dependencies (503 when one is down)',
      tags: ['Ops'],
      response: healthResponse,
      errors: [503],
    },
    async (_input, deps) => {
      const [postgres, temporal] = await Promise.all([
        probe(() => deps.sql`select 1`),
        probe(() => deps.temporal.workflowService.getSystemInfo({})),
      ]);
      const body = { status: postgres === 'ok' && temporal === 'ok' ? 'ok' : 'degraded', postgres, temporal };
      return body.status === 'ok' ? body : new Reply(503, body);
    },
  ),
];
