import type { Db } from '../sql';
import { FailedPrecondition } from '../../domain/errors';
import { newId } from '../../domain/ids';
import { PAYIN_TERMINAL } from '../../domain/state/payin';
import { PAYOUT_TERMINAL } from '../../domain/state/payout';
import { WITHDRAWAL_LIVE } from '../../domain/state/withdrawals';

type Bucket = 'available' | 'frozen' | 'pending_credits';

export interface LedgerEntry {
  walletId: string;
  bucket: Bucket;
  /** Signed minor units: positive credits the bucket, negative debits it. */
  amount: bigint;
}

export interface LedgerPosting {
  /** Unique per business step, e.g. "deal:<id>:escrow-lock:v1"; a retry with the same key is a no-op. */
  key: string;
  kind: string;
  refType: string;
  refId: string;
  entries: LedgerEntry[];
}

export class UnbalancedPosting extends Error {}

/**
 * Posts one balanced double-entry transaction and moves the wallet figures with it, in ONE
 * statement (one round trip): the transaction row claims the idempotency key, its entries follow,
 * and the wallets move — locked in id order first, so concurrent postings never deadlock. Call
 * inside sql.begin(): the entries, the wallet updates and the caller's state change commit
 * together. Returns false when the key was already posted (idempotent retry: nothing moves).
 *
 * The lock is FOR NO KEY UPDATE, the one an UPDATE of the figures takes anyway, and the one
 * every row lock of the gateway takes (docs/reliability.md, "Locks"): it does not conflict with
 * the KEY SHARE lock a foreign-key insert takes on the wallet it references (a deposit's or a
 * chain credit's row, a deal's wallet_id). With FOR UPDATE, two deposits to one wallet would each
 * hold KEY SHARE from their own insert and wait for the other to let go: a deadlock
 * (docs/decisions/0005-row-locks-for-no-key-update.md).
 * A transaction that posts more than once locks all its wallets first (lockWallets), so it too
 * takes them in the one global order.
 */
export async function postLedger(tx: Db, posting: LedgerPosting): Promise<boolean> {
  const entries = posting.entries.filter((e) => e.amount !== 0n);
  const sum = entries.reduce((acc, e) => acc + e.amount, 0n);
  if (entries.length < 2 || sum !== 0n) throw new UnbalancedPosting(`posting ${posting.key} does not balance`);

  const byWallet = new Map<string, Record<Bucket, bigint>>();
  for (const e of entries) {
    const delta = byWallet.get(e.walletId) ?? { available: 0n, frozen: 0n, pending_credits: 0n };
    delta[e.bucket] += e.amount;
    byWallet.set(e.walletId, delta);
  }
  const walletIds = [...byWallet.keys()].sort();
  const delta = (bucket: Bucket) => walletIds.map((w) => byWallet.get(w)![bucket].toString());
  try {
    const [row] = await tx<{ posted: boolean }[]>`
      with posted as (
        insert into ledger_transactions (id, idempotency_key, kind, ref_type, ref_id)
        values (${newId()}, ${posting.key}, ${posting.kind}, ${posting.refType}, ${posting.refId})
        on conflict (idempotency_key) do nothing
        returning id
      ), entries as (
        insert into ledger_entries (transaction_id, wallet_id, bucket, amount)
        select posted.id, e.wallet_id, e.bucket, e.amount
        from posted, unnest(${entries.map((e) => e.walletId)}::uuid[], ${entries.map((e) => e.bucket)}::text[], ${entries.map((e) => e.amount.toString())}::bigint[])
          as e(wallet_id, bucket, amount)
      ), locked as (
        select w.id from wallets w where w.id = any(${walletIds}::uuid[]) and exists (select 1 from posted) order by w.id for no key update
      ), moved as (
        update wallets w set available = w.available + d.available, frozen = w.frozen + d.frozen,
          pending_credits = w.pending_credits + d.pending_credits, updated_at = now()
        from unnest(${walletIds}::uuid[], ${delta('available')}::bigint[], ${delta('frozen')}::bigint[], ${delta('pending_credits')}::bigint[])
          as d(id, available, frozen, pending_credits)
        where w.id = d.id and w.id in (select id from locked)
      )
      select exists (select 1 from posted) as posted`;
    return row!.posted;
  } catch (error) {
    if ((error as { code?: string }).code === '23514') throw new FailedPrecondition('insufficient balance');
    throw error;
  }
}

export interface LedgerAuditReport {
  walletMismatches: { wallet_id: string; bucket: Bucket; figure: bigint; entries: bigint }[];
  unbalancedTransactions: { transaction_id: string; sum: bigint }[];
}

/** Every wallet figure must equal the sum of its entries and every transaction must balance. */
export async function auditLedger(db: Db): Promise<LedgerAuditReport> {
  const walletMismatches = await db<LedgerAuditReport['walletMismatches']>`
    with sums as (
      select wallet_id, bucket, sum(amount)::bigint as total from ledger_entries group by wallet_id, bucket
    ), figures as (
      select id as wallet_id, b.bucket, case b.bucket when 'available' then available
        when 'frozen' then frozen else pending_credits end as figure
      from wallets cross join (values ('available'), ('frozen'), ('pending_credits')) as b(bucket)
    )
    select f.wallet_id, f.bucket, f.figure, coalesce(s.total, 0)::bigint as entries
    from figures f left join sums s on s.wallet_id = f.wallet_id and s.bucket = f.bucket
    where f.figure <> coalesce(s.total, 0)`;
  const unbalancedTransactions = await db<LedgerAuditReport['unbalancedTransactions']>`
    select transaction_id, sum(amount)::bigint as sum from ledger_entries
    group by transaction_id having sum(amount) <> 0`;
  return { walletMismatches: [...walletMismatches], unbalancedTransactions: [...unbalancedTransactions] };
}

export interface InvariantViolation {
  invariant: string;
  wallet_id: string;
  owner_id: string;
  figure: bigint;
  expected: bigint;
}

/** Status names (constants of domain/, never input) as an SQL list: 'A', 'B'. */
const sqlList = (statuses: readonly string[]) => statuses.map((s) => `'${s}'`).join(', ');

/**
 * What the wallets must hold given the deals, beyond arithmetic (a balanced but wrong posting
 * passes auditLedger, not these):
 *   - a trader's `frozen` = the escrow of their live PayIns (every state but the terminal ones)
 *     + their held security deposit + the holds of their live withdrawals (db/queries/trader-money.ts);
 *   - a merchant's `frozen` = the holds of their live PayOuts (+ the other hold sources listed
 *     in MERCHANT_HOLD_SOURCES);
 *   - a merchant's `pending_credits` = the net credit of their COMPLETED PayIns whose fee has
 *     not been distributed yet, and the platform's = the fees of those deals.
 */
const MERCHANT_HOLD_SOURCES: string[] = [
  // Live PayOuts hold amount_usdt + fee.
  `select wallet_id, escrow_usdt as amount from deals
   where deal_type = 'PAYOUT' and status not in (${sqlList(PAYOUT_TERMINAL)}) and wallet_id is not null`,
  // Live withdrawals (domain/state/withdrawals.ts WITHDRAWAL_LIVE) hold their amount.
  `select wallet_id, amount from withdrawals where status in (${sqlList(WITHDRAWAL_LIVE)})`,
];

export async function auditInvariants(db: Db): Promise<InvariantViolation[]> {
  const undistributed = db`
    select d.* from deals d
    where d.deal_type = 'PAYIN' and d.status = 'COMPLETED'
      and not exists (select 1 from ledger_transactions t where t.idempotency_key = 'deal:' || d.id || ':fee-distribution')`;
  const traderEscrow = await db<InvariantViolation[]>`
    with expected as (
      select trader_id, sum(amount)::bigint as total from (
        select trader_id, escrow_usdt as amount from deals
        where deal_type = 'PAYIN' and status <> all(${PAYIN_TERMINAL as string[]}) and trader_id is not null
        union all
        select id, security_deposit_held from traders where security_deposit_held > 0
        union all
        select trader_id, amount from withdrawals where trader_id is not null and status = any(${WITHDRAWAL_LIVE as string[]})
      ) h
      group by trader_id
    )
    select 'trader frozen = escrow of live PayIns + security deposit held + live withdrawals' as invariant, w.id as wallet_id, w.owner_id,
      w.frozen as figure, coalesce(e.total, 0)::bigint as expected
    from wallets w left join expected e on e.trader_id = w.owner_id
    where w.owner_type = 'trader' and w.currency = 'USDT' and w.frozen <> coalesce(e.total, 0)`;
  const holds = MERCHANT_HOLD_SOURCES.map((source) => `(${source})`).join(' union all ');
  const merchantHolds = await db<InvariantViolation[]>`
    with expected as (select wallet_id, sum(amount)::bigint as total from (${db.unsafe(holds)}) h group by wallet_id)
    select 'merchant frozen = live holds' as invariant, w.id as wallet_id, w.owner_id, w.frozen as figure,
      coalesce(e.total, 0)::bigint as expected
    from wallets w left join expected e on e.wallet_id = w.id
    where w.owner_type = 'merchant' and w.frozen <> coalesce(e.total, 0)`;
  const merchantPending = await db<InvariantViolation[]>`
    with expected as (
      select merchant_id, sum(escrow_usdt - fee_usdt)::bigint as total from (${undistributed}) u group by merchant_id
    )
    select 'merchant pending_credits = undistributed net credits' as invariant, w.id as wallet_id, w.owner_id,
      w.pending_credits as figure, coalesce(e.total, 0)::bigint as expected
    from wallets w left join expected e on e.merchant_id = w.owner_id
    where w.owner_type = 'merchant' and w.currency = 'USDT' and w.pending_credits <> coalesce(e.total, 0)`;
  // Per world: the live platform account holds the live deals' fees, the sandbox one the sandbox deals'.
  const platformPending = await db<InvariantViolation[]>`
    with expected as (select sandbox, coalesce(sum(fee_usdt), 0)::bigint as total from (${undistributed}) u group by sandbox)
    select 'platform pending_credits = undistributed fees' as invariant, w.id as wallet_id, '' as owner_id,
      w.pending_credits as figure, coalesce(e.total, 0)::bigint as expected
    from wallets w left join expected e on e.sandbox = w.sandbox
    where w.owner_type = 'system' and w.system_code in ('platform_fees', 'sandbox_platform_fees') and w.pending_credits <> coalesce(e.total, 0)`;
  // No ledger transaction moves money between a sandbox wallet and a live one (the `ledger_entries_one_world` trigger refuses it too).
  const mixedWorlds = await db<InvariantViolation[]>`
    select 'no transaction mixes sandbox and live wallets' as invariant, min(e.wallet_id::text) as wallet_id, e.transaction_id::text as owner_id,
      count(distinct w.sandbox)::bigint as figure, 1::bigint as expected
    from ledger_entries e join wallets w on w.id = e.wallet_id
    group by e.transaction_id having count(distinct w.sandbox) > 1`;
  return [...traderEscrow, ...merchantHolds, ...merchantPending, ...platformPending, ...mixedWorlds];
}

/** An object that holds money now: a live PayIn (its trader's escrow), a live PayOut or withdrawal (the merchant's hold). */
export interface HoldOwner {
  kind: 'payin' | 'payout' | 'withdrawal';
  id: string;
  status: string;
}

/**
 * The objects behind the holds auditInvariants counts (the same "live" of domain/), each of which
 * must have a running workflow to release or settle its hold (scripts/ledger-check.ts asks
 * Temporal). With `ids`, only those objects, read again (a hold settled meanwhile drops out).
 */
export async function liveHoldOwners(db: Db, ids?: string[]): Promise<HoldOwner[]> {
  const only = (column: string) => (ids ? db`and ${db(column)} = any(${ids}::uuid[])` : db``);
  return db<HoldOwner[]>`
    select 'payin' as kind, id, status from deals
    where deal_type = 'PAYIN' and status <> all(${PAYIN_TERMINAL as string[]}) and trader_id is not null ${only('id')}
    union all
    select 'payout', id, status from deals
    where deal_type = 'PAYOUT' and status <> all(${PAYOUT_TERMINAL as string[]}) and wallet_id is not null ${only('id')}
    union all
    select 'withdrawal', id, status from withdrawals where status = any(${WITHDRAWAL_LIVE as string[]}) ${only('id')}`;
}
