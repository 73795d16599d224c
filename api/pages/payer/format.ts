/**
 * Amounts, dates and requisites as a payer reads and types them: money and dates through `Intl`
 * in the page's language; card numbers and IBANs in groups of four, phone numbers in their
 * country's groups — and each in the plain form bank apps accept, for the copy buttons.
 */
import type { Locale } from './i18n';

/** A minor-unit integer string as an exact decimal string ("150000", 2 → "1500.00"). */
function minorToDecimal(minor: string | bigint, exponent: number): string {
  const text = minor.toString();
  const negative = text.startsWith('-');
  const digits = (negative ? text.slice(1) : text).padStart(exponent + 1, '0');
  const whole = digits.slice(0, digits.length - exponent);
  return `${negative ? '-' : ''}${whole}${exponent > 0 ? `.${digits.slice(-exponent)}` : ''}`;
}

// Intl formats an exact decimal string (no rounding through a double); the types know only numbers.
const formatDecimal = (format: Intl.NumberFormat, decimal: string) => format.format(decimal as unknown as number);

/** `1 500,00 ₽` in ru, `₽1,500.00` in en: the currency's narrow sign where it has one. */
export function formatMoney(locale: Locale, minor: string | bigint, currency: string, exponent = 2): string {
  const options = { minimumFractionDigits: exponent, maximumFractionDigits: exponent };
  try {
    return formatDecimal(
      new Intl.NumberFormat(locale, { style: 'currency', currency, currencyDisplay: 'narrowSymbol', ...options }),
      minorToDecimal(minor, exponent),
    );
  } catch {
    // Not an ISO 4217 code (a catalogue of one's own): the number and the code.
    return `${formatDecimal(new Intl.NumberFormat(locale, options), minorToDecimal(minor, exponent))} ${currency}`;
  }
}

/** What the amount's copy button copies: no grouping, the locale's decimal mark, no fraction when it is whole ("1500", "1500,50"). */
export function plainAmount(locale: Locale, minor: string | bigint, exponent = 2): string {
  const decimal = minorToDecimal(minor, exponent);
  const whole = !decimal.includes('.') || /\.0+$/.test(decimal);
  const digits = whole ? 0 : exponent;
  return formatDecimal(
    new Intl.NumberFormat(locale, { useGrouping: false, minimumFractionDigits: digits, maximumFractionDigits: digits }),
    whole ? decimal.replace(/\.0+$/, '') : decimal,
  );
}

/** A file size limit in the page's language ("10 MB"). */
export function formatSize(locale: Locale, bytes: number): string {
  const mb = bytes / (1024 * 1024);
  return new Intl.NumberFormat(locale, { style: 'unit', unit: 'megabyte', unitDisplay: 'short', maximumFractionDigits: mb < 10 ? 1 : 0 }).format(mb);
}

/** Where the deal's currency is paid: the zone its dates are shown in before the browser shows them in its own. */
const ZONES: Record<string, string> = { RUB: 'Europe/Moscow', UZS: 'Asia/Tashkent', KZT: 'Asia/Almaty', TRY: 'Europe/Istanbul' };
export const zoneOf = (currency: string) => ZONES[currency] ?? 'UTC';

/** A date and time in the page's language ("28 нояб. 2026 г., 16:55"). */
export function formatDateTime(locale: Locale, iso: string, timeZone: string): string {
  return new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short', timeZone }).format(new Date(iso));
}

/** Minutes and seconds left ("29:41"). */
export function formatClock(seconds: number): string {
  const left = Math.max(0, Math.floor(seconds));
  return `${Math.floor(left / 60)}:${String(left % 60).padStart(2, '0')}`;
}

export const digitsOnly = (value: string) => value.replace(/\D/g, '');

/** "2200 0000 0000 0001". */
export const groupCard = (card: string) => digitsOnly(card).replace(/(\d{4})(?=\d)/g, '$1 ');

/** An IBAN without spaces, upper-cased: what bank apps take. */
export const plainIban = (iban: string) => iban.replace(/\s+/g, '').toUpperCase();
/** "TR33 0006 1005 1978 6457 8413 26". */
export const groupIban = (iban: string) => plainIban(iban).replace(/(.{4})(?=.)/g, '$1 ');

/** A phone number in E.164 ("+79000000001"): what a bank app's transfer-by-phone takes, and the tel: link. */
export function plainPhone(phone: string): string {
  const digits = digitsOnly(phone);
  // A Russian or Kazakh number written with the trunk prefix 8.
  if (digits.length === 11 && digits.startsWith('8')) return `+7${digits.slice(1)}`;
  return `+${digits}`;
}

/** "+7 900 000-00-02", "+998 90 123-45-67", "+90 532 123 45 67"; other numbers in groups of three. */
export function formatPhone(phone: string): string {
  const e164 = plainPhone(phone);
  const d = e164.slice(1);
  if (d.length === 11 && d.startsWith('7')) return `+7 ${d.slice(1, 4)} ${d.slice(4, 7)}-${d.slice(7, 9)}-${d.slice(9)}`;
  if (d.length === 12 && d.startsWith('998')) return `+998 ${d.slice(3, 5)} ${d.slice(5, 8)}-${d.slice(8, 10)}-${d.slice(10)}`;
  if (d.length === 12 && d.startsWith('90')) return `+90 ${d.slice(2, 5)} ${d.slice(5, 8)} ${d.slice(8, 10)} ${d.slice(10)}`;
  return `+${d.replace(/(\d{3})(?=\d)/g, '$1 ')}`;
}
