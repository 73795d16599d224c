/**
 * operator_alerts: what an operator must look at (GET /admin/alerts). A deal's alert is one row
 * per (kind, deal), resolved when the deal moves on; an alert about something else (a withdrawal,
 * a deposit's transaction, the hot wallet) names it in `subject`, one open row per (kind, subject).
 */
import type { Db } from '../sql';
import { newId } from '../../domain/ids';

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
  subject?: string | null;
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
