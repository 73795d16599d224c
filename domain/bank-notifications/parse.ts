/** Placeholder of the bank parsers (replaced by the parsers' own module): knows no bank yet. */
export interface BankNotificationInput {
  sender: string;
  text: string;
}
export interface ParsedCredit {
  amount: bigint;
  currency: string;
  payerName?: string;
  cardTail?: string;
}
export interface ParseResult {
  parser: string;
  version: number;
  credit?: ParsedCredit;
}
export function parseBankNotification(_input: BankNotificationInput): ParseResult {
  return { parser: '', version: 0 };
}
