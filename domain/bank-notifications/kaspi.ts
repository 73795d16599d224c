/**
 * Kaspi.kz: pushes in Russian ("Пополнение Kaspi Gold *1234 на 15 000 ₸ от Айгуль А.",
 * "Вам перевод 5 000 ₸ от Иван И.") and Kazakh ("Сізге 5 000 ₸ аударым келді. Жіберуші: Айгүл А.").
 */
import { EXPONENT, KZT_MARKS } from './currency';
import { type BankParser, NAME_CYRILLIC as NAME, pattern } from './parser';

const credit = (source: string) => pattern(source.replaceAll('{NAME}', NAME), KZT_MARKS);

export const kaspi: BankParser = {
  bank: 'kaspi',
  version: 1,
  displayName: 'Kaspi Bank',
  language: 'ru, kk',
  senders: ['Kaspi.kz', 'Kaspi', 'KaspiBank', 'kz.kaspi.mobile'],
  textMark: /Kaspi/u,
  currency: 'KZT',
  exponent: EXPONENT.KZT,
  // Kaspi groups with (no-break) spaces and rarely shows tiyn; a comma or dot separates them.
  style: { group: '', decimal: ',.' },
  refuse: [
    /[Кк]од(?:\s|:|ом|а\s)|[Пп]арол|[Нн]икому не (?:сообщайте|говорите)|[Құқ]ұпия|[Ее]шкімге/u, // one-time codes (ru, kk)
    /[Пп]окупка|[Оо]плата|[Сс]писание|[Сс]нятие|[Тт]өлем|[Сс]атып алу|[Шш]ешу|-ға(?!\p{L})|-ге(?!\p{L})|[Оо]тказ|[Вв]озврат/u, // money out (ru, kk)
    /[Пп]одробнее|[Тт]олығырақ|[Рр]ассрочк|[Бб]онус|[Аа]кци[яи]|https?:\/\//u, // ads
  ],
  credits: [
    // "Пополнение Kaspi Gold *1234 на 15 000 ₸ от Айгуль А.", "Пополнение 15 000 ₸"
    credit('[Пп]ополнение(?: Kaspi Gold| карты| счета| депозита)?(?: \\*(?<tail>\\d{4}))?(?: на)? \\+?{AMOUNT}\\s?{CUR}(?:[^\\n]{0,40}? от (?<payer>{NAME}))?'),
    // "Вам перевод 5 000 ₸ от Иван И.", "Поступил перевод 5 000,00 ₸", "Входящий перевод"
    credit('(?:[Вв]ам|[Пп]оступил|[Вв]ходящий) перевод(?: на)? \\+?{AMOUNT}\\s?{CUR}(?:[^\\n]{0,40}? от (?<payer>{NAME}))?'),
    // "Перевод 5 000 ₸ от Иван И." (the payer's name makes it incoming)
    credit('[Пп]еревод(?: на)? \\+?{AMOUNT}\\s?{CUR} от (?<payer>{NAME})'),
    // kk: "Сізге 5 000 ₸ аударым келді. Жіберуші: Айгүл А."
    credit('[Сс]ізге \\+?{AMOUNT}\\s?{CUR} (?:аударым келді|аударылды|түсті)(?:[^\\n]{0,10}?[Жж]іберуші: (?<payer>{NAME}))?'),
    // kk: "Айгүл А. сізге 5 000 ₸ аударды"
    credit('(?<payer>{NAME}) сізге \\+?{AMOUNT}\\s?{CUR} аударды'),
    // kk: "Толықтыру 10 000 ₸ Kaspi Gold *1234", "Kaspi Gold шотына 15 000 ₸ түсті"
    credit('[Тт]олықтыру:? \\+?{AMOUNT}\\s?{CUR}'),
    credit('шотына \\+?{AMOUNT}\\s?{CUR} түсті'),
  ],
  tails: [/\*(\d{4})(?!\d)/u],
};
