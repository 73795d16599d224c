import { randomInt } from 'node:crypto';
import type { Tx } from '../sql';
import { explores, MAX_CANDIDATES, routingReason, SCORE_PRIOR, type RoutingCandidate } from '../../domain/routing';
import type { RoutingDecision } from './routing';
import { sandboxTraderTakes } from '../../domain/sandbox';
import { PAYIN_STATUSES, PAYIN_TERMINAL } from '../../domain/state/payin';
import { PAYOUT_TERMINAL } from '../../domain/state/payout';
import { ensureSandboxRequisite } from './sandbox';

export interface MatchedRequisite {
  requisite_id: string;
  trader_id: string;
  trader_wallet_id: string;
  /** Why this requisite (routing_decisions): the create writes it with the deal (db/queries/routing.ts). */
  decision: RoutingDecision;
}

export interface MatchRequest {
  paymentMethodId: string;
  amount: bigint;
  /** USDT the trader must still have available to lock (0 for a PayOut: the trader pays fiat). */
  escrowUsdt: bigint;
  payerBank: string;
  /** A PayIn is held to one live deal per requisite and amount (requisites of traders with an account). */
  dealType?: 'PAYIN' | 'PAYOUT';
  /** A pass (db/queries/passes.ts) narrows the candidates to its provider and requisite type. */
  traderId?: string;
  requisiteType?: string;
  /** Requisites a previous try of this create lost to a concurrent deal of the same amount. */
  excludeRequisiteIds?: readonly string[];
  /** How fresh a trader's heartbeat must be (TRADER_HEARTBEAT_TIMEOUT_SECONDS). */
  heartbeatTimeoutSeconds?: number;
  /** How fresh the last message of a requisite's bank device must be (DEVICE_HEARTBEAT_TIMEOUT_SECONDS). */
  deviceHeartbeatTimeoutSeconds?: number;
  /**
   * The merchant's world: a sandbox deal is matched only to the tenant's sandbox
   * trader, a live one never to it (the `deals_sandbox` trigger backs this). The virtual bank
   * device's public key pairs the device that serves its requisites when one is made here.
   */
  sandbox?: { tenantId: string; dealType: 'PAYIN' | 'PAYOUT'; virtualDeviceKey: Uint8Array } | undefined;
  /** A matching pass narrowed the candidates (traderId, requisiteType): the decision's reason says so. */
  pass?: boolean;
  /**
   * The share of creates, per mille, that explore (ROUTING_EXPLORATION_PERMILLE): their candidates
   * come in random order, the same bank still first. Absent: 0, every create follows the scores.
   */
  explorationPermille?: number;
}

const DEFAULT_HEARTBEAT_TIMEOUT_SECONDS = 90;
const DEFAULT_DEVICE_HEARTBEAT_TIMEOUT_SECONDS = 180;

/**
 * What the limits count. A deal is LIVE while its status may still change (neither a PayIn's nor
 * a PayOut's terminal status); a deal COUNTS toward the day's and month's volume and count unless
 * it ended without money moving (CANCELLED, EXPIRED, SPAM_REJECTED, FAILED) — a completed one
 * counts. Days and months are UTC calendar days and months of the deal's creation time.
 */
const DEAL_TERMINAL: readonly string[] = [...new Set<string>([...PAYIN_TERMINAL, ...PAYOUT_TERMINAL])];
const DEAL_NOT_COUNTED: readonly string[] = ['CANCELLED', 'EXPIRED', 'SPAM_REJECTED', 'FAILED'];
/** The PayIn statuses the one-live-PayIn-per-amount index covers (deals_requisite_live_amount). */
export const PAYIN_LIVE: readonly string[] = PAYIN_STATUSES.filter((s) => !PAYIN_TERMINAL.includes(s));
/** The partial unique index that backs the one-live-PayIn-per-requisite-and-amount rule. */
export const LIVE_AMOUNT_INDEX = 'deals_requisite_live_amount';

interface Candidate {
  id: string;
  trader_id: string;
  trader_name: string;
  score: number;
  same_bank: boolean;
  daily_limit: bigint | null;
  daily_count_limit: number | null;
  monthly_limit: bigint | null;
  max_live_deals: number | null;
  cooldown_seconds: number;
  self_managed: boolean;
}

class DoesNotFit extends Error {}

/**
 * Whether a trader may be matched now. A trader with an account (it works in the trader app) must
 * be online, with a heartbeat younger than the timeout, and within its working hours when it set
 * them (from > to spans midnight, in its own time zone); an operator-managed trader (no account,
 * the sandbox trader among them) counts as always present.
 */
function presentNow(tx: Tx, timeoutSeconds: number) {
  return tx`(
    not exists (select 1 from accounts a where a.trader_id = t.id and a.party = 'trader')
    or (t.online and t.heartbeat_at > now() - make_interval(secs => ${timeoutSeconds})
      and (t.work_timezone is null or (case when t.work_from <= t.work_to
        then (now() at time zone t.work_timezone)::time >= t.work_from and (now() at time zone t.work_timezone)::time < t.work_to
        else (now() at time zone t.work_timezone)::time >= t.work_from or (now() at time zone t.work_timezone)::time < t.work_to end)))
  )`;
}

/**
 * Cascade routing inside the caller's transaction. Candidates are the method's ACTIVE
 * requisites of present traders whose amount range fits, same-bank first (payer_bank), then by
 * routing score (requisite_scores, refreshed by the worker; none yet: the prior), ties at random
 * to spread load. A share of creates (explorationPermille, drawn here) explores instead: random
 * after the same bank, so a requisite with no history gets deals and earns a score. The matcher
 * never computes a score: one join to requisite_scores by its key. The candidates, their scores and
 * the reason of the choice come back with the match (MatchedRequisite.decision).
 *
 * What must never be overbooked is guarded by row locks taken before the checks: the trader's
 * USDT wallet (liquidity) and, when it has a limit or holds PayIns to one live deal per amount,
 * the requisite (its day's and month's volume and count, its live deals, its cooldown, the
 * amounts of its live PayIns). The first pass takes those locks with SKIP LOCKED, so concurrent
 * creates fan out over free traders; only if every candidate is busy does a second pass wait for
 * one. Each candidate is tried inside a savepoint, so the locks of one that does not fit are
 * released at once. The unique index deals_requisite_live_amount backs the amount rule: a create
 * that loses to it anyway claims again without that requisite (excludeRequisiteIds).
 */
export async function claimRequisite(tx: Tx, req: MatchRequest): Promise<MatchedRequisite | undefined> {
  if (req.sandbox) {
    // The sandbox trader takes every sandbox deal but those the amount table refuses (domain/sandbox.ts).
    if (!sandboxTraderTakes(req.sandbox.dealType, req.amount)) return undefined;
    await ensureSandboxRequisite(tx, req.sandbox.tenantId, req.paymentMethodId, req.sandbox.virtualDeviceKey);
  }
  const payin = (req.dealType ?? req.sandbox?.dealType) === 'PAYIN';
  const excluded = [...(req.excludeRequisiteIds ?? [])];
  // Drawn in TypeScript (a CSPRNG), not by random() in the statement: the plan stays one shape per share.
  const explored = req.sandbox === undefined && explores(req.explorationPermille ?? 0, randomInt(1000));
  const candidates = await tx<Candidate[]>`
    select r.id, r.trader_id, t.name as trader_name, coalesce(s.score, ${SCORE_PRIOR}::int) as score,
      lower(r.bank_name) = lower(${req.payerBank}) as same_bank,
      r.daily_limit, r.daily_count_limit, r.monthly_limit, r.max_live_deals, r.cooldown_seconds,
      exists (select 1 from accounts a where a.trader_id = t.id and a.party = 'trader') as self_managed
    from requisites r
    join traders t on t.id = r.trader_id and t.status = 'ACTIVE'
    join wallets w on w.owner_type = 'trader' and w.owner_id = r.trader_id and w.currency = 'USDT'
    left join requisite_scores s on s.requisite_id = r.id
    where r.payment_method_id = ${req.paymentMethodId} and r.status = 'ACTIVE' and t.sandbox = ${req.sandbox !== undefined}
      and r.min_amount <= ${req.amount} and r.max_amount >= ${req.amount}
      and w.available >= ${req.escrowUsdt}
      and ${presentNow(tx, req.heartbeatTimeoutSeconds ?? DEFAULT_HEARTBEAT_TIMEOUT_SECONDS)}
      -- A requisite served by a bank device takes deals only while its device is heard from (the sweep's silence alert follows).
      and (r.device_id is null or exists (select 1 from bank_devices bd where bd.id = r.device_id and bd.status = 'ACTIVE'
        and (bd.virtual or bd.heartbeat_at > now() - make_interval(secs => ${req.deviceHeartbeatTimeoutSeconds ?? DEFAULT_DEVICE_HEARTBEAT_TIMEOUT_SECONDS}))))
      ${excluded.length > 0 ? tx`and r.id <> all(${excluded}::uuid[])` : tx``}
      ${payin ? tx`and not exists (select 1 from deals d where d.requisite_id = r.id and d.amount = ${req.amount} and d.amount_guard and d.status = any(${PAYIN_LIVE}))` : tx``}
      -- The trader's money (db/queries/trader-money.ts outOfPoolReasons): its security deposit held in full, its available at least its minimum working balance.
      and t.security_deposit_held >= t.security_deposit and w.available >= t.min_working_balance
      ${req.traderId ? tx`and r.trader_id = ${req.traderId}` : tx``}
      ${req.requisiteType ? tx`and r.requisite_type = ${req.requisiteType}` : tx``}
    order by (lower(r.bank_name) = lower(${req.payerBank})) desc, ${explored ? tx`` : tx`coalesce(s.score, ${SCORE_PRIOR}::int) desc,`} random()
    limit ${MAX_CANDIDATES}`;
  for (const wait of [false, true]) {
    for (const candidate of candidates) {
      const claimed = await tryCandidate(tx, candidate, req, payin, wait);
      if (claimed) return { ...claimed, decision: decisionOf(candidates, candidate, req, explored) };
    }
  }
  return undefined;
}

/** The decision routing_decisions records: every candidate read, in the order tried, and why this one. */
function decisionOf(candidates: readonly Candidate[], chosen: Candidate, req: MatchRequest, explored: boolean): RoutingDecision {
  const view = (c: Candidate): RoutingCandidate => ({
    requisite_id: c.id,
    trader_id: c.trader_id,
    trader_name: c.trader_name,
    score: c.score,
    same_bank: c.same_bank,
  });
  const seen = candidates.map(view);
  return {
    candidates: seen,
    chosen_requisite_id: chosen.id,
    reason: routingReason({ sandbox: req.sandbox !== undefined, pass: req.pass === true, explored, candidates: seen, chosen: view(chosen) }),
    // A lone candidate had no order to explore.
    explored: explored && seen.length > 1,
  };
}

const hasLimits = (c: Candidate) =>
  c.daily_limit !== null || c.daily_count_limit !== null || c.monthly_limit !== null || c.max_live_deals !== null || c.cooldown_seconds > 0;

async function tryCandidate(
  tx: Tx,
  candidate: Candidate,
  req: MatchRequest,
  payin: boolean,
  wait: boolean,
): Promise<Omit<MatchedRequisite, 'decision'> | undefined> {
  const lockMode = wait ? tx`for no key update` : tx`for no key update skip locked`;
  const guardsAmount = payin && candidate.self_managed;
  try {
    return await tx.savepoint(async (sp) => {
      if (hasLimits(candidate) || guardsAmount) {
        // Under the requisite's lock every count below sees each committed competitor.
        const [requisite] = await sp`select id from requisites where id = ${candidate.id} and status = 'ACTIVE' ${lockMode}`;
        if (!requisite) throw new DoesNotFit();
        if (hasLimits(candidate) && !(await withinLimits(sp, candidate, req.amount))) throw new DoesNotFit();
        if (guardsAmount) {
          const [taken] = await sp`
            select 1 from deals where requisite_id = ${candidate.id} and amount = ${req.amount} and amount_guard and status = any(${PAYIN_LIVE})`;
          if (taken) throw new DoesNotFit();
        }
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

/** The requisite's limits against its deals so far plus this one (the requisite row is locked). */
async function withinLimits(sp: Tx, c: Candidate, amount: bigint): Promise<boolean> {
  if (c.daily_limit !== null || c.daily_count_limit !== null || c.monthly_limit !== null) {
    const [used] = await sp<{ day_volume: bigint; day_count: number; month_volume: bigint }[]>`
      select
        coalesce(sum(amount) filter (where created_at >= date_trunc('day', now() at time zone 'utc') at time zone 'utc'), 0)::bigint as day_volume,
        (count(*) filter (where created_at >= date_trunc('day', now() at time zone 'utc') at time zone 'utc'))::int as day_count,
        coalesce(sum(amount), 0)::bigint as month_volume
      from deals
      where requisite_id = ${c.id}
        and created_at >= date_trunc('month', now() at time zone 'utc') at time zone 'utc'
        and status <> all(${DEAL_NOT_COUNTED})`;
    if (c.daily_limit !== null && used!.day_volume + amount > c.daily_limit) return false;
    if (c.daily_count_limit !== null && used!.day_count + 1 > c.daily_count_limit) return false;
    if (c.monthly_limit !== null && used!.month_volume + amount > c.monthly_limit) return false;
  }
  if (c.max_live_deals !== null) {
    const [live] = await sp<{ n: number }[]>`
      select count(*)::int as n from deals where requisite_id = ${c.id} and status <> all(${DEAL_TERMINAL})`;
    if (live!.n + 1 > c.max_live_deals) return false;
  }
  if (c.cooldown_seconds > 0) {
    const [recent] = await sp`
      select 1 from deals where requisite_id = ${c.id} and created_at > now() - make_interval(secs => ${c.cooldown_seconds}) limit 1`;
    if (recent) return false;
  }
  return true;
}

/** Whether another live PayIn of `amount` holds this guarded deal's requisite (an amount change would break the rule). */
export async function liveAmountTaken(tx: Tx, deal: { id: string; requisite_id: string | null; amount_guard: boolean }, amount: bigint): Promise<boolean> {
  if (!deal.amount_guard || deal.requisite_id === null) return false;
  const [taken] = await tx`
    select 1 from deals where requisite_id = ${deal.requisite_id} and amount = ${amount} and amount_guard
      and status = any(${PAYIN_LIVE}) and id <> ${deal.id}`;
  return taken !== undefined;
}
