/**
 * The TRON transactions of a withdrawal (CHAIN_ADAPTER=trongrid): each is stored, signed, before
 * its first broadcast, and rebroadcast from here on a retry. At most one is live (SIGNED or
 * BROADCAST: it may still reach a block); the partial unique index withdrawal_transactions_live
 * makes a second live one impossible, so two racing attempts can never both sign and send.
 */
import type { Db } from '../sql';

export type WithdrawalTransactionStatus = 'SIGNED' | 'BROADCAST' | 'CONFIRMED' | 'FAILED' | 'EXPIRED';
export type DeadVerdict = 'FAILED' | 'EXPIRED';
export const LIVE_TRANSACTION_STATUSES: readonly WithdrawalTransactionStatus[] = ['SIGNED', 'BROADCAST'];

export interface WithdrawalTransactionRow {
  txid: string;
  withdrawal_id: string;
  attempt: number;
  raw_data_hex: string;
  signature: string;
  fee_limit_sun: bigint;
  built_at: Date;
  expires_at: Date;
  status: WithdrawalTransactionStatus;
  broadcasts: number;
  last_broadcast_at: Date | null;
  block_number: bigint | null;
  receipt_result: string;
  fee_sun: bigint | null;
  last_error: string;
  /** A dead verdict noted by an earlier receipt check and not yet taken ('' when none): see noteDeadVerdict. */
  dead_verdict: '' | DeadVerdict;
  /** When that verdict was first seen (null when none). */
  dead_seen_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

/** The newest transaction of the withdrawal, whatever its status. */
export async function latestWithdrawalTransaction(db: Db, withdrawalId: string): Promise<WithdrawalTransactionRow | undefined> {
  const [row] = await db<WithdrawalTransactionRow[]>`
    select * from withdrawal_transactions where withdrawal_id = ${withdrawalId} order by attempt desc limit 1`;
  return row;
}

export interface NewWithdrawalTransaction {
  txid: string;
  withdrawalId: string;
  attempt: number;
  rawDataHex: string;
  signature: string;
  feeLimitSun: bigint;
  builtAt: Date;
  expiresAt: Date;
}

/**
 * Stores a signed transaction (committed by the caller before any broadcast). Undefined when the
 * withdrawal already has a live one or this attempt number is taken (a concurrent attempt won:
 * use its transaction, never this one).
 */
export async function insertWithdrawalTransaction(db: Db, t: NewWithdrawalTransaction): Promise<WithdrawalTransactionRow | undefined> {
  const [row] = await db<WithdrawalTransactionRow[]>`
    insert into withdrawal_transactions (txid, withdrawal_id, attempt, raw_data_hex, signature, fee_limit_sun, built_at, expires_at)
    values (${t.txid}, ${t.withdrawalId}, ${t.attempt}, ${t.rawDataHex}, ${t.signature}, ${t.feeLimitSun}, ${t.builtAt}, ${t.expiresAt})
    on conflict do nothing
    returning *`;
  return row;
}

/** One broadcast of the stored bytes: accepted (status BROADCAST) or answered with `error` (kept live: the chain decides). */
export async function noteBroadcast(db: Db, txid: string, error: string): Promise<void> {
  await db`
    update withdrawal_transactions
    set broadcasts = broadcasts + 1, last_broadcast_at = now(), last_error = ${error},
      status = case when status = 'SIGNED' and ${error}::text = '' then 'BROADCAST' else status end, updated_at = now()
    where txid = ${txid}`;
}

/** A live transaction's end, as the chain showed it. Only a live one moves (a repeat changes nothing). */
export async function settleWithdrawalTransaction(
  db: Db,
  txid: string,
  end: { status: 'CONFIRMED' | 'FAILED' | 'EXPIRED'; blockNumber?: bigint; receiptResult?: string; feeSun?: bigint; error?: string },
): Promise<void> {
  await db`
    update withdrawal_transactions
    set status = ${end.status}, block_number = ${end.blockNumber ?? null}, receipt_result = ${end.receiptResult ?? ''},
      fee_sun = ${end.feeSun ?? null}, last_error = ${end.error ?? ''}, updated_at = now()
    where txid = ${txid} and status in ('SIGNED', 'BROADCAST')`;
}

/**
 * One receipt check's verdict that the live transaction is dead. Answers since when the same
 * verdict has stood (`at` on its first sighting, the earlier time when a previous check saw it
 * too), or undefined when the transaction is no longer live. The caller takes the verdict only
 * once it has stood for a poll (`dead_verdict`, `dead_seen_at`).
 */
export async function noteDeadVerdict(db: Db, txid: string, verdict: DeadVerdict, at: Date): Promise<Date | undefined> {
  const [row] = await db<{ dead_seen_at: Date }[]>`
    update withdrawal_transactions
    set dead_seen_at = case when dead_verdict = ${verdict} then dead_seen_at else ${at} end, dead_verdict = ${verdict}, updated_at = now()
    where txid = ${txid} and status in ('SIGNED', 'BROADCAST')
    returning dead_seen_at`;
  return row?.dead_seen_at;
}

/** A check that saw otherwise (the transaction found, a failure not confirmed): an earlier verdict no longer counts. */
export async function clearDeadVerdict(db: Db, txid: string): Promise<void> {
  await db`
    update withdrawal_transactions set dead_verdict = '', dead_seen_at = null, updated_at = now()
    where txid = ${txid} and dead_verdict <> '' and status in ('SIGNED', 'BROADCAST')`;
}

/** How many of the withdrawal's transactions died (failed on chain, or expired off chain). */
export async function deadWithdrawalTransactions(db: Db, withdrawalId: string): Promise<number> {
  const [row] = await db<{ n: number }[]>`
    select count(*)::int as n from withdrawal_transactions where withdrawal_id = ${withdrawalId} and status in ('FAILED', 'EXPIRED')`;
  return row!.n;
}
