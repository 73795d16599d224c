import test from 'ava';
import fc from 'fast-check';
import { explores, reasonInWords, requisiteScore, routingReason, SCORE_MAX, SCORE_PRIOR, type RoutingCandidate, type ScoreCounts } from '../../domain/routing';

const count = fc.nat({ max: 100_000 });
const counts = fc.record<ScoreCounts>({ completed: count, expired: count, appealsLost: count, slowConfirms: count, autoConfirmed: count });
const NONE: ScoreCounts = { completed: 0, expired: 0, appealsLost: 0, slowConfirms: 0, autoConfirmed: 0 };

test('a requisite with no history scores the prior; one deal does not swing it', (t) => {
  t.is(requisiteScore(NONE), SCORE_PRIOR);
  const one = requisiteScore({ ...NONE, completed: 1 });
  const bad = requisiteScore({ ...NONE, expired: 1 });
  t.true(one > SCORE_PRIOR && one < 600, `one completion: ${one}`);
  t.true(bad < SCORE_PRIOR && bad > 400, `one expiry: ${bad}`);
  // A long clean history approaches the top; a long bad one the bottom.
  t.true(requisiteScore({ ...NONE, completed: 1000, autoConfirmed: 1000 }) > 990);
  t.true(requisiteScore({ ...NONE, expired: 1000 }) < 10);
});

test('the score is an integer in 0..1000 for any counts', (t) => {
  fc.assert(
    fc.property(counts, (c) => {
      const s = requisiteScore(c);
      return Number.isInteger(s) && s >= 0 && s <= SCORE_MAX;
    }),
  );
  t.pass();
});

test('more completions or auto-confirmations never lower the score', (t) => {
  fc.assert(
    fc.property(counts, fc.integer({ min: 1, max: 1000 }), (c, more) => {
      const s = requisiteScore(c);
      return requisiteScore({ ...c, completed: c.completed + more }) >= s && requisiteScore({ ...c, autoConfirmed: c.autoConfirmed + more }) >= s;
    }),
  );
  t.pass();
});

test('more expiries, lost appeals or slow confirmations never raise the score', (t) => {
  fc.assert(
    fc.property(counts, fc.integer({ min: 1, max: 1000 }), (c, more) => {
      const s = requisiteScore(c);
      return (
        requisiteScore({ ...c, expired: c.expired + more }) <= s &&
        requisiteScore({ ...c, appealsLost: c.appealsLost + more }) <= s &&
        requisiteScore({ ...c, slowConfirms: c.slowConfirms + more }) <= s
      );
    }),
  );
  t.pass();
});

test('a lost appeal weighs more than an expiry, an expiry more than a slow confirmation', (t) => {
  fc.assert(
    fc.property(counts, (c) => {
      const appeal = requisiteScore({ ...c, appealsLost: c.appealsLost + 1 });
      const expiry = requisiteScore({ ...c, expired: c.expired + 1 });
      const slow = requisiteScore({ ...c, slowConfirms: c.slowConfirms + 1 });
      return appeal <= expiry && expiry <= slow;
    }),
  );
  t.pass();
});

const candidate = (id: string, score: number, sameBank = false): RoutingCandidate => ({
  requisite_id: id,
  trader_id: `t-${id}`,
  trader_name: `Trader ${id}`,
  score,
  same_bank: sameBank,
});

test('the reason of a decision, and its words compare the scores', (t) => {
  const cs = [candidate('a', 812), candidate('b', 640), candidate('c', 500), candidate('d', 455)];
  const base = { sandbox: false, pass: false, explored: false, candidates: cs, chosen: cs[0]! };
  t.is(routingReason(base), 'best_score');
  t.is(routingReason({ ...base, chosen: candidate('a', 812, true) }), 'same_bank_best_score');
  t.is(routingReason({ ...base, explored: true }), 'exploration');
  t.is(routingReason({ ...base, candidates: [cs[0]!], explored: true }), 'only_candidate');
  t.is(routingReason({ ...base, pass: true, explored: true }), 'pass');
  t.is(routingReason({ ...base, sandbox: true }), 'sandbox');
  t.is(reasonInWords('best_score', { candidates: cs, chosen_requisite_id: 'a' }), 'best score of 4 candidates (812 vs 640, 500, 455)');
  t.is(
    reasonInWords('exploration', { candidates: cs, chosen_requisite_id: 'c', explorationPermille: 100 }),
    'explored (10 % of deals go to a random candidate so new requisites earn a score)',
  );
});

test('exploration draws its share', (t) => {
  t.false(explores(0, 0));
  t.true(explores(1000, 999));
  let hits = 0;
  for (let draw = 0; draw < 1000; draw++) if (explores(100, draw)) hits++;
  t.is(hits, 100);
});
