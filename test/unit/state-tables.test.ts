import test from 'ava';
import { APPEAL_ACTIVE, APPEAL_HOLDS_DEAL, APPEAL_TRANSITIONS } from '../../domain/state/appeals';
import {
  PAYIN_AMOUNT_CHANGEABLE,
  PAYIN_CANCELLABLE,
  PAYIN_CONFIRMABLE,
  PAYIN_EXPIRABLE,
  PAYIN_STATUSES,
  PAYIN_TERMINAL,
  PAYIN_TRANSITIONS,
  payinSources,
  type PayinMove,
} from '../../domain/state/payin';
import { PAYOUT_STATUSES, PAYOUT_TERMINAL, PAYOUT_TRANSITIONS, type PayoutMove } from '../../domain/state/payout';
import { sourceStates } from '../../domain/state/state-machine';

test('PayIn table: terminal states have no way out, targets are PayIn states, the derived lists are as the spec lists them', (t) => {
  const moves = Object.keys(PAYIN_TRANSITIONS) as PayinMove[];
  for (const status of PAYIN_TERMINAL)
    t.deepEqual(
      moves.filter((m) => payinSources(m).includes(status)),
      [],
      status,
    );
  for (const move of moves) {
    const to = PAYIN_TRANSITIONS[move].to;
    if (to) t.true(PAYIN_STATUSES.includes(to), move);
  }
  t.deepEqual(PAYIN_CANCELLABLE, ['INITIALIZED', 'ESCROW_LOCKED', 'PAYMENT_NOTIFIED']);
  t.deepEqual(PAYIN_AMOUNT_CHANGEABLE, ['INITIALIZED', 'ESCROW_LOCKED', 'PAYMENT_NOTIFIED', 'SOFT_DISPUTED']);
  t.deepEqual(PAYIN_CONFIRMABLE, ['ESCROW_LOCKED', 'PAYMENT_NOTIFIED']);
  t.deepEqual(PAYIN_EXPIRABLE, ['INITIALIZED', 'ESCROW_LOCKED', 'PAYMENT_NOTIFIED', 'PAYMENT_VERIFIED']);
  t.deepEqual(payinSources('reconcile'), [
    'INITIALIZED',
    'ESCROW_LOCKED',
    'PAYMENT_NOTIFIED',
    'PAYMENT_VERIFIED',
    'APPEALED',
    'REFUND_PENDING',
    'SOFT_DISPUTED',
  ]);
  t.deepEqual(APPEAL_HOLDS_DEAL, ['INITIALIZED', 'ESCROW_LOCKED', 'PAYMENT_NOTIFIED', 'PAYMENT_VERIFIED']);
});

test('PayOut table: terminal states have no way out; the moves of the spec', (t) => {
  const moves = Object.keys(PAYOUT_TRANSITIONS) as PayoutMove[];
  for (const status of PAYOUT_TERMINAL)
    t.deepEqual(
      moves.filter((m) => sourceStates(PAYOUT_TRANSITIONS[m]).includes(status)),
      [],
      status,
    );
  t.deepEqual([...new Set(moves.map((m) => PAYOUT_TRANSITIONS[m].to))].sort(), PAYOUT_STATUSES.filter((s) => s !== 'INITIALIZED').sort());
  t.deepEqual(sourceStates(PAYOUT_TRANSITIONS.assign), ['UNASSIGNED', 'MATCHED']);
  t.deepEqual(sourceStates(PAYOUT_TRANSITIONS.complete), ['PROCESSING']);
});

test('appeal table: settlement and resolution need an active appeal; every move has its event', (t) => {
  t.deepEqual(APPEAL_ACTIVE, ['OPEN', 'IN_REVIEW', 'REOPENED']);
  for (const [move, transition] of Object.entries(APPEAL_TRANSITIONS)) t.is(transition.events.length, 1, move);
});
