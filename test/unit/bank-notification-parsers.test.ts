/**
 * The bank notification parsers (domain/bank-notifications/) on their fixture corpus
 * (test/fixtures/bank-notifications/<bank>.json), on amounts written the way each bank writes
 * them (a round trip from bigint minor units), and on garbage.
 */
import test from 'ava';
import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { Registry } from 'prom-client';
import { apiMetrics } from '../../config/metrics';
import { ANY_STYLE, readAmount } from '../../domain/bank-notifications/amount';
import { BANK_PARSERS, type ParsedCredit, parseBankNotification, parseRateOf } from '../../domain/bank-notifications/parse';

interface Fixture {
  sender: string;
  text: string;
  expect: { amount: string; currency: string; payerName?: string; cardTail?: string } | null;
  note: string;
}

const BANKS = ['sberbank', 'tbank', 'kaspi', 'kapitalbank', 'ziraat', 'sbp'];
const corpus = (bank: string): Fixture[] =>
  JSON.parse(readFileSync(new URL(`../fixtures/bank-notifications/${bank}.json`, import.meta.url), 'utf8')) as Fixture[];

/** A credit as the fixtures write it: the amount as a digit string, absent fields left out. */
function asFixture(credit: ParsedCredit | undefined): Fixture['expect'] {
  if (!credit) return null;
  return {
    amount: credit.amount.toString(),
    currency: credit.currency,
    ...(credit.payerName === undefined ? {} : { payerName: credit.payerName }),
    ...(credit.cardTail === undefined ? {} : { cardTail: credit.cardTail }),
  };
}

const versionOf = (bank: string) => BANK_PARSERS.find((p) => p.bank === bank)?.version ?? -1;

test('the parsers are the seeded banks plus SBP, each at a version from 1', (t) => {
  t.deepEqual(BANK_PARSERS.map((p) => p.bank).sort(), [...BANKS].sort());
  for (const p of BANK_PARSERS) {
    t.true(p.version >= 1, p.bank);
    t.true(p.senders.length > 0, p.bank);
  }
});

for (const bank of BANKS) {
  test(`${bank}: every fixture parses to what it expects`, (t) => {
    const fixtures = corpus(bank);
    t.true(fixtures.length >= 15, `${bank} has ${fixtures.length} fixtures`);
    t.true(
      fixtures.some((f) => f.expect === null),
      'non-credits are in the corpus',
    );
    for (const f of fixtures) {
      const result = parseBankNotification(f);
      t.deepEqual(asFixture(result.credit), f.expect, `${f.note}: ${f.text}`);
      if (f.expect !== null) {
        t.is(result.parser, bank, f.note);
        t.is(result.version, versionOf(bank), f.note);
      }
    }
  });
}

test('the parse rate on the corpus: every expected credit parsed exactly, no mismatch', (t) => {
  const rates = parseRateOf(BANKS.flatMap(corpus));
  for (const bank of BANKS) {
    const rate = rates.find((r) => r.bank === bank);
    t.truthy(rate, bank);
    t.is(rate?.mismatches, 0, bank);
    t.is(rate?.rate, 1, bank);
    t.is(rate?.credits, rate?.expectedCredits, bank);
  }
});

test('the API counts parsed notifications per parser and version: every current parser and unknown exist at 0', async (t) => {
  const registry = new Registry();
  const metrics = apiMetrics(registry);
  const text = await registry.getSingleMetricAsString('gateway_bank_notifications_parsed_total');
  for (const { bank, version } of [...BANK_PARSERS, { bank: 'unknown', version: 0 }]) {
    for (const result of ['credit', 'nothing']) t.true(text.includes(`{bank="${bank}",version="${version}",result="${result}"} 0`), `${bank} ${result}`);
  }
  metrics.bankNotificationsParsed.inc({ bank: 'kaspi', version: String(versionOf('kaspi')), result: 'credit' });
  t.true((await registry.getSingleMetricAsString('gateway_bank_notifications_parsed_total')).includes(`{bank="kaspi",version="1",result="credit"} 1`));
});

test('a sender and text no parser knows: parser "" at version 0, no credit', (t) => {
  t.deepEqual(parseBankNotification({ sender: 'com.whatsapp', text: 'Привет! Скинь 1500р до вечера' }), { parser: '', version: 0 });
  t.deepEqual(parseBankNotification({ sender: '', text: '' }), { parser: '', version: 0 });
  // A Russian bank's SBP message is the SBP parser's; Kaspi's never mentions SBP.
  t.is(parseBankNotification({ sender: '900', text: 'СЧЁТ1234 12:05 Перевод по СБП 1500р от ИВАН И.' }).parser, 'sbp');
  t.is(parseBankNotification({ sender: '900', text: 'СЧЁТ1234 12:05 Перевод 1500р от ИВАН И.' }).parser, 'sberbank');
});

test('amounts: every local grouping, exact or nothing', (t) => {
  t.is(readAmount('1 000 000,00', 2), 100_000_000n);
  t.is(readAmount('1\u00A0000\u00A0000,00', 2), 100_000_000n);
  t.is(readAmount('1\u202F234,5', 2), 123_450n);
  t.is(readAmount('1.234,56', 2), 123_456n);
  t.is(readAmount('1,234.56', 2), 123_456n);
  t.is(readAmount("1'500", 2), 150_000n);
  t.is(readAmount('1.234.567', 2), 123_456_700n);
  t.is(readAmount('0,01', 2), 1n);
  t.is(readAmount('12345.67', 2), 1_234_567n);
  // Ambiguous where a mark may do either; decided by the bank's style.
  t.is(readAmount('1.234', 2, ANY_STYLE), undefined);
  t.is(readAmount('1.234', 2, { group: '.', decimal: ',' }), 123_400n);
  t.is(readAmount('1,234', 2, { group: '.', decimal: ',' }), undefined);
  // Too many fraction digits is never rounded, not even trailing zeros.
  t.is(readAmount('1500,555', 2), undefined);
  t.is(readAmount('1500,000', 2, { group: '', decimal: ',' }), undefined);
  // Malformed groupings.
  t.is(readAmount('1 23 456', 2), undefined);
  t.is(readAmount('1 234.567,00', 2), undefined);
  t.is(readAmount('1,,5', 2), undefined);
  t.is(readAmount('1234 567', 2), undefined);
  // Beyond int64 minor units.
  t.is(readAmount('99999999999999999999', 2), undefined);
});

/** Minor units written with a bank's marks: thousands grouped by `group`, kopecks after `decimal` (shown when `always` or not zero). */
function written(minor: bigint, group: string, decimal: string, always: boolean): string {
  const whole = (minor / 100n).toString().replace(/\B(?=(\d{3})+(?!\d))/g, group);
  const fraction = (minor % 100n).toString().padStart(2, '0');
  return always || fraction !== '00' ? `${whole}${decimal}${fraction}` : whole;
}

const NBSP = '\u00A0';
const NNBSP = '\u202F';

/** Per bank: the sender, how it writes amounts, and a credit message around one. */
const TEMPLATES: Record<string, { sender: string; message: (minor: bigint) => string }[]> = {
  sberbank: [
    { sender: '900', message: (m) => `MIR-1234 12:34 зачисление ${written(m, '', '.', false)}р Баланс: 100р` },
    { sender: 'ru.sberbankmobile', message: (m) => `Перевод от Иван И.\n+${written(m, NBSP, ',', false)} ₽ на карту MIR •• 4455` },
  ],
  tbank: [
    { sender: 'com.idamob.tinkoff.android', message: (m) => `Пополнение на ${written(m, NNBSP, ',', false)} ₽, карта *1234. Доступно 1 ₽` },
    { sender: 'Tinkoff', message: (m) => `Пополнение, карта *1234. Сумма ${written(m, '', '.', false)} RUB. Доступно 1 RUB` },
  ],
  kaspi: [
    { sender: 'kz.kaspi.mobile', message: (m) => `Пополнение Kaspi Gold *1234 на ${written(m, ' ', ',', false)} ₸ от Айгуль А.` },
    { sender: 'Kaspi.kz', message: (m) => `Сізге ${written(m, NBSP, ',', false)} ₸ аударым келді. Жіберуші: Айгүл А.` },
  ],
  kapitalbank: [
    { sender: 'Kapitalbank', message: (m) => `Kartangizga ${written(m, ' ', ',', true)} so'm tushdi. Karta: *1234.` },
    { sender: 'uz.kapitalbank.android', message: (m) => `🎉 Пополнение\n➕ ${written(m, ' ', '.', true)} UZS\n💳 HUMOCARD *1234` },
  ],
  ziraat: [
    { sender: 'ZIRAAT', message: (m) => `Hesabınıza ${written(m, '.', ',', true)} TL EFT gelmiştir. Gönderen: AHMET Y.` },
    { sender: 'com.ziraat.ziraatmobil', message: (m) => `Hesabınıza ₺${written(m, '.', ',', false)} tutarında para girişi oldu.` },
  ],
  sbp: [
    { sender: 'T-Bank', message: (m) => `Пополнение по СБП на ${written(m, ' ', ',', false)} ₽ от Иван И.` },
    { sender: 'Alfa-Bank', message: (m) => `Перевод по СБП от Иван И. на сумму ${written(m, NBSP, ',', true)} RUR зачислен на счет *1234` },
  ],
};

for (const bank of BANKS) {
  test(`${bank}: any amount up to 10^12 minor units, written as the bank writes it, reads back exactly`, (t) => {
    const templates = TEMPLATES[bank]!;
    fc.assert(
      fc.property(fc.bigInt({ min: 1n, max: 10n ** 12n }), fc.nat({ max: templates.length - 1 }), (minor, i) => {
        const { sender, message } = templates[i]!;
        const result = parseBankNotification({ sender, text: message(minor) });
        return result.parser === bank && result.credit?.amount === minor;
      }),
      { numRuns: 500 },
    );
    t.pass();
  });
}

test('garbage never throws and never yields a credit of zero or less', (t) => {
  const senders = fc.oneof(fc.constantFrom(...BANK_PARSERS.flatMap((p) => p.senders)), fc.string());
  const marks = fc.constantFrom(
    'Пополнение на ',
    'зачисление ',
    'Перевод по СБП ',
    'Hesabınıza ',
    'Kartangizga ',
    ' ₽',
    ' ₸',
    ' TL',
    "so'm tushdi",
    '0',
    ',',
    '.',
    ' ',
    '-',
    '+',
    '1 000',
  );
  const text = fc.oneof(
    fc.string(),
    fc.string({ unit: 'grapheme' }),
    fc.array(fc.oneof(marks, fc.string({ maxLength: 3 })), { maxLength: 20 }).map((a) => a.join('')),
  );
  fc.assert(
    fc.property(senders, text, (sender, body) => {
      const result = parseBankNotification({ sender, text: body });
      return result.credit === undefined || result.credit.amount > 0n;
    }),
    { numRuns: 2000 },
  );
  t.pass();
});
