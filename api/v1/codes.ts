/**
 * The V1 status codes of the legacy API, as tables: one row per (V2 status, condition). Every
 * V1 answer (GET, lists), every V1 list filter and every V1 webhook (./webhooks.ts, through the
 * worker's webhook format registry) reads these rows, nothing else. Pure code.
 */
import type { PayinStatus } from '../../domain/state/payin';
import type { PayoutStatus } from '../../domain/state/payout';
import type { WithdrawalStatus } from '../../domain/state/withdrawals';

/** Where a code is shown: GET and list answers, or webhooks (REFUND_PENDING differs: 32 vs 16). */
export type V1View = 'get' | 'webhook';

/** The facts of a PayIn beyond its status that select a V1 code. */
export interface PayinFacts {
  status: string;
  /** '' (no reconciliation), 'full', 'partial' or 'overpaid'. */
  amount_match_status: string;
  /** Whether a channel (trader requisite) was chosen. */
  has_channel: boolean;
}

export interface PayinCodeRow {
  status: PayinStatus;
  /** Only for COMPLETED: the reconciliation results the row covers. */
  match?: readonly string[];
  /** Only for INITIALIZED: whether the channel was chosen. */
  channel?: boolean;
  get: number;
  webhook: number;
}

/** V1 PayIn status codes. */
export const V1_PAYIN_CODES: readonly PayinCodeRow[] = [
  { status: 'INITIALIZED', channel: true, get: 1, webhook: 1 },
  { status: 'INITIALIZED', channel: false, get: 31, webhook: 31 },
  { status: 'ESCROW_LOCKED', get: 1, webhook: 1 },
  { status: 'PAYMENT_NOTIFIED', get: 2, webhook: 2 },
  { status: 'PAYMENT_VERIFIED', get: 11, webhook: 11 },
  { status: 'COMPLETED', match: ['', 'full'], get: 11, webhook: 11 },
  { status: 'COMPLETED', match: ['overpaid'], get: 14, webhook: 14 },
  { status: 'COMPLETED', match: ['partial'], get: 15, webhook: 15 },
  { status: 'CANCELLED', get: 12, webhook: 12 },
  { status: 'SPAM_REJECTED', get: 12, webhook: 12 },
  { status: 'EXPIRED', get: 13, webhook: 13 },
  { status: 'APPEALED', get: 21, webhook: 21 },
  { status: 'SOFT_DISPUTED', get: 21, webhook: 21 },
  { status: 'REFUND_PENDING', get: 32, webhook: 16 },
];

export interface PayoutCodeRow {
  status: PayoutStatus;
  code: number;
}

/** V1 PayOut status codes (the same in answers and webhooks). */
export const V1_PAYOUT_CODES: readonly PayoutCodeRow[] = [
  { status: 'INITIALIZED', code: 1 },
  { status: 'MATCHED', code: 1 },
  { status: 'UNASSIGNED', code: 1 },
  { status: 'PROCESSING', code: 40 },
  { status: 'COMPLETED', code: 10 },
  { status: 'FAILED', code: 30 },
  { status: 'EXPIRED', code: 30 },
];
/**
 * PayOut codes V1 defines but the gateway never emits: 20 (legacy) and 50 (a transfer stage no
 * V2 status stands for). As list filters they are known codes that select nothing.
 */
const V1_PAYOUT_SILENT_CODES: readonly number[] = [20, 50];

/**
 * V1 withdrawal codes 1–4 (3 is the sent state), one per withdrawal status
 * (domain/state/withdrawals.ts): 1 waiting (PENDING, PENDING_MANUAL), 2 approved and being sent,
 * 3 sent, 4 cancelled (by an operator, or refused by the chain).
 */
export const V1_WITHDRAWAL_CODES: Record<WithdrawalStatus, 1 | 2 | 3 | 4> = {
  PENDING: 1,
  PENDING_MANUAL: 1,
  APPROVED: 2,
  COMPLETED: 3,
  CANCELLED: 4,
};

/**
 * V1 dispute codes. The legacy API's code table gives none, yet V1 list filters are numeric: one code per appeal
 * status (APPEAL_TRANSITIONS), in the order an appeal moves.
 */
const V1_DISPUTE_CODES: Record<string, number> = {
  OPEN: 1,
  IN_REVIEW: 2,
  REOPENED: 3,
  RESOLVED_MERCHANT: 4,
  RESOLVED_TRADER: 5,
  CLOSED: 6,
};

export function v1DisputeCode(status: string): number {
  const code = V1_DISPUTE_CODES[status];
  if (code === undefined) throw new Error(`no V1 code for appeal status ${status}`);
  return code;
}

export function disputeStatusesForCode(code: number): string[] | undefined {
  const statuses = Object.entries(V1_DISPUTE_CODES)
    .filter(([, c]) => c === code)
    .map(([status]) => status);
  return statuses.length > 0 ? statuses : undefined;
}

function payinRowMatches(row: PayinCodeRow, facts: PayinFacts): boolean {
  if (row.status !== facts.status) return false;
  if (row.match && !row.match.includes(facts.amount_match_status)) return false;
  if (row.channel !== undefined && row.channel !== facts.has_channel) return false;
  return true;
}

/** The V1 code of a PayIn; a status the table lacks is a programming error, not a guess. */
export function v1PayinCode(facts: PayinFacts, view: V1View): number {
  const row = V1_PAYIN_CODES.find((r) => payinRowMatches(r, facts));
  if (!row) throw new Error(`no V1 code for PayIn status ${facts.status}/${facts.amount_match_status}`);
  return view === 'get' ? row.get : row.webhook;
}

export function v1PayoutCode(status: string): number {
  const row = V1_PAYOUT_CODES.find((r) => r.status === status);
  if (!row) throw new Error(`no V1 code for PayOut status ${status}`);
  return row.code;
}

export function v1WithdrawalCode(status: string): number {
  const code = V1_WITHDRAWAL_CODES[status as WithdrawalStatus];
  if (code === undefined) throw new Error(`no V1 code for withdrawal status ${status}`);
  return code;
}

/**
 * The PayIn rows a V1 list filter selects, or undefined for an unknown code. A filter accepts
 * both views' codes (16 and 32 both select REFUND_PENDING).
 */
export function payinRowsForCode(code: number): PayinCodeRow[] | undefined {
  const rows = V1_PAYIN_CODES.filter((r) => r.get === code || r.webhook === code);
  return rows.length > 0 ? rows : undefined;
}

/** The PayOut statuses a V1 filter selects ([] for the silent codes), or undefined when unknown. */
export function payoutStatusesForCode(code: number): string[] | undefined {
  if (V1_PAYOUT_SILENT_CODES.includes(code)) return [];
  const statuses = V1_PAYOUT_CODES.filter((r) => r.code === code).map((r) => r.status);
  return statuses.length > 0 ? statuses : undefined;
}

export function withdrawalStatusesForCode(code: number): string[] | undefined {
  const statuses = Object.entries(V1_WITHDRAWAL_CODES)
    .filter(([, c]) => c === code)
    .map(([status]) => status);
  return statuses.length > 0 ? statuses : undefined;
}
