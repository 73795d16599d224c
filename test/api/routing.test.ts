/**
 * Routing that learns and explains (docs/routing.md), on the real stack: the score refresh counts
 * seeded outcomes into the expected scores, the matcher prefers the better history when it does
 * not explore, and every created deal stores its decision, which the operator's deal timeline
 * shows with names. Each test routes on a payment method of its own (isolatedMethod), so no other
 * test's requisite, nor a demo trader, is a candidate.
 */
import test from 'ava';
import { randomUUID } from 'node:crypto';
import { auditLedger } from '../../db/queries/ledger';
import { claimRequisite, type MatchRequest } from '../../db/queries/matching';
import { rewriteScores, type RequisiteScoreRow } from '../../db/queries/routing';
import { DEFAULT_TENANT_ID } from '../../db/queries/merchants';
import type { Tx } from '../../db/sql';
import { requisiteScore } from '../../domain/routing';
import { asOperator, newMerchant } from '../helpers/api';
import { testSql } from '../helpers/app';
import { createPayin, isolatedMethod, isolatedTrader, operatorDeal } from '../helpers/deals';
import { eventually } from '../helpers/poll';

const sql = testSql();
test.after.always(async () => {
  const report = await auditLedger(sql);
  await sql.end();
  if (report.walletMismatches.length || report.unbalancedTransactions.length) throw new Error(`ledger audit failed: ${JSON.stringify(report)}`);
});

/** Thrown to roll a seeding transaction back: the history it made never reaches another test or the ledger check. */
class RolledBack extends Error {}
async function rolledBack(work: (tx: Tx) => Promise<void>): Promise<void> {
  await sql
    .begin(async (tx) => {
      await work(tx);
      throw new RolledBack();
    })
    .catch((error: unknown) => {
      if (!(error instanceof RolledBack)) throw error;
    });
}

const methodId = async (slug: string) => (await sql<{ id: string }[]>`select id from payment_methods where slug = ${slug}`)[0]!.id;
const traderName = async (traderId: string) => (await sql<{ name: string }[]>`select name from traders where id = ${traderId}`)[0]!.name;

interface Seeded {
  status: 'COMPLETED' | 'EXPIRED';
  /** Minutes before now the deal was created. */
  agoMinutes?: number;
  /** Confirmed (an audit row 'deal.confirm' now). */
  confirmed?: boolean;
  /** Confirmed by a paired bank device (a MATCHED bank notification). */
  device?: string;
  /** Its appeal was resolved for the merchant: the trader lost it. */
  appealLost?: boolean;
}

/** A terminal deal of the requisite's history, with what the score counts around it. */
async function seedDeal(tx: Tx, merchantId: string, r: { traderId: string; requisiteId: string; methodId: string }, d: Seeded) {
  const id = randomUUID();
  await tx`
    insert into deals (id, tenant_id, merchant_id, deal_type, status, idempotency_key, amount, currency, payment_method_id, requisite_id, trader_id,
      amount_usdt, exchange_rate_micro, created_at)
    values (${id}, ${DEFAULT_TENANT_ID}, ${merchantId}, 'PAYIN', ${d.status}, ${`seed-${id}`}, 150000, 'RUB', ${r.methodId}, ${r.requisiteId}, ${r.traderId},
      1600, 93000000, now() - make_interval(mins => ${d.agoMinutes ?? 1}))`;
  if (d.confirmed || d.device) {
    await tx`
      insert into audit_log (actor_kind, actor_id, role, action, object_type, object_id, request_id, request_key)
      values ('system', 'routing-test', '', 'deal.confirm', 'deal', ${id}, ${id}, ${`seed-${id}`})`;
  }
  if (d.device) {
    await tx`
      insert into bank_notifications (id, device_id, trader_id, hash, sequence, sender, received_at, text_sealed, amount, currency, status, deal_id, requisite_id, matched_at)
      values (${randomUUID()}, ${d.device}, ${r.traderId}, ${Buffer.from(randomUUID())}, ${Math.floor(Math.random() * 1e9)}, 'bank', now(), 'sealed', 150000, 'RUB',
        'MATCHED', ${id}, ${r.requisiteId}, now())`;
  }
  if (d.appealLost) {
    await tx`
      insert into appeals (id, tenant_id, merchant_id, deal_id, status, reason, deal_status_at_open, outcome, resolved_at)
      values (${randomUUID()}, ${DEFAULT_TENANT_ID}, ${merchantId}, ${id}, 'RESOLVED_MERCHANT', 'client paid', 'APPEALED', 'SATISFIED', now())`;
  }
}

async function seedDevice(tx: Tx, traderId: string): Promise<string> {
  const id = randomUUID();
  await tx`
    insert into bank_devices (id, trader_id, name, status, pairing_expires_at, public_key, paired_at)
    values (${id}, ${traderId}, 'Routing test phone', 'ACTIVE', now(), ${Buffer.alloc(32, 7)}, now())`;
  return id;
}

test('the refresh scores seeded outcomes as the formula says, and with exploration off the better history wins every create', async (t) => {
  const { merchantId } = await newMerchant();
  const method = await isolatedMethod();
  const good = await isolatedTrader({ liquidity: 1_000_000, method });
  const bad = await isolatedTrader({ liquidity: 1_000_000, method });
  const fresh = await isolatedTrader({ liquidity: 1_000_000, method });
  const mid = await methodId(method);
  const names = { good: await traderName(good.traderId), bad: await traderName(bad.traderId), fresh: await traderName(fresh.traderId) };

  await rolledBack(async (tx) => {
    const device = await seedDevice(tx, good.traderId);
    const g = { ...good, methodId: mid };
    const b = { ...bad, methodId: mid };
    // The good requisite: three completions, one by its bank device, one confirmed slowly (20 minutes after creation).
    await seedDeal(tx, merchantId, g, { status: 'COMPLETED', device });
    await seedDeal(tx, merchantId, g, { status: 'COMPLETED', confirmed: true, agoMinutes: 20 });
    await seedDeal(tx, merchantId, g, { status: 'COMPLETED' });
    // The bad one: a completion its trader lost the appeal of, two expiries.
    await seedDeal(tx, merchantId, b, { status: 'COMPLETED', appealLost: true });
    await seedDeal(tx, merchantId, b, { status: 'EXPIRED' });
    await seedDeal(tx, merchantId, b, { status: 'EXPIRED' });
    // Outside the window: counts for nothing.
    await seedDeal(tx, merchantId, b, { status: 'COMPLETED', agoMinutes: 169 * 60 });

    // A worker's refresh may hold this turn for a moment (the advisory lock): try again until this transaction has it.
    await eventually(async () => (await rewriteScores(tx, 168)).refreshed, 'the score refresh turn', 30_000);
    const rows = await tx<Omit<RequisiteScoreRow, 'confirm_seconds_avg'>[]>`
      select requisite_id, score, completed, expired, appeals_lost, confirmed, slow_confirms, auto_confirmed from requisite_scores
      where requisite_id in ${tx([good.requisiteId, bad.requisiteId, fresh.requisiteId])}`;
    const byId = new Map(rows.map((r) => [r.requisite_id, r]));
    const goodScore = requisiteScore({ completed: 3, expired: 0, appealsLost: 0, slowConfirms: 1, autoConfirmed: 1 });
    const badScore = requisiteScore({ completed: 1, expired: 2, appealsLost: 1, slowConfirms: 0, autoConfirmed: 0 });
    t.deepEqual(byId.get(good.requisiteId), {
      requisite_id: good.requisiteId,
      score: goodScore,
      completed: 3,
      expired: 0,
      appeals_lost: 0,
      confirmed: 2,
      slow_confirms: 1,
      auto_confirmed: 1,
    });
    t.deepEqual(byId.get(bad.requisiteId), {
      requisite_id: bad.requisiteId,
      score: badScore,
      completed: 1,
      expired: 2,
      appeals_lost: 1,
      confirmed: 0,
      slow_confirms: 0,
      auto_confirmed: 0,
    });
    t.is(goodScore, 666);
    t.is(badScore, 350);
    t.false(byId.has(fresh.requisiteId), 'a requisite with no history has no row: the prior');

    const request: MatchRequest = {
      paymentMethodId: mid,
      amount: 150_000n,
      escrowUsdt: 1_600n,
      payerBank: 'no-such-bank',
      dealType: 'PAYIN',
      explorationPermille: 0,
    };
    for (let i = 0; i < 8; i++) {
      const match = await tx.savepoint((sp) => claimRequisite(sp, request));
      t.is(match?.requisite_id, good.requisiteId, 'the better history takes the deal');
      t.is(match!.decision.reason, 'best_score');
      t.false(match!.decision.explored);
      t.deepEqual(
        match!.decision.candidates.map((c) => [c.trader_name, c.score, c.same_bank]),
        [
          [names.good, 666, false],
          [names.fresh, 500, false],
          [names.bad, 350, false],
        ],
      );
    }
    // The payer's bank still comes first: the bad requisite on the payer's bank beats the scores.
    const [badBank] = await tx<{ bank_name: string }[]>`update requisites set bank_name = 'Payer Bank' where id = ${bad.requisiteId} returning bank_name`;
    const sameBank = await tx.savepoint((sp) => claimRequisite(sp, { ...request, payerBank: badBank!.bank_name.toLowerCase() }));
    t.is(sameBank?.requisite_id, bad.requisiteId);
    t.is(sameBank!.decision.reason, 'same_bank_best_score');
    // Every create explores: random order, each candidate's turn comes.
    const chosen = new Set<string>();
    for (let i = 0; i < 40 && chosen.size < 3; i++) {
      const match = await tx.savepoint((sp) => claimRequisite(sp, { ...request, explorationPermille: 1000 }));
      t.true(match!.decision.explored);
      t.is(match!.decision.reason, 'exploration');
      chosen.add(match!.requisite_id);
    }
    t.is(chosen.size, 3, 'exploring, every candidate gets deals');
  });
});

test('every created deal stores its decision with the chosen requisite among the candidates, and the timeline shows it with names', async (t) => {
  const { keys } = await newMerchant();
  const method = await isolatedMethod();
  const a = await isolatedTrader({ liquidity: 1_000_000, method });
  const b = await isolatedTrader({ liquidity: 1_000_000, method });
  const names = new Map([
    [a.requisiteId, await traderName(a.traderId)],
    [b.requisiteId, await traderName(b.traderId)],
  ]);
  const deals = [];
  for (let i = 0; i < 4; i++) deals.push(await createPayin(keys, { payment_method_id: method, amount: 150_000 + i * 100 }));

  for (const deal of deals) {
    const [row] = await sql<
      {
        requisite_id: string;
        chosen_requisite_id: string;
        reason: string;
        explored: boolean;
        candidates: { requisite_id: string; trader_name: string; score: number }[];
      }[]
    >`
      select d.requisite_id, rd.chosen_requisite_id, rd.reason, rd.explored, rd.candidates
      from deals d join routing_decisions rd on rd.deal_id = d.id where d.id = ${deal.deal_id}`;
    t.truthy(row, `deal ${deal.deal_id} has its routing decision`);
    t.is(row!.chosen_requisite_id, row!.requisite_id);
    t.true(['best_score', 'exploration'].includes(row!.reason), row!.reason);
    t.is(row!.explored, row!.reason === 'exploration');
    t.deepEqual(row!.candidates.map((c) => c.requisite_id).sort(), [a.requisiteId, b.requisiteId].sort(), 'the two requisites of the method, no other');
    for (const c of row!.candidates) t.is(c.trader_name, names.get(c.requisite_id)!);

    const timeline = await asOperator('GET', `/api/v1/p2p/admin/deals/${deal.deal_id}`);
    t.is(timeline.status, 200, timeline.text);
    const routing = timeline.body.routing;
    t.is(routing.chosen.requisite_id, row!.requisite_id);
    t.is(routing.chosen.trader_name, names.get(row!.requisite_id));
    t.regex(routing.chosen.requisite_summary, /BANK_CARD •••• 7777, isolated-bank/);
    t.is(routing.reason, row!.reason);
    t.regex(
      routing.reason_text,
      row!.reason === 'exploration' ? /^explored \(10 % of deals go to a random candidate/ : /^best score of 2 candidates \(\d+ vs \d+\)$/,
    );
    t.deepEqual(routing.candidates.map((c: { trader_name: string }) => c.trader_name).sort(), [...names.values()].sort());
    t.is(routing.candidates.filter((c: { chosen: boolean }) => c.chosen).length, 1);
  }
});

test('a sandbox deal records its decision with the reason sandbox', async (t) => {
  const { keys } = await newMerchant({ sandbox: true });
  const deal = await createPayin(keys, { amount: 150_000 });
  const [row] = await sql<{ reason: string; explored: boolean; n: number }[]>`
    select reason, explored, jsonb_array_length(candidates)::int as n from routing_decisions where deal_id = ${deal.deal_id}`;
  t.like(row, { reason: 'sandbox', explored: false, n: 1 });
});

const workerUrls = (process.env.TEST_WORKER_METRICS_URLS ?? '').split(',').filter(Boolean);
/** gateway_routing_decisions_total summed over the worker processes and the given reasons. */
async function routedCount(reasons: string[]): Promise<number> {
  let sum = 0;
  for (const url of workerUrls) {
    const text = await (await fetch(url)).text();
    for (const m of text.matchAll(/^gateway_routing_decisions_total\{[^}]*reason="([a-z_]+)"[^}]*\} (\S+)$/gm))
      if (reasons.includes(m[1]!)) sum += Number(m[2]);
  }
  return sum;
}

test("the worker's refresh scores a requisite from its deals, and the create counts its decision in the metrics", async (t) => {
  const { keys } = await newMerchant();
  const method = await isolatedMethod();
  const only = await isolatedTrader({ liquidity: 1_000_000, method });
  const before = await routedCount(['only_candidate']);
  const deal = await createPayin(keys, { payment_method_id: method });
  t.is((await operatorDeal(deal.deal_id, 'confirm')).body.deal.status, 'COMPLETED');
  // One completion, confirmed at once: 500 → 583 once a refresh has run (every ROUTING_SCORE_REFRESH_SECONDS, 2 on the test stack).
  const row = await eventually(async () => {
    const [r] = await sql<Pick<RequisiteScoreRow, 'score' | 'completed' | 'confirmed' | 'slow_confirms'>[]>`
      select score, completed, confirmed, slow_confirms from requisite_scores where requisite_id = ${only.requisiteId} and completed = 1`;
    return r;
  }, "the worker's score refresh");
  t.deepEqual({ ...row }, { score: 583, completed: 1, confirmed: 1, slow_confirms: 0 });
  const [decision] = await sql<{ reason: string }[]>`select reason from routing_decisions where deal_id = ${deal.deal_id}`;
  t.is(decision?.reason, 'only_candidate');
  if (workerUrls.length > 0) t.true((await routedCount(['only_candidate'])) >= before + 1, 'gateway_routing_decisions_total{reason="only_candidate"} moved');
});
