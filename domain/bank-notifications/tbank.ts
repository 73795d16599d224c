/**
 * T-Bank (Tinkoff): SMS ("Пополнение, карта *1234. Сумма 1500 RUB. Доступно 12000 RUB") and
 * app pushes ("Пополнение на 1 500 ₽", "Перевод от Иван И. +1 500 ₽"). Its SBP credits go to sbp.ts.
 */
import { EXPONENT, RUB_MARKS } from './currency';
import { type BankParser, NAME_CYRILLIC as NAME, pattern } from './parser';

const credit = (source: string) => pattern(source.replaceAll('{NAME}', NAME), RUB_MARKS);

export const tbank: BankParser = {
  bank: 'tbank',
  version: 1,
  displayName: 'T-Bank',
  language: 'ru',
  senders: ['T-Bank', 'TBank', 'Tinkoff', 'Т-Банк', 'com.idamob.tinkoff.android', 'ru.tinkoff.banking'],
  textMark: /Т-Банк|T-Bank|Тинькофф|Tinkoff/u,
  currency: 'RUB',
  exponent: EXPONENT.RUB,
  style: { group: '', decimal: '.,' },
  refuse: [
    /[Кк]од(?:\s|:|ом|а\s)|[Пп]арол|[Нн]икому не (?:сообщайте|говорите)/u, // one-time codes
    /[Пп]окупка|[Оо]плата|[Сс]писание|[Сс]нятие|[Оо]тказ|[Вв]озврат|[Пп]олучатель|Pokupka|Oplata|Snyatie|Otkaz/u, // money out, refusals, refunds
    /[Пп]одробнее|[Кк][еэ]шб[еэ]к|[Пп]олучите|[Аа]кци[яи]|https?:\/\//u, // ads
  ],
  credits: [
    // SMS: "Пополнение, карта *1234. Сумма 1500 RUB. Иван И. Доступно 12000 RUB"
    credit('[Пп]ополнение[.,]? (?:[Кк]арта|[Сс]ч[её]т) (?:\\*(?<tail>\\d{4})|RUB)[.,]?(?: [Сс]умма)? \\+?{AMOUNT}\\s?{CUR}(?:[.,]? (?<payer>{NAME}))?'),
    // Push: "Пополнение на 352 ₽, счет RUB. Ольга С. Доступно 3 568 ₽" (forwarders prefix "Тинькофф | "), "Пополнение на 1 500 ₽, карта *1234"
    credit('[Пп]ополнение(?: счета| карты)? на \\+?{AMOUNT}\\s?{CUR}, (?:счет RUB|карта \\*\\d{4})\\. (?<payer>{NAME})'),
    // Push: "Пополнение на 1 500 ₽ от Мария С.", "Пополнение на 1 500 ₽, карта *1234. Доступно …"
    credit('[Пп]ополнение(?: счета| карты)? на \\+?{AMOUNT}\\s?{CUR}(?:[^\\n]{0,30}? от (?<payer>{NAME}))?'),
    // SMS in Latin letters (older phones): "Popolnenie, karta *1234. Summa 1500 RUB. Dostupno 12000 RUB"
    credit('Popolnenie[.,]? (?:[Kk]arta \\*(?<tail>\\d{4})|[Ss]chet RUB)[.,]?(?: Summa)? \\+?{AMOUNT}\\s?{CUR}'),
    // Push: "Перевод +1 500 ₽ от Иван И. Карта *1234"
    credit('[Пп]еревод \\+{AMOUNT}\\s?{CUR} от (?<payer>{NAME})'),
    // Push: "Перевод от Иван И. +1 500 ₽"
    credit('[Пп]еревод от (?<payer>{NAME})[.,:]?\\s+\\+{AMOUNT}\\s?{CUR}'),
    // Push: "Входящий перевод 1 500 ₽ от Иван И."
    credit('[Вв]ходящий перевод\\s+\\+?{AMOUNT}\\s?{CUR}(?: от (?<payer>{NAME}))?'),
    // Push: "Иван И. перевёл вам 1 500 ₽"
    credit('(?<payer>{NAME}) перев[её]л(?:\\(а\\)|а)? вам\\s+\\+?{AMOUNT}\\s?{CUR}'),
    // Push: "Зачисление зарплаты 45 000 ₽"
    credit('[Зз]ачисление(?: [а-яё]+){0,2}\\s+\\+?{AMOUNT}\\s?{CUR}'),
  ],
  tails: [/(?:[Кк]арта|[Сс]ч[её]т)\s?\*(\d{4})(?!\d)/u, /\*(\d{4})(?!\d)/u],
};
