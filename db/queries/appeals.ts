import type { Db } from '../sql';
import { APPEAL_ACTIVE, type AppealOutcome, type AppealStatus } from '../../domain/state/appeals';
import type { IdPrefix } from '../../domain/ids';
import { cursorColumn, justAfter, newerThan, newestFirst, oldestFirst, olderThan, type KeysetCursor } from './keyset';
import { uuidIn } from './id-prefix';
import { lockDeal, type DealRow } from './deals';

export interface AppealRow {
  id: string;
  tenant_id: string;
  merchant_id: string;
  deal_id: string;
  status: AppealStatus;
  reason: string;
  file_ids: string[];
  deal_status_at_open: string;
  outcome: AppealOutcome | null;
  resolution_note: string;
  resolved_by: string | null;
  resolved_at: Date | null;
  version: number;
  last_command_id: string | null;
  created_at: Date;
  updated_at: Date;
  /** When an operator must have answered it: opening (or reopening) + APPEAL_RESPONSE_SLA_SECONDS. */
  respond_by: Date;
  /** The operator account working on it, or none. */
  assignee_id: string | null;
  assigned_at: Date | null;
  /** When the deal's trader must have answered: opening + APPEAL_TRADER_RESPONSE_SECONDS. */
  trader_respond_by: Date;
  /** The trader's first answer; null while it has not answered. */
  trader_responded_at: Date | null;
}

/** Who wrote a message: the merchant, the arbiter, or the trader of the deal. */
export type SenderRole = 'MERCHANT' | 'ADMIN' | 'TRADER';
/** The roles whose messages the merchant's thread shows. */
export const MERCHANT_THREAD_ROLES: readonly SenderRole[] = ['MERCHANT', 'ADMIN'];

export interface MessageRow {
  id: string;
  appeal_id: string;
  seq: bigint;
  sender_role: SenderRole;
  sender_id: string;
  body: string;
  file_ids: string[];
  created_at: Date;
}

export async function findAppeal(db: Db, appealId: string): Promise<AppealRow | undefined> {
  const [row] = await db<AppealRow[]>`select * from appeals where id = ${appealId}`;
  return row;
}

/** Within the caller's scope: a foreign appeal is simply not found. */
export async function findMerchantAppeal(db: Db, merchantId: string, appealId: string): Promise<AppealRow | undefined> {
  const [row] = await db<AppealRow[]>`select * from appeals where id = ${appealId} and merchant_id = ${merchantId}`;
  return row;
}

export async function lockAppeal(tx: Db, appealId: string): Promise<AppealRow | undefined> {
  const [row] = await tx<AppealRow[]>`select * from appeals where id = ${appealId} for no key update`;
  return row;
}

export async function findAppealOfDeal(db: Db, dealId: string): Promise<AppealRow | undefined> {
  const [row] = await db<AppealRow[]>`select * from appeals where deal_id = ${dealId}`;
  return row;
}

export type AppealCursor = KeysetCursor;

export type ListedAppeal = AppealRow & { cursor_ts: string };

/** Which appeals a listing selects: one merchant's or every merchant's (the arbiter's queue), by status and creation window (inclusive). */
export interface AppealSelection {
  merchantId?: string;
  /** The operator's filters: a whole id or its start (domain/ids.ts). */
  merchantIn?: IdPrefix;
  idIn?: IdPrefix;
  /** Absent or empty: any status. */
  statuses?: string[];
  createdAfter?: Date;
  createdBefore?: Date;
  /** An operator account's appeals, or 'none': those nobody is assigned to. */
  assignee?: string;
  /** Only appeals still waiting for an answer (APPEAL_ACTIVE: its deadline runs) whose respond_by is before this. */
  overdueAt?: Date;
}

function appealWhere(db: Db, f: AppealSelection, after?: AppealCursor, oldest = false) {
  return db`
    true
    ${f.merchantId ? db`and merchant_id = ${f.merchantId}` : db``}
    ${f.merchantIn ? db`and ${uuidIn(db, 'merchant_id', f.merchantIn)}` : db``}
    ${f.idIn ? db`and ${uuidIn(db, 'id', f.idIn)}` : db``}
    ${f.statuses && f.statuses.length > 0 ? db`and status = any(${f.statuses})` : db``}
    ${f.createdAfter ? db`and created_at >= ${f.createdAfter}` : db``}
    ${f.createdBefore ? db`and created_at < ${justAfter(f.createdBefore)}` : db``}
    ${f.assignee === 'none' ? db`and assignee_id is null` : f.assignee ? db`and assignee_id = ${f.assignee}` : db``}
    ${f.overdueAt ? db`and status = any(${[...APPEAL_ACTIVE]}) and respond_by < ${f.overdueAt}` : db``}
    ${oldest ? newerThan(db, after) : olderThan(db, after)}`;
}

/** Newest first on (created_at, id), like the deal listing; `oldest`: the queue's order, oldest first. */
export async function listAppeals(db: Db, f: AppealSelection, limit: number, after?: AppealCursor, oldest = false): Promise<ListedAppeal[]> {
  return db<ListedAppeal[]>`
    select *, ${cursorColumn(db)}
    from appeals
    where ${appealWhere(db, f, after, oldest)}
    order by ${oldest ? oldestFirst(db) : newestFirst(db)}
    limit ${limit}`;
}

/** The whole selection, newest (or oldest) first, as a cursor of batches (the operator's CSV export). */
export function streamAppeals(db: Db, f: AppealSelection, oldest = false, batchSize = 500) {
  return db<AppealRow[]>`select * from appeals where ${appealWhere(db, f)} order by ${oldest ? oldestFirst(db) : newestFirst(db)}`.cursor(batchSize);
}

/** Offset pages, newest first: `skip` rows, then at most `take`; `count` is every match. */
export async function pageAppeals(db: Db, f: AppealSelection, skip: number, take: number): Promise<{ rows: AppealRow[]; count: number }> {
  const [rows, [total]] = await Promise.all([
    db<AppealRow[]>`select * from appeals where ${appealWhere(db, f)} order by ${newestFirst(db)} offset ${skip} limit ${take}`,
    db<{ count: number }[]>`select count(*)::int as count from appeals where ${appealWhere(db, f)}`,
  ]);
  return { rows: [...rows], count: total!.count };
}

export async function insertMessage(
  db: Db,
  m: { id: string; appealId: string; senderRole: SenderRole; senderId: string; body: string; fileIds: string[] },
): Promise<MessageRow> {
  const [row] = await db<MessageRow[]>`
    insert into appeal_messages (id, appeal_id, sender_role, sender_id, body, file_ids)
    values (${m.id}, ${m.appealId}, ${m.senderRole}, ${m.senderId}, ${m.body}, ${m.fileIds}::uuid[])
    returning *`;
  return row!;
}

/** The thread, oldest first: every message, or those of these sender roles. */
export async function messagesOf(db: Db, appealId: string, roles?: readonly SenderRole[]): Promise<MessageRow[]> {
  return db<MessageRow[]>`
    select * from appeal_messages where appeal_id = ${appealId}
    ${roles ? db`and sender_role = any(${[...roles]})` : db``}
    order by seq`;
}

/** The latest message of one sender role in each of these appeals (appeals without one are absent). */
export async function latestMessagesOf(db: Db, appealIds: string[], senderRole: 'MERCHANT' | 'ADMIN'): Promise<MessageRow[]> {
  if (appealIds.length === 0) return [];
  return db<MessageRow[]>`
    select distinct on (appeal_id) * from appeal_messages
    where appeal_id = any(${appealIds}::uuid[]) and sender_role = ${senderRole}
    order by appeal_id, seq desc`;
}

export interface SettlementRow {
  appeal_id: string;
  deal_id: string;
  idempotency_key: string;
  received_amount_override: bigint | null;
  reason: string;
  operator_id: string;
  created_at: Date;
}

export async function findSettlement(db: Db, appealId: string): Promise<SettlementRow | undefined> {
  const [row] = await db<SettlementRow[]>`select * from appeal_settlements where appeal_id = ${appealId}`;
  return row;
}

// ---- Appeal steps (the activities) ----

/** The deal an appeal belongs to, read without a lock (the step locks the deal first, then the appeal). */
async function appealDealId(db: Db, appealId: string): Promise<string | undefined> {
  const [row] = await db<{ deal_id: string }[]>`select deal_id from appeals where id = ${appealId}`;
  return row?.deal_id;
}

/** The deal (locked first) and then the appeal (locked): the lock order of every appeal step; undefined when either is missing. */
export async function lockDealAndAppeal(tx: Db, appealId: string): Promise<{ deal: DealRow; appeal: AppealRow } | undefined> {
  const dealId = await appealDealId(tx, appealId);
  if (!dealId) return undefined;
  const deal = await lockDeal(tx, dealId);
  const appeal = await lockAppeal(tx, appealId);
  return deal && appeal ? { deal, appeal } : undefined;
}

/** Opens the appeal of a deal; the appeal id is also the id of the command that opened it. It must be answered within `respondWithinSeconds`. */
export async function insertAppeal(
  tx: Db,
  a: {
    id: string;
    tenantId: string;
    merchantId: string;
    dealId: string;
    reason: string;
    fileIds: string[];
    dealStatusAtOpen: string;
    respondWithinSeconds: number;
    /** The deal's trader answers within this long: trader_respond_by. */
    traderRespondWithinSeconds: number;
  },
): Promise<AppealRow> {
  const [row] = await tx<AppealRow[]>`
    insert into appeals (id, tenant_id, merchant_id, deal_id, status, reason, file_ids, deal_status_at_open, last_command_id, respond_by,
      trader_respond_by)
    values (${a.id}, ${a.tenantId}, ${a.merchantId}, ${a.dealId}, 'OPEN', ${a.reason},
      ${a.fileIds}::uuid[], ${a.dealStatusAtOpen}, ${a.id}, now() + make_interval(secs => ${a.respondWithinSeconds}),
      now() + make_interval(secs => ${a.traderRespondWithinSeconds}))
    returning *`;
  return row!;
}

export interface AppealChanges {
  outcome?: string;
  note?: string;
  resolvedBy?: string;
  /** Stamps resolved_at now. */
  resolved?: boolean;
  /** Clears resolved_at. */
  reopened?: boolean;
  /** A new deadline: respond_by = now + this many seconds (a reopened appeal waits again). */
  respondWithinSeconds?: number;
}

/** A move of the appeal (the caller locked `appeal`): the new status, version + 1, and what the move sets. */
export async function setAppealStatus(tx: Db, appeal: AppealRow, to: AppealStatus, commandId: string, extra: AppealChanges = {}): Promise<AppealRow> {
  const [updated] = await tx<AppealRow[]>`
    update appeals set status = ${to}, version = version + 1, last_command_id = ${commandId}, updated_at = now(),
      outcome = ${extra.outcome ?? appeal.outcome},
      resolution_note = ${extra.note ?? appeal.resolution_note},
      resolved_by = ${extra.resolvedBy ?? appeal.resolved_by},
      resolved_at = ${extra.resolved ? tx`now()` : extra.reopened ? null : appeal.resolved_at},
      respond_by = ${extra.respondWithinSeconds !== undefined ? tx`now() + make_interval(secs => ${extra.respondWithinSeconds})` : appeal.respond_by}
    where id = ${appeal.id} returning *`;
  return updated!;
}

/** Links the settlement deal to its appeal (one per appeal), with the request that made it. */
export async function insertSettlement(
  tx: Db,
  s: { appealId: string; dealId: string; idempotencyKey: string; receivedAmountOverride: bigint | null; reason: string; operatorId: string },
): Promise<void> {
  await tx`
    insert into appeal_settlements (appeal_id, deal_id, idempotency_key, received_amount_override, reason, operator_id)
    values (${s.appealId}, ${s.dealId}, ${s.idempotencyKey}, ${s.receivedAmountOverride}, ${s.reason}, ${s.operatorId})`;
}

// ---- The case: assignee and the operators' attachments ----

/** Sets (or, with null, clears) the appeal's assignee; the caller locked the appeal. */
export async function setAppealAssignee(tx: Db, appealId: string, assigneeId: string | null): Promise<AppealRow> {
  const [row] = await tx<AppealRow[]>`
    update appeals set assignee_id = ${assigneeId}, assigned_at = ${assigneeId === null ? null : tx`now()`}
    where id = ${appealId} returning *`;
  return row!;
}

export interface AttachmentRow {
  appeal_id: string;
  file_id: string;
  note: string;
  attached_by: string;
  created_at: Date;
}

/** Attaches files to the appeal; a file attached already stays as it was. Answers the rows written. */
export async function insertAttachments(tx: Db, appealId: string, fileIds: string[], note: string, attachedBy: string): Promise<AttachmentRow[]> {
  if (fileIds.length === 0) return [];
  return tx<AttachmentRow[]>`
    insert into appeal_attachments (appeal_id, file_id, note, attached_by)
    select ${appealId}, f, ${note}, ${attachedBy} from unnest(${fileIds}::uuid[]) as f
    on conflict (appeal_id, file_id) do nothing
    returning *`;
}

/** The operators' attachments of an appeal, oldest first. */
export async function attachmentsOf(db: Db, appealId: string): Promise<AttachmentRow[]> {
  return db<AttachmentRow[]>`select * from appeal_attachments where appeal_id = ${appealId} order by created_at, file_id`;
}

// ---- The trader's side ----

/** An appeal with its deal's trader and the deal's amount (the trader's listing and case). */
export type TraderAppealRow = AppealRow & { trader_id: string; amount: bigint; currency: string; deal_status: string };

const TRADER_APPEAL_COLUMNS = (db: Db) => db`a.*, d.trader_id, d.amount, d.currency, d.status as deal_status`;

/**
 * The appeals on the trader's deals: those still waiting for the arbiter first (the earliest
 * trader_respond_by first), then the rest, newest first. At most `limit`.
 */
export async function listTraderAppeals(db: Db, traderId: string, limit: number): Promise<TraderAppealRow[]> {
  return db<TraderAppealRow[]>`
    select ${TRADER_APPEAL_COLUMNS(db)} from appeals a join deals d on d.id = a.deal_id
    where d.trader_id = ${traderId}
    order by (a.status = any(${[...APPEAL_ACTIVE]})) desc,
      case when a.status = any(${[...APPEAL_ACTIVE]}) then a.trader_respond_by end asc,
      a.created_at desc, a.id desc
    limit ${limit}`;
}

/** Within the trader's scope: an appeal on another trader's deal is simply not found. */
export async function findTraderAppeal(db: Db, traderId: string, appealId: string): Promise<TraderAppealRow | undefined> {
  const [row] = await db<TraderAppealRow[]>`
    select ${TRADER_APPEAL_COLUMNS(db)} from appeals a join deals d on d.id = a.deal_id
    where a.id = ${appealId} and d.trader_id = ${traderId}`;
  return row;
}

/** The trader of the appeal's deal (null: none). */
export async function traderOfAppeal(db: Db, appealId: string): Promise<{ trader_id: string; name: string } | undefined> {
  const [row] = await db<{ trader_id: string; name: string }[]>`
    select t.id as trader_id, t.name from appeals a join deals d on d.id = a.deal_id join traders t on t.id = d.trader_id
    where a.id = ${appealId}`;
  return row;
}

/** Stamps the trader's first answer (the caller locked the appeal); a later answer keeps the first time. */
export async function markTraderAnswered(tx: Db, appealId: string): Promise<AppealRow> {
  const [row] = await tx<AppealRow[]>`
    update appeals set trader_responded_at = coalesce(trader_responded_at, now()) where id = ${appealId} returning *`;
  return row!;
}

/** The database's clock: the deadline is judged on it, as the step that stamps answers judges it. */
export async function databaseNow(db: Db): Promise<Date> {
  const [row] = await db<{ now: Date }[]>`select now() as now`;
  return row!.now;
}
