/** PayIn (OrderStatus) states and the money of a deal; pure, shared by workflows and activities. */
import { feeFromBps } from './money';

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

/** Spec 3.1: cancel is legal before payment confirmation. */
export const PAYIN_CANCELLABLE: readonly PayinStatus[] = ['INITIALIZED', 'ESCROW_LOCKED', 'PAYMENT_NOTIFIED'];
/** Spec 3.1 / 4.1.3: the amount may change until it is authorised (PAYMENT_VERIFIED). */
export const PAYIN_AMOUNT_CHANGEABLE: readonly PayinStatus[] = ['INITIALIZED', 'ESCROW_LOCKED', 'PAYMENT_NOTIFIED', 'SOFT_DISPUTED'];
/** The trader may confirm receipt once requisites were issued. */
export const PAYIN_CONFIRMABLE: readonly PayinStatus[] = ['ESCROW_LOCKED', 'PAYMENT_NOTIFIED'];
/** The payment timeout expires these (not the appeal states, which the arbiter owns). */
export const PAYIN_EXPIRABLE: readonly PayinStatus[] = ['INITIALIZED', 'ESCROW_LOCKED', 'PAYMENT_NOTIFIED', 'PAYMENT_VERIFIED'];

export type AmountMatch = '' | 'full' | 'partial' | 'overpaid';

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
  return clientPaysFee
    ? { escrow: amountUsdt + fee, merchantNet: amountUsdt, fee }
    : { escrow: amountUsdt, merchantNet: amountUsdt - fee, fee };
}
