/** The operator moves a deal's state allows (domain/state/operator-deal-moves.ts), read from the PayIn and PayOut state tables. */
import test from 'ava';
import { operatorMovesFor } from '../../domain/state/operator-deal-moves';
import { PAYIN_STATUSES, isPayinTerminal, type PayinStatus } from '../../domain/state/payin';

test('PayIn: the moves each state allows, none on a terminal deal', (t) => {
  t.deepEqual(operatorMovesFor('PAYIN', 'ESCROW_LOCKED'), ['confirm', 'reconcile', 'change_amount']);
  t.deepEqual(operatorMovesFor('PAYIN', 'PAYMENT_NOTIFIED'), ['confirm', 'reconcile', 'change_amount']);
  t.deepEqual(operatorMovesFor('PAYIN', 'PAYMENT_VERIFIED'), ['complete', 'reconcile']);
  for (const status of PAYIN_STATUSES.filter((s) => isPayinTerminal(s as PayinStatus))) t.deepEqual(operatorMovesFor('PAYIN', status), [], status);
});

test('PayOut: start and assign while MATCHED, complete and reject while PROCESSING, nothing once ended', (t) => {
  t.deepEqual(operatorMovesFor('PAYOUT', 'MATCHED'), ['payout_start', 'payout_assign']);
  t.deepEqual(operatorMovesFor('PAYOUT', 'UNASSIGNED'), ['payout_assign']);
  t.deepEqual(operatorMovesFor('PAYOUT', 'PROCESSING'), ['payout_complete', 'payout_reject']);
  for (const status of ['COMPLETED', 'FAILED', 'EXPIRED']) t.deepEqual(operatorMovesFor('PAYOUT', status), [], status);
});
