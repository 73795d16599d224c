import type { Db } from '../sql';
import { FailedPrecondition } from '../../domain/errors';
import { newId } from '../../domain/ids';

export type Bucket = 'available' | 'frozen' | 'pending_credits';

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
 * Posts one balanced double-entry transaction and moves the wallet figures with it.
 * Call inside sql.begin(): the entries, the wallet updates and the caller's state change
 * commit together. Returns false when the key was already posted (idempotent retry).
 */
export async function postLedger(tx: Db, posting: LedgerPosting): Promise<boolean> {
  const entries = posting.entries.filter((e) => e.amount !== 0n);
  const sum = entries.reduce((acc, e) => acc + e.amount, 0n);
  if (entries.length < 2 || sum !== 0n) throw new UnbalancedPosting(`posting ${posting.key} does not balance`);

  const id = newId();
  const inserted = await tx`
    insert into ledger_transactions (id, idempotency_key, kind, ref_type, ref_id)
    values (${id}, ${posting.key}, ${posting.kind}, ${posting.refType}, ${posting.refId})
    on conflict (idempotency_key) do nothing
    returning id`;
  if (inserted.length === 0) return false;

  await tx`
    insert into ledger_entries ${tx(
      entries.map((e) => ({ transaction_id: id, wallet_id: e.walletId, bucket: e.bucket, amount: e.amount })),
    )}`;

  // Wallets are updated in id order so that concurrent postings never deadlock.
  const byWallet = new Map<string, Record<Bucket, bigint>>();
  for (const e of entries) {
    const delta = byWallet.get(e.walletId) ?? { available: 0n, frozen: 0n, pending_credits: 0n };
    delta[e.bucket] += e.amount;
    byWallet.set(e.walletId, delta);
  }
  for (const walletId of [...byWallet.keys()].sort()) {
    const d = byWallet.get(walletId)!;
    try {
      await tx`
        update wallets set available = available + ${d.available}, frozen = frozen + ${d.frozen},
          pending_credits = pending_credits + ${d.pending_credits}, updated_at = now()
        where id = ${walletId}`;
    } catch (error) {
      if ((error as { code?: string }).code === '23514') throw new FailedPrecondition('insufficient balance');
      throw error;
    }
  }
  return true;
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

/**
 * A hold inside one wallet: `lock` moves available → frozen, `release` frozen → available.
 * Escrow (trader) and payout holds (merchant) are both this one posting under their own keys.
 */
export function moveHold(
  tx: Db,
  hold: { key: string; kind: string; dealId: string; walletId: string; amount: bigint; direction: 'lock' | 'release' },
): Promise<boolean> {
  const sign = hold.direction === 'lock' ? 1n : -1n;
  return postLedger(tx, {
    key: hold.key,
    kind: hold.kind,
    refType: 'deal',
    refId: hold.dealId,
    entries: [
      { walletId: hold.walletId, bucket: 'available', amount: -sign * hold.amount },
      { walletId: hold.walletId, bucket: 'frozen', amount: sign * hold.amount },
    ],
  });
}
