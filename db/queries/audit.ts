/** The audit trail (db/migrations/00001_baseline.sql): append-only rows, written in the transaction of their effect. */
import type { AuditActor, AuditEntry } from '../../domain/audit';
import type { Db } from '../sql';

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
  actorId?: string;
  objectType?: string;
  objectId?: string;
  action?: string;
  from?: Date;
  to?: Date;
  /** Rows older than this id (the page token's cursor). */
  beforeId?: bigint;
  limit: number;
}

/** Newest first (by id: the order rows were written). */
export async function listAudit(db: Db, f: AuditFilter): Promise<AuditRow[]> {
  return db<AuditRow[]>`
    select id, at, actor_kind, actor_id, role, action, object_type, object_id, before, after, request_id
    from audit_log
    where true
      ${f.actorId !== undefined ? db`and actor_id = ${f.actorId}` : db``}
      ${f.objectType !== undefined ? db`and object_type = ${f.objectType}` : db``}
      ${f.objectId !== undefined ? db`and object_id = ${f.objectId}` : db``}
      ${f.action !== undefined ? db`and action = ${f.action}` : db``}
      ${f.from !== undefined ? db`and at >= ${f.from}` : db``}
      ${f.to !== undefined ? db`and at < ${f.to}` : db``}
      ${f.beforeId !== undefined ? db`and id < ${f.beforeId}` : db``}
    order by id desc
    limit ${f.limit}`;
}
