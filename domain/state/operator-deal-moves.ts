/**
 * The operator's moves on a deal, named as the console and the operator routes name them, each
 * mapped to its row of the PayIn or PayOut state table: which of them a deal's state allows now.
 * The console offers only these (GET /admin/deals/{deal_id} answers them); the workflow refuses
 * every other move anyway.
 */
import { amountToPay, blocksAutocompletion, PAYIN_TRANSITIONS, payinRefusal, type AmountMatch, type PayinMove } from './payin';
import { PAYOUT_TRANSITIONS, payoutRefusal, type PayoutMove } from './payout';

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

/** What an operator move does to the deal: its status after, and the money, as the state table says. */
export interface DealMoveOutcome {
  move: OperatorDealMove;
  /** The deal's status after the move (its status now when the move leaves it). */
  status_after: string;
  /**
   * Recording the received amount: the status after when it is the full amount to pay (a verified
   * deal then completes); '' for every other move.
   */
  status_after_full_match: string;
  /** Recording the received amount: the amount that is a full match (what the payer is asked to pay), minor units; '' otherwise. */
  full_match_amount: string;
  money: string;
}

/**
 * The outcome of each move the deal's state allows now. A trader's confirmation completes the deal
 * in the same step unless the recorded amount blocks the autocompletion (the confirm step's rule);
 * a full received amount recorded on a verified deal completes it (the reconciliation's rule).
 */
export function operatorMoveOutcomes(deal: {
  deal_type: string;
  status: string;
  amount_match_status: string;
  amount: bigint;
  fee_bps: number;
  is_client_commission: boolean;
}): DealMoveOutcome[] {
  const outcome = (move: OperatorDealMove, status_after: string, money: string, status_after_full_match = ''): DealMoveOutcome => ({
    move,
    status_after,
    status_after_full_match,
    full_match_amount: status_after_full_match ? amountToPay(deal).toString() : '',
    money,
  });
  return operatorMovesFor(deal.deal_type, deal.status).map((name) => {
    if (deal.deal_type !== 'PAYIN') {
      const row = PAYOUT_TRANSITIONS[PAYOUT_MOVES.find(([n]) => n === name)![1]];
      return outcome(name, row.to ?? deal.status, row.money);
    }
    const { confirm_payment: confirm, complete, reconcile, change_amount: change } = PAYIN_TRANSITIONS;
    switch (name) {
      case 'confirm':
        return blocksAutocompletion(deal.amount_match_status as AmountMatch)
          ? outcome(name, confirm.to!, confirm.money)
          : outcome(name, complete.to!, complete.money);
      case 'complete':
        return outcome(name, complete.to!, complete.money);
      case 'reconcile':
        return outcome(name, deal.status, reconcile.money, deal.status === confirm.to ? complete.to! : deal.status);
      default:
        return outcome(name, deal.status, change.money);
    }
  });
}
