/**
 * How each currency is written in the notifications the parsers read, as regex sources (a mark
 * is never followed by a letter, so "р" is not the start of "рассрочка"), and the ISO 4217
 * exponents the amounts are read with.
 */
const notLetter = '(?!\\p{L})';

export const RUB_MARKS = `(?:₽|RUB|RUR|руб(?:лей|ля|ль)?\\.?|р\\.?)${notLetter}`;
export const KZT_MARKS = `(?:₸|KZT|тг\\.?|тенге)${notLetter}`;
export const UZS_MARKS = `(?:so['ʻ‘’]m|сўм|сум|UZS)${notLetter}`;
export const TRY_MARKS = `(?:TL|₺|TRY)${notLetter}`;

/** Minor-unit exponents (ISO 4217): all four are 2. */
export const EXPONENT = { RUB: 2, KZT: 2, UZS: 2, TRY: 2 } as const;
