import type { Db } from '../sql';
import type { WithdrawalRecord } from '../../domain/records/withdrawal-info';
import type { IdPrefix } from '../../domain/ids';
import { cursorColumn, justAfter, newestFirst, olderThan, type KeysetCursor } from './keyset';
import { uuidIn } from './id-prefix';

/** The whole row: what merchants see (WithdrawalRecord) plus what only the system and operators use. */
export interface WithdrawalRow extends WithdrawalRecord {
  /** The owner: a merchant's withdrawal or a trader's (db/queries/trader-money.ts); the other is null. */
  merchant_id: string | null;
  trader_id: string | null;
  wallet_id: string;
  dedup_key: string;
  dedup_generation: number;
  /** The explicit caller key (V1 requestId) the withdrawal is keyed by; null for V2's server-side key. */
  caller_key: string | null;
  broadcast_attempts: number;
  broadcast_started_at: Date | null;
  last_broadcast_error: string;
  approved_by: string;
  cancelled_by: string;
  /** The merchant's world at insert (the `withdrawals_sandbox` trigger); the world of every posting of the withdrawal. */
  sandbox: boolean;
}

export async function findWithdrawal(db: Db, id: string): Promise<WithdrawalRow | undefined> {
  const [row] = await db<WithdrawalRow[]>`select * from withdrawals where id = ${id}`;
  return row;
}

export async function lockWithdrawal(db: Db, id: string): Promise<WithdrawalRow | undefined> {
  const [row] = await db<WithdrawalRow[]>`select * from withdrawals where id = ${id} for no key update`;
  return row;
}

/** The newest generation of a (merchant, address, amount, fee) key, if any. */
export async function latestWithdrawalByKey(db: Db, merchantId: string, dedupKey: string): Promise<WithdrawalRow | undefined> {
  const [row] = await db<WithdrawalRow[]>`
    select * from withdrawals where merchant_id = ${merchantId} and dedup_key = ${dedupKey}
    order by dedup_generation desc limit 1`;
  return row;
}

/** The newest generation of a trader's (address, amount, fee) key, if any. */
export async function latestTraderWithdrawalByKey(db: Db, traderId: string, dedupKey: string): Promise<WithdrawalRow | undefined> {
  const [row] = await db<WithdrawalRow[]>`
    select * from withdrawals where trader_id = ${traderId} and dedup_key = ${dedupKey}
    order by dedup_generation desc limit 1`;
  return row;
}

/** The withdrawal of an explicit caller key (the V1 requestId), if any (unique per merchant). */
export async function findWithdrawalByCallerKey(db: Db, merchantId: string, callerKey: string): Promise<WithdrawalRow | undefined> {
  const [row] = await db<WithdrawalRow[]>`select * from withdrawals where merchant_id = ${merchantId} and caller_key = ${callerKey}`;
  return row;
}

export interface NewWithdrawal {
  id: string;
  /** One of the two: the merchant's or the trader's withdrawal. */
  merchantId: string | null;
  traderId?: string | null;
  walletId: string;
  auto: boolean;
  address: string;
  amount: bigint;
  fee: bigint;
  dedupKey: string;
  dedupGeneration: number;
  idempotencyKey: string;
  callerKey: string | null;
}

/** Inserts the withdrawal (PENDING when auto-processed, else PENDING_MANUAL) in the caller's transaction. */
export async function insertWithdrawal(tx: Db, w: NewWithdrawal): Promise<WithdrawalRow> {
  const [row] = await tx<WithdrawalRow[]>`
    insert into withdrawals (id, merchant_id, trader_id, wallet_id, status, auto, address, amount, fee, net, dedup_key, dedup_generation, idempotency_key, caller_key)
    values (${w.id}, ${w.merchantId}, ${w.traderId ?? null}, ${w.walletId}, ${w.auto ? 'PENDING' : 'PENDING_MANUAL'}, ${w.auto}, ${w.address}, ${w.amount},
      ${w.fee}, ${w.amount - w.fee}, ${w.dedupKey}, ${w.dedupGeneration}, ${w.idempotencyKey}, ${w.callerKey})
    returning *`;
  return row!;
}

/** A move of the withdrawal's table: the new status and the columns the move sets. */
export async function updateWithdrawal(tx: Db, id: string, status: string, changes: Record<string, unknown>): Promise<WithdrawalRow> {
  const [updated] = await tx<WithdrawalRow[]>`
    update withdrawals set ${tx({ ...changes, status } as Record<string, string>, ...(['status', ...Object.keys(changes)] as [string]))}, updated_at = now()
    where id = ${id} returning *`;
  return updated!;
}

/** The broadcast's intent, committed before every send. */
export async function recordBroadcastAttempt(tx: Db, id: string): Promise<WithdrawalRow> {
  const [updated] = await tx<WithdrawalRow[]>`
    update withdrawals set broadcast_attempts = broadcast_attempts + 1, broadcast_started_at = coalesce(broadcast_started_at, now()), updated_at = now()
    where id = ${id} returning *`;
  return updated!;
}

export async function recordBroadcastError(db: Db, id: string, message: string): Promise<void> {
  await db`update withdrawals set last_broadcast_error = ${message} where id = ${id}`;
}

type WithdrawalCursor = KeysetCursor;

/** Which withdrawals a listing selects: one merchant's or all, by status, by creation window (inclusive). */
export interface WithdrawalSelection {
  merchantId?: string;
  /** One trader's withdrawals (the trader app). */
  traderId?: string;
  /** The operator's filters: a whole id or its start (domain/ids.ts). */
  merchantIn?: IdPrefix;
  idIn?: IdPrefix;
  /** undefined: any status. */
  statuses?: readonly string[];
  createdAfter?: Date;
  createdBefore?: Date;
}

export interface WithdrawalFilter extends WithdrawalSelection {
  after?: WithdrawalCursor;
  limit: number;
}

function withdrawalWhere(db: Db, f: WithdrawalSelection, after?: WithdrawalCursor) {
  return db`
    true
    ${f.merchantId ? db`and merchant_id = ${f.merchantId}` : db``}
    ${f.traderId ? db`and trader_id = ${f.traderId}` : db``}
    ${f.merchantIn ? db`and ${uuidIn(db, 'merchant_id', f.merchantIn)}` : db``}
    ${f.idIn ? db`and ${uuidIn(db, 'id', f.idIn)}` : db``}
    ${f.statuses ? db`and status = any(${f.statuses as string[]})` : db``}
    ${f.createdAfter ? db`and created_at >= ${f.createdAfter}` : db``}
    ${f.createdBefore ? db`and created_at < ${justAfter(f.createdBefore)}` : db``}
    ${olderThan(db, after)}`;
}

/** Newest first on (created_at, id); `cursor_ts` keeps microseconds for the next page's token. */
export async function listWithdrawals(db: Db, f: WithdrawalFilter): Promise<(WithdrawalRow & { cursor_ts: string })[]> {
  return db<(WithdrawalRow & { cursor_ts: string })[]>`
    select *, ${cursorColumn(db)}
    from withdrawals
    where ${withdrawalWhere(db, f, f.after)}
    order by ${newestFirst(db)}
    limit ${f.limit}`;
}

/** The whole selection, newest first, as a cursor of batches (the operator's CSV export). */
export function streamWithdrawals(db: Db, f: WithdrawalSelection, batchSize = 500) {
  return db<WithdrawalRow[]>`select * from withdrawals where ${withdrawalWhere(db, f)} order by ${newestFirst(db)}`.cursor(batchSize);
}

/** Offset pages, newest first: `skip` rows, then at most `take`; `count` is every match. */
export async function pageWithdrawals(db: Db, f: WithdrawalSelection, skip: number, take: number): Promise<{ rows: WithdrawalRow[]; count: number }> {
  const [rows, [total]] = await Promise.all([
    db<WithdrawalRow[]>`select * from withdrawals where ${withdrawalWhere(db, f)} order by ${newestFirst(db)} offset ${skip} limit ${take}`,
    db<{ count: number }[]>`select count(*)::int as count from withdrawals where ${withdrawalWhere(db, f)}`,
  ]);
  return { rows: [...rows], count: total!.count };
}

// ---- Four-eyes approvals (withdrawal_approvals) ----

export interface ApprovalRow {
  withdrawal_id: string;
  approver: string;
  role: string;
  request_key: string;
  at: Date;
}

export async function listApprovals(db: Db, withdrawalIds: string[]): Promise<ApprovalRow[]> {
  if (withdrawalIds.length === 0) return [];
  return db<ApprovalRow[]>`select * from withdrawal_approvals where withdrawal_id = any(${withdrawalIds}::uuid[]) order by at, approver`;
}

export async function insertApproval(tx: Db, a: { withdrawalId: string; approver: string; role: string; requestKey: string }): Promise<void> {
  await tx`insert into withdrawal_approvals (withdrawal_id, approver, role, request_key) values (${a.withdrawalId}, ${a.approver}, ${a.role}, ${a.requestKey})`;
}

/**
 * The console accounts behind approvals (`operator_account:<id>`), as they are now: role and
 * whether disabled. With `lock` (the releasing step) the rows are held FOR SHARE, so a disable or a
 * role change racing the release waits for it or is seen by it.
 */
export async function approverAccounts(
  db: Db,
  accountIds: string[],
  options: { lock?: boolean } = {},
): Promise<Map<string, { role: string; disabled: boolean }>> {
  const ids = [...new Set(accountIds)].filter((id) => /^[0-9a-f-]{36}$/i.test(id)).sort();
  if (ids.length === 0) return new Map();
  const rows = await db<{ id: string; role: string; disabled: boolean }[]>`
    select id, role, disabled_at is not null as disabled from accounts where id = any(${ids}::uuid[]) and party = 'operator'
    order by id ${options.lock ? db`for share` : db``}`;
  return new Map(rows.map((r) => [r.id, { role: r.role, disabled: r.disabled }]));
}
