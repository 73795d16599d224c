/**
 * What a bank's parser is: who sends its messages, its number style, and a small table of
 * regexes. A message is read by `readCredit`: the refusals first (OTP codes, ads, debits — a
 * message that matches one is never a credit, whatever amounts it shows), then the credit
 * patterns in order; the first that matches and whose amount reads exactly gives the credit.
 * Patterns name their groups: `amount` (required), `payer` and `tail` (optional). A card tail the
 * pattern does not capture is looked for with the parser's tail patterns over the whole message.
 */
import { AMOUNT, type AmountStyle, readAmount } from './amount';

export interface ParsedCredit {
  /** Minor units, ISO 4217 exponent (RUB, KZT, UZS, TRY: 2). */
  amount: bigint;
  currency: string;
  payerName?: string;
  /** The last 4 digits of the card or account credited, or of the payer's, as the message says. */
  cardTail?: string;
}

export interface BankParser {
  bank: string;
  version: number;
  displayName: string;
  language: string;
  /** SMS senders and app package names (compared without case). */
  senders: readonly string[];
  /** Words that name the bank in a message's text, for a sender that is a generic app (an SMS app, a forwarder). */
  textMark: RegExp;
  currency: string;
  exponent: number;
  style: AmountStyle;
  /** Messages that are never credits. */
  refuse: readonly RegExp[];
  /** Credit layouts, most specific first. */
  credits: readonly RegExp[];
  /** Where a card or account tail sits when the credit pattern does not capture it. */
  tails: readonly RegExp[];
}

/** Builds a credit pattern: `{AMOUNT}` is the number token (captured as `amount`), `{CUR}` the bank's currency marks. */
export function pattern(source: string, currency: string, flags = 'u'): RegExp {
  return new RegExp(source.replaceAll('{AMOUNT}', `(?<amount>${AMOUNT})`).replaceAll('{CUR}', `(?:${currency})`), flags);
}

/** Words that follow a name but are not part of it (a balance, the card line, a label). */
const NOT_A_NAME = '(?!(?:Доступно|Баланс|Остаток|Карта|Счёт|Счет|Зачислен[оа]?|Из|Karta|Hisob|Bakiye|Açıklama|Kart)(?!\\p{L}))';

/** A name of up to `words` capitalised (or all-capital) words and an optional final initial ("Иван И.", "AHMET YILMAZ"). */
function nameOf(upper: string, lower: string, words: number): string {
  const word = `${NOT_A_NAME}[${upper}][${upper}${lower}-]+`;
  return `${word}(?:[ \\u00A0]${word}){0,${words - 1}}(?:[ \\u00A0][${upper}]\\.)?`;
}

/** Names in Cyrillic: Russian, Kazakh and Uzbek letters. */
export const NAME_CYRILLIC = nameOf('А-ЯЁӘҒҚҢӨҰҮҺІЎҲ', 'а-яёәғқңөұүһіўҳ', 3);
/** Names in Latin letters: Turkish and Uzbek (with its o‘ and g‘ apostrophes). */
export const NAME_LATIN = nameOf('A-ZÇĞİÖŞÜ', "a-zçğıöşü'ʻ‘’", 4);

export function readCredit(parser: BankParser, text: string): ParsedCredit | undefined {
  if (parser.refuse.some((r) => r.test(text))) return undefined;
  for (const credit of parser.credits) {
    const match = credit.exec(text);
    const groups = match?.groups;
    if (!groups?.amount) continue;
    const amount = readAmount(groups.amount, parser.exponent, parser.style);
    // A layout we know with an amount we cannot read exactly is nothing, not a guess from another pattern.
    if (amount === undefined || amount <= 0n) return undefined;
    const result: ParsedCredit = { amount, currency: parser.currency };
    const payer = groups.payer?.trim();
    if (payer) result.payerName = payer;
    const tail = groups.tail ?? firstTail(parser, text);
    if (tail) result.cardTail = tail;
    return result;
  }
  return undefined;
}

function firstTail(parser: BankParser, text: string): string | undefined {
  for (const t of parser.tails) {
    const m = t.exec(text);
    if (m?.[1]) return m[1];
  }
  return undefined;
}
