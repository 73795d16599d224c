/**
 * The operator's moves on a deal, named as the console and the operator routes name them, each
 * mapped to its row of the PayIn or PayOut state table: which of them a deal's state allows now.
 * The console offers only these (GET /admin/deals/{deal_id} answers them); the workflow refuses
 * every other move anyway.
 */
import { payinRefusal, type PayinMove } from './payin';
import { payoutRefusal, type PayoutMove } from './payout';

export const OPERATOR_DEAL_MOVES = [
  'confirm',
  'complete',
  'reconcile',
  'change_amount',
  'payout_start',
  'payout_complete',
  'payout_reject',
  'payout_assign',
] as const;
export type OperatorDealMove = (typeof OPERATOR_DEAL_MOVES)[number];

const PAYIN_MOVES: ReadonlyArray<[OperatorDealMove, PayinMove]> = [
  ['confirm', 'confirm_payment'],
  ['complete', 'complete'],
  ['reconcile', 'reconcile'],
  ['change_amount', 'change_amount'],
];
const PAYOUT_MOVES: ReadonlyArray<[OperatorDealMove, PayoutMove]> = [
  ['payout_start', 'start'],
  ['payout_complete', 'complete'],
  ['payout_reject', 'fail'],
  ['payout_assign', 'assign'],
];

/** The operator moves the deal's state allows now. */
export function operatorMovesFor(dealType: string, status: string): OperatorDealMove[] {
  return dealType === 'PAYIN'
    ? PAYIN_MOVES.filter(([, move]) => payinRefusal(move, status) === undefined).map(([name]) => name)
    : PAYOUT_MOVES.filter(([, move]) => payoutRefusal(move, status) === undefined).map(([name]) => name);
}
