/**
 * The trader's moves on its deals (the trader app), named as the trader routes name them, each
 * mapped to its row of the PayIn or PayOut state table: which of them a deal's state allows now.
 * The app offers only these (the trader's deal answers them); the workflow refuses every other
 * move anyway.
 */
import { payinRefusal, type PayinMove } from './payin';
import { payoutRefusal, type PayoutMove } from './payout';

export const TRADER_DEAL_MOVES = ['confirm', 'not_received', 'take', 'start', 'complete', 'reject'] as const;
export type TraderDealMove = (typeof TRADER_DEAL_MOVES)[number];

const TRADER_PAYIN_MOVES: ReadonlyArray<[TraderDealMove, PayinMove]> = [
  ['confirm', 'confirm_payment'],
  ['not_received', 'report_not_received'],
];
const TRADER_PAYOUT_MOVES: ReadonlyArray<[TraderDealMove, PayoutMove]> = [
  ['take', 'take'],
  ['start', 'start'],
  ['complete', 'complete'],
  ['reject', 'fail'],
];

/** The trader moves the deal's state allows now. */
export function traderMovesFor(dealType: string, status: string): TraderDealMove[] {
  return dealType === 'PAYIN'
    ? TRADER_PAYIN_MOVES.filter(([, move]) => payinRefusal(move, status) === undefined).map(([name]) => name)
    : TRADER_PAYOUT_MOVES.filter(([, move]) => payoutRefusal(move, status) === undefined).map(([name]) => name);
}

/** The refusal of a trader move in the deal's state, in the state table's words (undefined: allowed). */
export function traderMoveRefusal(dealType: string, move: TraderDealMove, status: string): string | undefined {
  const payin = TRADER_PAYIN_MOVES.find(([name]) => name === move);
  const payout = TRADER_PAYOUT_MOVES.find(([name]) => name === move);
  if (dealType === 'PAYIN') return payin ? payinRefusal(payin[1], status)?.message : `a PayIn has no move ${move}`;
  return payout ? payoutRefusal(payout[1], status)?.message : `a PayOut has no move ${move}`;
}
