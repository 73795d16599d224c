/**
 * Reading an amount as a bank notification writes it ("1 000 000,00", "1.234,56", "15 000",
 * "12345.67", "1'500") into minor units: exact or nothing. The bank's number style says which
 * marks may group thousands and which may separate the fraction; a number the style leaves
 * ambiguous ("1.234" when a dot may be either), a fraction longer than the currency's exponent
 * (even "1500,000": a bank never writes it, so the layout is one we do not know) or a malformed
 * grouping parses to undefined. Digits only go through bigint (domain/money.ts decimalToMinor).
 */
import { decimalToMinor } from '../money';

/** Space-like thousands separators: space, no-break space, narrow no-break space, thin space. */
const SPACES = ' \u00A0\u202F\u2009';
/** Apostrophes some apps group thousands with (1'500). */
const APOSTROPHES = "'\u2019";

export interface AmountStyle {
  /** Marks that may group thousands (besides spaces and apostrophes, which always do). */
  group: string;
  /** Marks that may separate the fraction. */
  decimal: string;
}

/** A style that allows every mark either way, deciding by position (the default). */
export const ANY_STYLE: AmountStyle = { group: '.,', decimal: '.,' };

/**
 * The regex source of a number token: digits with single separators between them, ending in a
 * digit (so a sentence's full stop is left out). Patterns capture it as `(?<amount>…)` and hand
 * it to readAmount, which decides what the separators mean.
 */
export const AMOUNT = `\\d(?:[\\d${SPACES}${APOSTROPHES}.,]*\\d)?`;

const isSpace = (c: string) => SPACES.includes(c) || APOSTROPHES.includes(c);

/** Minor units for a number token in a bank's style, or undefined when it is not exact and unambiguous. */
export function readAmount(token: string, exponent: number, style: AmountStyle = ANY_STYLE): bigint | undefined {
  const parts = token.split(/([^\d])/);
  const groups = parts.filter((_, i) => i % 2 === 0);
  const marks = parts.filter((_, i) => i % 2 === 1);
  if (groups.some((g) => g === '')) return undefined; // two marks in a row, or a leading/trailing mark
  let whole = groups;
  let fraction = '';
  const last = marks.at(-1);
  if (last !== undefined && !isSpace(last)) {
    const lastGroup = groups.at(-1)!;
    const others = marks.slice(0, -1);
    let decimal: boolean;
    if (others.includes(last))
      decimal = false; // 1.234.567: the repeated mark groups
    else if (others.some((m) => !isSpace(m)))
      decimal = true; // 1.234,56: the other punctuation groups
    else if (!style.decimal.includes(last)) decimal = false;
    else if (!style.group.includes(last) || lastGroup.length !== 3) decimal = true;
    else return undefined; // "1.234" where a dot may do either: ambiguous
    if (decimal) {
      if (!style.decimal.includes(last)) return undefined;
      whole = groups.slice(0, -1);
      fraction = lastGroup;
      marks.pop();
    }
  }
  // What is left groups thousands: one kind of mark (all spaces count as one), 1–3 digits first, then threes.
  if (marks.length > 0) {
    const kind = (m: string) => (isSpace(m) ? ' ' : m);
    if (new Set(marks.map(kind)).size > 1) return undefined;
    if (!isSpace(marks[0]!) && !style.group.includes(marks[0]!)) return undefined;
    if (whole[0]!.length > 3 || whole.slice(1).some((g) => g.length !== 3)) return undefined;
  }
  if (fraction.length > exponent) return undefined;
  const digits = whole.join('');
  if (digits.length > 19) return undefined;
  return decimalToMinor(fraction ? `${digits}.${fraction}` : digits, exponent);
}
