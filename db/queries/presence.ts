/** A trader's presence: the online toggle, the app's heartbeat, working hours, the auto-pause. */
import type { Db } from '../sql';

export interface PresenceRow {
  id: string;
  online: boolean;
  heartbeat_at: Date | null;
  online_at: Date | null;
  offline_reason: '' | 'manual' | 'heartbeat_lost';
  offline_at: Date | null;
  work_timezone: string | null;
  work_from: string | null;
  work_to: string | null;
  /** Within the working hours now (true when none are set). */
  within_hours: boolean;
  /** Has an account (the trader app): presence decides its matching; without one it is always present. */
  self_managed: boolean;
}

const columns = (db: Db) => db`
  t.id, t.online, t.heartbeat_at, t.online_at, t.offline_reason, t.offline_at, t.work_timezone,
  to_char(t.work_from, 'HH24:MI') as work_from, to_char(t.work_to, 'HH24:MI') as work_to,
  (t.work_timezone is null or (case when t.work_from <= t.work_to
    then (now() at time zone t.work_timezone)::time >= t.work_from and (now() at time zone t.work_timezone)::time < t.work_to
    else (now() at time zone t.work_timezone)::time >= t.work_from or (now() at time zone t.work_timezone)::time < t.work_to end)) as within_hours,
  exists (select 1 from accounts a where a.trader_id = t.id and a.party = 'trader') as self_managed`;

export async function presenceOf(db: Db, traderId: string): Promise<PresenceRow | undefined> {
  const [row] = await db<PresenceRow[]>`select ${columns(db)} from traders t where t.id = ${traderId}`;
  return row;
}

/** The toggle: online starts a fresh heartbeat; offline records that the trader chose it. */
export async function setOnline(db: Db, traderId: string, online: boolean): Promise<void> {
  if (online) {
    await db`update traders set online = true, heartbeat_at = now(), online_at = now(), offline_reason = '', offline_at = null
      where id = ${traderId}`;
  } else {
    await db`update traders set online = false, offline_reason = 'manual', offline_at = now() where id = ${traderId} and online`;
  }
}

/** The app's heartbeat: counts only while online (a trader paused for silence goes online again by the toggle). */
export async function recordHeartbeat(db: Db, traderId: string): Promise<boolean> {
  const rows = await db`update traders set heartbeat_at = now() where id = ${traderId} and online returning id`;
  return rows.length > 0;
}

export async function setWorkingHours(db: Db, traderId: string, hours: { timezone: string; from: string; to: string } | null): Promise<void> {
  await db`update traders set work_timezone = ${hours?.timezone ?? null}, work_from = ${hours?.from ?? null}::time,
    work_to = ${hours?.to ?? null}::time where id = ${traderId}`;
}

/**
 * The auto-pause: every online trader whose heartbeat is older than the timeout goes offline with
 * the reason heartbeat_lost, as of the moment its heartbeat expired. `traderId` narrows it to one.
 */
export function pauseSilentTraders(db: Db, timeoutSeconds: number, traderId?: string) {
  return db<{ id: string; heartbeat_at: Date; offline_at: Date }[]>`
    update traders set online = false, offline_reason = 'heartbeat_lost',
      offline_at = heartbeat_at + make_interval(secs => ${timeoutSeconds})
    where online and heartbeat_at <= now() - make_interval(secs => ${timeoutSeconds})
      ${traderId ? db`and id = ${traderId}` : db``}
    returning id, heartbeat_at, offline_at`;
}

/** Whether Postgres knows this IANA time zone (working hours are computed in it). */
export async function knownTimeZone(db: Db, name: string): Promise<boolean> {
  const [row] = await db`select 1 from pg_timezone_names where name = ${name}`;
  return row !== undefined;
}
