/**
 * A bank notification (an SMS or a push a trader's paired device forwards) → the credit it
 * announces, if any. The bank is recognised by the sender (an SMS sender such as "900" or an
 * app's package name such as "kz.kaspi.mobile"); a sender no parser knows (a generic SMS app,
 * a forwarder) falls back to the bank's name in the text. A Russian bank's message about an
 * SBP transfer is read by the SBP parser, whichever bank sent it. Only money in is a credit:
 * debits, codes, ads and layouts no pattern knows parse to nothing (the message is kept for review).
 */
import { kapitalbank } from './kapitalbank';
import { kaspi } from './kaspi';
import { type BankParser, type ParsedCredit, readCredit } from './parser';
import { sberbank } from './sberbank';
import { sbp } from './sbp';
import { tbank } from './tbank';
import { ziraat } from './ziraat';

export type { ParsedCredit } from './parser';

export interface BankNotificationInput {
  sender: string;
  text: string;
}

export interface ParseResult {
  /** The bank slug ('sberbank' | 'tbank' | 'kaspi' | 'kapitalbank' | 'ziraat' | 'sbp'), '' when no parser knows the message. */
  parser: string;
  /** The parser's version (from 1); 0 with no parser. */
  version: number;
  /** Absent: parsed to nothing (a debit, an OTP code, an ad, an unknown layout). */
  credit?: ParsedCredit;
}

/** No bank's notification is longer; a longer text is not one, and the regexes never scan it. */
const MAX_TEXT_LENGTH = 4096;

const PARSERS: readonly BankParser[] = [sberbank, tbank, kaspi, kapitalbank, ziraat, sbp];

export const BANK_PARSERS: ReadonlyArray<{
  bank: string;
  version: number;
  displayName: string;
  language: string;
  senders: readonly string[];
  currency: string;
}> = PARSERS.map(({ bank, version, displayName, language, senders, currency }) => ({ bank, version, displayName, language, senders, currency }));

const bySender = new Map<string, BankParser>(PARSERS.flatMap((p) => p.senders.map((s) => [s.toLowerCase(), p] as const)));

/** Which parser reads a message: the sender's bank, else the bank the text names; SBP for a Russian bank's SBP message. */
function parserFor({ sender, text }: BankNotificationInput): BankParser | undefined {
  const bank = bySender.get(sender.trim().toLowerCase()) ?? PARSERS.find((p) => p !== sbp && p.textMark.test(text));
  if (sbp.textMark.test(text) && (bank === undefined || bank.currency === sbp.currency)) return sbp;
  return bank;
}

export function parseBankNotification(input: BankNotificationInput): ParseResult {
  const parser = parserFor(input);
  if (!parser) return { parser: '', version: 0 };
  const credit = input.text.length > MAX_TEXT_LENGTH ? undefined : readCredit(parser, input.text);
  return credit ? { parser: parser.bank, version: parser.version, credit } : { parser: parser.bank, version: parser.version };
}

export interface ParseRate {
  bank: string;
  version: number;
  /** Messages of the corpus this parser read. */
  total: number;
  /** Messages it parsed to a credit. */
  credits: number;
  /** Messages the corpus says are credits. */
  expectedCredits: number;
  /** Expected credits parsed exactly (amount, currency, payer, tail) / expectedCredits; 1 when the corpus expects none. */
  rate: number;
  /** Messages whose result differs from what the corpus expects (amount, currency, payer, tail, or credit vs nothing). */
  mismatches: number;
}

interface CorpusExpect {
  amount: string;
  currency: string;
  payerName?: string;
  cardTail?: string;
}

/** The parse rate per bank and version over a fixture corpus (bench/run.ts parse-rate). Unknown senders count under bank 'unknown'. */
export function parseRateOf(corpus: ReadonlyArray<BankNotificationInput & { expect: CorpusExpect | null }>): ParseRate[] {
  const rates = new Map<string, ParseRate>();
  const exactCredits = new Map<string, number>();
  for (const message of corpus) {
    const result = parseBankNotification(message);
    const bank = result.parser || 'unknown';
    const key = `${bank}@${result.version}`;
    const rate = rates.get(key) ?? { bank, version: result.version, total: 0, credits: 0, expectedCredits: 0, rate: 1, mismatches: 0 };
    const exact = sameCredit(result.credit, message.expect);
    rate.total += 1;
    if (result.credit) rate.credits += 1;
    if (message.expect) rate.expectedCredits += 1;
    if (!exact) rate.mismatches += 1;
    rates.set(key, rate);
    if (message.expect && exact) exactCredits.set(key, (exactCredits.get(key) ?? 0) + 1);
  }
  for (const [key, rate] of rates) rate.rate = rate.expectedCredits === 0 ? 1 : (exactCredits.get(key) ?? 0) / rate.expectedCredits;
  return [...rates.values()];
}

function sameCredit(credit: ParsedCredit | undefined, expect: CorpusExpect | null): boolean {
  if (!credit || !expect) return !credit && !expect;
  return (
    credit.amount.toString() === expect.amount &&
    credit.currency === expect.currency &&
    credit.payerName === expect.payerName &&
    credit.cardTail === expect.cardTail
  );
}
