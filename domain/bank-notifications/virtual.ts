/**
 * What the sandbox's virtual bank device writes (docs/bank-notifications.md, "Virtual bank
 * device"): for a sandbox PayIn's credit, the push the requisite's bank sends a real trader's
 * phone, in the bank's own words and number format — one credit layout of each bank's fixture
 * corpus (test/fixtures/bank-notifications/<bank>.json), so the gateway's own parser reads it back
 * (test/unit/virtual-bank.test.ts checks template(amount) parses to that amount). Pure.
 */

export type VirtualBank = 'sberbank' | 'tbank' | 'kaspi' | 'kapitalbank' | 'ziraat' | 'sbp';

/** The currency each bank's credit is written in. */
const BANK_CURRENCY: Readonly<Record<VirtualBank, string>> = {
  sberbank: 'RUB',
  tbank: 'RUB',
  sbp: 'RUB',
  kaspi: 'KZT',
  kapitalbank: 'UZS',
  ziraat: 'TRY',
};
/** A requisite whose bank is none of the parsers' (the sandbox trader's are 'sandbox'): the bank of its currency. */
const BANK_OF_CURRENCY: Readonly<Record<string, VirtualBank>> = { RUB: 'tbank', KZT: 'kaspi', UZS: 'kapitalbank', TRY: 'ziraat' };

/** The bank whose notification credits this requisite: SBP for an SBP requisite, its own bank when a parser knows it, else its currency's. */
export function virtualBankOf(requisite: { bank_name: string; requisite_type: string; currency: string }): VirtualBank | undefined {
  if (requisite.requisite_type === 'SBP' && requisite.currency === 'RUB') return 'sbp';
  const own = requisite.bank_name.toLowerCase().replace(/[^a-z]/g, '') as VirtualBank;
  if (own in BANK_CURRENCY && own !== 'sbp' && BANK_CURRENCY[own] === requisite.currency) return own;
  return BANK_OF_CURRENCY[requisite.currency];
}

/** Digits grouped by threes with `separator` (no-break space, comma, dot). */
const grouped = (whole: bigint, separator: string) => whole.toString().replace(/\B(?=(\d{3})+(?!\d))/g, separator);

/** Minor units as `<whole grouped><decimal mark><2 digits>` (always the kopecks/tiyn/kuruş), or the whole alone when `dropZero` and they are 0. */
function money(minor: bigint, group: string, mark: string, dropZero: boolean): string {
  const whole = grouped(minor / 100n, group);
  const cents = minor % 100n;
  return dropZero && cents === 0n ? whole : `${whole}${mark}${cents.toString().padStart(2, '0')}`;
}

const NBSP = '\u00a0';

/**
 * The bank's credit push for `minor` units of its currency to the requisite whose number ends in
 * `tail`, as the device receives it (sender and text): one credit layout of each bank's fixture
 * corpus, named beside it. The tail lets the exact match tell apart two requisites of the device
 * holding a deal of one amount (a card and an SBP phone, both in roubles).
 */
export function virtualCredit(bank: VirtualBank, minor: bigint, tail: string): { sender: string; text: string; currency: string } {
  const currency = BANK_CURRENCY[bank];
  const last4 = /^\d{4}$/.test(tail) ? tail : '0000';
  switch (bank) {
    case 'tbank':
      // tbank.json, "app push: top-up with a card tail".
      return {
        sender: 'com.idamob.tinkoff.android',
        currency,
        text: `Пополнение на ${money(minor, NBSP, ',', true)} ₽, карта *${last4}. Доступно 25${NBSP}431,17 ₽`,
      };
    case 'sberbank':
      // sberbank.json, "SMS: an incoming transfer from another Sber client, account tail first".
      return { sender: '900', currency, text: `СЧЁТ${last4} 10:15 Перевод ${money(minor, ' ', ',', true)}р от Иван И. Баланс: 25 431,17р` };
    case 'sbp':
      // sbp.json, "Alfa-Bank layout".
      return { sender: 'Alfa-Bank', currency, text: `Перевод по СБП от Иван И. на сумму ${money(minor, ' ', ',', false)} RUR зачислен на счет *${last4}` };
    case 'kaspi':
      // kaspi.json, "ru push: Kaspi Gold top-up from a named payer".
      return { sender: 'kz.kaspi.mobile', currency, text: `Пополнение Kaspi Gold *${last4} на ${money(minor, ' ', ',', true)} ₸ от Айгуль А.` };
    case 'kapitalbank':
      // kapitalbank.json, "uz Latin: credited to your card, sender named".
      return {
        sender: 'Kapitalbank',
        currency,
        text: `Kartangizga ${money(minor, ' ', ',', false)} so'm tushdi. Karta: *${last4}. Jo'natuvchi: ALISHER KARIMOV`,
      };
    case 'ziraat':
      // ziraat.json, "an EFT in, Turkish number format".
      return {
        sender: 'ZIRAAT',
        currency,
        text: `Sayın müşterimiz, ****${last4} nolu hesabınıza ${money(minor, '.', ',', false)} TL EFT gelmiştir. Gönderen: AHMET YILMAZ`,
      };
  }
}
