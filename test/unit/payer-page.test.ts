/**
 * The payer's page without a server: every catalogue has exactly the English keys and every
 * message parses and formats; the language choice; money, dates and requisites as a payer reads
 * and copies them; one screen per deal state; the timeline.
 */
import test from 'ava';
import { IntlMessageFormat } from 'intl-messageformat';
import { PAYIN_STATUSES } from '../../domain/state/payin';
import { PAYER_SCREENS, payerMayCancel, payerMayNotify, payerPollStops, payerReference, payerTimeline } from '../../domain/state/payer-page';
import { CATALOGUES, fromAcceptLanguage, LOCALES, matchLocale, negotiateLocale, translator } from '../../api/pages/payer/i18n';
import en from '../../api/pages/payer/messages/en';
import { formatMoney, formatPhone, groupCard, groupIban, plainAmount, plainIban, plainPhone } from '../../api/pages/payer/format';
import { renderPayerPage } from '../../api/pages/payer/render';
import { ASSET_URLS } from '../../api/pages/payer/assets';
import type { CheckoutView } from '../../api/services/checkout-view';

const NBSP = /[\u00a0\u202f]/g;
const plain = (s: string) => s.replace(NBSP, ' ');

test('every catalogue has every key of the English one and no other', (t) => {
  const keys = Object.keys(en).sort();
  for (const locale of LOCALES) {
    t.deepEqual(Object.keys(CATALOGUES[locale]).sort(), keys, locale);
  }
});

/** The arguments a message takes, by the ICU syntax tree of the English source. */
function argumentsOf(message: string): Record<string, string | number> {
  const values: Record<string, string | number> = {};
  // Node types of the ICU syntax tree: 0 literal, 5 select, 6 plural.
  const walk = (nodes: ReturnType<IntlMessageFormat['getAst']>) => {
    for (const node of nodes) {
      if (node.type !== 0 && 'value' in node && typeof node.value === 'string') values[node.value] = node.type === 6 ? 2 : node.type === 5 ? 'other' : 'x';
      if ('options' in node) for (const option of Object.values(node.options)) walk(option.value);
    }
  };
  walk(new IntlMessageFormat(message, 'en').getAst());
  return values;
}

test('every message parses as ICU MessageFormat and formats with the arguments of the English source, leaving no placeholder', (t) => {
  for (const locale of LOCALES) {
    const catalogue = CATALOGUES[locale];
    for (const [key, source] of Object.entries(en)) {
      const message = catalogue[key as keyof typeof en];
      let formatted = '';
      t.notThrows(() => {
        formatted = String(new IntlMessageFormat(message, locale).format(argumentsOf(source)));
      }, `${locale} ${key}`);
      t.false(/[{}]/.test(formatted), `${locale} ${key}: ${formatted}`);
      t.true(message.trim().length > 0, `${locale} ${key} is empty`);
      // The same arguments as the source: a translation neither drops nor invents one.
      t.deepEqual(Object.keys(argumentsOf(message)).sort(), Object.keys(argumentsOf(source)).sort(), `${locale} ${key}`);
    }
  }
});

test('translations are not English left in place: the main screens differ from the English source in every other language', (t) => {
  for (const locale of LOCALES.filter((l) => l !== 'en')) {
    for (const key of ['screen.pay.text', 'screen.checking.title', 'paid.button', 'cancel.confirm', 'screen.expired.paidLate'] as const) {
      t.not(CATALOGUES[locale][key], en[key], `${locale} ${key}`);
    }
  }
  // Uzbek Latin writes oʻ and gʻ with the modifier letter (U+02BB), Cyrillic uses ў, қ, ғ, ҳ.
  t.regex(CATALOGUES['uz-Latn']['paid.button'], /Toʻladim/);
  t.regex(CATALOGUES['uz-Cyrl']['paid.button'], /Тўладим/);
  t.false(/[а-яё]/i.test(CATALOGUES['uz-Latn']['screen.pay.text']), 'uz-Latn is Latin');
  t.false(/[a-z]{3,}/.test(CATALOGUES['uz-Cyrl']['screen.pay.text'].replace(/\{[a-z]+\}/g, '')), 'uz-Cyrl is Cyrillic');
  t.regex(CATALOGUES.kk['screen.pay.text'], /[әғқңөұүһі]/, 'Kazakh letters');
  t.regex(CATALOGUES.tr['screen.pay.text'], /[çğıöşü]/, 'Turkish letters');
});

test('language: ?lang= first, then the switcher cookie, then Accept-Language by weight, then English', (t) => {
  t.is(negotiateLocale({ query: 'kk', cookie: 'ru', acceptLanguage: 'tr' }), 'kk');
  t.is(negotiateLocale({ query: 'xx', cookie: 'ru', acceptLanguage: 'tr' }), 'ru');
  t.is(negotiateLocale({ cookie: 'bogus', acceptLanguage: 'de-DE, tr;q=0.8, ru;q=0.9' }), 'ru');
  t.is(negotiateLocale({ acceptLanguage: 'de, fr' }), 'en');
  t.is(negotiateLocale({}), 'en');
  t.is(matchLocale('uz'), 'uz-Latn');
  t.is(matchLocale('uz-UZ'), 'uz-Latn');
  t.is(matchLocale('uz-Cyrl-UZ'), 'uz-Cyrl');
  t.is(matchLocale('UZ-cyrl'), 'uz-Cyrl');
  t.is(matchLocale('kk-KZ'), 'kk');
  t.is(matchLocale('tr-TR'), 'tr');
  t.is(matchLocale('<script>'), undefined);
  t.is(fromAcceptLanguage('ru-RU,ru;q=0.9,en-US;q=0.8,en;q=0.7'), 'ru');
  t.is(fromAcceptLanguage('en;q=0, kk;q=0.5'), 'kk');
});

test('amounts with Intl in the page language: 1 500,00 ₽ in Russian, the currency signs of each market', (t) => {
  t.is(plain(formatMoney('ru', '150000', 'RUB')), '1 500,00 ₽');
  t.is(plain(formatMoney('en', '150000', 'RUB')), '₽1,500.00');
  t.is(plain(formatMoney('kk', '150000', 'KZT')), '1 500,00 ₸');
  t.is(plain(formatMoney('tr', '150000', 'TRY')), '₺1.500,00');
  t.is(plain(formatMoney('uz-Latn', '150000', 'UZS')), '1 500,00 soʻm');
  t.is(plain(formatMoney('uz-Cyrl', '150000', 'UZS')), '1 500,00 сўм');
  // Exact beyond 2^53 (no double in between), and another exponent.
  t.is(plain(formatMoney('ru', '1234567890123456789', 'RUB')), '12 345 678 901 234 567,89 ₽');
  t.is(plain(formatMoney('en', '1500', 'KZT', 0)), '₸1,500');
  t.is(plain(formatMoney('en', '150000', 'XTS1')), '1,500.00 XTS1');
  // What the copy button puts on the clipboard: no grouping, the language's decimal mark, no fraction when whole.
  t.is(plainAmount('ru', '150000'), '1500');
  t.is(plainAmount('ru', '150050'), '1500,50');
  t.is(plainAmount('en', '150050'), '1500.50');
});

test('requisites as a payer reads and copies them: card and IBAN by four, phones in national groups with E.164 for tel: and copy', (t) => {
  t.is(groupCard('2200000000000001'), '2200 0000 0000 0001');
  t.is(groupIban('tr180001005196457841326001'), 'TR18 0001 0051 9645 7841 3260 01');
  t.is(plainIban('TR18 0001 0051 9645 7841 3260 01'), 'TR180001005196457841326001');
  t.is(formatPhone('+79000000002'), '+7 900 000-00-02');
  t.is(formatPhone('89000000002'), '+7 900 000-00-02');
  t.is(plainPhone('8 (900) 000-00-02'), '+79000000002');
  t.is(formatPhone('+998901234567'), '+998 90 123-45-67');
  t.is(formatPhone('+905321234567'), '+90 532 123 45 67');
  t.is(formatPhone('+77012345678'), '+7 701 234-56-78');
});

test('one screen per deal state; "I paid" where notify is legal, cancel before the payer said they paid, polling stops where people decide', (t) => {
  t.deepEqual(Object.keys(PAYER_SCREENS).sort(), [...PAYIN_STATUSES].sort());
  t.is(PAYER_SCREENS.APPEALED, 'dispute');
  t.is(PAYER_SCREENS.PAYMENT_VERIFIED, 'confirmed');
  t.true(payerMayNotify('ESCROW_LOCKED'));
  t.false(payerMayNotify('PAYMENT_NOTIFIED'));
  t.true(payerMayCancel('ESCROW_LOCKED'));
  t.false(payerMayCancel('PAYMENT_NOTIFIED'), 'cancel is gone once the payer said they paid');
  t.false(payerMayCancel('APPEALED'));
  for (const s of ['APPEALED', 'COMPLETED', 'EXPIRED', 'CANCELLED', 'SPAM_REJECTED', 'SOFT_DISPUTED', 'REFUND_PENDING']) t.true(payerPollStops(s), s);
  for (const s of ['INITIALIZED', 'ESCROW_LOCKED', 'PAYMENT_NOTIFIED', 'PAYMENT_VERIFIED']) t.false(payerPollStops(s), s);
  t.is(payerReference(`7f3a91c2b8${'0'.repeat(54)}`), '7F3A9-1C2B8');
});

test('the timeline: created → you paid → bank confirming → done, or how the deal ended instead', (t) => {
  const stamps = { created_at: '2026-11-25T10:00:00Z', payment_notified_at: '', payment_verified_at: '', ended_at: '' };
  const states = (status: string, s = stamps) => payerTimeline(status, s).map((x) => `${x.step}:${x.state}`);
  t.deepEqual(states('ESCROW_LOCKED'), ['created:done', 'paid:current', 'confirming:todo', 'done:todo']);
  t.deepEqual(states('PAYMENT_NOTIFIED', { ...stamps, payment_notified_at: '2026-11-25T10:05:00Z' }), [
    'created:done',
    'paid:done',
    'confirming:current',
    'done:todo',
  ]);
  t.deepEqual(states('COMPLETED', { ...stamps, ended_at: '2026-11-25T10:09:00Z' }), ['created:done', 'paid:done', 'confirming:done', 'done:done']);
  t.deepEqual(states('EXPIRED', { ...stamps, ended_at: '2026-11-25T10:30:00Z' }), ['created:done', 'expired:failed']);
  t.deepEqual(states('EXPIRED', { ...stamps, payment_notified_at: '2026-11-25T10:05:00Z', ended_at: '2026-11-25T10:30:00Z' }), [
    'created:done',
    'paid:done',
    'expired:failed',
  ]);
  t.deepEqual(states('APPEALED'), ['created:done', 'paid:todo', 'confirming:todo', 'review:current']);
});

const VIEW: CheckoutView = {
  status: 'ESCROW_LOCKED',
  amount: '150000',
  amount_to_pay: '150000',
  currency: 'RUB',
  payment_method_name: 'Bank card (RUB)',
  requisite_type: 'BANK_CARD',
  card_number: '2200000000000001',
  phone_number: '',
  iban: '',
  holder_name: 'Alpha <Holder>',
  bank_name: 'sberbank',
  brand_name: 'Sunrise "Books" & Co',
  description: '<img src=x onerror=alert(1)>',
  payment_timeout_at: '2026-11-25T10:30:00.000Z',
  success_redirect_url: 'javascript:alert(1)',
  fail_redirect_url: '',
  amount_version: '1',
  reference: '7F3A9-1C2B8',
  bank_display_name: 'Sberbank',
  timeline: { created_at: '2026-11-25T10:00:00.000Z', payment_notified_at: '', payment_verified_at: '', ended_at: '' },
  payer_proof: { receipts: 0, card_last4: '', can_add: true },
};
const render = (view: Partial<CheckoutView>, locale: (typeof LOCALES)[number] = 'ru') =>
  renderPayerPage({
    hash: 'a'.repeat(64),
    view: { ...VIEW, ...view },
    locale,
    exponent: 2,
    now: new Date('2026-11-25T10:01:00Z'),
    assets: ASSET_URLS,
    confirmCancel: false,
    maxReceiptBytes: 10 << 20,
  });

test('the page escapes what merchants and traders typed, never shows a status code, and offers no script: URL as a return', (t) => {
  const html = render({});
  t.false(html.includes('<img src=x'));
  t.true(html.includes('&lt;img src=x onerror=alert(1)&gt;'));
  t.true(html.includes('Alpha &lt;Holder&gt;'));
  t.true(html.includes('Sunrise &quot;Books&quot; &amp; Co'));
  t.false(/<script>|<style>|style="|onclick=/i.test(html), 'no inline script or style');
  t.regex(html, /<html lang="ru"/);
  t.regex(html, /<meta name="robots" content="noindex, nofollow">/);
  const completed = render({ status: 'COMPLETED', card_number: '', holder_name: '', bank_name: '', bank_display_name: '' }, 'en');
  t.false(completed.includes('javascript:'), 'a return URL that is not http(s) is not linked');
  for (const status of PAYIN_STATUSES) {
    const page = render({ status }, 'en');
    const visible = page.replace(/<[^>]+>/g, ' ');
    t.false(/\b(ESCROW_LOCKED|PAYMENT_NOTIFIED|PAYMENT_VERIFIED|APPEALED|SOFT_DISPUTED|REFUND_PENDING|SPAM_REJECTED|INITIALIZED)\b/.test(visible), status);
  }
  const t2 = translator('ru');
  t.true(html.includes(t2('paid.button')));
});
