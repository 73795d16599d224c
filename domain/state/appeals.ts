/**
 * Appeals as a table: the states, the legal moves, and the
 * rules that tie a resolution to the deal's money. Pure; shared by workflows, activities and the API.
 */
import { Conflict } from '../errors';
import type { AppealEventType } from '../events/event-types';
import { PAYIN_TRANSITIONS, type PayinStatus } from './payin';
import { allowsFrom, sourceStates, type Transition } from './state-machine';

export const APPEAL_STATUSES = ['OPEN', 'IN_REVIEW', 'RESOLVED_MERCHANT', 'RESOLVED_TRADER', 'CLOSED', 'REOPENED'] as const;
export type AppealStatus = (typeof APPEAL_STATUSES)[number];

const APPEAL_OUTCOMES = ['SATISFIED', 'REJECTED'] as const;
export type AppealOutcome = (typeof APPEAL_OUTCOMES)[number];

export type AppealMoveKind = 'review' | 'resolve_merchant' | 'resolve_trader' | 'close' | 'reopen';
/** Every move of the table: the open, then the arbiter's moves. */
export type AppealMove = 'open' | AppealMoveKind;

const ANY_ACTIVE: readonly AppealStatus[] = ['OPEN', 'IN_REVIEW', 'REOPENED'];
const RESOLVED: readonly AppealStatus[] = ['RESOLVED_MERCHANT', 'RESOLVED_TRADER'];

/**
 * The appeal state machine: every legal move, its source states, its
 * target and event. Anything not in the table is 400 FAILED_PRECONDITION (appealMove).
 * IN_PROGRESS, the settlement rule's name, is IN_REVIEW. What a move does to the deal is PAYIN_TRANSITIONS'
 * open_appeal / appeal_rejected / appeal_satisfied (domain/state/payin.ts).
 */
export const APPEAL_TRANSITIONS: Readonly<Record<AppealMove, Transition<AppealStatus>>> = {
  /** One appeal per deal, on a PayIn in any state but APPEAL_REFUSED_DEAL_STATUSES. */
  open: { from: [null], to: 'OPEN', events: ['appeal.opened'], money: 'none' },
  review: { from: ['OPEN', 'REOPENED'], to: 'IN_REVIEW', events: ['appeal.in_review'], money: 'none' },
  /** SATISFIED: a live (APPEALED) deal completes; a terminal deal keeps its money (terminalResolutionProblem). */
  resolve_merchant: {
    from: ANY_ACTIVE,
    to: 'RESOLVED_MERCHANT',
    events: ['appeal.resolved'],
    money: 'an APPEALED deal completes (PAYIN_TRANSITIONS.appeal_satisfied)',
  },
  /** REJECTED: a live (APPEALED) deal is cancelled, its escrow back to the trader. */
  resolve_trader: {
    from: ANY_ACTIVE,
    to: 'RESOLVED_TRADER',
    events: ['appeal.resolved'],
    money: 'an APPEALED deal is cancelled (PAYIN_TRANSITIONS.appeal_rejected)',
  },
  close: { from: [...ANY_ACTIVE, ...RESOLVED], to: 'CLOSED', events: ['appeal.closed'], money: 'none' },
  reopen: { from: [...RESOLVED, 'CLOSED'], to: 'REOPENED', events: ['appeal.reopened'], money: 'none' },
};

/** The same table by source state: from → move → to. */
export const APPEAL_MOVES: Readonly<Record<AppealStatus, Partial<Record<AppealMoveKind, AppealStatus>>>> = Object.fromEntries(
  APPEAL_STATUSES.map((from) => [
    from,
    Object.fromEntries(
      (Object.keys(APPEAL_TRANSITIONS) as AppealMove[])
        .filter((move): move is AppealMoveKind => move !== 'open' && allowsFrom(APPEAL_TRANSITIONS[move], from))
        .map((move) => [move, APPEAL_TRANSITIONS[move].to!]),
    ),
  ]),
) as Record<AppealStatus, Partial<Record<AppealMoveKind, AppealStatus>>>;

export const resolveMove = (outcome: AppealOutcome): AppealMoveKind => (outcome === 'SATISFIED' ? 'resolve_merchant' : 'resolve_trader');

/** The target of a move, or a refusal message (400 FAILED_PRECONDITION). */
export function appealMove(from: AppealStatus, move: AppealMoveKind): { to: AppealStatus } | { refused: string } {
  const transition = APPEAL_TRANSITIONS[move];
  if (allowsFrom(transition, from)) return { to: transition.to! };
  if ((move === 'resolve_merchant' || move === 'resolve_trader') && RESOLVED.includes(from)) {
    return { refused: `appeal is ${from}; it was already resolved (reopen it first)` };
  }
  return { refused: `appeal is ${from}; it cannot ${MOVE_VERBS[move]}` };
}

const MOVE_VERBS: Record<AppealMoveKind, string> = {
  review: 'go into review',
  resolve_merchant: 'be resolved',
  resolve_trader: 'be resolved',
  close: 'be closed',
  reopen: 'be reopened',
};

/** An appeal that still waits for the arbiter (a settlement needs OPEN, IN_PROGRESS or REOPENED). */
export const APPEAL_ACTIVE: readonly AppealStatus[] = sourceStates(APPEAL_TRANSITIONS.resolve_merchant);

/** Messages are accepted until the appeal is CLOSED (a reopen lets the conversation go on). */
export const acceptsMessages = (s: AppealStatus) => s !== 'CLOSED';

/**
 * Why the trader of the appealed deal may not answer now (undefined: it may; a refusal is 409): it
 * answers while the appeal waits for the arbiter (APPEAL_ACTIVE) and before its trader_respond_by.
 * The answer step decides it under the appeal's lock, at the database's clock; the API asks the
 * same function first as a read-only fast path.
 */
export function traderAnswerRefusal(appeal: { status: AppealStatus; trader_respond_by: Date }, now: Date): string | undefined {
  if (!APPEAL_ACTIVE.includes(appeal.status)) return `appeal is ${appeal.status}; it no longer waits for the trader's answer`;
  if (appeal.trader_respond_by.getTime() <= now.getTime()) {
    return `the trader's time to answer ended at ${appeal.trader_respond_by.toISOString()}; the arbiter decides without the answer`;
  }
  return undefined;
}

/** Where the trader stands in an appeal: it answered, it may still answer, or its time ran out without an answer. */
export type TraderAnswerState = 'ANSWERED' | 'WAITING' | 'MISSED';
export function traderAnswerState(appeal: { trader_respond_by: Date; trader_responded_at: Date | null }, now: Date): TraderAnswerState {
  if (appeal.trader_responded_at) return 'ANSWERED';
  return appeal.trader_respond_by.getTime() <= now.getTime() ? 'MISSED' : 'WAITING';
}

/** Appeals are opened on a PayIn in any state but these. */
const APPEAL_REFUSED_DEAL_STATUSES: readonly PayinStatus[] = ['CANCELLED', 'SPAM_REJECTED'];

/**
 * Opening an appeal on a live deal holds it: the deal goes to APPEALED and waits for the
 * resolution. On a terminal deal (EXPIRED: the settlement path; COMPLETED) the deal stays as it is.
 */
export const APPEAL_HOLDS_DEAL: readonly PayinStatus[] = sourceStates(PAYIN_TRANSITIONS.open_appeal);

/**
 * Why an appeal cannot be opened on a deal (undefined: it can): one appeal per deal, and not on a
 * deal in APPEAL_REFUSED_DEAL_STATUSES. The API checks before it stores anything; the open step
 * checks again under the deal's lock.
 */
export function appealOpenRefusal(dealStatus: string, existing: { id: string; status: string } | undefined): string | undefined {
  if (existing) {
    return `an appeal was already opened for this deal (appeal ${existing.id}, ${existing.status}); one appeal per deal — an operator may reopen it`;
  }
  if (APPEAL_REFUSED_DEAL_STATUSES.includes(dealStatus as PayinStatus)) return `deal is ${dealStatus}; it cannot be appealed`;
  return undefined;
}

/**
 * Why the appeal's own workflow may not run a command on this deal (undefined: it may): a live
 * deal's appeal is opened and resolved by the deal's workflow, which moves the deal with it, and
 * an appeal that holds its deal (APPEALED) is resolved, never closed.
 */
export function liveDealRefusal(command: 'open' | AppealMoveKind, dealStatus: string): string | undefined {
  if (command === 'open' && APPEAL_HOLDS_DEAL.includes(dealStatus as PayinStatus))
    return `deal is ${dealStatus}; a live deal is appealed through its own workflow`;
  if (dealStatus !== 'APPEALED') return undefined;
  if (command === 'resolve_merchant' || command === 'resolve_trader') return `deal is ${dealStatus}; its resolution runs in the deal workflow`;
  if (command === 'close') return 'the deal is APPEALED and waits for this appeal: resolve it (SATISFIED or REJECTED) instead of closing it';
  return undefined;
}

/** Minimum length of an appeal reason, counted in characters after trimming. */
export const APPEAL_REASON_MIN = 10;

export interface TerminalResolutionContext {
  dealStatus: string;
  outcome: AppealOutcome;
  /** A settlement deal was made for this appeal. */
  settled: boolean;
  /** The outcome of an earlier resolution of this appeal (before a reopen), if any. */
  previousOutcome: AppealOutcome | null;
}

/**
 * Once a deal is terminal its money is final; a resolution then records the arbiter's decision
 * and must agree with that money. Returns the refusal (400 FAILED_PRECONDITION) or undefined.
 *
 * - EXPIRED: SATISFIED needs the settlement first (it is what credits the merchant); REJECTED is
 *   refused once a settlement was made.
 * - CANCELLED: the escrow went back to the trader, so only REJECTED.
 * - COMPLETED: the merchant was credited; REJECTED is refused when this appeal's own earlier
 *   SATISFIED completed the deal.
 */
export function terminalResolutionProblem(c: TerminalResolutionContext): string | undefined {
  if (resolutionNeedsSettlement(c)) {
    return 'the deal is EXPIRED: settle it first (POST /api/v1/p2p/appeals/{appeal_id}/settlement), then resolve SATISFIED';
  }
  if (c.dealStatus === 'EXPIRED') {
    if (c.outcome === 'REJECTED' && c.settled) return 'a settlement deal was made for this appeal; it can only be resolved SATISFIED';
    return undefined;
  }
  if (c.dealStatus === 'CANCELLED' && c.outcome === 'SATISFIED') {
    return 'the deal is CANCELLED and its escrow went back to the trader; it can only be resolved REJECTED';
  }
  if (c.dealStatus === 'COMPLETED' && c.outcome === 'REJECTED' && c.previousOutcome === 'SATISFIED') {
    return 'this appeal completed the deal; it can only be resolved SATISFIED';
  }
  if (c.dealStatus === 'SPAM_REJECTED' && c.outcome === 'SATISFIED') return 'the deal is SPAM_REJECTED; it can only be resolved REJECTED';
  return undefined;
}

/** SATISFIED on an EXPIRED deal waits for the settlement, which is what credits the merchant. */
export const resolutionNeedsSettlement = (c: Pick<TerminalResolutionContext, 'dealStatus' | 'outcome' | 'settled'>) =>
  c.dealStatus === 'EXPIRED' && c.outcome === 'SATISFIED' && !c.settled;

/** The appeal and its deal as a command of the appeal's workflow is decided on. */
export interface AppealSituation {
  appealStatus: AppealStatus;
  dealStatus: string;
  /** A settlement deal was made for this appeal. */
  settled: boolean;
  /** The appeal's recorded outcome (an earlier resolution's, before a reopen), if any. */
  outcome: AppealOutcome | null;
}

/**
 * Why the appeal's workflow refuses an arbiter's command (undefined: its step runs): the appeal's
 * table, then the live-deal rule, then — for a resolution — the terminal deal's money.
 */
export function appealCommandProblem(kind: AppealMoveKind, s: AppealSituation, outcome?: AppealOutcome): string | undefined {
  const move = appealMove(s.appealStatus, kind);
  if ('refused' in move) return move.refused;
  const live = liveDealRefusal(kind, s.dealStatus);
  if (live || outcome === undefined) return live;
  return terminalResolutionProblem({ dealStatus: s.dealStatus, outcome, settled: s.settled, previousOutcome: s.outcome });
}

/** Why an appeal's deal cannot be settled now (409; undefined: it can): an EXPIRED deal, an appeal still waiting for the arbiter. */
export function settlementRefusal(dealStatus: string, appealStatus: AppealStatus): string | undefined {
  if (dealStatus !== 'EXPIRED') return `the appealed deal is ${dealStatus}; only an EXPIRED deal can be settled`;
  if (!APPEAL_ACTIVE.includes(appealStatus)) return `appeal is ${appealStatus}; a settlement needs it OPEN, IN_REVIEW (IN_PROGRESS) or REOPENED`;
  return undefined;
}

/** What resolution_note says: the operator's note, plus the settlement deal when there is one. */
export function resolutionNote(note: string, settlementDealId: string | null): string {
  if (!settlementDealId) return note;
  const link = `settlement deal ${settlementDealId}`;
  return note ? `${note}\n${link}` : link;
}

/** Event types of the appeal family (an addition: the spec's event list has no appeal events). */
export const APPEAL_EVENT_BY_STATUS: Record<AppealStatus, AppealEventType> = {
  OPEN: 'appeal.opened',
  IN_REVIEW: 'appeal.in_review',
  RESOLVED_MERCHANT: 'appeal.resolved',
  RESOLVED_TRADER: 'appeal.resolved',
  CLOSED: 'appeal.closed',
  REOPENED: 'appeal.reopened',
};

export interface AppealSource {
  id: string;
  deal_id: string;
  status: AppealStatus;
  reason: string;
  file_ids: string[];
  resolution_note: string;
  created_at: Date;
  updated_at: Date;
  resolved_at: Date | null;
}

/** The spec's appeal object (plus file_ids); resolved_at is empty until resolved. */
export function appealView(row: AppealSource) {
  return {
    appeal_id: row.id,
    deal_id: row.deal_id,
    status: row.status,
    reason: row.reason,
    file_ids: row.file_ids,
    resolution_note: row.resolution_note,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    resolved_at: row.resolved_at ? row.resolved_at.toISOString() : '',
  };
}

/**
 * A settlement request for an appeal already settled: the same idempotency_key is
 * answered with its deal (the id returned), another is 409. The settlement step owns the rule
 * (under the appeal's lock); the API answers a repeat from a read with the same function.
 */
export function settledAppealDeal(existing: { deal_id: string; idempotency_key: string }, appealId: string, idempotencyKey: string): string {
  if (existing.idempotency_key !== idempotencyKey) {
    throw new Conflict(`appeal ${appealId} was already settled by deal ${existing.deal_id} under another idempotency_key`);
  }
  return existing.deal_id;
}
