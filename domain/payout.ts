/** PayOut (PayOutStatus) states, spec 3.2. */
export const PAYOUT_STATUSES = ['INITIALIZED', 'MATCHED', 'UNASSIGNED', 'PROCESSING', 'COMPLETED', 'FAILED', 'EXPIRED'] as const;
export type PayoutStatus = (typeof PAYOUT_STATUSES)[number];

export const PAYOUT_TERMINAL: readonly PayoutStatus[] = ['COMPLETED', 'FAILED', 'EXPIRED'];
export const isPayoutTerminal = (s: PayoutStatus) => PAYOUT_TERMINAL.includes(s);

/** Statuses whose volume does not count toward the daily cap (spec 8). */
export const VOLUME_EXCLUDED_STATUSES = ['EXPIRED', 'SPAM_REJECTED', 'FAILED'] as const;

/** Keys allowed in requisite_details (spec 4.1.2). */
export const REQUISITE_DETAIL_KEYS = ['iban', 'account_number', 'document_number', 'bank_name', 'phone_number'] as const;
