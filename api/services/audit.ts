/**
 * The audit trail as operators read it: newest first, filtered by actor, credential, object,
 * action and time; each row with who acted (the account's email, the JWT, the session or token)
 * and what the object is called.
 */
import type { AppDeps } from '../deps';
import { exportFileName } from '../../domain/csv';
import { InvalidArgument } from '../../domain/errors';
import { idPrefix } from '../../domain/ids';
import { listAudit, streamAudit, type AuditFilter, type AuditRow } from '../../db/queries/audit';
import { merchantNames } from '../../db/queries/merchants';
import { accountNames } from '../../db/queries/accounts';
import { traderNames } from '../../db/queries/traders';
import { deviceNames } from '../../db/queries/bank-devices';
import { csvExport } from './csv-export';
import { clampPageSize, decodePageToken, encodePageToken } from './page-token';

interface AuditNames {
  /** Accounts of every party: operators, merchant members. */
  accounts: Map<string, { email: string }>;
  merchants: Map<string, string>;
  traders: Map<string, string>;
  /** Bank devices, as "<device> of <trader>": actors (their confirmations) and objects (pairing, revocation). */
  devices: Map<string, string>;
}

/** The actor kinds that are accounts (their actor_id is the account's id). */
const ACCOUNT_ACTORS = new Set(['operator_account', 'merchant_account', 'trader_account']);

/** The people and objects of these rows, by id, in three reads. */
async function namesOf(deps: AppDeps, rows: AuditRow[]): Promise<AuditNames> {
  const ids = (type: string) => rows.filter((r) => r.object_type === type).map((r) => r.object_id);
  const people = rows.filter((r) => ACCOUNT_ACTORS.has(r.actor_kind)).map((r) => r.actor_id);
  const devices = [...rows.filter((r) => r.actor_kind === 'bank_device').map((r) => r.actor_id), ...ids('bank_device')];
  const [accounts, merchants, traders, deviceNamed] = await Promise.all([
    accountNames(deps.sql, [...people, ...ids('operator'), ...ids('merchant_member')]),
    merchantNames(
      deps.sql,
      ids('merchant').filter((id) => idPrefix(id)?.lo === id),
    ),
    traderNames(
      deps.sql,
      ids('trader').filter((id) => idPrefix(id)?.lo === id),
    ),
    deviceNames(deps.sql, devices),
  ]);
  return { accounts, merchants, traders, devices: deviceNamed };
}

function actorName(row: AuditRow, names: AuditNames): string {
  switch (row.actor_kind) {
    case 'operator_account':
    case 'merchant_account':
    case 'trader_account':
      return names.accounts.get(row.actor_id)?.email ?? row.actor_id;
    case 'operator_jwt':
      return `operator JWT ${row.actor_id}`;
    case 'merchant_jwt':
      return `cabinet JWT ${row.actor_id}`;
    case 'anonymous':
      return `failed sign-in from ${row.actor_id}`;
    case 'bank_device':
      return `bank device ${names.devices.get(row.actor_id) ?? row.actor_id}`;
    default:
      return row.actor_id;
  }
}

function objectName(row: AuditRow, names: AuditNames): string {
  if (row.object_type === 'merchant') return names.merchants.get(row.object_id) ?? '';
  if (row.object_type === 'trader') return names.traders.get(row.object_id) ?? '';
  if (row.object_type === 'bank_device') return names.devices.get(row.object_id) ?? '';
  if (row.object_type === 'operator' || row.object_type === 'merchant_member') return names.accounts.get(row.object_id)?.email ?? '';
  return '';
}

function presentAudit(row: AuditRow, names: AuditNames) {
  return {
    id: row.id.toString(),
    at: row.at.toISOString(),
    actor_kind: row.actor_kind,
    actor_id: row.actor_id,
    actor_name: actorName(row, names),
    actor_email: ACCOUNT_ACTORS.has(row.actor_kind) ? (names.accounts.get(row.actor_id)?.email ?? '') : '',
    actor_credential: row.actor_credential ?? '',
    role: row.role,
    action: row.action,
    object_type: row.object_type,
    object_id: row.object_id,
    object_name: objectName(row, names),
    before: row.before ?? null,
    after: row.after ?? null,
    request_id: row.request_id,
  };
}

const isAuditCursor = (v: unknown): v is { id: string } =>
  typeof v === 'object' && v !== null && typeof (v as { id: unknown }).id === 'string' && /^\d{1,19}$/.test((v as { id: string }).id);

export interface AuditQuery {
  actor?: string;
  credential?: string;
  object_type?: string;
  object_id?: string;
  action?: string;
  from?: Date;
  to?: Date;
}

/** The query as the table's filter: an actor or object id may be given by its start. */
function filterOf(q: AuditQuery): Omit<AuditFilter, 'limit'> {
  if (q.from && q.to && q.to <= q.from)
    throw new InvalidArgument('to must be after from', [{ field: 'to', message: 'must be after from', code: 'invalid_value' }]);
  const actorIn = q.actor === undefined ? undefined : idPrefix(q.actor);
  const objectIn = q.object_id === undefined ? undefined : idPrefix(q.object_id);
  return {
    actorId: q.actor,
    ...(actorIn ? { actorIn } : {}),
    credential: q.credential,
    objectType: q.object_type,
    objectId: q.object_id,
    ...(objectIn ? { objectIn } : {}),
    action: q.action,
    from: q.from,
    to: q.to,
  };
}

const filterText = (q: AuditQuery) => ({
  actor: q.actor,
  credential: q.credential,
  object: q.object_type,
  id: q.object_id,
  action: q.action,
  from: q.from?.toISOString(),
  to: q.to?.toISOString(),
});

export async function listAuditPage(deps: AppDeps, q: AuditQuery & { page_size?: number; page_token?: string }) {
  const filter = filterOf(q);
  const scope = `audit:${JSON.stringify(Object.values(filterText(q)))}`;
  const cursor = q.page_token ? decodePageToken(deps, q.page_token, scope, isAuditCursor) : undefined;
  const size = clampPageSize(q.page_size, 50, 200);
  const rows = await listAudit(deps.sql, { ...filter, beforeId: cursor ? BigInt(cursor.id) : undefined, limit: size + 1 });
  const page = rows.slice(0, size);
  const last = page[page.length - 1];
  const names = await namesOf(deps, page);
  return {
    data: page.map((row) => presentAudit(row, names)),
    next_page_token: rows.length > size && last ? encodePageToken(deps, { id: last.id.toString() }, scope) : '',
  };
}

const AUDIT_CSV = [
  'id',
  'at',
  'actor_kind',
  'actor_id',
  'actor_name',
  'actor_credential',
  'role',
  'action',
  'object_type',
  'object_id',
  'object_name',
  'before',
  'after',
  'request_id',
] as const;

/** Every row the filters select, newest first, as CSV (before and after as JSON text). */
export async function exportAudit(deps: AppDeps, q: AuditQuery) {
  return csvExport(exportFileName('audit', filterText(q)), AUDIT_CSV, streamAudit(deps.sql, filterOf(q)), async (batch) => {
    const names = await namesOf(deps, batch);
    return batch.map((row) => {
      const entry = presentAudit(row, names);
      const cells: Record<(typeof AUDIT_CSV)[number], string> = {
        ...entry,
        before: entry.before === null ? '' : JSON.stringify(entry.before),
        after: entry.after === null ? '' : JSON.stringify(entry.after),
      };
      return AUDIT_CSV.map((column) => cells[column]);
    });
  });
}
