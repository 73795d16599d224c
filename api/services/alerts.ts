/** Operator alerts: what needs an operator's look (e.g. a payout PROCESSING past PAYOUT_PROCESSING_ALERT_SECONDS). */
import type { AppDeps } from '../deps';
import { listAlerts as alertRows } from '../../db/queries/alerts';

/** Operator alerts (newest first, at most 500): open ones, or all. */
export async function listAlerts(deps: AppDeps, includeResolved: boolean) {
  const rows = await alertRows(deps.sql, includeResolved);
  return rows.map((r) => ({
    alert_id: r.id,
    kind: r.kind,
    deal_id: r.deal_id ?? '',
    message: r.message,
    created_at: r.created_at.toISOString(),
    resolved_at: r.resolved_at?.toISOString() ?? '',
  }));
}
