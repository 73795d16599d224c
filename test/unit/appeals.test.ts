import test from 'ava';
import fc from 'fast-check';
import {
  APPEAL_ACTIVE,
  APPEAL_MOVES,
  APPEAL_STATUSES,
  appealMove,
  resolutionNote,
  resolveMove,
  terminalResolutionProblem,
  traderAnswerRefusal,
  traderAnswerState,
  type AppealMoveKind,
  type AppealStatus,
} from '../../domain/state/appeals';

const MOVES: AppealMoveKind[] = ['review', 'resolve_merchant', 'resolve_trader', 'close', 'reopen'];

test('the appeal table: exactly these moves are legal', (t) => {
  const legal = APPEAL_STATUSES.flatMap((from) =>
    MOVES.filter((m) => 'to' in appealMove(from, m)).map((m) => `${from} -${m}-> ${(appealMove(from, m) as { to: string }).to}`),
  );
  t.deepEqual(legal, [
    'OPEN -review-> IN_REVIEW',
    'OPEN -resolve_merchant-> RESOLVED_MERCHANT',
    'OPEN -resolve_trader-> RESOLVED_TRADER',
    'OPEN -close-> CLOSED',
    'IN_REVIEW -resolve_merchant-> RESOLVED_MERCHANT',
    'IN_REVIEW -resolve_trader-> RESOLVED_TRADER',
    'IN_REVIEW -close-> CLOSED',
    'RESOLVED_MERCHANT -close-> CLOSED',
    'RESOLVED_MERCHANT -reopen-> REOPENED',
    'RESOLVED_TRADER -close-> CLOSED',
    'RESOLVED_TRADER -reopen-> REOPENED',
    'CLOSED -reopen-> REOPENED',
    'REOPENED -review-> IN_REVIEW',
    'REOPENED -resolve_merchant-> RESOLVED_MERCHANT',
    'REOPENED -resolve_trader-> RESOLVED_TRADER',
    'REOPENED -close-> CLOSED',
  ]);
});

test('a resolution lands on the outcome’s state; a second one is refused as "already resolved"', (t) => {
  t.is(resolveMove('SATISFIED'), 'resolve_merchant');
  t.is(resolveMove('REJECTED'), 'resolve_trader');
  for (const resolved of ['RESOLVED_MERCHANT', 'RESOLVED_TRADER'] as const) {
    for (const m of ['resolve_merchant', 'resolve_trader'] as const) {
      const r = appealMove(resolved, m);
      t.true('refused' in r && /already resolved/.test(r.refused));
    }
  }
  t.true('refused' in appealMove('IN_REVIEW', 'review'));
  t.true('refused' in appealMove('CLOSED', 'close'));
});

test('properties: every walk through the table stays in known states; only active appeals resolve; CLOSED only reopens', (t) => {
  fc.assert(
    fc.property(fc.array(fc.constantFrom(...MOVES), { maxLength: 30 }), (walk) => {
      let state: AppealStatus = 'OPEN';
      for (const m of walk) {
        const r = appealMove(state, m);
        if ('to' in r) {
          if (m.startsWith('resolve')) t.true(APPEAL_ACTIVE.includes(state));
          if (state === 'CLOSED') t.is(m, 'reopen');
          state = r.to;
        } else {
          t.is(APPEAL_MOVES[state][m], undefined);
          t.true(r.refused.startsWith(`appeal is ${state};`));
        }
        t.true((APPEAL_STATUSES as readonly string[]).includes(state));
      }
    }),
  );
});

test('a resolution on a terminal deal must agree with its final money', (t) => {
  const check = (dealStatus: string, outcome: 'SATISFIED' | 'REJECTED', settled = false, previousOutcome: 'SATISFIED' | 'REJECTED' | null = null) =>
    terminalResolutionProblem({ dealStatus, outcome, settled, previousOutcome });
  t.regex(check('EXPIRED', 'SATISFIED')!, /settle it first/);
  t.is(check('EXPIRED', 'SATISFIED', true), undefined);
  t.is(check('EXPIRED', 'REJECTED'), undefined);
  t.regex(check('EXPIRED', 'REJECTED', true)!, /only be resolved SATISFIED/);
  t.regex(check('CANCELLED', 'SATISFIED')!, /only be resolved REJECTED/);
  t.is(check('CANCELLED', 'REJECTED'), undefined);
  t.is(check('COMPLETED', 'SATISFIED'), undefined);
  t.is(check('COMPLETED', 'REJECTED'), undefined);
  t.regex(check('COMPLETED', 'REJECTED', false, 'SATISFIED')!, /completed the deal/);
});

test('resolution_note links the settlement deal', (t) => {
  t.is(resolutionNote('ok', null), 'ok');
  t.is(resolutionNote('paid late', 'd-1'), 'paid late\nsettlement deal d-1');
  t.is(resolutionNote('', 'd-1'), 'settlement deal d-1');
});

test("the trader's answer: accepted while the appeal waits for the arbiter and before trader_respond_by, else refused; its state says which", (t) => {
  const now = new Date('2026-01-01T12:00:00Z');
  const ahead = new Date('2026-01-01T12:00:01Z');
  const past = new Date('2026-01-01T11:59:59Z');
  for (const status of APPEAL_STATUSES) {
    const refusal = traderAnswerRefusal({ status, trader_respond_by: ahead }, now);
    t.is(refusal === undefined, APPEAL_ACTIVE.includes(status), status);
  }
  t.regex(traderAnswerRefusal({ status: 'OPEN', trader_respond_by: past }, now) ?? '', /time to answer ended/);
  t.regex(traderAnswerRefusal({ status: 'OPEN', trader_respond_by: now }, now) ?? '', /time to answer ended/, 'the deadline itself is too late');
  t.is(traderAnswerState({ trader_respond_by: ahead, trader_responded_at: null }, now), 'WAITING');
  t.is(traderAnswerState({ trader_respond_by: past, trader_responded_at: null }, now), 'MISSED');
  t.is(traderAnswerState({ trader_respond_by: past, trader_responded_at: past }, now), 'ANSWERED');
});
