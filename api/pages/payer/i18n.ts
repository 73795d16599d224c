/**
 * The payer's languages: ICU MessageFormat catalogues (messages/*.ts) formatted by intl-messageformat,
 * and the choice of language: `?lang=`, then the cookie the switcher sets, then Accept-Language,
 * then English — the one language every payer of the four markets can fall back on when their
 * browser asks for none of ours (Russian is not read in Türkiye; Turkish not elsewhere).
 */
import { IntlMessageFormat } from 'intl-messageformat';
import en, { type Catalogue, type MessageKey } from './messages/en';
import kk from './messages/kk';
import ru from './messages/ru';
import tr from './messages/tr';
import uzCyrl from './messages/uz-Cyrl';
import uzLatn from './messages/uz-Latn';

export const LOCALES = ['en', 'ru', 'uz-Latn', 'uz-Cyrl', 'kk', 'tr'] as const;
export type Locale = (typeof LOCALES)[number];
const DEFAULT_LOCALE: Locale = 'en';

export const CATALOGUES: Readonly<Record<Locale, Catalogue>> = { en, ru, 'uz-Latn': uzLatn, 'uz-Cyrl': uzCyrl, kk, tr };

/** Each language by its own name, as the switcher shows it. */
export const LOCALE_NAMES: Readonly<Record<Locale, string>> = {
  en: 'English',
  ru: 'Русский',
  'uz-Latn': 'Oʻzbekcha',
  'uz-Cyrl': 'Ўзбекча',
  kk: 'Қазақша',
  tr: 'Türkçe',
};

/** The locale of one BCP 47 tag, if we have it: `uz` and `uz-UZ` are Latin (the official script), `uz-Cyrl…` Cyrillic. */
export function matchLocale(tag: string): Locale | undefined {
  const lower = tag.trim().toLowerCase();
  if (!/^[a-z]{2,3}(-[a-z0-9]{1,8})*$/.test(lower)) return undefined;
  const [language, ...rest] = lower.split('-');
  if (language === 'uz') return rest.includes('cyrl') ? 'uz-Cyrl' : 'uz-Latn';
  return (['en', 'ru', 'kk', 'tr'] as const).find((l) => l === language);
}

/** The first language of an Accept-Language header (by q, then order) that we have. */
export function fromAcceptLanguage(header: string): Locale | undefined {
  const ranges = header
    .split(',')
    .slice(0, 20)
    .map((part, index) => {
      const [tag = '', ...params] = part.split(';');
      const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
      const weight = q ? Number(q.slice(2)) : 1;
      return { tag: tag.trim(), weight: Number.isFinite(weight) ? weight : 0, index };
    })
    .filter((r) => r.weight > 0)
    .sort((a, b) => b.weight - a.weight || a.index - b.index);
  for (const range of ranges) {
    const locale = matchLocale(range.tag);
    if (locale) return locale;
  }
  return undefined;
}

export interface LocaleSources {
  query?: string;
  cookie?: string;
  acceptLanguage?: string;
}

/** `?lang=`, then the switcher's cookie, then Accept-Language, then English. */
export function negotiateLocale(sources: LocaleSources): Locale {
  return (
    (sources.query ? matchLocale(sources.query) : undefined) ??
    (sources.cookie ? matchLocale(sources.cookie) : undefined) ??
    (sources.acceptLanguage ? fromAcceptLanguage(sources.acceptLanguage) : undefined) ??
    DEFAULT_LOCALE
  );
}

type Values = Record<string, string | number>;
export type Translate = (key: MessageKey, values?: Values) => string;

const compiled = new Map<string, IntlMessageFormat>();

/** The messages of one locale, compiled once each. */
export function translator(locale: Locale): Translate {
  const catalogue = CATALOGUES[locale];
  return (key, values) => {
    const cacheKey = `${locale}\u0000${key}`;
    let format = compiled.get(cacheKey);
    if (!format) {
      format = new IntlMessageFormat(catalogue[key], locale);
      compiled.set(cacheKey, format);
    }
    return String(format.format(values));
  };
}

export type { Catalogue, MessageKey };
