/**
 * Where live money comes from (the ledger check, scripts/ledger-check.ts). Arithmetic alone
 * (auditLedger) passes a balanced posting that takes money from a system account, which may go
 * negative: 300,000,000 USDT of seeded "liquidity" did just that. So, for the live world (play
 * money is the sandbox's business):
 *   - a system account gives money only for a record: the chain account credits a wallet only in
 *     a recorded merchant deposit (its `deposits` row: same wallet, same amount) or a recorded
 *     trader top-up (its `chain_credits` row); no other system account ever pays out;
 *   - every posting on a trader's wallet is such a top-up of that trader, a recorded chain deposit
 *     to that trader's address (its `deposits` row, owned by the trader, same wallet), a move of
 *     a deal that trader holds (escrow, release, completion, payout, settlement), a move of a
 *     withdrawal of that trader's, or its security deposit held or released (inside the wallet).
 * Together: every trader's balance traces to recorded deposits and deal flows; nothing else is a
 * source of money.
 */
import type { Db } from '../sql';

export interface UnbackedCredit {
  transaction_id: string;
  kind: string;
  key: string;
  /** The system account that paid (system code), or the trader wallet's owner. */
  source: string;
  wallet_id: string | null;
  amount: bigint;
  rule: string;
}

export async function unbackedLiveMoney(db: Db): Promise<UnbackedCredit[]> {
  // A ledger reference as a uuid (null when it is none), so the look-up uses the primary key.
  const asUuid = (column: string) =>
    db.unsafe(`case when ${column} ~ '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$' then ${column}::uuid end`);
  // The tx_hash of a top-up's posting key (trader-deposit:<tx_hash>, postTraderTopUp), for the claim's primary key.
  const topUpHash = (column: string) => db.unsafe(`case when ${column} like 'trader-deposit:%' then substr(${column}, 16) end`);
  const fromSystem = await db<UnbackedCredit[]>`
    with paid as (
      select e.transaction_id, w.system_code, sum(e.amount)::bigint as net
      from ledger_entries e join wallets w on w.id = e.wallet_id
      where w.owner_type = 'system' and not w.sandbox
      group by e.transaction_id, w.id, w.system_code
      having sum(e.amount) < 0
    ), receivers as (
      select e.transaction_id, (array_agg(distinct e.wallet_id))[1] as wallet_id, count(distinct e.wallet_id)::int as wallets,
        sum(e.amount)::bigint as amount
      from ledger_entries e join wallets w on w.id = e.wallet_id
      where w.owner_type <> 'system' and e.transaction_id in (select transaction_id from paid)
      group by e.transaction_id
    )
    select t.id::text as transaction_id, t.kind, t.idempotency_key as key, p.system_code as source, r.wallet_id::text as wallet_id,
      -p.net as amount, 'a system account pays only for a recorded deposit or trader top-up' as rule
    from paid p
    join ledger_transactions t on t.id = p.transaction_id
    left join receivers r on r.transaction_id = p.transaction_id
    where not (
      p.system_code = 'chain' and r.wallets = 1 and r.amount = -p.net and (
        (t.kind = 'deposit' and t.ref_type = 'deposit' and exists (
          select 1 from deposits d where d.id = ${asUuid('t.ref_id')} and d.wallet_id = r.wallet_id and d.amount = r.amount))
        or (t.kind = 'trader_deposit' and exists (
          select 1 from chain_credits c where c.tx_hash = ${topUpHash('t.idempotency_key')}
            and c.owner_type = 'trader' and c.wallet_id = r.wallet_id and c.amount = r.amount))
      )
    )
    order by t.created_at`;
  const toTraders = await db<UnbackedCredit[]>`
    select t.id::text as transaction_id, t.kind, t.idempotency_key as key, w.owner_id::text as source, w.id::text as wallet_id,
      sum(e.amount)::bigint as amount,
      'a trader''s wallet moves only by its recorded top-ups and deposits, its own deals and withdrawals, and its security deposit' as rule
    from ledger_entries e
    join wallets w on w.id = e.wallet_id and w.owner_type = 'trader' and not w.sandbox
    join ledger_transactions t on t.id = e.transaction_id
    where not (
      (t.kind = 'trader_deposit' and exists (
        select 1 from chain_credits c where c.tx_hash = ${topUpHash('t.idempotency_key')} and c.owner_type = 'trader' and c.wallet_id = w.id))
      or (t.ref_type = 'deal' and exists (
        select 1 from deals d
        where d.id = ${asUuid('t.ref_id')} and d.trader_id = w.owner_id))
      or (t.kind = 'deposit' and t.ref_type = 'deposit' and exists (
        select 1 from deposits d where d.id = ${asUuid('t.ref_id')} and d.trader_id = w.owner_id and d.wallet_id = w.id))
      or (t.ref_type = 'withdrawal' and exists (
        select 1 from withdrawals x where x.id = ${asUuid('t.ref_id')} and x.trader_id = w.owner_id and x.wallet_id = w.id))
      or (t.kind in ('security_hold', 'security_release') and t.ref_type = 'trader' and t.ref_id = w.owner_id::text)
    )
    group by t.id, t.kind, t.idempotency_key, t.created_at, w.id, w.owner_id
    order by t.created_at`;
  return [...fromSystem, ...toTraders];
}
