/** operator_alerts: what an operator must look at (e.g. a payout PROCESSING for too long). */
import type { Db } from '../sql';

export interface AlertRow {
  id: string;
  kind: string;
  deal_id: string | null;
  message: string;
  created_at: Date;
  resolved_at: Date | null;
}

/** Newest first, at most 500: the open alerts, or all. */
export async function listAlerts(db: Db, includeResolved: boolean): Promise<AlertRow[]> {
  return db<AlertRow[]>`
    select id, kind, deal_id, message, created_at, resolved_at from operator_alerts
    where ${includeResolved ? db`true` : db`resolved_at is null`}
    order by created_at desc limit 500`;
}
