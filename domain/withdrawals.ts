/**
 * USDT (TRC-20) withdrawals: statuses, the state machine as a table, the fee rule, the
 * auto-processing rule. Pure code: the workflow imports it (ids and keys are in withdrawal-ids.ts).
 */
import { feeFromBps } from './money';
import { allowsFrom, type Refusal, type Transition } from './state-machine';

/**
 * PENDING         created in auto mode; the hold is taken and the broadcast is under way
 * PENDING_MANUAL  created above the auto limit (or in MANUAL_ONLY): waits in the operator queue
 * APPROVED        an operator approved it; the broadcast is under way
 * COMPLETED       sent: the hold is debited, the net went to the chain, the fee to the platform
 * CANCELLED       cancelled by an operator, or the chain refused it for good: the hold is returned
 */
export const WITHDRAWAL_STATUSES = ['PENDING', 'PENDING_MANUAL', 'APPROVED', 'COMPLETED', 'CANCELLED'] as const;
export type WithdrawalStatus = (typeof WITHDRAWAL_STATUSES)[number];

/** Statuses whose amount is still held (frozen) on the merchant's wallet. */
export const WITHDRAWAL_LIVE: readonly WithdrawalStatus[] = ['PENDING', 'PENDING_MANUAL', 'APPROVED'];
export const WITHDRAWAL_TERMINAL: readonly WithdrawalStatus[] = ['COMPLETED', 'CANCELLED'];
export const isWithdrawalTerminal = (s: WithdrawalStatus) => WITHDRAWAL_TERMINAL.includes(s);
/** Statuses in which the workflow broadcasts the transfer. */
export const WITHDRAWAL_BROADCASTING: readonly WithdrawalStatus[] = ['PENDING', 'APPROVED'];

export type WithdrawalMove = 'create_auto' | 'create_manual' | 'approve' | 'cancel' | 'broadcast_sent' | 'broadcast_rejected';

/**
 * The withdrawal state machine: every legal move, its source states and its target. Anything
 * else is illegal (400 FAILED_PRECONDITION). The money effect of each move is in the last column.
 */
export const WITHDRAWAL_TRANSITIONS: Readonly<Record<WithdrawalMove, Transition<WithdrawalStatus>>> = {
  create_auto: { from: [null], to: 'PENDING', events: [], money: 'hold: available → frozen (amount)' },
  create_manual: { from: [null], to: 'PENDING_MANUAL', events: [], money: 'hold: available → frozen (amount)' },
  approve: { from: ['PENDING_MANUAL'], to: 'APPROVED', events: [], money: 'none' },
  cancel: { from: ['PENDING_MANUAL'], to: 'CANCELLED', events: ['p2p.finance.withdrawal_failed'], money: 'hold returned: frozen → available' },
  broadcast_sent: { from: ['PENDING', 'APPROVED'], to: 'COMPLETED', events: [], money: 'frozen −amount; chain +net; platform_fees +fee' },
  broadcast_rejected: { from: ['PENDING', 'APPROVED'], to: 'CANCELLED', events: ['p2p.finance.withdrawal_failed'], money: 'hold returned: frozen → available' },
};

export const canMove = (from: WithdrawalStatus, move: WithdrawalMove) => allowsFrom(WITHDRAWAL_TRANSITIONS[move], from);

/** Why an operator command the withdrawal's status does not allow is refused (undefined: legal). */
export function withdrawalRefusal(move: WithdrawalMove, status: WithdrawalStatus): Refusal | undefined {
  return canMove(status, move) ? undefined : { kind: 'FAILED_PRECONDITION', message: `withdrawal is ${status}` };
}

/**
 * Four-eyes (issue 28.3): how many distinct operators must approve a withdrawal from the queue —
 * two above the configured amount (WITHDRAWAL_FOUR_EYES_ABOVE_USDT_CENTS), else one. The
 * merchant's status stays PENDING_MANUAL until the last approval releases it (APPROVED).
 */
export const approvalsRequired = (amount: bigint, fourEyesAbove: bigint): number => (amount > fourEyesAbove ? 2 : 1);

export type AutoWithdrawalMode = 'AUTO_UP_TO_LIMIT' | 'MANUAL_ONLY';

/** Contract 7: the merchant's limit under AUTO_UP_TO_LIMIT, 0 under MANUAL_ONLY. */
export function effectiveAutoLimit(mode: string, limit: bigint): bigint {
  return mode === 'AUTO_UP_TO_LIMIT' ? limit : 0n;
}

/** Auto-processed when amount ≤ the effective limit (so a limit of 0 sends everything to the queue). */
export function isAutoProcessed(amount: bigint, mode: string, limit: bigint): boolean {
  return amount <= effectiveAutoLimit(mode, limit);
}

/**
 * The fee rule: fee = WITHDRAWAL_FEE_USDT_CENTS (flat network fee) + amount × WITHDRAWAL_FEE_BPS /
 * 10000 (rounded half-to-even); net = amount − fee. The amount is what leaves the balance, the
 * net is what arrives at the address. A withdrawal needs amount > fee (net ≥ 1 cent).
 */
export function withdrawalFee(amount: bigint, flatCents: bigint, bps: number): { fee: bigint; net: bigint } {
  const fee = flatCents + feeFromBps(amount, bps);
  return { fee, net: amount - fee };
}
