/**
 * operator_alerts: what an operator must look at (GET /admin/alerts). A deal's alert is one row
 * per (kind, deal), resolved when the deal moves on; an alert about something else (a withdrawal,
 * a deposit's transaction, the hot wallet) names it in `subject`, one open row per (kind, subject).
 */
import type { Db } from '../sql';
import { newId } from '../../domain/ids';
import { cursorColumn, newestFirst, olderThan, type KeysetCursor } from './keyset';

/** Raises the alert of a payout still PROCESSING past its alert time; undefined when it moved on or was raised already. */
export async function raiseOverduePayoutAlert(db: Db, dealId: string, statuses: readonly string[]): Promise<{ id: string } | undefined> {
  const [alert] = await db<{ id: string }[]>`
    insert into operator_alerts (id, kind, deal_id, message)
    select ${newId()}, 'payout_processing_overdue', id,
      'payout has been PROCESSING for longer than PAYOUT_PROCESSING_ALERT_SECONDS; complete or reject it'
    from deals where id = ${dealId} and status = any(${statuses as string[]})
    on conflict (kind, deal_id) do nothing
    returning id`;
  return alert;
}

export async function resolveDealAlerts(tx: Db, dealId: string): Promise<void> {
  await tx`update operator_alerts set resolved_at = now() where deal_id = ${dealId} and resolved_at is null`;
}

/** Raises (kind, subject) unless it is open already; true when this call raised it. */
export async function raiseAlert(db: Db, alert: { kind: string; subject: string; message: string }): Promise<boolean> {
  const [row] = await db<{ id: string }[]>`
    insert into operator_alerts (id, kind, subject, message)
    values (${newId()}, ${alert.kind}, ${alert.subject}, ${alert.message})
    on conflict (kind, subject) where resolved_at is null and subject is not null do nothing
    returning id`;
  return row !== undefined;
}

/** Resolves the open alerts of a subject (of one kind, or all kinds). */
export async function resolveAlerts(db: Db, subject: string, kind?: string): Promise<void> {
  await db`
    update operator_alerts set resolved_at = now()
    where subject = ${subject} and resolved_at is null ${kind ? db`and kind = ${kind}` : db``}`;
}

export interface AlertRow {
  id: string;
  kind: string;
  deal_id: string | null;
  subject: string | null;
  message: string;
  created_at: Date;
  acknowledged_at: Date | null;
  acknowledged_by: string | null;
  resolved_at: Date | null;
  resolved_by: string | null;
}

const ALERT_COLUMNS = 'id, kind, deal_id, subject, message, created_at, acknowledged_at, acknowledged_by, resolved_at, resolved_by';

/** One page newest first on (created_at, id) (db/queries/keyset.ts): the open alerts, or all. */
export async function listAlertsPage(
  db: Db,
  f: { includeResolved: boolean; after?: KeysetCursor; limit: number },
): Promise<(AlertRow & { cursor_ts: string })[]> {
  return db<(AlertRow & { cursor_ts: string })[]>`
    select ${db.unsafe(ALERT_COLUMNS)}, ${cursorColumn(db)} from operator_alerts
    where ${f.includeResolved ? db`true` : db`resolved_at is null`} ${olderThan(db, f.after)}
    order by ${newestFirst(db)} limit ${f.limit}`;
}

/** The alert under a row lock (an operator's acknowledge or resolve). */
export async function lockAlert(db: Db, alertId: string): Promise<AlertRow | undefined> {
  const [row] = await db<AlertRow[]>`select ${db.unsafe(ALERT_COLUMNS)} from operator_alerts where id = ${alertId} for update`;
  return row;
}

/** An operator acknowledges an open, unacknowledged alert; undefined when there was nothing to do. */
export async function acknowledgeAlert(db: Db, alertId: string, by: string): Promise<AlertRow | undefined> {
  const [row] = await db<AlertRow[]>`
    update operator_alerts set acknowledged_at = now(), acknowledged_by = ${by}
    where id = ${alertId} and acknowledged_at is null and resolved_at is null
    returning ${db.unsafe(ALERT_COLUMNS)}`;
  return row;
}

/** An operator resolves an open alert; undefined when it was resolved already. */
export async function resolveAlertByOperator(db: Db, alertId: string, by: string): Promise<AlertRow | undefined> {
  const [row] = await db<AlertRow[]>`
    update operator_alerts set resolved_at = now(), resolved_by = ${by}
    where id = ${alertId} and resolved_at is null
    returning ${db.unsafe(ALERT_COLUMNS)}`;
  return row;
}
