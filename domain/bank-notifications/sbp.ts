/**
 * SBP (the Faster Payments System): incoming transfers as many Russian banks announce them
 * ("Перевод по СБП от Иван И. на сумму 1 500,00 RUR зачислен", "Пополнение по СБП на 1 500 ₽ от
 * Иван И.", "Поступление 1500р Счет*1234 по СБП от ИВАН И."). A message mentioning СБП from any
 * of these senders, Sberbank's and T-Bank's included, is read here.
 */
import { EXPONENT, RUB_MARKS } from './currency';
import { type BankParser, NAME_CYRILLIC as NAME, pattern } from './parser';

const credit = (source: string) => pattern(source.replaceAll('{NAME}', NAME), RUB_MARKS);

export const sbp: BankParser = {
  bank: 'sbp',
  version: 1,
  displayName: 'SBP (Faster Payments System)',
  language: 'ru',
  senders: [
    'VTB',
    'VTB24',
    'Alfa-Bank',
    'AlfaBank',
    'Raiffeisen',
    'Gazprombank',
    'GPB',
    'Sovcombank',
    'PSB',
    'MTS-Bank',
    'OZON Bank',
    'Pochtabank',
    'RSHB',
    'ru.vtb24.mobilebanking.android',
    'ru.alfabank.mobile.android',
    'ru.raiffeisennews',
    'ru.gazprombank.android.mobilebank.app',
  ],
  textMark: /СБП|SBP|[Сс]истем[аыу] быстрых платежей/u,
  currency: 'RUB',
  exponent: EXPONENT.RUB,
  style: { group: '', decimal: '.,' },
  refuse: [
    /[Кк]од(?:\s|:|ом|а\s)|[Пп]арол|[Нн]икому не (?:сообщайте|говорите)/u, // one-time codes
    /[Пп]олучател|[Оо]тправлен|[Оо]тказ|[Сс]писание|[Оо]плата|[Пп]окупка|[Вв]озврат/u, // money out, refusals
    /[Пп]одключите|[Пп]одробнее|[Кк][еэ]шб[еэ]к|https?:\/\//u, // ads
  ],
  credits: [
    // Alfa-Bank: "Перевод по СБП от Иван И. на сумму 1 500,00 RUR зачислен на счет *1234"
    credit('[Пп]еревод по СБП от (?<payer>{NAME}) на сумму {AMOUNT}\\s?{CUR} зачислен'),
    // VTB: "Поступление 1500р Счет*1234 по СБП от ИВАН И. Баланс 5000р"
    credit('[Пп]оступление \\+?{AMOUNT}\\s?{CUR}[^\\n]{0,30}?по СБП(?: от (?<payer>{NAME}))?'),
    // Sberbank: "СЧЁТ1234 12:05 Перевод по СБП 1500р от ИВАН И.", "Перевод по СБП из Т-Банк +3 000 ₽ от Олег П."
    credit('[Пп]еревод по СБП(?: из [^+\\d\\n]{1,30}?)? \\+?{AMOUNT}\\s?{CUR} от (?<payer>{NAME})'),
    // T-Bank: "Пополнение по СБП на 1 500 ₽ от Иван И."
    credit('[Пп]ополнение по СБП(?: на)? \\+?{AMOUNT}\\s?{CUR}(?:[^\\n]{0,30}? от (?<payer>{NAME}))?'),
    // Others: "Вам поступил перевод по СБП 1500 р. от ИВАН И.", "Зачислен перевод по СБП 5 000,00 RUB из Альфа-Банк от Мария С."
    credit('(?:[Вв]ам поступил|[Вв]ходящий|[Зз]ачислен) перевод(?: по)? СБП \\+?{AMOUNT}\\s?{CUR}(?:[^\\n]{0,40}? от (?<payer>{NAME}))?'),
  ],
  tails: [
    /(?:СЧЁТ|СЧЕТ|MIR-?|VISA|ECMC)\s?(\d{4})(?!\d)/u, // Sberbank's first word
    /(?:[Сс]ч[её]т|[Кк]арта|[Кк]арту)\s?\*{1,4}\s?(\d{4})(?!\d)/u,
    /\*(\d{4})(?!\d)/u,
  ],
};
