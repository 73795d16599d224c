/**
 * A deal's state in the trader's words: what it means for the trader now, never the API's code
 * (the code stays in data-status for tests and support).
 */
import { formatMinor } from '../amounts';

const DEAL_STATUS_WORDS: Record<string, string> = {
  INITIALIZED: 'Starting',
  ESCROW_LOCKED: 'Waiting for the payer',
  PAYMENT_NOTIFIED: 'Payer says paid: check your bank',
  PAYMENT_VERIFIED: 'Confirmed: completing',
  SOFT_DISPUTED: 'Under review',
  APPEALED: 'Disputed',
  REFUND_PENDING: 'Refund pending',
  MATCHED: 'Yours to send',
  UNASSIGNED: 'Free to take',
  PROCESSING: 'You are sending',
  COMPLETED: 'Completed',
  EXPIRED: 'Expired',
  SPAM_REJECTED: 'Rejected as spam',
  CANCELLED: 'Cancelled',
  FAILED: 'Failed',
};

export const dealStatusWords = (status: string) => DEAL_STATUS_WORDS[status] ?? status.toLowerCase().replace(/_/g, ' ');

/** The amount received against the deal's. */
export const AMOUNT_MATCH_WORDS: Record<string, string> = {
  full: 'the full amount',
  partial: 'less than asked',
  overpaid: 'more than asked',
};

/** A requisite's type in words. */
export const REQUISITE_TYPE_WORDS: Record<string, string> = {
  BANK_CARD: 'card',
  SBP: 'SBP phone',
  BANK_TRANSFER: 'bank account',
  E_WALLET: 'e-wallet',
  SIM: 'SIM phone',
};

/** A deal's requisite summary ("BANK_CARD •••• 5555 phone-bank") with its type in words ("card •••• 5555 phone-bank"). */
export const requisiteSummaryWords = (summary: string) => summary.replace(/^[A-Z_]+/, (type) => REQUISITE_TYPE_WORDS[type] ?? type);

/** Minor units per major of a currency: USDT is kept in cents; a fiat currency's is its ISO 4217 exponent. */
function exponentOf(currency: string): number {
  if (currency === 'USDT') return 2;
  try {
    return new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
  } catch {
    return 2;
  }
}

/** An amount in minor units as the trader reads it: "1 500.00 RUB". */
export const moneyOf = (minor: string, currency: string) => `${formatMinor(minor, exponentOf(currency))} ${currency}`;
