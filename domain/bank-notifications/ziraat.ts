/**
 * Ziraat Bankası: SMS and Ziraat Mobil pushes in Turkish ("****1234 nolu hesabınıza 1.234,56 TL
 * EFT gelmiştir. Gönderen: AHMET YILMAZ", "… AHMET YILMAZ tarafından 250,00 TL FAST ile gönderilmiştir").
 */
import { EXPONENT, TRY_MARKS } from './currency';
import { type BankParser, NAME_LATIN as NAME, pattern } from './parser';

/** "₺1.234,56", "1.234,56 TL", "1.234,56TL". */
const TL_AMOUNT = '(?:₺\\s?)?{AMOUNT}(?:\\s?{CUR})?';
const credit = (source: string) => pattern(source.replaceAll('{TL}', TL_AMOUNT).replaceAll('{NAME}', NAME), TRY_MARKS);

export const ziraat: BankParser = {
  bank: 'ziraat',
  version: 1,
  displayName: 'Ziraat Bankası',
  language: 'tr',
  senders: ['ZIRAAT', 'Ziraat Bankasi', 'Ziraat Bankası', 'ZIRAATBANK', 'com.ziraat.ziraatmobil'],
  textMark: /Ziraat/iu,
  currency: 'TRY',
  exponent: EXPONENT.TRY,
  // Turkish: a dot groups thousands, a comma separates kuruş ("1.234,56").
  style: { group: '.', decimal: ',' },
  refuse: [
    /[Şş]ifre|[Kk]odu|[Kk]od:|[Pp]arola|[Kk]imseyle paylaşmayınız/u, // one-time codes
    /[Hh]esabınızdan|[Hh]arcama|[Aa]lışveriş|[Çç]ekil|[Çç]ekim|[Öö]deme(?:niz| yapıl)|[Gg]önderiminiz|[Tt]ahsil/u, // money out
    /[Kk]redi|[Ff]ırsat|[Kk]ampanya|%|https?:\/\//u, // ads
  ],
  credits: [
    // "12345678-5001 nolu hesabınıza AHMET YILMAZ tarafından 250,00 TL FAST ile gönderilmiştir."
    credit('[Hh]esabınıza (?<payer>{NAME}) tarafından {TL} (?:EFT|FAST|havale)[^.\\n]*?gönderilmiştir'),
    // "Hesabınıza 1.234,56 TL EFT gelmiştir. Gönderen: AHMET YILMAZ", "hesabınıza ₺750,00 tutarında para girişi oldu"
    credit(
      '[Hh]esabınıza {TL}(?: tutarında)? (?:EFT|FAST|havale|para)[\\s\\S]{0,30}?(?:gelmiştir|geldi|girişi oldu|yatırılmıştır)(?:[\\s\\S]{0,60}?Gönderen: (?<payer>{NAME}))?',
    ),
    // "Hesabınıza FAST ile 500,00 TL gelmiştir."
    credit('[Hh]esabınıza (?:EFT|FAST|havale) ile {TL} (?:gelmiştir|geldi)(?:[\\s\\S]{0,60}?Gönderen: (?<payer>{NAME}))?'),
  ],
  tails: [/\*{2,4}\s?(\d{4})(?!\d)/u, /(\d{4}) ile biten/u, /(\d{4}) nolu/u],
};
