/** The console's notifications (the desk's events). */
import { z } from 'zod';
import { timestamp } from './common';

export const notificationsQuery = z.object({
  after: z
    .string()
    .regex(/^\d{1,18}$/, 'after is the id of a notification (digits)')
    .transform((v) => BigInt(v))
    .optional()
    .openapi({ type: 'string', description: 'only notifications newer than this id (the latest_id of an earlier answer)' }),
  limit: z.coerce.number().int().min(1).max(100).optional().openapi({ description: 'at most this many, newest first (default 20, at most 100)' }),
});

const notificationSchema = z
  .object({
    id: z.string().openapi({ description: 'int64 as digits; newer notifications have larger ids' }),
    kind: z.enum(['appeal.opened', 'appeal.reopened', 'withdrawal.waiting', 'alert.raised']),
    object_type: z.enum(['appeal', 'withdrawal', 'alert']),
    object_id: z.string().uuid(),
    merchant_id: z.string().openapi({ description: "the merchant concerned; '' for an alert about no merchant's deal" }),
    text: z.string().openapi({ description: 'one line saying what happened (as the desk hook sends it)' }),
    created_at: timestamp,
  })
  .openapi('ConsoleNotification');

export const notificationsResponse = z
  .object({
    data: z.array(notificationSchema),
    latest_id: z.string().openapi({ description: "the newest notification's id ('0' when there is none): pass it as after to ask only for newer ones" }),
  })
  .openapi('ConsoleNotifications', { description: 'New live work for operators, newest first.' });
