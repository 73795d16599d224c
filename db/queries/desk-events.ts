/**
 * The desk's events: new live work for operators (an appeal opened or reopened, a withdrawal
 * waiting for approval, an alert raised), written by triggers in the transaction that made the
 * work (db/migrations/00003_cases_and_desk.sql). The console's notifications read them; the desk
 * hook relay hands each to its delivery workflow once.
 */
import type { Db } from '../sql';

const DESK_EVENT_KINDS = ['appeal.opened', 'appeal.reopened', 'withdrawal.waiting', 'alert.raised'] as const;
type DeskEventKind = (typeof DESK_EVENT_KINDS)[number];

export interface DeskEventRow {
  id: bigint;
  kind: DeskEventKind;
  object_type: 'appeal' | 'withdrawal' | 'alert';
  object_id: string;
  merchant_id: string | null;
  summary: Record<string, unknown>;
  created_at: Date;
  dispatched_at: Date | null;
  attempts: number;
  last_status: number | null;
  last_error: string;
  delivered_at: Date | null;
}

/** The newest events (after `afterId` when given: only those newer), newest first. */
export async function listDeskEvents(db: Db, f: { afterId?: bigint; limit: number }): Promise<DeskEventRow[]> {
  return db<DeskEventRow[]>`
    select * from desk_events
    where ${f.afterId !== undefined ? db`id > ${f.afterId}` : db`true`}
    order by id desc
    limit ${f.limit}`;
}

/** The id of the newest event (0 when there is none): the console's "seen up to". */
export async function latestDeskEventId(db: Db): Promise<bigint> {
  const [row] = await db<{ id: bigint | null }[]>`select max(id) as id from desk_events`;
  return row?.id ?? 0n;
}

/** Events not yet handed on, oldest first, locked for this relay pass (another relay skips them). */
export async function lockUndispatchedDeskEvents(tx: Db, limit: number): Promise<DeskEventRow[]> {
  return tx<DeskEventRow[]>`
    select * from desk_events where dispatched_at is null order by id limit ${limit} for update skip locked`;
}

export async function markDeskEventsDispatched(tx: Db, ids: bigint[]): Promise<void> {
  if (ids.length === 0) return;
  await tx`update desk_events set dispatched_at = now() where id = any(${ids.map(String)}::bigint[])`;
}

export async function findDeskEvent(db: Db, id: bigint): Promise<DeskEventRow | undefined> {
  const [row] = await db<DeskEventRow[]>`select * from desk_events where id = ${id}`;
  return row;
}

/** One delivery attempt's outcome: the answer's status or the error, and the time of a success. */
export async function recordDeskAttempt(db: Db, id: bigint, a: { status: number | null; error: string; delivered: boolean }): Promise<void> {
  await db`
    update desk_events set attempts = attempts + 1, last_status = ${a.status}, last_error = ${a.error.slice(0, 500)},
      delivered_at = ${a.delivered ? db`now()` : db`delivered_at`}
    where id = ${id}`;
}
