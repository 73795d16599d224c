/** Operator alerts: what needs a look (e.g. a payout PROCESSING for too long). */
import { z } from 'zod';
import { defineRoute } from '../../route';
import { alertsResponse } from '../../schemas/alerts';
import { listAlerts } from '../../services/alerts';

const tags = ['Operator'];

export const alertRoutes = [
  defineRoute(
    {
      method: 'get',
      path: '/alerts',
      operationId: 'adminListAlerts',
      auth: 'operator',
      summary: 'Open operator alerts, newest first (e.g. a payout PROCESSING past PAYOUT_PROCESSING_ALERT_SECONDS) — addition',
      description: 'An alert closes by itself when its deal moves on (a payout completed or rejected); `include_resolved=true` lists those too.',
      tags,
      query: z.object({ include_resolved: z.enum(['true', 'false']).optional() }),
      response: alertsResponse,
    },
    async ({ query }, deps) => ({ data: await listAlerts(deps, query.include_resolved === 'true') }),
  ),
];
