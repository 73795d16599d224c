/**
 * The ledger check's proof that play money never became live (docs/reliability.md, "Worlds"), run
 * by checkLedger (workers/ledger-check.ts: npm run ledger:check and the periodic turn) beside
 * auditInvariants. Two invariants, in the shape auditInvariants reports:
 *
 *   - no live wallet holds a credit whose source is play money: a transaction carries play money
 *     when it touches a sandbox wallet (a play account, a sandbox merchant's or trader's wallet),
 *     is of a play kind (a sandbox deposit, the sandbox trader's liquidity) or is about a sandbox
 *     deal, withdrawal or deposit; none of them credits a live wallet. (A merchant switched to live
 *     with play money in its wallet shows here: its play deposits are sandbox rows and came from
 *     its play account, whatever its wallet's flag says now.)
 *   - every deal, withdrawal, deposit and wallet is in its owner's world: the flag each row copied
 *     at its insert is still its merchant's (or trader's, or its system code's). A world switch
 *     that slipped past a money write leaves a row of the other world behind.
 *
 * Read-only and bounded like the rest of the check (one statement each).
 */
import type { Db } from '../sql';
import type { InvariantViolation } from './ledger';

/** The ledger kinds that are play money by definition (db/queries/postings.ts). */
const PLAY_KINDS = ['sandbox_deposit', 'sandbox_liquidity'] as const;

export async function auditWorlds(db: Db): Promise<InvariantViolation[]> {
  const playCredits = await db<InvariantViolation[]>`
    with play as (
      select e.transaction_id from ledger_entries e join wallets w on w.id = e.wallet_id where w.sandbox
      union
      select id from ledger_transactions where kind = any(${PLAY_KINDS as unknown as string[]})
      union
      select t.id from ledger_transactions t join deposits d on t.ref_type = 'deposit' and t.ref_id = d.id::text where d.sandbox
      union
      select t.id from ledger_transactions t join deals d on t.ref_type = 'deal' and t.ref_id = d.id::text where d.sandbox
      union
      select t.id from ledger_transactions t join withdrawals x on t.ref_type = 'withdrawal' and t.ref_id = x.id::text where x.sandbox
    )
    select 'no live wallet holds a credit whose source is play money' as invariant, e.wallet_id::text as wallet_id,
      e.transaction_id::text as owner_id, sum(e.amount)::bigint as figure, 0::bigint as expected
    from play p join ledger_entries e on e.transaction_id = p.transaction_id join wallets w on w.id = e.wallet_id
    where not w.sandbox and e.amount > 0
    group by e.wallet_id, e.transaction_id`;
  const strayRows = await db<InvariantViolation[]>`
    with rows as (
      select 'deal ' || d.id as what, coalesce(d.wallet_id::text, '') as wallet_id, d.sandbox, m.sandbox as expected, m.id::text as owner_id
      from deals d join merchants m on m.id = d.merchant_id where d.sandbox <> m.sandbox
      union all
      select 'withdrawal ' || x.id, x.wallet_id::text, x.sandbox, m.sandbox, m.id::text
      from withdrawals x join merchants m on m.id = x.merchant_id where x.sandbox <> m.sandbox
      union all
      select 'deposit ' || d.id, d.wallet_id::text, d.sandbox, m.sandbox, m.id::text
      from deposits d join merchants m on m.id = d.merchant_id where d.sandbox <> m.sandbox
      union all
      select 'wallet', w.id::text, w.sandbox, m.sandbox, m.id::text
      from wallets w join merchants m on w.owner_type = 'merchant' and m.id = w.owner_id where w.sandbox <> m.sandbox
      union all
      select 'wallet', w.id::text, w.sandbox, t.sandbox, t.id::text
      from wallets w join traders t on w.owner_type = 'trader' and t.id = w.owner_id where w.sandbox <> t.sandbox
      union all
      select 'wallet', w.id::text, w.sandbox, w.system_code like 'sandbox\_%', coalesce(w.owner_id::text, w.system_code)
      from wallets w where w.owner_type = 'system' and w.sandbox <> (w.system_code like 'sandbox\_%')
    )
    select 'every deal, withdrawal, deposit and wallet is in its owner''s world (' || split_part(what, ' ', 1) || ')' as invariant,
      wallet_id, owner_id, (case when sandbox then 1 else 0 end)::bigint as figure, (case when expected then 1 else 0 end)::bigint as expected
    from rows`;
  return [...playCredits, ...strayRows];
}
