/**
 * Amounts as text, both ways, on digit strings only (never a JS number): minor units shown in
 * major ones, and what an operator typed read into minor units. Pure, so it is unit-tested alone.
 */

/** Why typed text is not an amount (shown as the field's and the action's message). */
export class AmountError extends Error {
  readonly status = 400;
}

/** Minor units (digit string) → "1 500.00" at the exponent. */
export function formatMinor(minor: string | undefined, exponent: number): string {
  if (minor === undefined || minor === '') return '';
  const negative = minor.startsWith('-');
  const digits = (negative ? minor.slice(1) : minor).padStart(exponent + 1, '0');
  const whole = digits.slice(0, digits.length - exponent).replace(/\B(?=(\d{3})+(?!\d))/g, ' ');
  return `${negative ? '-' : ''}${whole}${exponent > 0 ? `.${digits.slice(-exponent)}` : ''}`;
}

/**
 * "1 500,5" at exponent 2 → "150050". Spaces group thousands; one "." or "," separates the
 * decimals, at most `exponent` of them. Anything else is refused with a message that says why.
 */
export function parseMajor(text: string, exponent: number, what = 'the amount'): string {
  const compact = text.replace(/[\s\u00A0\u2009\u202F_']/g, '');
  if (compact === '') throw new AmountError(`${what} is empty`);
  const match = /^(\d+)(?:[.,](\d*))?$/.exec(compact);
  if (!match) throw new AmountError(`"${text}" is not an amount: digits, and one "." or "," before the decimals`);
  const [, whole = '', fraction = ''] = match;
  if (fraction.length > exponent) {
    throw new AmountError(exponent === 0 ? `${what} takes no decimals` : `${what} takes at most ${exponent} decimal${exponent === 1 ? '' : 's'}`);
  }
  return BigInt(whole + fraction.padEnd(exponent, '0')).toString();
}
