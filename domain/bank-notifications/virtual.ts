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

/** The payer the sandbox's credits name, as each bank shortens a name. */
const PAYER = { ru: 'Иван И.', kz: 'Алия С.', uz: 'Aziz K.', tr: 'AYSE YILMAZ' };

/**
 * The bank's credit push for `minor` units of its currency, as the device receives it (sender and
 * text). The balance line is fixed: a sandbox trader's balance is no one's business.
 */
export function virtualCredit(bank: VirtualBank, minor: bigint): { sender: string; text: string; currency: string } {
  const currency = BANK_CURRENCY[bank];
  switch (bank) {
    case 'tbank':
      return { sender: 'T-Bank', currency, text: `Пополнение, счет RUB. ${money(minor, NBSP, ',', true)} ₽. ${PAYER.ru} Доступно 25${NBSP}431,17 ₽` };
    case 'sberbank':
      return { sender: '900', currency, text: `СЧЁТ2202 ${'12:00'} Перевод ${money(minor, '', '.', true)}р от ${PAYER.ru} Баланс: 25431.17р` };
    case 'sbp':
      return { sender: 'T-Bank', currency, text: `Пополнение через СБП. ${money(minor, NBSP, ',', true)} ₽ от ${PAYER.ru} Доступно 25${NBSP}431,17 ₽` };
    case 'kaspi':
      return { sender: 'Kaspi.kz', currency, text: `Пополнение ${money(minor, ' ', ',', true)} ₸ от ${PAYER.kz} Доступно: 125 431 ₸` };
    case 'kapitalbank':
      return { sender: 'Kapitalbank', currency, text: `Popolnenie: ${money(minor, ' ', '.', false)} UZS. Karta: *4242. Balans: 1 254 310.00 UZS` };
    case 'ziraat':
      return { sender: 'ZIRAAT', currency, text: `Hesabiniza ${PAYER.tr} tarafindan ${money(minor, '.', ',', false)} TL gelen FAST yapilmistir.` };
  }
}
