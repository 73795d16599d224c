/** The audit trail (db/migrations/00001_baseline.sql): append-only rows, written in the transaction of their effect. */
import type { AuditActor, AuditEntry } from '../../domain/audit';
import type { IdPrefix } from '../../domain/ids';
import type { Db } from '../sql';
import { textIdIn } from './id-prefix';

export interface AuditRow {
  id: bigint;
  at: Date;
  actor_kind: string;
  actor_id: string;
  role: string;
  action: string;
  object_type: string;
  object_id: string;
  before: unknown;
  after: unknown;
  request_id: string;
  actor_credential: string | null;
}

/** JSON-safe: bigint as digit strings, Dates as ISO text (what jsonb stores). */
const jsonOf = (value: unknown) => (value === undefined ? null : JSON.parse(JSON.stringify(value, (_k, v) => (typeof v === 'bigint' ? v.toString() : v))));

/** Writes one row; the same request, action and object a second time (a retried step) writes nothing. */
export async function insertAudit(db: Db, actor: AuditActor, entry: AuditEntry): Promise<void> {
  const before = jsonOf(entry.before);
  const after = jsonOf(entry.after);
  await db`
    insert into audit_log (actor_kind, actor_id, role, action, object_type, object_id, before, after, request_id, request_key, actor_credential)
    values (${actor.kind}, ${actor.id}, ${actor.role}, ${entry.action}, ${entry.objectType}, ${entry.objectId},
            ${before === null ? null : db.json(before)}, ${after === null ? null : db.json(after)},
            ${actor.requestId}, ${actor.requestKey}, ${actor.credential ?? null})
    on conflict (request_key, action, object_type, object_id) do nothing`;
}

export interface AuditFilter {
  /** An exact actor id (a JWT's sub, a system actor) or, as an id's start, every account id that starts so. */
  actorId?: string;
  actorIn?: IdPrefix;
  credential?: string;
  objectType?: string;
  objectId?: string;
  objectIn?: IdPrefix;
  action?: string;
  from?: Date;
  to?: Date;
  /** Rows older than this id (the page token's cursor). */
  beforeId?: bigint;
  limit: number;
}

const COLUMNS = 'id, at, actor_kind, actor_id, role, action, object_type, object_id, before, after, request_id, actor_credential';

function auditWhere(db: Db, f: Omit<AuditFilter, 'limit'>) {
  return db`
    true
    ${
      f.actorIn && f.actorId !== undefined
        ? db`and (actor_id = ${f.actorId} or ${textIdIn(db, 'actor_id', f.actorIn)})`
        : f.actorId !== undefined
          ? db`and actor_id = ${f.actorId}`
          : db``
    }
    ${f.credential !== undefined ? db`and actor_credential = ${f.credential}` : db``}
    ${f.objectType !== undefined ? db`and object_type = ${f.objectType}` : db``}
    ${
      f.objectIn && f.objectId !== undefined
        ? db`and (object_id = ${f.objectId} or ${textIdIn(db, 'object_id', f.objectIn)})`
        : f.objectId !== undefined
          ? db`and object_id = ${f.objectId}`
          : db``
    }
    ${f.action !== undefined ? db`and action = ${f.action}` : db``}
    ${f.from !== undefined ? db`and at >= ${f.from}` : db``}
    ${f.to !== undefined ? db`and at < ${f.to}` : db``}
    ${f.beforeId !== undefined ? db`and id < ${f.beforeId}` : db``}`;
}

/** Newest first (by id: the order rows were written). */
export async function listAudit(db: Db, f: AuditFilter): Promise<AuditRow[]> {
  return db<AuditRow[]>`select ${db.unsafe(COLUMNS)} from audit_log where ${auditWhere(db, f)} order by id desc limit ${f.limit}`;
}

/** The whole selection, newest first, as a cursor of batches (the CSV export). */
export function streamAudit(db: Db, f: Omit<AuditFilter, 'limit'>, batchSize = 500) {
  return db<AuditRow[]>`select ${db.unsafe(COLUMNS)} from audit_log where ${auditWhere(db, f)} order by id desc`.cursor(batchSize);
}
