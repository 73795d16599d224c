/** The operator moves a deal's or an appeal's state allows, and what each does, read from the state tables (domain/state/operator-*-moves.ts). */
import test from 'ava';
import { operatorMoveOutcomes, operatorMovesFor } from '../../domain/state/operator-deal-moves';
import { operatorAppealMoves } from '../../domain/state/operator-appeal-moves';
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

const payin = (status: string, amount_match_status = '', is_client_commission = false) => ({
  deal_type: 'PAYIN',
  status,
  amount_match_status,
  amount: 150000n,
  fee_bps: 200,
  is_client_commission,
});

test('outcomes: a confirmation completes unless the recorded amount blocks it; a full amount recorded on a verified deal completes it', (t) => {
  const confirm = (match: string) => operatorMoveOutcomes(payin('PAYMENT_NOTIFIED', match)).find((o) => o.move === 'confirm')!;
  t.is(confirm('').status_after, 'COMPLETED');
  t.is(confirm('full').status_after, 'COMPLETED');
  t.is(confirm('partial').status_after, 'PAYMENT_VERIFIED');
  t.is(confirm('overpaid').status_after, 'PAYMENT_VERIFIED');
  const verified = operatorMoveOutcomes(payin('PAYMENT_VERIFIED', 'partial'));
  t.deepEqual(
    verified.map((o) => [o.move, o.status_after, o.status_after_full_match, o.full_match_amount]),
    [
      ['complete', 'COMPLETED', '', ''],
      ['reconcile', 'PAYMENT_VERIFIED', 'COMPLETED', '150000'],
    ],
  );
  // The payer who pays the fee on top is asked for more: that is the full match.
  t.is(operatorMoveOutcomes(payin('PAYMENT_VERIFIED', '', true)).find((o) => o.move === 'reconcile')!.full_match_amount, '153000');
  t.is(operatorMoveOutcomes(payin('ESCROW_LOCKED')).find((o) => o.move === 'reconcile')!.status_after_full_match, 'ESCROW_LOCKED');
  t.is(operatorMoveOutcomes(payin('ESCROW_LOCKED')).find((o) => o.move === 'change_amount')!.status_after, 'ESCROW_LOCKED');
  t.deepEqual(operatorMoveOutcomes(payin('COMPLETED')), []);
});

test('outcomes: PayOut moves are their table rows', (t) => {
  const payout = (status: string) =>
    operatorMoveOutcomes({ deal_type: 'PAYOUT', status, amount_match_status: '', amount: 1n, fee_bps: 0, is_client_commission: false }).map((o) => [
      o.move,
      o.status_after,
    ]);
  t.deepEqual(payout('MATCHED'), [
    ['payout_start', 'PROCESSING'],
    ['payout_assign', 'MATCHED'],
  ]);
  t.deepEqual(payout('PROCESSING'), [
    ['payout_complete', 'COMPLETED'],
    ['payout_reject', 'FAILED'],
  ]);
});

test('appeal moves: REJECTED on a live (APPEALED) deal cancels it; close is not offered while the appeal holds the deal', (t) => {
  const moves = operatorAppealMoves({ appealStatus: 'OPEN', dealStatus: 'APPEALED', settled: false, outcome: null });
  const by = Object.fromEntries(moves.map((m) => [m.move, m]));
  t.like(by.resolve_rejected, { offered: true, appeal_status_after: 'RESOLVED_TRADER', deal_status_after: 'CANCELLED' });
  t.like(by.resolve_satisfied, { offered: true, appeal_status_after: 'RESOLVED_MERCHANT', deal_status_after: 'COMPLETED' });
  t.like(by.close, { offered: false });
  t.regex(by.close!.refusal, /resolve it/);
  t.like(by.review, { offered: true, appeal_status_after: 'IN_REVIEW', deal_status_after: 'APPEALED' });
  t.like(by.reopen, { offered: false });
  t.like(by.settle, { offered: false });
});

test('appeal moves: SATISFIED on an EXPIRED deal needs the settlement first; after it, SATISFIED and no more REJECTED', (t) => {
  const before = Object.fromEntries(
    operatorAppealMoves({ appealStatus: 'OPEN', dealStatus: 'EXPIRED', settled: false, outcome: null }).map((m) => [m.move, m]),
  );
  t.like(before.resolve_satisfied, { offered: false, first: 'settle' });
  t.regex(before.resolve_satisfied!.refusal, /settle it first/);
  t.like(before.settle, { offered: true, deal_status_after: 'EXPIRED', new_deal_status_after: 'COMPLETED' });
  t.like(before.resolve_rejected, { offered: true, deal_status_after: 'EXPIRED', appeal_status_after: 'RESOLVED_TRADER' });
  const after = Object.fromEntries(operatorAppealMoves({ appealStatus: 'OPEN', dealStatus: 'EXPIRED', settled: true, outcome: null }).map((m) => [m.move, m]));
  t.like(after.resolve_satisfied, { offered: true, deal_status_after: 'EXPIRED' });
  t.like(after.resolve_rejected, { offered: false, first: '' });
  t.like(after.settle, { offered: false });
  // A resolved appeal is reopened, not resolved again.
  const resolved = operatorAppealMoves({ appealStatus: 'RESOLVED_MERCHANT', dealStatus: 'COMPLETED', settled: false, outcome: 'SATISFIED' });
  t.deepEqual(
    resolved.filter((m) => m.offered).map((m) => m.move),
    ['close', 'reopen'],
  );
});
