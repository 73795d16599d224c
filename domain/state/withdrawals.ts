/**
 * USDT (TRC-20) withdrawals: statuses, the state machine as a table, the fee rule, the
 * auto-processing rule. Pure code: the workflow imports it (ids and keys are in withdrawal-ids.ts).
 */
import { feeFromBps } from '../money';
import { OPERATOR_ROUTE_ROLES } from '../roles';
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
 * Four-eyes: how many distinct operators must approve a withdrawal from the queue — two above the
 * configured amount (WITHDRAWAL_FOUR_EYES_ABOVE_USDT_CENTS), else one. The merchant's status stays
 * PENDING_MANUAL until the last approval releases it (APPROVED).
 */
export const approvalsRequired = (amount: bigint, fourEyesAbove: bigint): number => (amount > fourEyesAbove ? 2 : 1);

/** The roles that may approve: those of the approve route in the role table. */
const WITHDRAWAL_APPROVER_ROLES = OPERATOR_ROUTE_ROLES.adminApproveWithdrawal ?? [];

/** The approver name (withdrawal_approvals.approver) of a console account: `operator_account:<id>`. */
const ACCOUNT_APPROVER = 'operator_account:';
export const approverAccountId = (approver: string): string | undefined =>
  approver.startsWith(ACCOUNT_APPROVER) ? approver.slice(ACCOUNT_APPROVER.length) : undefined;

/**
 * Whether an approval counts toward a four-eyes release, judged when the release is decided: a
 * console account's (a JWT subject is no person: anyone holding the JWT secret names any number of
 * them) that is enabled now and still has a role that may approve. An approver disabled or
 * demoted since no longer counts.
 */
export function approvalCounts(approver: string, account: { role: string; disabled: boolean } | undefined): boolean {
  if (approverAccountId(approver) === undefined || !account || account.disabled) return false;
  return (WITHDRAWAL_APPROVER_ROLES as readonly string[]).includes(account.role);
}

const FOUR_EYES_NEEDS_ACCOUNTS =
  'a withdrawal above the four-eyes amount is released by two console accounts; an approval with the operator JWT does not count (sign in to the console)';

/**
 * Who may approve a withdrawal needing four-eyes: a console account only. The operator JWT is
 * refused outright rather than recorded as an approval that never counts, so whoever uses it
 * learns at once that two console accounts must approve (403; undefined: allowed).
 */
export function fourEyesRefusal(amount: bigint, fourEyesAbove: bigint, actorKind: string | undefined): string | undefined {
  return approvalsRequired(amount, fourEyesAbove) === 1 || actorKind === 'operator_account' ? undefined : FOUR_EYES_NEEDS_ACCOUNTS;
}

/**
 * An auto-withdrawal limit above the four-eyes amount would send withdrawals that need two
 * approvals out with none: such a limit is refused (undefined: allowed).
 */
export function autoLimitRefusal(limit: bigint, fourEyesAbove: bigint): string | undefined {
  return limit > fourEyesAbove
    ? `auto_withdrawal_limit_usdt_cents must not be above the four-eyes amount (${fourEyesAbove} USDT cents): larger withdrawals need two approvals`
    : undefined;
}

/** The merchant's limit under AUTO_UP_TO_LIMIT, 0 under MANUAL_ONLY. */
export function effectiveAutoLimit(mode: string, limit: bigint): bigint {
  return mode === 'AUTO_UP_TO_LIMIT' ? limit : 0n;
}

/**
 * Auto-processed when amount ≤ the effective limit (so a limit of 0 sends everything to the
 * queue) — and never when the amount needs four-eyes, whatever limit a row still holds.
 */
export function isAutoProcessed(amount: bigint, mode: string, limit: bigint, fourEyesAbove: bigint): boolean {
  return amount <= effectiveAutoLimit(mode, limit) && approvalsRequired(amount, fourEyesAbove) === 1;
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
