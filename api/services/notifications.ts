/**
 * The console's notifications: the desk's events (new appeals, withdrawals waiting, alerts
 * raised), newest first; `after` answers only those newer than an id the console has seen, so
 * a poll every few seconds costs one indexed read.
 */
import type { AppDeps } from '../deps';
import { deskEventText } from '../../domain/events/desk-payload';
import { latestDeskEventId, listDeskEvents, type DeskEventRow } from '../../db/queries/desk-events';

const present = (e: DeskEventRow) => ({
  id: e.id.toString(),
  kind: e.kind,
  object_type: e.object_type,
  object_id: e.object_id,
  merchant_id: e.merchant_id ?? '',
  text: deskEventText(e),
  created_at: e.created_at.toISOString(),
});

export async function listNotifications(deps: AppDeps, q: { after?: bigint | undefined; limit?: number | undefined }) {
  const [rows, latest] = await Promise.all([
    listDeskEvents(deps.sql, { ...(q.after !== undefined ? { afterId: q.after } : {}), limit: q.limit ?? 20 }),
    latestDeskEventId(deps.sql),
  ]);
  return { data: rows.map(present), latest_id: latest.toString() };
}
