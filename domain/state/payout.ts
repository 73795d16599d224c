/** PayOut (PayOutStatus) states and their table. */
import { Conflict } from '../errors';
import { allowsFrom, sourceStates, type Refusal, type Transition } from './state-machine';

export const PAYOUT_STATUSES = ['INITIALIZED', 'MATCHED', 'UNASSIGNED', 'PROCESSING', 'COMPLETED', 'FAILED', 'EXPIRED'] as const;
export type PayoutStatus = (typeof PAYOUT_STATUSES)[number];

export const PAYOUT_TERMINAL: readonly PayoutStatus[] = ['COMPLETED', 'FAILED', 'EXPIRED'];
export const isPayoutTerminal = (s: PayoutStatus) => PAYOUT_TERMINAL.includes(s);

export type PayoutMove =
  | 'create_matched'
  | 'create_unassigned'
  | 'match'
  | 'assign'
  | 'take'
  | 'start'
  | 'complete'
  | 'fail'
  | 'expire_unassigned'
  | 'expire_matched';

const HOLD_RETURNED = "hold returned: the merchant's frozen → available";

/**
 * The PayOut state machine (the spec's, with the transfer SLA and the operator's assignment). The
 * merchant's hold (amount_usdt + fee) is taken at the create and either debited or returned.
 * Anything else is refused (400 FAILED_PRECONDITION `payout is <status>`).
 */
export const PAYOUT_TRANSITIONS: Readonly<Record<PayoutMove, Transition<PayoutStatus>>> = {
  create_matched: { from: [null], to: 'MATCHED', events: ['deal.created'], money: "hold: the merchant's available → frozen (amount_usdt + fee)" },
  create_unassigned: { from: [null], to: 'UNASSIGNED', events: ['deal.created'], money: "hold: the merchant's available → frozen (amount_usdt + fee)" },
  /** The retry worker found a free trader; a new transfer window starts. */
  match: { from: ['UNASSIGNED'], to: 'MATCHED', events: [], money: 'none' },
  /** Operator override: assign an UNASSIGNED payout, or reassign a MATCHED one before the transfer starts. */
  assign: { from: ['UNASSIGNED', 'MATCHED'], to: 'MATCHED', events: [], money: 'none' },
  /** A trader takes an UNASSIGNED payout it can serve (the trader app); a new transfer window starts. */
  take: { from: ['UNASSIGNED'], to: 'MATCHED', events: [], money: 'none' },
  start: { from: ['MATCHED'], to: 'PROCESSING', events: [], money: 'none' },
  complete: {
    from: ['PROCESSING'],
    to: 'COMPLETED',
    events: ['deal.completed'],
    money: 'hold debited: merchant frozen −(amount_usdt + fee); trader available +amount_usdt; platform available +fee',
  },
  fail: { from: ['PROCESSING'], to: 'FAILED', events: ['deal.failed'], money: HOLD_RETURNED },
  /** The assignment SLA ran out. */
  expire_unassigned: { from: ['UNASSIGNED'], to: 'EXPIRED', events: ['deal.expired'], money: HOLD_RETURNED },
  /** The transfer SLA ran out before the trader started. */
  expire_matched: { from: ['MATCHED'], to: 'EXPIRED', events: ['deal.expired'], money: HOLD_RETURNED },
};

export const payoutSources = (move: PayoutMove): readonly PayoutStatus[] => sourceStates(PAYOUT_TRANSITIONS[move]);

/** Why a command the payout's status does not allow is refused (undefined: the move is legal). */
export function payoutRefusal(move: PayoutMove, status: string): Refusal | undefined {
  return allowsFrom(PAYOUT_TRANSITIONS[move], status) ? undefined : { kind: 'FAILED_PRECONDITION', message: `payout is ${status}` };
}

/** Statuses whose volume does not count toward the daily cap. */
export const VOLUME_EXCLUDED_STATUSES = ['EXPIRED', 'SPAM_REJECTED', 'FAILED'] as const;

/** Keys allowed in requisite_details of a PayOut create. */
export const REQUISITE_DETAIL_KEYS = ['iban', 'account_number', 'document_number', 'bank_name', 'phone_number'] as const;

/**
 * PayOut keys are unique per tenant: a key another merchant of the tenant
 * holds is refused. The create step owns the rule (the unique index deals_payout_key_tenant); the
 * API refuses the same way beforehand from a read.
 */
export const payoutKeyTaken = () => new Conflict('idempotency_key is already used by another merchant');
