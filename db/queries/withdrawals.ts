import type { Db } from '../sql';
import type { WithdrawalRecord } from '../../domain/withdrawal-info';
import { eventIdFor } from '../../domain/ids';
import { moveHold, postLedger } from './ledger';
import { ensureSystemWallet } from './wallets';
import { cursorColumn, justAfter, newestFirst, olderThan, type KeysetCursor } from './keyset';

/** The whole row: what merchants see (WithdrawalRecord) plus what only the system and operators use. */
export interface WithdrawalRow extends WithdrawalRecord {
  merchant_id: string;
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
}

export async function findWithdrawal(db: Db, id: string): Promise<WithdrawalRow | undefined> {
  const [row] = await db<WithdrawalRow[]>`select * from withdrawals where id = ${id}`;
  return row;
}

export async function lockWithdrawal(db: Db, id: string): Promise<WithdrawalRow | undefined> {
  const [row] = await db<WithdrawalRow[]>`select * from withdrawals where id = ${id} for update`;
  return row;
}

/** The newest generation of a (merchant, address, amount, fee) key, if any. */
export async function latestWithdrawalByKey(db: Db, merchantId: string, dedupKey: string): Promise<WithdrawalRow | undefined> {
  const [row] = await db<WithdrawalRow[]>`
    select * from withdrawals where merchant_id = ${merchantId} and dedup_key = ${dedupKey}
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
  merchantId: string;
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

/** Inserts the withdrawal and takes its hold (available → frozen) in the caller's transaction. */
export async function insertWithdrawalWithHold(tx: Db, w: NewWithdrawal): Promise<WithdrawalRow> {
  const [row] = await tx<WithdrawalRow[]>`
    insert into withdrawals (id, merchant_id, wallet_id, status, auto, address, amount, fee, net, dedup_key, dedup_generation, idempotency_key, caller_key)
    values (${w.id}, ${w.merchantId}, ${w.walletId}, ${w.auto ? 'PENDING' : 'PENDING_MANUAL'}, ${w.auto}, ${w.address}, ${w.amount},
      ${w.fee}, ${w.amount - w.fee}, ${w.dedupKey}, ${w.dedupGeneration}, ${w.idempotencyKey}, ${w.callerKey})
    returning *`;
  await moveHold(tx, { key: `withdrawal:${w.id}:hold`, kind: 'withdrawal_hold', refType: 'withdrawal', refId: w.id, walletId: w.walletId, amount: w.amount, direction: 'lock' });
  return row!;
}

/** Returns the hold (frozen → available) once. */
export function releaseWithdrawalHold(tx: Db, row: WithdrawalRow): Promise<boolean> {
  return moveHold(tx, { key: `withdrawal:${row.id}:release`, kind: 'withdrawal_release', refType: 'withdrawal', refId: row.id, walletId: row.wallet_id, amount: row.amount, direction: 'release' });
}

/** The transfer went out: the hold is debited, the net leaves to the chain, the fee goes to the platform. */
export async function settleWithdrawal(tx: Db, row: WithdrawalRow): Promise<boolean> {
  const chain = await ensureSystemWallet(tx, 'chain', 'USDT');
  const platform = await ensureSystemWallet(tx, 'platform_fees', 'USDT');
  return postLedger(tx, {
    key: `withdrawal:${row.id}:complete`,
    kind: 'withdrawal_complete',
    refType: 'withdrawal',
    refId: row.id,
    entries: [
      { walletId: row.wallet_id, bucket: 'frozen', amount: -row.amount },
      { walletId: chain, bucket: 'available', amount: row.net },
      { walletId: platform, bucket: 'available', amount: row.fee },
    ],
  });
}

/** A withdrawal event in the outbox (envelope key `withdrawal`); its id is fixed per (withdrawal, type, status). */
export async function writeWithdrawalEvent(tx: Db, row: WithdrawalRow, type: string, payload: Record<string, unknown>): Promise<void> {
  await tx`
    insert into outbox_events (id, merchant_id, deal_id, event_type, payload)
    values (${eventIdFor(row.id, type, row.status)}, ${row.merchant_id}, null, ${type}, ${tx.json(payload as never)})
    on conflict (id) do nothing`;
}

export type WithdrawalCursor = KeysetCursor;

/** Which withdrawals a listing selects: one merchant's or all, by status, by creation window (inclusive). */
export interface WithdrawalSelection {
  merchantId?: string;
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

/** Offset pages, newest first: `skip` rows, then at most `take`; `count` is every match. */
export async function pageWithdrawals(db: Db, f: WithdrawalSelection, skip: number, take: number): Promise<{ rows: WithdrawalRow[]; count: number }> {
  const [rows, [total]] = await Promise.all([
    db<WithdrawalRow[]>`select * from withdrawals where ${withdrawalWhere(db, f)} order by ${newestFirst(db)} offset ${skip} limit ${take}`,
    db<{ count: number }[]>`select count(*)::int as count from withdrawals where ${withdrawalWhere(db, f)}`,
  ]);
  return { rows: [...rows], count: total!.count };
}
