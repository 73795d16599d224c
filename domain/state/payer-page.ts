/**
 * What the payer's page shows for a PayIn, derived from the deal's state table (domain/state/payin.ts):
 * one screen per state, which of the payer's moves the page offers, when its poll stops, and how
 * much proof an anonymous payer may send. Pure: the page (api/pages/payer/) and the services read it.
 */
import { isPayinTerminal, PAYIN_STATUSES, PAYIN_TRANSITIONS, payinSources, type PayinStatus } from './payin';

export type PayerScreen = 'preparing' | 'pay' | 'checking' | 'confirmed' | 'paid' | 'expired' | 'cancelled' | 'declined' | 'dispute' | 'refund';

/** The screen of each status: the payer never sees a status code, only one of these. */
export const PAYER_SCREENS: Readonly<Record<PayinStatus, PayerScreen>> = {
  INITIALIZED: 'preparing',
  ESCROW_LOCKED: 'pay',
  PAYMENT_NOTIFIED: 'checking',
  PAYMENT_VERIFIED: 'confirmed',
  COMPLETED: 'paid',
  EXPIRED: 'expired',
  APPEALED: 'dispute',
  REFUND_PENDING: 'refund',
  SPAM_REJECTED: 'declined',
  SOFT_DISPUTED: 'dispute',
  CANCELLED: 'cancelled',
};

const isPayinStatus = (status: string): status is PayinStatus => (PAYIN_STATUSES as readonly string[]).includes(status);

export const payerScreenOf = (status: string): PayerScreen => (isPayinStatus(status) ? PAYER_SCREENS[status] : 'preparing');

/** "I paid" is offered where the notify move is legal. */
export const payerMayNotify = (status: string) => payinSources('notify_payment').includes(status as PayinStatus);

/**
 * Cancel is offered where the cancel move is legal, except once the payer said they paid: the
 * spec still lets the checkout cancel then, but a payer who transferred money must not be one
 * tap away from losing track of it.
 */
export const payerMayCancel = (status: string) => payinSources('cancel').includes(status as PayinStatus) && status !== PAYIN_TRANSITIONS.notify_payment.to;

/**
 * States the page stops polling in: the terminal ones, and those that wait for people (an arbiter,
 * a refund) rather than for the payer's bank — the page offers "check again" there instead.
 */
const WAITS_FOR_PEOPLE: readonly PayinStatus[] = ['APPEALED', 'SOFT_DISPUTED', 'REFUND_PENDING'];
export const payerPollStops = (status: string) => isPayinStatus(status) && (isPayinTerminal(status) || WAITS_FOR_PEOPLE.includes(status));

/** How many proofs (a receipt, the card's last digits, or both at once) one deal takes from its page. */
export const PAYER_PROOFS_PER_DEAL = 3;

/**
 * The payer may send proof while the payment is not settled for good: before and after "I paid",
 * in a dispute, and after the time ran out or a cancel (a payer who transferred late needs a way
 * to say so); not once it is completed or rejected as spam.
 */
export const payerProofAccepted = (status: string) => isPayinStatus(status) && status !== 'COMPLETED' && status !== 'SPAM_REJECTED';

/** Screens after which the page returns the payer to the shop by itself (a countdown they can stop). */
export const payerReturnsAutomatically = (screen: PayerScreen) => screen === 'paid' || screen === 'cancelled' || screen === 'declined';

/**
 * The payment's reference for the payer to quote: the first ten hex digits of the checkout hash,
 * in two groups. The hash is the page's only credential; ten of its 64 digits leave 216 bits.
 */
export function payerReference(checkoutHash: string): string {
  const head = checkoutHash.slice(0, 10).toUpperCase();
  return `${head.slice(0, 5)}-${head.slice(5)}`;
}

type TimelineState = 'done' | 'current' | 'todo' | 'failed';
export interface TimelineStep {
  step: 'created' | 'paid' | 'confirming' | 'done' | 'expired' | 'cancelled' | 'review';
  state: TimelineState;
  /** RFC 3339, or '' when not reached. */
  at: string;
}

/** When the deal went through each stage (RFC 3339 or ''). */
export interface DealStamps {
  created_at: string;
  payment_notified_at: string;
  payment_verified_at: string;
  ended_at: string;
}

/** The small timeline of the page: created → you paid → bank confirming → done (or how it ended instead). */
export function payerTimeline(status: string, stamps: DealStamps): TimelineStep[] {
  const screen = payerScreenOf(status);
  const paidAt = stamps.payment_notified_at;
  const verifiedAt = stamps.payment_verified_at;
  const steps: TimelineStep[] = [{ step: 'created', state: 'done', at: stamps.created_at }];
  // A later stage implies the earlier ones (the trader may confirm before the payer said they paid).
  const reached = (at: string, passed: boolean, current: boolean): TimelineState => (at || passed ? 'done' : current ? 'current' : 'todo');
  steps.push({ step: 'paid', state: reached(paidAt, ['checking', 'confirmed', 'paid'].includes(screen), screen === 'pay'), at: paidAt });
  steps.push({ step: 'confirming', state: reached(verifiedAt, ['confirmed', 'paid'].includes(screen), screen === 'checking'), at: verifiedAt });
  switch (screen) {
    case 'expired':
      steps.push({ step: 'expired', state: 'failed', at: stamps.ended_at });
      break;
    case 'cancelled':
    case 'declined':
      steps.push({ step: 'cancelled', state: 'failed', at: stamps.ended_at });
      break;
    case 'dispute':
    case 'refund':
      steps.push({ step: 'review', state: 'current', at: '' });
      break;
    case 'paid':
      steps.push({ step: 'done', state: 'done', at: stamps.ended_at });
      break;
    default:
      steps.push({ step: 'done', state: screen === 'confirmed' ? 'current' : 'todo', at: '' });
  }
  // A deal that ended before the payer said they paid has nothing to show in between.
  if (screen === 'expired' || screen === 'cancelled' || screen === 'declined') {
    return steps.filter((s) => s.state !== 'todo');
  }
  return steps;
}
