import type { Tx } from '../sql';
import { sandboxTraderTakes } from '../../domain/sandbox';
import { ensureSandboxRequisite } from './sandbox';

export interface MatchedRequisite {
  requisite_id: string;
  trader_id: string;
  trader_wallet_id: string;
}

export interface MatchRequest {
  paymentMethodId: string;
  amount: bigint;
  /** USDT the trader must still have available to lock (0 for a PayOut: the trader pays fiat). */
  escrowUsdt: bigint;
  payerBank: string;
  /** A pass (db/queries/passes.ts) narrows the candidates to its provider and requisite type. */
  traderId?: string;
  requisiteType?: string;
  /**
   * The merchant's world: a sandbox deal is matched only to the tenant's sandbox
   * trader, a live one never to it (the `deals_sandbox` trigger backs this).
   */
  sandbox?: { tenantId: string; dealType: 'PAYIN' | 'PAYOUT' } | undefined;
}

interface Candidate {
  id: string;
  trader_id: string;
  daily_limit: bigint | null;
}

class DoesNotFit extends Error {}

/**
 * Cascade routing inside the caller's transaction. Candidates are the method's ACTIVE
 * requisites whose amount range fits, same-bank first (payer_bank), then random to spread load.
 *
 * What must never be overbooked is guarded by row locks taken before the checks: the trader's
 * USDT wallet (liquidity) and, when it has a daily limit, the requisite (its UTC-day volume).
 * The first pass takes those locks with SKIP LOCKED, so concurrent creates fan out over free
 * traders; only if every candidate is busy does a second pass wait for one. Each candidate is
 * tried inside a savepoint, so the locks of one that does not fit are released at once.
 */
export async function claimRequisite(tx: Tx, req: MatchRequest): Promise<MatchedRequisite | undefined> {
  if (req.sandbox) {
    // The sandbox trader takes every sandbox deal but those the amount table refuses (domain/sandbox.ts).
    if (!sandboxTraderTakes(req.sandbox.dealType, req.amount)) return undefined;
    await ensureSandboxRequisite(tx, req.sandbox.tenantId, req.paymentMethodId);
  }
  const candidates = await tx<Candidate[]>`
    select r.id, r.trader_id, r.daily_limit
    from requisites r
    join traders t on t.id = r.trader_id and t.status = 'ACTIVE'
    join wallets w on w.owner_type = 'trader' and w.owner_id = r.trader_id and w.currency = 'USDT'
    where r.payment_method_id = ${req.paymentMethodId} and r.status = 'ACTIVE' and t.sandbox = ${req.sandbox !== undefined}
      and r.min_amount <= ${req.amount} and r.max_amount >= ${req.amount}
      and w.available >= ${req.escrowUsdt}
      -- The trader's money (db/queries/trader-money.ts outOfPoolReasons): its security deposit held in full, its available at least its minimum working balance.
      and t.security_deposit_held >= t.security_deposit and w.available >= t.min_working_balance
      ${req.traderId ? tx`and r.trader_id = ${req.traderId}` : tx``}
      ${req.requisiteType ? tx`and r.requisite_type = ${req.requisiteType}` : tx``}
    order by (lower(r.bank_name) = lower(${req.payerBank})) desc, random()
    limit 20`;
  for (const wait of [false, true]) {
    for (const candidate of candidates) {
      const claimed = await tryCandidate(tx, candidate, req, wait);
      if (claimed) return claimed;
    }
  }
  return undefined;
}

async function tryCandidate(tx: Tx, candidate: Candidate, req: MatchRequest, wait: boolean): Promise<MatchedRequisite | undefined> {
  const lockMode = wait ? tx`for no key update` : tx`for no key update skip locked`;
  try {
    return await tx.savepoint(async (sp) => {
      if (candidate.daily_limit !== null) {
        const [requisite] = await sp`select id from requisites where id = ${candidate.id} and status = 'ACTIVE' ${lockMode}`;
        if (!requisite) throw new DoesNotFit();
        const [used] = await sp<{ total: bigint }[]>`
          select coalesce(sum(amount), 0)::bigint as total from deals
          where requisite_id = ${candidate.id}
            and created_at >= date_trunc('day', now() at time zone 'utc') at time zone 'utc'
            and status not in ('CANCELLED', 'EXPIRED', 'SPAM_REJECTED', 'FAILED')`;
        if (used!.total + req.amount > candidate.daily_limit) throw new DoesNotFit();
      }
      const needsLiquidity = req.escrowUsdt > 0n;
      const [wallet] = await sp<{ id: string; available: bigint }[]>`
        select id, available from wallets
        where owner_type = 'trader' and owner_id = ${candidate.trader_id} and currency = 'USDT'
        ${needsLiquidity ? lockMode : sp``}`;
      if (!wallet || wallet.available < req.escrowUsdt) throw new DoesNotFit();
      return { requisite_id: candidate.id, trader_id: candidate.trader_id, trader_wallet_id: wallet.id };
    });
  } catch (error) {
    if (error instanceof DoesNotFit) return undefined;
    throw error;
  }
}
