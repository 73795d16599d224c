/** The console's home (queue counts and ages) and the audit trail's listing (issue 28.3, 28.4). */
import type { AppDeps } from '../deps';
import { InvalidArgument } from '../../domain/errors';
import { PAYIN_TERMINAL } from '../../domain/payin';
import { PAYOUT_TERMINAL } from '../../domain/payout';
import { listAudit, type AuditRow } from '../../db/queries/audit';
import { queueCounts, type QueueCount } from '../../db/queries/queues';
import { clampPageSize, decodePageToken, encodePageToken } from './page-token';

export async function consoleQueues(deps: AppDeps) {
  const nowMs = deps.now();
  const counts = await queueCounts(deps.sql, {
    terminalDealStatuses: [...new Set([...PAYIN_TERMINAL, ...PAYOUT_TERMINAL])],
    stuckBefore: new Date(nowMs - deps.config.DEAL_STUCK_SLA_SECONDS * 1000),
    fourEyesAbove: deps.config.WITHDRAWAL_FOUR_EYES_ABOVE_USDT_CENTS,
  });
  const present = (q: QueueCount) => ({
    count: q.count,
    oldest_at: q.oldest?.toISOString() ?? '',
    oldest_age_seconds: q.oldest ? Math.max(0, Math.floor((nowMs - q.oldest.getTime()) / 1000)) : 0,
  });
  return {
    appeals_waiting: { ...present(counts.appeals), sandbox_count: counts.appeals.sandbox },
    withdrawals_waiting: {
      ...present(counts.withdrawals),
      awaiting_second_approval: counts.withdrawals.awaiting_second_approval,
      sandbox_count: counts.withdrawals.sandbox,
    },
    open_alerts: { ...present(counts.alerts), sandbox_count: counts.alerts.sandbox },
    stuck_deals: { ...present(counts.stuck_deals), sla_seconds: deps.config.DEAL_STUCK_SLA_SECONDS },
    generated_at: new Date(nowMs).toISOString(),
  };
}

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
