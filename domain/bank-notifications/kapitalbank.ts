/**
 * Kapitalbank (Uzbekistan): SMS and app pushes in Uzbek, Latin ("Kartangizga 150 000,00 so'm
 * tushdi. Jo'natuvchi: ALISHER K.") and Cyrillic ("Картангизга 150 000,00 сўм тушди"), and in
 * Russian, including the card processors' emoji layout ("🎉 Пополнение ➕ 500 000.00 UZS 💳 HUMOCARD *1234").
 */
import { EXPONENT, UZS_MARKS } from './currency';
import { type BankParser, NAME_CYRILLIC, NAME_LATIN, pattern } from './parser';

const NAME = `(?:${NAME_LATIN}|${NAME_CYRILLIC})`;
const APOSTROPHE = "['ʻ‘’]";
/** Uzbek Latin writes o‘ and g‘ with any of four apostrophes: a ' in a pattern stands for each (names keep their own class). */
const credit = (source: string) => pattern(source.replaceAll("'", APOSTROPHE).replaceAll('{NAME}', NAME), UZS_MARKS);

export const kapitalbank: BankParser = {
  bank: 'kapitalbank',
  version: 1,
  displayName: 'Kapitalbank',
  language: 'uz (Latin, Cyrillic), ru',
  senders: ['Kapitalbank', 'KAPITAL', 'uz.kapitalbank.android', 'uz.kapitalbank.mobile'],
  textMark: /Kapital ?bank|Капитал ?банк/iu,
  currency: 'UZS',
  exponent: EXPONENT.UZS,
  // The processors write "500 000.00" or "1.000.000,00": every mark is read by position, and "1.500" is ambiguous.
  style: { group: '.,', decimal: '.,' },
  refuse: [
    /[Kk]od(?!\p{L})|[Кк]од(?:\s|:|ом|и)|[Пп]арол|[Hh]ech kimga|[Ҳҳ]еч кимга|[Нн]икому/u, // one-time codes
    /[Xx]arid|[Ҳҳ]арид|[Хх]арид|To['ʻ‘’]lov|Тўлов|[Ss]otib olish|[Пп]окупка|[Оо]плата|[Сс]писание|➖|[Yy]echib|[Оо]тказ/u, // money out
    /%|[Aa]ksiya|[Аа]кция|[Бб]атафсил|[Bb]atafsil|https?:\/\//u, // ads
  ],
  credits: [
    // uz: "Kartangizga 150 000,00 so'm tushdi. Karta: *1234. Jo'natuvchi: ALISHER K."; uz-Cyrl "Картангизга … тушди. Юборувчи: …"
    credit(
      "(?:[Kk]artangizga|[Hh]isobingizga|[Кк]артангизга|[Ҳҳ]исобингизга) \\+?{AMOUNT}\\s?{CUR} (?:kelib tushdi|tushdi|келиб тушди|тушди)(?:[\\s\\S]{0,60}?(?:Jo'natuvchi|Юборувчи|Отправитель): (?<payer>{NAME}))?",
    ),
    // The processors' emoji layout, ru or uz: "🎉 Пополнение\n➕ 500 000.00 UZS\n📍 …\n💳 HUMOCARD *1234"
    credit("(?:[Пп]ополнение|To'ldirish|Тўлдириш)[\\s\\S]{0,20}?➕\\s?{AMOUNT}\\s?{CUR}"),
    // ru: "Пополнение карты *1234 на 150 000,00 сум. Отправитель: АЛИШЕР К."
    credit('[Пп]ополнение (?:карты|счета)(?: \\*(?<tail>\\d{4}))? на \\+?{AMOUNT}\\s?{CUR}(?:[\\s\\S]{0,40}?Отправитель: (?<payer>{NAME}))?'),
    // uz: "O'tkazma qabul qilindi: +500 000 so'm. Jo'natuvchi: DILNOZA R."
    credit("(?:Pul )?[Oo]'tkazma(?:si)?(?: qabul qilindi)?: \\+{AMOUNT}\\s?{CUR}(?:[\\s\\S]{0,60}?Jo'natuvchi: (?<payer>{NAME}))?"),
    // ru: "Зачисление 250 000 сум на карту *1234"
    credit('[Зз]ачисление(?: перевода)? \\+?{AMOUNT}\\s?{CUR}'),
  ],
  tails: [/\*{1,4}\s?(\d{4})(?!\d)/u],
};
