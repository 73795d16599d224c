/** Per-merchant deal limits as pure rules; the daily cap needs the day's volume (db/queries/limits.ts). */
import { InvalidArgument } from './errors';

export interface DealBounds {
  deal_min_amount: bigint | null;
  deal_max_amount: bigint | null;
}

/** Per-deal bounds: 400 INVALID_ARGUMENT. */
export function checkDealBounds(limits: DealBounds, amount: bigint): void {
  if (limits.deal_min_amount !== null && amount < limits.deal_min_amount) {
    throw new InvalidArgument(`amount ${amount} is below the merchant minimum ${limits.deal_min_amount}`);
  }
  if (limits.deal_max_amount !== null && amount > limits.deal_max_amount) {
    throw new InvalidArgument(`amount ${amount} is above the merchant maximum ${limits.deal_max_amount}`);
  }
}
