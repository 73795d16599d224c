/**
 * The trader's money beyond its deals: deposits from the chain to its own address, its security
 * deposit (asked by an operator, held frozen on its USDT wallet while it works, released by an
 * operator when it stops), its minimum working balance (below it, the matcher leaves the trader
 * out: db/queries/matching.ts) and the movements of its wallet.
 *
 * Postings (postLedger, one key each, idempotent):
 * | posting           | key                          | kind              | entries                                  |
 * |-------------------|------------------------------|-------------------|------------------------------------------|
 * | a chain deposit   | deposit:<deposit id>         | deposit           | chain available −amount; trader available +amount |
 * | security hold     | trader:<id>:security:<n>     | security_hold     | trader available −delta, frozen +delta   |
 * | security release  | trader:<id>:security:<n>     | security_release  | trader frozen −delta, available +delta   |
 * The trader's `frozen` is therefore the escrow of its live PayIns + its held security deposit +
 * the holds of its live withdrawals (auditInvariants, db/queries/ledger.ts).
 */
import type { Db } from '../sql';
import { newId } from '../../domain/ids';
import { Conflict, NotFound } from '../../domain/errors';
import { claimTxHash, type DepositRow } from './deposits';
import { postDepositCredit, lockChainCredit } from './postings';
import { postLedger } from './ledger';
import { chainAccount, ensureWallet } from './wallets';
import { cursorColumn, newestFirst, olderThan, type KeysetCursor } from './keyset';
import { PAYIN_TERMINAL } from '../../domain/state/payin';
import { WITHDRAWAL_LIVE } from '../../domain/state/withdrawals';

export interface TraderMoneyRow {
  id: string;
  name: string;
  status: string;
  sandbox: boolean;
  security_deposit: bigint;
  security_deposit_held: bigint;
  security_deposit_released_at: Date | null;
  min_working_balance: bigint;
  security_moves: number;
  wallet_id: string;
  available: bigint;
  frozen: bigint;
}

/**
 * The trader's money settings and its USDT wallet's figures. With `lock` (a security move) the
 * wallet is locked first, then the trader's row: the order of a credit (its wallet, then the
 * hold it tops up), so the two never wait on each other crosswise.
 */
export async function traderMoney(db: Db, traderId: string, options: { lock?: boolean } = {}): Promise<TraderMoneyRow | undefined> {
  const [trader] = await db<{ id: string }[]>`select id from traders where id = ${traderId}`;
  if (!trader) return undefined;
  const wallet = await ensureWallet(db, 'trader', traderId, 'USDT');
  if (options.lock) {
    await db`select id from wallets where id = ${wallet.id} for no key update`;
    await db`select id from traders where id = ${traderId} for no key update`;
  }
  const [row] = await db<TraderMoneyRow[]>`
    select t.id, t.name, t.status, t.sandbox, t.security_deposit, t.security_deposit_held, t.security_deposit_released_at,
      t.min_working_balance, t.security_moves, w.id as wallet_id, w.available, w.frozen
    from traders t join wallets w on w.id = ${wallet.id}
    where t.id = ${traderId}`;
  return row;
}

/** Moves the held security deposit to `target` (hold or release the difference), one keyed posting. Under the trader's row lock. */
async function moveSecurityHold(tx: Db, t: TraderMoneyRow, target: bigint, releasedAt: Date | null): Promise<TraderMoneyRow> {
  const delta = target - t.security_deposit_held;
  if (delta === 0n) {
    await tx`update traders set security_deposit_released_at = ${releasedAt} where id = ${t.id}`;
    return { ...t, security_deposit_released_at: releasedAt };
  }
  const n = t.security_moves + 1;
  await postLedger(tx, {
    key: `trader:${t.id}:security:${n}`,
    kind: delta > 0n ? 'security_hold' : 'security_release',
    refType: 'trader',
    refId: t.id,
    entries: [
      { walletId: t.wallet_id, bucket: 'available', amount: -delta },
      { walletId: t.wallet_id, bucket: 'frozen', amount: delta },
    ],
  });
  await tx`
    update traders set security_deposit_held = ${target}, security_moves = ${n}, security_deposit_released_at = ${releasedAt}
    where id = ${t.id}`;
  return {
    ...t,
    security_deposit_held: target,
    security_moves: n,
    security_deposit_released_at: releasedAt,
    available: t.available - delta,
    frozen: t.frozen + delta,
  };
}

/**
 * Brings the held security deposit up to (or down to) what the operator asks, as far as the
 * trader's available balance allows — a trader still short keeps what it has held and stays out
 * of the pool until a deposit covers the rest (recordTraderChainDeposit calls this again). A
 * deposit an operator released stays released until an operator holds it again (`resume`).
 * Run in a transaction.
 */
export async function settleSecurityHold(tx: Db, traderId: string, options: { resume?: boolean } = {}): Promise<TraderMoneyRow> {
  const t = await traderMoney(tx, traderId, { lock: true });
  if (!t) throw new NotFound('trader not found');
  if (t.security_deposit_released_at && !options.resume) return t;
  const reachable = t.security_deposit_held + t.available;
  // bigint: no Math.min.
  let target = t.security_deposit;
  if (reachable < target) target = reachable;
  return moveSecurityHold(tx, t, target, null);
}

/** The operator's settings: the security deposit asked and the minimum working balance; the hold follows at once. */
export async function setTraderMoneySettings(
  tx: Db,
  traderId: string,
  settings: { security_deposit?: bigint | undefined; min_working_balance?: bigint | undefined },
): Promise<TraderMoneyRow> {
  if (!(await traderMoney(tx, traderId, { lock: true }))) throw new NotFound('trader not found');
  const [row] = await tx`
    update traders set
      security_deposit = coalesce(${settings.security_deposit ?? null}::bigint, security_deposit),
      min_working_balance = coalesce(${settings.min_working_balance ?? null}::bigint, min_working_balance)
    where id = ${traderId} returning id`;
  if (!row) throw new NotFound('trader not found');
  return settleSecurityHold(tx, traderId);
}

/** The trader stops working: its whole security deposit goes back to available; it is out of the pool until held again. */
export async function releaseSecurityDeposit(tx: Db, traderId: string): Promise<TraderMoneyRow> {
  const t = await traderMoney(tx, traderId, { lock: true });
  if (!t) throw new NotFound('trader not found');
  return moveSecurityHold(tx, t, 0n, t.security_deposit_released_at ?? new Date());
}

/**
 * Why the trader is not in the matching pool (empty: it is), from its money alone — the rule the
 * matcher applies (db/queries/matching.ts): the security deposit asked is held in full, and the
 * available balance is at least the minimum working balance.
 */
export function outOfPoolReasons(t: Pick<TraderMoneyRow, 'security_deposit' | 'security_deposit_held' | 'min_working_balance' | 'available'>): string[] {
  const reasons: string[] = [];
  if (t.security_deposit_held < t.security_deposit) reasons.push('SECURITY_DEPOSIT_NOT_HELD');
  if (t.available < t.min_working_balance) reasons.push('BELOW_MIN_WORKING_BALANCE');
  return reasons;
}

/**
 * A final chain deposit to the trader's address: its row (CONFIRMED), its tx_hash claimed for
 * the trader, the credit (chain → the trader's available, deposit:<id>) — once per tx_hash — and
 * the security hold topped up from it. A trader is never sandbox here: the sandbox trader has no
 * address. Run in a transaction.
 */
export async function recordTraderChainDeposit(
  tx: Db,
  input: { traderId: string; walletId: string; amount: bigint; txHash: string },
): Promise<{ deposit: DepositRow; created: boolean }> {
  const chainId = await chainAccount(tx, { sandbox: false });
  await lockChainCredit(tx, chainId, input.walletId);
  const fresh = await claimTxHash(tx, { txHash: input.txHash, ownerType: 'trader', ownerId: input.traderId, walletId: input.walletId, amount: input.amount });
  if (!fresh) {
    // The trader's own claim: this deposit's (a repeat), or an operator top-up of that transaction (credited already).
    const [existing] = await tx<DepositRow[]>`select * from deposits where tx_hash = ${input.txHash}`;
    if (existing) return { deposit: existing, created: false };
    throw new Conflict('tx_hash was already credited to this trader as a top-up');
  }
  const [deposit] = await tx<DepositRow[]>`
    insert into deposits (id, trader_id, wallet_id, amount, tx_hash)
    values (${newId()}, ${input.traderId}, ${input.walletId}, ${input.amount}, ${input.txHash})
    returning *`;
  await postDepositCredit(tx, { depositId: deposit!.id, walletId: input.walletId, amount: input.amount, chainId });
  await settleSecurityHold(tx, input.traderId);
  return { deposit: deposit!, created: true };
}

export interface TraderDepositRow extends DepositRow {
  address: string;
  confirmations: number;
  confirmed_at: Date | null;
  cursor_ts: string;
}

/** The trader's chain deposits, newest first (keyset pages). */
export function listTraderDeposits(db: Db, traderId: string, page: { after?: KeysetCursor; limit: number }) {
  return db<TraderDepositRow[]>`
    select *, ${cursorColumn(db)} from deposits
    where trader_id = ${traderId} ${olderThan(db, page.after)}
    order by ${newestFirst(db)} limit ${page.limit}`;
}

export interface TraderMovementRow {
  id: string;
  transaction_id: string;
  kind: string;
  ref_type: string;
  ref_id: string;
  created_at: Date;
  cursor_ts: string;
  available: bigint;
  frozen: bigint;
  deal_type: string | null;
  deal_status: string | null;
  deal_amount: bigint | null;
  deal_currency: string | null;
}

/**
 * Every ledger transaction that moved the trader's USDT wallet, newest first, with its effect on
 * available and frozen and, for a deal's, the deal (type, status, fiat amount and currency).
 * With `dealsOnly`, only the deals' moves.
 */
export function listTraderMovements(db: Db, walletId: string, page: { after?: KeysetCursor; limit: number; dealsOnly?: boolean }) {
  return db<TraderMovementRow[]>`
    select *, ${cursorColumn(db)} from (
      select t.id, t.id as transaction_id, t.kind, t.ref_type, t.ref_id, t.created_at,
        coalesce(sum(e.amount) filter (where e.bucket = 'available'), 0)::bigint as available,
        coalesce(sum(e.amount) filter (where e.bucket = 'frozen'), 0)::bigint as frozen,
        d.deal_type, d.status as deal_status, d.amount as deal_amount, d.currency as deal_currency
      from ledger_entries e
      join ledger_transactions t on t.id = e.transaction_id
      left join deals d on t.ref_type = 'deal' and d.id::text = t.ref_id
      where e.wallet_id = ${walletId} ${page.dealsOnly ? db`and t.ref_type = 'deal'` : db``}
      group by t.id, d.id
    ) moves
    where true ${olderThan(db, page.after)}
    order by ${newestFirst(db)} limit ${page.limit}`;
}

export interface TraderDealMoneyRow {
  id: string;
  deal_type: string;
  status: string;
  amount: bigint;
  currency: string;
  exchange_rate_micro: bigint;
  created_at: Date;
  updated_at: Date;
  cursor_ts: string;
  /** The deal's net effect on the trader's USDT (available + frozen, every posting of the deal). */
  usdt_change: bigint;
  /** What of it is still frozen (a live PayIn's escrow). */
  usdt_frozen: bigint;
}

/**
 * The trader's deals that moved its USDT, newest first: each with its net USDT effect. A PayIn
 * the trader confirmed took its escrow (−escrow: the trader received the fiat amount from the
 * payer instead); a PayOut it completed paid it amount_usdt (+: it sent the fiat amount).
 */
export function listTraderDealMoney(db: Db, traderId: string, walletId: string, page: { after?: KeysetCursor; limit: number }) {
  return db<TraderDealMoneyRow[]>`
    select d.id, d.deal_type, d.status, d.amount, d.currency, d.exchange_rate_micro, d.created_at, d.updated_at, ${cursorColumn(db)},
      m.usdt_change, m.usdt_frozen
    from deals d
    join lateral (
      select coalesce(sum(e.amount), 0)::bigint as usdt_change,
        coalesce(sum(e.amount) filter (where e.bucket = 'frozen'), 0)::bigint as usdt_frozen, count(*) as entries
      from ledger_transactions t join ledger_entries e on e.transaction_id = t.id and e.wallet_id = ${walletId}
      where t.ref_type = 'deal' and t.ref_id = d.id::text
    ) m on m.entries > 0
    where d.trader_id = ${traderId} ${olderThan(db, page.after)}
    order by ${newestFirst(db)} limit ${page.limit}`;
}

/** The parts of the trader's frozen USDT: live PayIn escrow and live withdrawals (the rest is the held security deposit). */
export async function traderFrozenParts(db: Db, traderId: string): Promise<{ escrow: bigint; withdrawals: bigint }> {
  const [row] = await db<{ escrow: bigint; withdrawals: bigint }[]>`
    select
      (select coalesce(sum(escrow_usdt), 0) from deals
        where trader_id = ${traderId} and deal_type = 'PAYIN' and status <> all(${PAYIN_TERMINAL as string[]}))::bigint as escrow,
      (select coalesce(sum(amount), 0) from withdrawals
        where trader_id = ${traderId} and status = any(${WITHDRAWAL_LIVE as string[]}))::bigint as withdrawals`;
  return row!;
}
