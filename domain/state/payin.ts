/** PayIn (OrderStatus) states and the money of a deal; pure, shared by workflows and activities. */
import { feeFromBps } from '../money';
import { allowsFrom, sourceStates, type Refusal, type Transition } from './state-machine';

export const PAYIN_STATUSES = [
  'INITIALIZED',
  'ESCROW_LOCKED',
  'PAYMENT_NOTIFIED',
  'PAYMENT_VERIFIED',
  'COMPLETED',
  'EXPIRED',
  'APPEALED',
  'REFUND_PENDING',
  'SPAM_REJECTED',
  'SOFT_DISPUTED',
  'CANCELLED',
] as const;
export type PayinStatus = (typeof PAYIN_STATUSES)[number];

export const PAYIN_TERMINAL: readonly PayinStatus[] = ['COMPLETED', 'EXPIRED', 'SPAM_REJECTED', 'CANCELLED'];
export const isPayinTerminal = (s: PayinStatus) => PAYIN_TERMINAL.includes(s);
/** Every state a deal may still leave. */
const PAYIN_LIVE: readonly PayinStatus[] = PAYIN_STATUSES.filter((s) => !isPayinTerminal(s));

export type PayinMove =
  | 'create'
  | 'notify_payment'
  | 'confirm_payment'
  | 'complete'
  | 'expire'
  | 'cancel'
  | 'change_amount'
  | 'reconcile'
  | 'open_appeal'
  | 'appeal_rejected'
  | 'appeal_satisfied'
  | 'settle'
  | 'report_not_received';

const COMPLETION_MONEY = 'trader frozen −escrow; merchant pending_credits +net; platform pending_credits +fee (available after the fee delay)';

/**
 * The PayIn state machine (with the moves an appeal makes): every legal move, its source states, its
 * target and events. Anything else is refused (see payinRefusal). workflows/payin.ts guards its
 * commands with it, the activities check the locked row against it, the API refuses with it.
 */
export const PAYIN_TRANSITIONS: Readonly<Record<PayinMove, Transition<PayinStatus>>> = {
  create: { from: [null], to: 'ESCROW_LOCKED', events: ['deal.created', 'deal.escrow_locked'], money: "escrow lock: the matched trader's available → frozen" },
  notify_payment: { from: ['ESCROW_LOCKED'], to: 'PAYMENT_NOTIFIED', events: ['deal.payment_notified'], money: 'none' },
  /** The trader may confirm receipt once requisites were issued. */
  confirm_payment: { from: ['ESCROW_LOCKED', 'PAYMENT_NOTIFIED'], to: 'PAYMENT_VERIFIED', events: ['deal.payment_verified'], money: 'none' },
  complete: { from: ['PAYMENT_VERIFIED'], to: 'COMPLETED', events: ['deal.completed'], money: COMPLETION_MONEY },
  /** The payment timeout expires these (not the appeal states, which the arbiter owns). */
  expire: {
    from: ['INITIALIZED', 'ESCROW_LOCKED', 'PAYMENT_NOTIFIED', 'PAYMENT_VERIFIED'],
    to: 'EXPIRED',
    events: ['deal.expired'],
    money: 'escrow released: trader frozen → available',
  },
  /** Cancel is legal before payment confirmation (CANCELLED again answers the deal, no second move). */
  cancel: {
    from: ['INITIALIZED', 'ESCROW_LOCKED', 'PAYMENT_NOTIFIED'],
    to: 'CANCELLED',
    events: ['deal.cancelled'],
    money: 'escrow released: trader frozen → available',
  },
  /** The amount may change until it is authorised (PAYMENT_VERIFIED); amount_version + 1. */
  change_amount: {
    from: ['INITIALIZED', 'ESCROW_LOCKED', 'PAYMENT_NOTIFIED', 'SOFT_DISPUTED'],
    events: ['deal.amount_changed'],
    money: "the old version's escrow released, the new version's locked",
  },
  /** What the payer paid is recorded on any live deal; partial / overpaid blocks autocompletion. */
  reconcile: { from: PAYIN_LIVE, events: [], money: 'none' },
  /** Opening an appeal holds a live deal until the arbiter resolves it (not expirable meanwhile). */
  open_appeal: {
    from: ['INITIALIZED', 'ESCROW_LOCKED', 'PAYMENT_NOTIFIED', 'PAYMENT_VERIFIED'],
    to: 'APPEALED',
    events: ['deal.appealed'],
    money: 'none (the escrow stays locked)',
  },
  appeal_rejected: { from: ['APPEALED'], to: 'CANCELLED', events: ['deal.cancelled'], money: 'escrow released: trader frozen → available' },
  appeal_satisfied: { from: ['APPEALED'], to: 'COMPLETED', events: ['deal.completed'], money: COMPLETION_MONEY },
  /**
   * The trader says the payment did not arrive: recorded on the deal with an operator alert; the
   * deal stays as it is and waits for its expiry, an appeal or an operator (no state means "not received").
   */
  report_not_received: { from: ['ESCROW_LOCKED', 'PAYMENT_NOTIFIED'], events: [], money: 'none (the escrow stays locked until the deal ends)' },
  /** The settlement of an EXPIRED deal is a new deal, completed in its create step. */
  settle: {
    from: [null],
    to: 'COMPLETED',
    events: ['deal.created', 'deal.escrow_locked', 'deal.payment_verified', 'deal.completed'],
    money: `escrow lock on the parent's trader, then the completion: ${COMPLETION_MONEY}`,
  },
};

/** The states a move may start from. */
export const payinSources = (move: PayinMove): readonly PayinStatus[] => sourceStates(PAYIN_TRANSITIONS[move]);

export const PAYIN_CANCELLABLE = payinSources('cancel');
export const PAYIN_AMOUNT_CHANGEABLE = payinSources('change_amount');
export const PAYIN_CONFIRMABLE = payinSources('confirm_payment');
export const PAYIN_EXPIRABLE = payinSources('expire');

/** Who cancels: the merchant (API) or the payer (checkout page), whose refusal differs for a terminal deal. */
export type CancelChannel = 'merchant' | 'checkout';

/** Why a command the deal's status does not allow is refused (undefined: the move is legal). */
export function payinRefusal(move: PayinMove, status: string, channel: CancelChannel = 'merchant'): Refusal | undefined {
  if (allowsFrom(PAYIN_TRANSITIONS[move], status)) return undefined;
  const refused = (message: string, kind: Refusal['kind'] = 'FAILED_PRECONDITION'): Refusal => ({ kind, message });
  switch (move) {
    case 'notify_payment':
      return status === 'PAYMENT_NOTIFIED' ? refused('payment was already notified; do not retry') : refused(`deal is ${status}; payment cannot be notified`);
    case 'confirm_payment':
      return refused(`deal is ${status}; receipt cannot be confirmed`);
    case 'complete':
      return refused(`deal is ${status}; only a verified deal can be completed`);
    case 'reconcile':
      return refused(`deal is ${status}; reconciliation is closed`);
    case 'report_not_received':
      return refused(`deal is ${status}; a payment can be reported as not received only while the deal waits for it`);
    case 'change_amount':
      return refused(`deal is ${status}; the amount can no longer change`);
    case 'cancel': {
      // An illegal cancel is 400, except that the checkout gets 409 for a terminal deal.
      const terminal = channel === 'checkout' && isPayinTerminal(status as PayinStatus);
      return refused(`deal is ${status}; it can no longer be cancelled`, terminal ? 'CONFLICT' : 'INVALID_ARGUMENT');
    }
    default: {
      const to = PAYIN_TRANSITIONS[move].to;
      return refused(`deal is ${status}; cannot move to ${to ?? status}`);
    }
  }
}

/**
 * Whether an operator's amount change may run (undefined) or is refused. `previousAmount` is the
 * amount an earlier change under the same idempotency key set: the same amount again is answered
 * as that change (a replay, whatever the deal's status now), another amount is a conflict. The
 * deal's workflow decides with it; the change's step checks again under the row lock.
 */
export function amountChangeRefusal(
  deal: { status: string; amountVersion: bigint },
  change: { newAmount: bigint; expectedVersion: bigint; previousAmount?: bigint | undefined },
): Refusal | undefined {
  if (change.previousAmount !== undefined) {
    return change.previousAmount === change.newAmount ? undefined : { kind: 'CONFLICT', message: 'idempotency_key was already used with another amount' };
  }
  const refusal = payinRefusal('change_amount', deal.status);
  if (refusal) return refusal;
  if (change.expectedVersion !== 0n && change.expectedVersion !== deal.amountVersion) {
    return { kind: 'CONFLICT', message: `stale expected_amount_version ${change.expectedVersion}: the current amount_version is ${deal.amountVersion}` };
  }
  return undefined;
}

/** How the received amount compares with the deal's (reconciliation); '' until a received amount is known. */
export const AMOUNT_MATCHES = ['', 'full', 'partial', 'overpaid'] as const;
export type AmountMatch = (typeof AMOUNT_MATCHES)[number];

export function amountMatch(expected: bigint, received: bigint): Exclude<AmountMatch, ''> {
  if (received === expected) return 'full';
  return received < expected ? 'partial' : 'overpaid';
}

/**
 * What the payer is asked to pay, in fiat minor units: the deal amount, plus the platform fee
 * (in fiat, at the deal's fee rate, half-even) when the payer pays the commission. The payment
 * page shows it and reconciliation compares what was received against it, in every path.
 */
export function amountToPay(deal: { amount: bigint; fee_bps: number; is_client_commission: boolean }): bigint {
  return deal.is_client_commission ? deal.amount + feeFromBps(deal.amount, deal.fee_bps) : deal.amount;
}

/** Reconciliation blocks autocompletion unless the payer paid exactly (or none was reported). */
export const blocksAutocompletion = (match: AmountMatch) => match === 'partial' || match === 'overpaid';

export interface PayinMoney {
  /** The trader's USDT locked for the deal. */
  escrow: bigint;
  /** What the merchant is credited (pending_credits, then available). */
  merchantNet: bigint;
  /** The platform's fee. */
  fee: bigint;
}

/**
 * fee = amount_usdt × payin_fee_bps / 10000 (half-even). By default the fee comes out of the
 * merchant's credit; with is_client_commission the payer pays it on top, so the merchant gets
 * the full amount_usdt and the trader's escrow covers amount_usdt + fee.
 */
export function payinMoney(amountUsdt: bigint, feeBps: number, clientPaysFee: boolean): PayinMoney {
  const fee = feeFromBps(amountUsdt, feeBps);
  return clientPaysFee ? { escrow: amountUsdt + fee, merchantNet: amountUsdt, fee } : { escrow: amountUsdt, merchantNet: amountUsdt - fee, fee };
}
