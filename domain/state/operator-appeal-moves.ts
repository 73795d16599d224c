/**
 * The arbiter's moves on an appeal as the console offers them, each with what it will do — the
 * appeal's status after it, the deal's, a new deal's, the money — or why it cannot run now and
 * which move has to come first. Every answer is read off the functions the workflows decide with:
 * a resolution of an APPEALED deal is the deal workflow's `appeal_satisfied` / `appeal_rejected`
 * row of PAYIN_TRANSITIONS; any other command is the appeal workflow's `appealCommandProblem`; a
 * settlement is the settlement step's `settlementRefusal` and PAYIN_TRANSITIONS.settle. So a
 * dialog built from this cannot promise what the move will not do.
 */
import {
  APPEAL_TRANSITIONS,
  appealCommandProblem,
  resolutionNeedsSettlement,
  resolveMove,
  settlementRefusal,
  type AppealMoveKind,
  type AppealOutcome,
  type AppealSituation,
} from './appeals';
import { PAYIN_TRANSITIONS, payinRefusal } from './payin';

export const OPERATOR_APPEAL_MOVES = ['review', 'close', 'reopen', 'resolve_satisfied', 'resolve_rejected', 'settle'] as const;
type OperatorAppealMove = (typeof OPERATOR_APPEAL_MOVES)[number];

export interface AppealMovePreview {
  move: OperatorAppealMove;
  /** Whether the move can run now; the console offers only these. */
  offered: boolean;
  /** Why it cannot ('' when offered). */
  refusal: string;
  /** A move that must run first for this one to be possible ('' when none would help). */
  first: OperatorAppealMove | '';
  /** The appeal's status after the move. */
  appeal_status_after: string;
  /** The deal's status after the move (its status now when the move leaves it). */
  deal_status_after: string;
  /** The status of a deal the move makes ('' when it makes none). */
  new_deal_status_after: string;
  /** What happens to the money, as the state table says it. */
  money: string;
}

const NO_MONEY = 'none: the deal keeps its money';

function preview(move: OperatorAppealMove, s: AppealSituation, to: Partial<AppealMovePreview>): AppealMovePreview {
  return {
    move,
    offered: true,
    refusal: '',
    first: '',
    appeal_status_after: s.appealStatus,
    deal_status_after: s.dealStatus,
    new_deal_status_after: '',
    money: NO_MONEY,
    ...to,
  };
}

const refused = (move: OperatorAppealMove, s: AppealSituation, refusal: string, first: OperatorAppealMove | '' = '') =>
  preview(move, s, { offered: false, refusal, first });

function resolution(outcome: AppealOutcome, s: AppealSituation): AppealMovePreview {
  const move: OperatorAppealMove = outcome === 'SATISFIED' ? 'resolve_satisfied' : 'resolve_rejected';
  const kind = resolveMove(outcome);
  const appealTo = APPEAL_TRANSITIONS[kind].to!;
  // The appeal that holds its deal is resolved by the deal's workflow, which moves the deal with it.
  const dealMove = outcome === 'REJECTED' ? 'appeal_rejected' : 'appeal_satisfied';
  if (!payinRefusal(dealMove, s.dealStatus)) {
    const row = PAYIN_TRANSITIONS[dealMove];
    return preview(move, s, { appeal_status_after: appealTo, deal_status_after: row.to!, money: row.money });
  }
  const problem = appealCommandProblem(kind, s, outcome);
  if (problem) {
    const first = resolutionNeedsSettlement({ dealStatus: s.dealStatus, outcome, settled: s.settled }) && !settleProblem(s) ? 'settle' : '';
    return refused(move, s, problem, first);
  }
  return preview(move, s, { appeal_status_after: appealTo });
}

const settleProblem = (s: AppealSituation) =>
  s.settled ? 'a settlement deal was already made for this appeal' : settlementRefusal(s.dealStatus, s.appealStatus);

function simple(kind: Exclude<AppealMoveKind, 'resolve_merchant' | 'resolve_trader'>, s: AppealSituation): AppealMovePreview {
  const problem = appealCommandProblem(kind, s);
  return problem ? refused(kind, s, problem) : preview(kind, s, { appeal_status_after: APPEAL_TRANSITIONS[kind].to! });
}

/** Every arbiter move on the appeal, offered or not, with what it does. */
export function operatorAppealMoves(s: AppealSituation): AppealMovePreview[] {
  const settle = settleProblem(s);
  return [
    simple('review', s),
    simple('close', s),
    simple('reopen', s),
    resolution('SATISFIED', s),
    resolution('REJECTED', s),
    settle
      ? refused('settle', s, settle)
      : preview('settle', s, { new_deal_status_after: PAYIN_TRANSITIONS.settle.to!, money: PAYIN_TRANSITIONS.settle.money }),
  ];
}
