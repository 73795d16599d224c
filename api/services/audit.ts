/** The audit trail as operators read it: newest first, filtered by actor, object, action and time. */
import type { AppDeps } from '../deps';
import { InvalidArgument } from '../../domain/errors';
import { listAudit, type AuditRow } from '../../db/queries/audit';
import { clampPageSize, decodePageToken, encodePageToken } from './page-token';

function presentAudit(row: AuditRow) {
  return {
    id: row.id.toString(),
    at: row.at.toISOString(),
    actor_kind: row.actor_kind,
    actor_id: row.actor_id,
    role: row.role,
    action: row.action,
    object_type: row.object_type,
    object_id: row.object_id,
    before: row.before ?? null,
    after: row.after ?? null,
    request_id: row.request_id,
  };
}

const isAuditCursor = (v: unknown): v is { id: string } =>
  typeof v === 'object' && v !== null && typeof (v as { id: unknown }).id === 'string' && /^\d{1,19}$/.test((v as { id: string }).id);

export async function listAuditPage(
  deps: AppDeps,
  q: { actor?: string; object_type?: string; object_id?: string; action?: string; from?: Date; to?: Date; page_size?: number; page_token?: string },
) {
  if (q.from && q.to && q.to <= q.from)
    throw new InvalidArgument('to must be after from', [{ field: 'to', message: 'must be after from', code: 'invalid_value' }]);
  const scope = `audit:${JSON.stringify([q.actor, q.object_type, q.object_id, q.action, q.from?.toISOString(), q.to?.toISOString()])}`;
  const cursor = q.page_token ? decodePageToken(deps, q.page_token, scope, isAuditCursor) : undefined;
  const size = clampPageSize(q.page_size, 50, 200);
  const rows = await listAudit(deps.sql, {
    actorId: q.actor,
    objectType: q.object_type,
    objectId: q.object_id,
    action: q.action,
    from: q.from,
    to: q.to,
    beforeId: cursor ? BigInt(cursor.id) : undefined,
    limit: size + 1,
  });
  const page = rows.slice(0, size);
  const last = page[page.length - 1];
  return { data: page.map(presentAudit), next_page_token: rows.length > size && last ? encodePageToken(deps, { id: last.id.toString() }, scope) : '' };
}
