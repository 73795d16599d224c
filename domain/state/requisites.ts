/**
 * A requisite's states and moves as a table: the service checks every move against it under the
 * requisite's row lock, the API refuses with it, and the console's and the trader app's dialogs
 * say what a move does from its `effect`.
 */
export const REQUISITE_STATUSES = ['PENDING_APPROVAL', 'ACTIVE', 'PAUSED', 'REJECTED', 'ARCHIVED'] as const;
type RequisiteStatus = (typeof REQUISITE_STATUSES)[number];

export type RequisiteMove = 'approve' | 'reject' | 'pause' | 'resume' | 'archive' | 'edit_details' | 'edit_limits';

export interface RequisiteTransition {
  readonly from: readonly RequisiteStatus[];
  /** The status after the move; absent when it stays. */
  readonly to?: RequisiteStatus;
  /** What the move does, in the words a dialog shows before it. */
  readonly effect: string;
}

const NOT_ARCHIVED: readonly RequisiteStatus[] = ['PENDING_APPROVAL', 'ACTIVE', 'PAUSED', 'REJECTED'];

export const REQUISITE_TRANSITIONS: Readonly<Record<RequisiteMove, RequisiteTransition>> = {
  approve: { from: ['PENDING_APPROVAL'], to: 'ACTIVE', effect: 'The requisite becomes ACTIVE: new deals may be matched to it at once.' },
  reject: {
    from: ['PENDING_APPROVAL'],
    to: 'REJECTED',
    effect: 'The requisite becomes REJECTED and is never matched; the trader sees the reason and may correct the details, which sends it back for approval.',
  },
  pause: { from: ['ACTIVE'], to: 'PAUSED', effect: 'No new deal is matched to it; deals already on it go on as before.' },
  resume: { from: ['PAUSED'], to: 'ACTIVE', effect: 'New deals may be matched to it again.' },
  archive: {
    from: NOT_ARCHIVED,
    to: 'ARCHIVED',
    effect: 'Retired for good: it is never matched again and cannot be edited; deals already on it go on as before.',
  },
  /** New payment details (card, phone, IBAN, holder, bank) must be checked again before use. */
  edit_details: { from: NOT_ARCHIVED, to: 'PENDING_APPROVAL', effect: 'The changed details go to an operator for approval; until then it is not matched.' },
  /** Limits apply from the next deal on; the status stays. */
  edit_limits: { from: NOT_ARCHIVED, effect: 'The new limits apply from the next deal on.' },
};

/** Why a move is refused from `status`, or undefined when it is legal. */
export function requisiteRefusal(move: RequisiteMove, status: string): string | undefined {
  const t = REQUISITE_TRANSITIONS[move];
  if ((t.from as readonly string[]).includes(status)) return undefined;
  return `requisite is ${status}; ${move.replace('_', ' ')} needs ${t.from.join(' or ')}`;
}

/** The fields whose change sends a requisite back to approval. */
export const REQUISITE_DETAIL_FIELDS = ['card_number', 'phone_number', 'iban', 'holder_name', 'bank_name'] as const;
