/**
 * Sberbank: SMS from 900 ("MIR-1234 12:34 зачисление 5000р Баланс: 15000р") and the SberBank
 * Online app's pushes ("Перевод от Иван И. +1 500 ₽"). Its SBP credits go to sbp.ts.
 */
import { EXPONENT, RUB_MARKS } from './currency';
import { type BankParser, NAME_CYRILLIC as NAME, pattern } from './parser';

const credit = (source: string) => pattern(source.replaceAll('{NAME}', NAME), RUB_MARKS);

export const sberbank: BankParser = {
  bank: 'sberbank',
  version: 1,
  displayName: 'Sberbank',
  language: 'ru',
  senders: ['900', 'SberBank', 'Сбербанк', 'ru.sberbankmobile', 'ru.sberbank.sberbankid'],
  textMark: /Сбер(?:банк|Банк)?(?!\p{L})|SberBank/u,
  currency: 'RUB',
  exponent: EXPONENT.RUB,
  // Sber writes "12345.67р" in SMS and "1 500,50 ₽" in the app: a space groups, a dot or comma separates kopecks.
  style: { group: '', decimal: '.,' },
  refuse: [
    /[Кк]од(?:\s|:|ом|а\s)|[Пп]арол|[Нн]икому не (?:сообщайте|говорите)/u, // one-time codes
    /[Пп]окупка|[Оо]плата|[Сс]писание|[Вв]ыдача|[Оо]тказ|[Вв]озврат|[Кк]омиссия/u, // money out, refusals, refunds of purchases
    /[Пп]одробнее|[Кк][еэ]шб[еэ]к|[Пп]олучите|[Аа]кци[яи]|https?:\/\//u, // ads
  ],
  credits: [
    // SMS: "СЧЁТ1234 10:15 Перевод 1500р от Иван И." and "Перевод из Т-Банк +3 000р от Мария С."
    credit('[Пп]еревод(?: из [^+\\d\\n]{1,30}?)?\\s+\\+?{AMOUNT}\\s?{CUR}\\s+от\\s+(?<payer>{NAME})'),
    // App push: "Перевод от Иван И. +1 500 ₽ на карту MIR •• 1234"
    credit('[Пп]еревод от (?<payer>{NAME})[.,:]?\\s+\\+{AMOUNT}\\s?{CUR}'),
    // App push: "Иван Иванович И. перевёл(а) вам 1 500 ₽"
    credit('(?<payer>{NAME}) перев[её]л(?:\\(а\\)|а)? вам\\s+\\+?{AMOUNT}\\s?{CUR}'),
    // SMS: "MIR-1234 12:34 зачисление 5000р", "СЧЁТ2538 25.07 16:37 зачисление 5000р от Олег Т.", push "Зачисление +5 000 ₽"
    credit('[Зз]ачисление(?: [а-яё]+){0,2}\\s+\\+?{AMOUNT}\\s?{CUR}(?:\\s+от\\s+(?<payer>{NAME}))?'),
    // SMS: "MIR-1234 10:05 +2500р от ИВАН И." (a credit shown by its sign alone)
    credit('(?<![\\d\\p{L}])\\+{AMOUNT}\\s?{CUR}\\s+от\\s+(?<payer>{NAME})'),
    // SMS: "Поступление 1500р" (cash-in at an ATM or from a payer without a name)
    credit('[Пп]оступление\\s+\\+?{AMOUNT}\\s?{CUR}'),
  ],
  tails: [
    /(?:СЧЁТ|СЧЕТ|MIR-?|VISA|ECMC|MAES|MC)\s?(\d{4})(?!\d)/u, // the SMS's first word: the card or account credited
    /(?:[•*]{2,4}|\*)\s?(\d{4})(?!\d)/u, // the app's "MIR •• 1234", "*1234"
  ],
};
