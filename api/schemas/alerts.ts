/** Operator alerts. */
import { z } from 'zod';
import { pageSize, timestamp, uuid } from './common';
import { bulkIds, bulkResult } from './bulk';

const alertSchema = z
  .object({
    alert_id: z.string().uuid(),
    kind: z.string().openapi({ example: 'payout_processing_overdue' }),
    deal_id: z.string(),
    subject: z
      .string()
      .openapi({ description: "what an alert about something else than a deal names (a withdrawal, a transaction, an address); '' otherwise" }),
    message: z.string(),
    created_at: timestamp,
    acknowledged_at: z.string().openapi({ description: "RFC 3339; '' until an operator acknowledges it" }),
    acknowledged_by: z.string().openapi({ description: "the acknowledging operator's id (an account's id or the operator JWT's sub); ''" }),
    resolved_at: z.string().openapi({ description: "RFC 3339; '' while open" }),
    resolved_by: z
      .string()
      .openapi({ description: "the resolving operator's id; '' when the gateway resolved it (its deal or subject moved on) or while open" }),
  })
  .openapi('OperatorAlert');

export const alertsQuery = z.object({
  include_resolved: z.enum(['true', 'false']).optional(),
  page_size: pageSize(500, 500),
  page_token: z.string().optional().openapi({ description: 'opaque cursor from next_page_token (valid with the same include_resolved)' }),
});

export const alertsResponse = z
  .object({
    data: z.array(alertSchema),
    next_page_token: z.string().openapi({ description: "'' on the last page" }),
  })
  .openapi('OperatorAlerts');

export const alertParams = z.object({ alert_id: uuid('alert_id') });
export const alertResponse = z.object({ alert: alertSchema }).openapi('OperatorAlertResult');

export const bulkResolveAlertsBody = z
  .object({ alert_ids: bulkIds('alert_ids') })
  .strict()
  .openapi('BulkResolveAlerts');
export const bulkResolveAlertsResponse = bulkResult('BulkResolveAlertsResult', ['resolved']);
