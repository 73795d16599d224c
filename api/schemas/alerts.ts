/** Operator alerts. */
import { z } from 'zod';
import { timestamp } from './common';

export const alertsResponse = z
  .object({
    data: z.array(
      z.object({
        alert_id: z.string().uuid(),
        kind: z.string().openapi({ example: 'payout_processing_overdue' }),
        deal_id: z.string(),
        message: z.string(),
        created_at: timestamp,
        resolved_at: z.string().openapi({ description: 'empty while open' }),
      }),
    ),
  })
  .openapi('OperatorAlerts');
