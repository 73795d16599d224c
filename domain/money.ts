/**
 * Money is bigint minor units everywhere. Rates are micro-units (× 10^6) of fiat per 1 USDT.
 * Every division rounds half-to-even, in integer arithmetic, in this one file.
 */

export const INT64_MAX = 9_223_372_036_854_775_807n;
const INT64_MIN = -9_223_372_036_854_775_808n;
const RATE_SCALE = 1_000_000n;
const BPS_SCALE = 10_000n;
/** USDT is kept in cents (exponent 2). */
const USDT_EXPONENT = 2;

/** numerator / denominator rounded half-to-even (banker's rounding). denominator > 0. */
export function divRoundHalfEven(numerator: bigint, denominator: bigint): bigint {
  if (denominator <= 0n) throw new RangeError('denominator must be positive');
  const negative = numerator < 0n;
  const n = negative ? -numerator : numerator;
  let quotient = n / denominator;
  const twiceRemainder = (n % denominator) * 2n;
  if (twiceRemainder > denominator || (twiceRemainder === denominator && quotient % 2n === 1n)) quotient += 1n;
  return negative ? -quotient : quotient;
}

/**
 * USDT cents for a fiat amount: amount × 10^(2 − e) × 10^6 / rate_micro, half-even.
 * `exponent` is the ISO 4217 minor-unit exponent of the fiat currency.
 */
export function fiatToUsdtCents(amountMinor: bigint, exponent: number, rateMicro: bigint): bigint {
  if (rateMicro <= 0n) throw new RangeError('rate must be positive');
  const shift = USDT_EXPONENT - exponent;
  let numerator = amountMinor * RATE_SCALE;
  let denominator = rateMicro;
  if (shift >= 0) numerator *= 10n ** BigInt(shift);
  else denominator *= 10n ** BigInt(-shift);
  return divRoundHalfEven(numerator, denominator);
}

/** A fee in basis points of an amount, half-even. */
export function feeFromBps(amount: bigint, bps: number): bigint {
  return divRoundHalfEven(amount * BigInt(bps), BPS_SCALE);
}

/** A PayOut's hold on the merchant's USDT: the amount at the SELL rate plus the payout fee (its bps of that amount). */
export function payoutHold(amountUsdt: bigint, payoutFeeBps: number): { fee: bigint; hold: bigint } {
  const fee = feeFromBps(amountUsdt, payoutFeeBps);
  return { fee, hold: amountUsdt + fee };
}

function isInt64(value: bigint): boolean {
  return value >= INT64_MIN && value <= INT64_MAX;
}

/**
 * A decimal string (V1 amounts: "1500.50") as minor units of a currency with `exponent`
 * fraction digits. Exact or refused, never rounded: more fraction digits than the exponent are
 * accepted only when the extra ones are zeros ("1500.500"); anything else returns undefined.
 */
export function decimalToMinor(text: string, exponent: number): bigint | undefined {
  const match = /^(\d{1,19})(?:\.(\d{1,18}))?$/.exec(text);
  if (!match) return undefined;
  const fraction = match[2] ?? '';
  if (/[^0]/.test(fraction.slice(exponent))) return undefined;
  const minor = BigInt(match[1]!) * 10n ** BigInt(exponent) + BigInt((fraction.slice(0, exponent) || '0').padEnd(exponent, '0') || '0');
  return isInt64(minor) ? minor : undefined;
}

/** Minor units as a decimal string with exactly `exponent` fraction digits (150050, 2 → "1500.50"). */
export function minorToDecimal(minor: bigint, exponent: number): string {
  const negative = minor < 0n;
  const digits = (negative ? -minor : minor).toString().padStart(exponent + 1, '0');
  const whole = exponent === 0 ? digits : `${digits.slice(0, -exponent)}.${digits.slice(-exponent)}`;
  return negative ? `-${whole}` : whole;
}
