/**
 * Routing's rows (db/migrations/00012_routing.sql): the requisites' scores, refreshed by the worker
 * (workers/routing-scores.ts) and read by the matcher with one join, and each deal's routing
 * decision, written in the deal's creating transaction.
 */
import type { Db, Sql, Tx } from '../sql';
import { requisiteScore, SLOW_CONFIRM_SECONDS, type RoutingCandidate, type RoutingReason } from '../../domain/routing';

/** What a refresh counted for one requisite, and its score: a requisite_scores row. */
export interface RequisiteScoreRow {
  requisite_id: string;
  score: number;
  completed: number;
  expired: number;
  appeals_lost: number;
  confirmed: number;
  slow_confirms: number;
  confirm_seconds_avg: number | null;
  auto_confirmed: number;
}

/** pg advisory lock key of the score refresh ("scores" in ASCII). */
const REFRESH_LOCK = 0x73636f726573;

/**
 * The outcomes of each requisite's live deals created within the window (settlement deals, which
 * an appeal made, and sandbox deals left out):
 * - completed / expired: the deal's final status;
 * - appeals_lost: its appeal was resolved for the merchant (outcome SATISFIED, status RESOLVED_MERCHANT
 *   or CLOSED after it): the client had paid and the trader had not confirmed. A reopened appeal
 *   counts again only once it is resolved again;
 * - confirmed, slow_confirms, confirm_seconds_avg: the deal's first 'deal.confirm' audit row (a
 *   trader's, an operator's or a bank device's confirmation) against its creation;
 * - auto_confirmed: a MATCHED bank notification confirmed it (db/migrations/00011_bank_devices.sql).
 */
async function scoreCounts(db: Db, windowHours: number): Promise<Omit<RequisiteScoreRow, 'score'>[]> {
  return db<Omit<RequisiteScoreRow, 'score'>[]>`
    select d.requisite_id,
      (count(*) filter (where d.status = 'COMPLETED'))::int as completed,
      (count(*) filter (where d.status = 'EXPIRED'))::int as expired,
      (count(*) filter (where exists (
        select 1 from appeals a where a.deal_id = d.id and a.outcome = 'SATISFIED' and a.status in ('RESOLVED_MERCHANT', 'CLOSED'))))::int as appeals_lost,
      count(c.at)::int as confirmed,
      (count(*) filter (where c.at > d.created_at + make_interval(secs => ${SLOW_CONFIRM_SECONDS})))::int as slow_confirms,
      round(avg(extract(epoch from c.at - d.created_at)))::int as confirm_seconds_avg,
      (count(*) filter (where exists (select 1 from bank_notifications bn where bn.deal_id = d.id and bn.status = 'MATCHED')))::int as auto_confirmed
    from deals d
    left join lateral (
      select min(a.at) as at from audit_log a where a.object_type = 'deal' and a.object_id = d.id::text and a.action = 'deal.confirm'
    ) c on true
    where d.requisite_id is not null and not d.sandbox and d.origin_appeal_id is null
      and d.created_at > now() - make_interval(hours => ${windowHours})
    group by d.requisite_id`;
}

/**
 * One refresh: counts, scores (domain/routing.ts requisiteScore) and the table rewritten, in one
 * transaction under a try advisory lock, so of several workers one refreshes and the others skip
 * the turn (false). A requisite whose deals all left the window loses its row: it is scored at the prior.
 */
export async function refreshRequisiteScores(sql: Sql, windowHours: number): Promise<{ refreshed: boolean; requisites: number }> {
  return sql.begin(async (tx) => {
    // A refresh never holds the database for long: past this it fails, and the next turn tries again.
    await tx`set local statement_timeout = '30s'`;
    return rewriteScores(tx, windowHours);
  });
}

/** The refresh's work inside the caller's transaction (a test rolls it back with what it seeded). */
export async function rewriteScores(tx: Tx, windowHours: number): Promise<{ refreshed: boolean; requisites: number }> {
  const [turn] = await tx<{ ok: boolean }[]>`select pg_try_advisory_xact_lock(${REFRESH_LOCK}) as ok`;
  if (!turn?.ok) return { refreshed: false, requisites: 0 };
  const rows = (await scoreCounts(tx, windowHours)).map((c) => ({
    ...c,
    score: requisiteScore({
      completed: c.completed,
      expired: c.expired,
      appealsLost: c.appeals_lost,
      slowConfirms: c.slow_confirms,
      autoConfirmed: c.auto_confirmed,
    }),
  }));
  const col = <K extends keyof RequisiteScoreRow>(k: K) => rows.map((r) => r[k]);
  await tx`
    with fresh as (
      select * from unnest(${col('requisite_id')}::uuid[], ${col('score')}::int[], ${col('completed')}::int[], ${col('expired')}::int[],
        ${col('appeals_lost')}::int[], ${col('confirmed')}::int[], ${col('slow_confirms')}::int[], ${col('confirm_seconds_avg') as (number | null)[]}::int[],
        ${col('auto_confirmed')}::int[])
        as f(requisite_id, score, completed, expired, appeals_lost, confirmed, slow_confirms, confirm_seconds_avg, auto_confirmed)
    ), gone as (
      delete from requisite_scores s where not exists (select 1 from fresh f where f.requisite_id = s.requisite_id)
    )
    insert into requisite_scores (requisite_id, score, completed, expired, appeals_lost, confirmed, slow_confirms, confirm_seconds_avg, auto_confirmed, computed_at)
    select requisite_id, score, completed, expired, appeals_lost, confirmed, slow_confirms, confirm_seconds_avg, auto_confirmed, now() from fresh
    on conflict (requisite_id) do update set
      score = excluded.score, completed = excluded.completed, expired = excluded.expired, appeals_lost = excluded.appeals_lost,
      confirmed = excluded.confirmed, slow_confirms = excluded.slow_confirms, confirm_seconds_avg = excluded.confirm_seconds_avg,
      auto_confirmed = excluded.auto_confirmed, computed_at = excluded.computed_at`;
  return { refreshed: true, requisites: rows.length };
}

/** What the matcher decided for one deal (domain/routing.ts). */
export interface RoutingDecision {
  candidates: RoutingCandidate[];
  chosen_requisite_id: string;
  reason: RoutingReason;
  explored: boolean;
}

/**
 * The deal's decision, in its creating transaction (a rolled-back create leaves none). A PayOut
 * matched again later (the retry of an UNASSIGNED one) records its latest decision.
 */
export async function insertRoutingDecision(tx: Tx, dealId: string, d: RoutingDecision): Promise<void> {
  await tx`
    insert into routing_decisions (deal_id, candidates, chosen_requisite_id, reason, explored)
    values (${dealId}, ${tx.json(d.candidates as never)}, ${d.chosen_requisite_id}, ${d.reason}, ${d.explored})
    on conflict (deal_id) do update set candidates = excluded.candidates, chosen_requisite_id = excluded.chosen_requisite_id,
      reason = excluded.reason, explored = excluded.explored, created_at = now()`;
}

export interface RoutingDecisionView extends RoutingDecision {
  created_at: Date;
  chosen_trader_id: string;
  chosen_trader_name: string;
  /** "BANK_CARD •••• 7777, Sber": the chosen requisite without its whole number. */
  chosen_requisite_summary: string;
}

/** The deal's decision with its chosen requisite's trader and summary as they are now (the console's deal page). */
export async function findRoutingDecision(db: Db, dealId: string): Promise<RoutingDecisionView | undefined> {
  const [row] = await db<RoutingDecisionView[]>`
    select rd.candidates, rd.chosen_requisite_id, rd.reason, rd.explored, rd.created_at,
      t.id as chosen_trader_id, t.name as chosen_trader_name,
      concat_ws(', ', concat_ws(' ', r.requisite_type, nullif(r.number_masked, '')), nullif(r.bank_name, '')) as chosen_requisite_summary
    from routing_decisions rd
    join requisites r on r.id = rd.chosen_requisite_id
    join traders t on t.id = r.trader_id
    where rd.deal_id = ${dealId}`;
  return row;
}
