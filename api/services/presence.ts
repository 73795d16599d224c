/**
 * A trader's presence in the trader app: the online toggle, the heartbeat the app sends about every
 * 30 s while open, optional working hours, and the auto-pause of a trader whose app fell silent.
 *
 * The matcher decides from the heartbeat itself (db/queries/matching.ts: a heartbeat older than
 * TRADER_HEARTBEAT_TIMEOUT_SECONDS is never matched), so no deal reaches a silent trader even
 * before the pause is written. The pause itself — online off, offline_reason heartbeat_lost, at the
 * moment the heartbeat expired — is written by a sweep the API runs every few seconds
 * (api/server.ts) and by every read of the trader's presence, each audited as the gateway's act;
 * a sweep missed while the API was down is caught by the next, with the same offline_at.
 */
import type { AppDeps } from '../deps';
import type { Db } from '../../db/sql';
import { InvalidArgument, NotFound } from '../../domain/errors';
import type { AuditActor } from '../../domain/audit';
import { insertAudit } from '../../db/queries/audit';
import { knownTimeZone, pauseSilentTraders, presenceOf, recordHeartbeat, setOnline, setWorkingHours, type PresenceRow } from '../../db/queries/presence';
import { randomUUID } from 'node:crypto';

const SWEEP_ACTOR: AuditActor = { kind: 'system', id: 'presence-sweep', role: '', requestId: '', requestKey: '' };

function presentPresence(p: PresenceRow, timeoutSeconds: number) {
  return {
    online: p.online,
    heartbeat_at: p.heartbeat_at?.toISOString() ?? null,
    online_at: p.online_at?.toISOString() ?? null,
    offline_reason: p.offline_reason === '' ? null : p.offline_reason,
    offline_at: p.offline_at?.toISOString() ?? null,
    working_hours: p.work_timezone ? { timezone: p.work_timezone, from: p.work_from!, to: p.work_to! } : null,
    within_working_hours: p.within_hours,
    /** Whether the matcher may give it a deal now. */
    matchable: p.online && p.within_hours,
    heartbeat_timeout_seconds: timeoutSeconds,
  };
}

/** Pauses every silent trader (or the one given), each with an audit row; answers how many. */
export async function sweepSilentTraders(sql: AppDeps['sql'], timeoutSeconds: number, traderId?: string): Promise<number> {
  return sql.begin(async (tx) => {
    const paused = await pauseSilentTraders(tx, timeoutSeconds, traderId);
    for (const p of paused) {
      await insertAudit(
        tx,
        { ...SWEEP_ACTOR, requestKey: randomUUID() },
        {
          action: 'trader.presence_auto_pause',
          objectType: 'trader',
          objectId: p.id,
          before: { online: true, heartbeat_at: p.heartbeat_at },
          after: { online: false, offline_reason: 'heartbeat_lost', offline_at: p.offline_at },
        },
      );
    }
    return paused.length;
  });
}

async function read(db: Db, deps: AppDeps, traderId: string) {
  const row = await presenceOf(db, traderId);
  if (!row) throw new NotFound('trader not found');
  return presentPresence(row, deps.config.TRADER_HEARTBEAT_TIMEOUT_SECONDS);
}

export async function getPresence(deps: AppDeps, traderId: string) {
  await sweepSilentTraders(deps.sql, deps.config.TRADER_HEARTBEAT_TIMEOUT_SECONDS, traderId);
  return read(deps.sql, deps, traderId);
}

export interface PresenceChange {
  online?: boolean;
  /** null clears the working hours (always within them). */
  working_hours?: { timezone: string; from: string; to: string } | null;
}

export async function updatePresence(deps: AppDeps, traderId: string, change: PresenceChange, actor: AuditActor) {
  if (change.working_hours && !(await knownTimeZone(deps.sql, change.working_hours.timezone))) {
    throw new InvalidArgument(`unknown time zone ${change.working_hours.timezone}`);
  }
  await sweepSilentTraders(deps.sql, deps.config.TRADER_HEARTBEAT_TIMEOUT_SECONDS, traderId);
  return deps.sql.begin(async (tx) => {
    const before = await read(tx, deps, traderId);
    if (change.online !== undefined) await setOnline(tx, traderId, change.online);
    if (change.working_hours !== undefined) await setWorkingHours(tx, traderId, change.working_hours);
    const after = await read(tx, deps, traderId);
    await insertAudit(tx, actor, {
      action: 'trader.presence_set',
      objectType: 'trader',
      objectId: traderId,
      before: { online: before.online, working_hours: before.working_hours },
      after: { online: after.online, working_hours: after.working_hours },
    });
    return after;
  });
}

/** The app's heartbeat; a trader already paused stays offline until it toggles online again. */
export async function heartbeat(deps: AppDeps, traderId: string) {
  await sweepSilentTraders(deps.sql, deps.config.TRADER_HEARTBEAT_TIMEOUT_SECONDS, traderId);
  await recordHeartbeat(deps.sql, traderId);
  return read(deps.sql, deps, traderId);
}
