/**
 * Operator alerts: what needs an operator's look (e.g. a payout PROCESSING past
 * PAYOUT_PROCESSING_ALERT_SECONDS). The gateway raises them and resolves most by itself when
 * their deal or subject moves on; an operator acknowledges one ("on it") and resolves one by hand,
 * each audited in the transaction of the change.
 */
import type { AppDeps } from '../deps';
import { NotFound } from '../../domain/errors';
import type { AuditActor } from '../../domain/audit';
import { acknowledgeAlert, listAlertsPage, lockAlert, resolveAlertByOperator, type AlertRow } from '../../db/queries/alerts';
import { insertAudit } from '../../db/queries/audit';
import type { Db } from '../../db/sql';
import { clampPageSize, cursorOf, keysetPage } from './page-token';

function presentAlert(r: AlertRow) {
  return {
    alert_id: r.id,
    kind: r.kind,
    deal_id: r.deal_id ?? '',
    subject: r.subject ?? '',
    message: r.message,
    created_at: r.created_at.toISOString(),
    acknowledged_at: r.acknowledged_at?.toISOString() ?? '',
    acknowledged_by: r.acknowledged_by ?? '',
    resolved_at: r.resolved_at?.toISOString() ?? '',
    resolved_by: r.resolved_by ?? '',
  };
}

/** Newest first, keyset pages: the open alerts, or all. */
export async function listAlerts(deps: AppDeps, q: { includeResolved: boolean; page_size?: number; page_token?: string }) {
  const scope = `alerts:${q.includeResolved}`;
  const size = clampPageSize(q.page_size, 500, 500);
  const rows = await listAlertsPage(deps.sql, { includeResolved: q.includeResolved, after: cursorOf(deps, scope, q.page_token), limit: size + 1 });
  const page = keysetPage(deps, scope, rows, size);
  return { data: page.rows.map(presentAlert), next_page_token: page.next_page_token };
}

/**
 * One operator move on an alert under its row lock: the change and its audit row in one
 * transaction. A move with nothing to do (acknowledged or resolved already) changes nothing,
 * writes no row and answers the alert as it is: a repeat is harmless.
 */
async function alertMove(
  deps: AppDeps,
  alertId: string,
  action: 'alert.acknowledge' | 'alert.resolve',
  actor: AuditActor,
  move: (tx: Db) => Promise<AlertRow | undefined>,
) {
  const row = await deps.sql.begin(async (tx) => {
    const before = await lockAlert(tx, alertId);
    if (!before) throw new NotFound('alert not found');
    const after = await move(tx);
    if (!after) return before;
    await insertAudit(tx, actor, { action, objectType: 'alert', objectId: alertId, before: presentAlert(before), after: presentAlert(after) });
    return after;
  });
  deps.log.info({ alertId, action, actor: actor.id }, 'operator alert move');
  return { alert: presentAlert(row) };
}

/** "I am on it": open and unacknowledged → acknowledged by this operator. */
export const acknowledgeAlertByOperator = (deps: AppDeps, alertId: string, actor: AuditActor) =>
  alertMove(deps, alertId, 'alert.acknowledge', actor, (tx) => acknowledgeAlert(tx, alertId, actor.id));

/** Resolved by this operator (the gateway's own resolution, when its subject moves on, names nobody). */
export const resolveAlertOperator = (deps: AppDeps, alertId: string, actor: AuditActor) =>
  alertMove(deps, alertId, 'alert.resolve', actor, (tx) => resolveAlertByOperator(tx, alertId, actor.id));
