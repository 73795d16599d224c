/**
 * The payer's page as HTML: one screen per state (domain/state/payer-page.ts), in the payer's language,
 * everything escaped. It works as plain forms (each posts to its action and is redirected back
 * here: POST/redirect/GET); the script (assets/payer.js) adds polling, copy buttons, the cancel
 * dialog and live updates by fetching this same HTML. No inline script or style (the CSP).
 */
import {
  payerMayCancel,
  payerMayNotify,
  payerPollStops,
  payerReturnsAutomatically,
  payerScreenOf,
  payerTimeline,
  type PayerScreen,
} from '../../../domain/state/payer-page';
import type { CheckoutView } from '../../services/checkout-view';
import {
  formatClock,
  formatDateTime,
  formatMoney,
  formatPhone,
  formatSize,
  groupCard,
  groupIban,
  plainAmount,
  plainIban,
  plainPhone,
  digitsOnly,
  zoneOf,
} from './format';
import { LOCALE_NAMES, LOCALES, translator, type Locale, type MessageKey, type Translate } from './i18n';

const escapeHtml = (value: string) => value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
const e = escapeHtml;

/** The page's notices after an action (the `notice` of the redirect): a fixed set, never free text. */
const NOTICES = ['not_allowed', 'amount_changed', 'proof_saved', 'proof_limit', 'proof_type', 'proof_missing', 'last4', 'too_large', 'error'] as const;
export type Notice = (typeof NOTICES)[number];
export const isNotice = (value: unknown): value is Notice => typeof value === 'string' && (NOTICES as readonly string[]).includes(value);

/** Versioned URLs of the page's static files (api/pages/payer/assets.ts). */
export interface AssetUrls {
  script: string;
  style: string;
  icon: string;
}

export interface PayerPageModel {
  hash: string;
  view: CheckoutView;
  locale: Locale;
  /** Minor units per major unit: 10^exponent. */
  exponent: number;
  now: Date;
  assets: AssetUrls;
  /** The amount changed since this browser last saw it: old → new, to be acknowledged. */
  amountChange?: { from: string; seenVersion: string };
  notice?: Notice;
  /** The no-script cancel confirmation (`?confirm=cancel`). */
  confirmCancel: boolean;
  /** The evidence size cap, for the receipt field's hint. */
  maxReceiptBytes: number;
}

const RECEIPT_ACCEPT = 'image/jpeg,image/png,image/webp,application/pdf';
/** Seconds before a final screen returns the payer to the shop. */
const RETURN_SECONDS = 10;

const TITLES: Record<PayerScreen, MessageKey> = {
  preparing: 'screen.preparing.title',
  pay: 'screen.pay.title',
  checking: 'screen.checking.title',
  confirmed: 'screen.confirmed.title',
  paid: 'screen.paid.title',
  expired: 'screen.expired.title',
  cancelled: 'screen.cancelled.title',
  declined: 'screen.declined.title',
  dispute: 'screen.dispute.title',
  refund: 'screen.refund.title',
};

const FINAL: readonly PayerScreen[] = ['paid', 'expired', 'cancelled', 'declined'];

interface Ctx {
  m: PayerPageModel;
  t: Translate;
  v: CheckoutView;
  brand: string;
  money: (minor: string) => string;
  when: (iso: string) => string;
  base: string;
}

/**
 * A localized `<time>`, in the zone of the currency's country: browsers' own date data for Uzbek and
 * Kazakh is thin (a Chromium shows "2026 M11 28"), so the server's ICU formats every date.
 */
function time(c: Ctx, iso: string): string {
  return `<time datetime="${e(iso)}">${e(c.when(iso))}</time>`;
}

function copyButton(c: Ctx, value: string, what: string): string {
  return (
    `<button type="button" class="copy" data-copy="${e(value)}" data-copied="${e(c.t('copy.done', { what }))}" ` +
    `aria-label="${e(c.t('copy.label', { what }))}" hidden>${e(c.t('copy.button'))}</button>`
  );
}

/** The requisite rows: the value grouped for reading, copied plain. */
function requisites(c: Ctx, copyable: boolean): string {
  const { v, t } = c;
  const rows: string[] = [];
  const row = (label: string, value: string, extra = '', id = '') =>
    `<div class="row"><dt>${e(label)}</dt><dd><span class="value"${id ? ` id="${id}"` : ''}>${value}</span>${extra}</dd></div>`;
  if (v.card_number) {
    const label = t('field.card');
    rows.push(
      row(
        label,
        `<span class="mono nowrap">${e(groupCard(v.card_number))}</span>`,
        copyable ? copyButton(c, digitsOnly(v.card_number), label) : '',
        'requisite',
      ),
    );
  }
  if (v.phone_number) {
    const label = t('field.phone');
    const plain = plainPhone(v.phone_number);
    rows.push(
      row(
        label,
        `<a class="mono nowrap" href="tel:${e(plain)}">${e(formatPhone(v.phone_number))}</a>`,
        copyable ? copyButton(c, plain, label) : '',
        'requisite',
      ),
    );
  }
  if (v.iban) {
    const label = t('field.iban');
    rows.push(row(label, `<span class="mono">${e(groupIban(v.iban))}</span>`, copyable ? copyButton(c, plainIban(v.iban), label) : '', 'requisite'));
  }
  if (v.holder_name) rows.push(row(t('field.holder'), e(v.holder_name), '', 'holder'));
  const bank = v.bank_display_name || v.bank_name;
  if (bank) rows.push(row(t('field.bank'), e(bank), '', 'bank'));
  if (v.payment_method_name) rows.push(row(t('field.method'), e(v.payment_method_name)));
  if (rows.length === 0) return '';
  return `<dl class="requisites">${rows.join('')}</dl>`;
}

function amountBox(c: Ctx, label: MessageKey, copyable: boolean): string {
  const { v, t, m } = c;
  const shown = c.money(v.amount_to_pay);
  const fee = BigInt(v.amount_to_pay) - BigInt(v.amount);
  return (
    `<div class="amount-box"><span class="label" id="amount-label">${e(t(label))}</span>` +
    `<div class="amount-row"><span class="amount" id="amount" aria-describedby="amount-label">${e(shown)}</span>` +
    (copyable ? copyButton(c, plainAmount(m.locale, v.amount_to_pay, m.exponent), t('amount.label')) : '') +
    `</div>` +
    (fee > 0n ? `<p class="fee">${e(t('amount.includesFee', { fee: c.money(fee.toString()) }))}</p>` : '') +
    `</div>`
  );
}

function reference(c: Ctx): string {
  const { t, v } = c;
  return (
    `<div class="reference"><span class="label">${e(t('reference.label'))}</span> ` +
    `<strong class="mono" id="reference">${e(v.reference)}</strong>${copyButton(c, v.reference, t('reference.label'))}` +
    `<p class="hint">${e(t('reference.hint', { brand: c.brand }))}</p></div>`
  );
}

/** The proof form: a receipt and/or the card's last digits, posted to `action`. */
function proofFields(c: Ctx): string {
  const { t, m } = c;
  return (
    `<div class="field"><label for="receipt">${e(t('proof.receipt', { size: formatSize(m.locale, m.maxReceiptBytes) }))}</label>` +
    `<input type="file" id="receipt" name="receipt" accept="${RECEIPT_ACCEPT}" data-max-bytes="${m.maxReceiptBytes}"></div>` +
    `<div class="field"><label for="card_last4">${e(t('proof.last4'))}</label>` +
    `<input type="text" id="card_last4" name="card_last4" inputmode="numeric" pattern="[0-9]{4}" maxlength="4" autocomplete="off" aria-describedby="last4-hint" class="last4">` +
    `<p class="hint" id="last4-hint">${e(t('proof.last4Hint'))}</p></div>`
  );
}

function proofSent(c: Ctx): string {
  const { v, t } = c;
  if (v.payer_proof.receipts === 0 && !v.payer_proof.card_last4) return '';
  return `<p class="proof-sent" id="proof-sent">${e(t('proof.sent', { receipts: v.payer_proof.receipts, last4: v.payer_proof.card_last4 || 'none' }))}</p>`;
}

/** The proof form on the screens after "I paid" (checking, dispute, expired…). */
function proofForm(c: Ctx, open: boolean): string {
  const { v, t } = c;
  if (!v.payer_proof.can_add) return proofSent(c) + (v.payer_proof.receipts > 0 || v.payer_proof.card_last4 ? `<p class="hint">${e(t('proof.full'))}</p>` : '');
  return (
    proofSent(c) +
    `<details class="proof"${open ? ' open' : ''}><summary>${e(t('proof.title'))}</summary>` +
    `<form method="post" action="${c.base}/receipt" enctype="multipart/form-data" data-enhance>` +
    hiddenLang(c) +
    proofFields(c) +
    `<button type="submit" class="secondary-button">${e(t('proof.send'))}</button></form></details>`
  );
}

const hiddenLang = (c: Ctx) => `<input type="hidden" name="lang" value="${e(c.m.locale)}">`;

function amountChangeBanner(c: Ctx): string {
  const { m, t, v } = c;
  if (!m.amountChange) return '';
  const values = { old: c.money(m.amountChange.from), new: c.money(v.amount_to_pay) };
  return (
    `<div class="banner" id="amount-changed" role="alert"><h2>${e(t('amountChanged.title'))}</h2>` +
    `<p>${e(t('amountChanged.text', values))}</p>` +
    `<form method="post" action="${c.base}/amount-seen" enctype="multipart/form-data" data-enhance>` +
    hiddenLang(c) +
    `<input type="hidden" name="version" value="${e(v.amount_version)}">` +
    `<button type="submit" class="primary" id="amount-ack">${e(t('amountChanged.ack', values))}</button></form></div>`
  );
}

function cancelConfirmation(c: Ctx, inline: boolean): string {
  const { t } = c;
  const body =
    `<h2 id="cancel-title">${e(t('cancel.title'))}</h2><p>${e(t('cancel.text'))}</p>` +
    `<form method="post" action="${c.base}/cancel" enctype="multipart/form-data" data-enhance>` +
    hiddenLang(c) +
    `<button type="submit" class="danger" id="cancel-confirm">${e(t('cancel.confirm'))}</button></form>` +
    (inline
      ? `<a class="secondary-button" id="cancel-keep" href="${c.base}?lang=${e(c.m.locale)}">${e(t('cancel.keep'))}</a>`
      : `<button type="button" class="secondary-button" id="cancel-keep" data-close>${e(t('cancel.keep'))}</button>`);
  return inline
    ? `<section class="confirm" id="cancel-confirmation" aria-labelledby="cancel-title" role="alertdialog">${body}</section>`
    : `<dialog id="cancel-dialog" aria-labelledby="cancel-title">${body}</dialog>`;
}

function countdown(c: Ctx): string {
  const { v, t, m } = c;
  if (!v.payment_timeout_at) return '';
  const left = (Date.parse(v.payment_timeout_at) - m.now.getTime()) / 1000;
  return (
    `<p class="countdown" id="countdown" data-deadline="${e(v.payment_timeout_at)}" data-over="${e(t('countdown.over'))}">` +
    `<span class="countdown-text">${e(t('countdown.left', { time: '\u0000' })).replace('\u0000', `<strong class="timer">${formatClock(left)}</strong>`)}</span></p>`
  );
}

function payScreen(c: Ctx): string {
  const { v, t, m } = c;
  const locked = Boolean(m.amountChange);
  const parts = [
    `<p class="lead">${e(t('screen.pay.text', { method: v.payment_method_name }))}</p>`,
    amountBox(c, 'amount.label', true),
    countdown(c),
    requisites(c, true),
    `<p class="exact">${e(t('screen.pay.exact', { amount: c.money(v.amount_to_pay) }))}</p>`,
  ];
  if (payerMayNotify(v.status)) {
    parts.push(
      `<form method="post" action="${c.base}/paid" enctype="multipart/form-data" class="paid-form" data-enhance>` +
        hiddenLang(c) +
        // The version the payer saw: "I paid" for an amount that has changed since is refused.
        `<input type="hidden" name="amount_version" value="${e(m.amountChange?.seenVersion ?? v.amount_version)}">` +
        `<details class="proof"><summary>${e(t('proof.summary'))}</summary>${proofFields(c)}</details>` +
        `<button type="submit" class="primary" id="paid"${locked ? ' disabled aria-describedby="paid-locked"' : ''}>${e(t('paid.button'))}</button>` +
        (locked ? `<p class="hint" id="paid-locked">${e(t('paid.locked'))}</p>` : '') +
        `</form>`,
    );
  }
  if (payerMayCancel(v.status)) {
    parts.push(
      m.confirmCancel
        ? cancelConfirmation(c, true)
        : `<a class="text-button" id="cancel" href="${c.base}?confirm=cancel&amp;lang=${e(m.locale)}">${e(t('cancel.link'))}</a>` +
            cancelConfirmation(c, false),
    );
  }
  return parts.join('');
}

function checkingScreen(c: Ctx, screen: 'checking' | 'confirmed'): string {
  const { t } = c;
  return (
    `<p class="lead">${e(t(screen === 'checking' ? 'screen.checking.text' : 'screen.confirmed.text'))}</p>` +
    `<p class="warning">${e(t('screen.dontPayAgain'))}</p>` +
    reference(c) +
    `<div class="dimmed">${amountBox(c, 'amount.paidLabel', false)}${requisites(c, false)}</div>` +
    proofForm(c, false)
  );
}

/** Back to the shop: automatic after a countdown (the script; the payer can stay), a link without it, or a branded close. */
function returnBlock(c: Ctx, url: string, automatic: boolean): string {
  const { t, brand } = c;
  if (!/^https?:\/\//i.test(url)) return `<p class="return-none" id="return-none">${e(t('return.none'))}</p>`;
  const timer = automatic
    ? `<p class="return-countdown" id="return-countdown" data-seconds="${RETURN_SECONDS}" hidden>` +
      `${e(t('return.countdown', { brand, time: '\u0000' })).replace('\u0000', `<strong class="timer">${formatClock(RETURN_SECONDS)}</strong>`)}` +
      ` <button type="button" class="text-button" id="return-stay">${e(t('return.stay'))}</button></p>`
    : '';
  return `<div class="return">${timer}<a class="primary" id="return-link" href="${e(url)}">${e(t('return.now', { brand }))}</a></div>`;
}

function finalScreen(c: Ctx, screen: PayerScreen): string {
  const { v, t, brand } = c;
  switch (screen) {
    case 'paid':
      return (
        `<p class="lead">${e(t('screen.paid.text', { brand, amount: c.money(v.amount_to_pay) }))}</p>` +
        (v.timeline.ended_at ? `<p class="when">${time(c, v.timeline.ended_at)}</p>` : '') +
        reference(c) +
        returnBlock(c, v.success_redirect_url, true)
      );
    case 'expired': {
      const paidLate = Boolean(v.timeline.payment_notified_at);
      return (
        `<p class="lead">${e(t('screen.expired.text'))}</p>` +
        `<p>${e(t('screen.expired.paidLate', { brand }))}</p>` +
        (paidLate ? '' : `<p>${e(t('screen.expired.notPaid', { brand }))}</p>`) +
        reference(c) +
        proofForm(c, paidLate) +
        returnBlock(c, v.fail_redirect_url, false)
      );
    }
    case 'cancelled':
      return (
        `<p class="lead">${e(t('screen.cancelled.text'))}</p>` +
        `<p>${e(t('screen.cancelled.paidAnyway', { brand }))}</p>` +
        reference(c) +
        returnBlock(c, v.fail_redirect_url, true)
      );
    default:
      return `<p class="lead">${e(t('screen.declined.text', { brand }))}</p>${reference(c)}${returnBlock(c, v.fail_redirect_url, true)}`;
  }
}

function reviewScreen(c: Ctx, screen: 'dispute' | 'refund'): string {
  const { t, brand } = c;
  return (
    `<p class="lead">${e(t(screen === 'dispute' ? 'screen.dispute.text' : 'screen.refund.text', { brand }))}</p>` +
    `<p class="warning">${e(t('screen.dontPayAgain'))}</p>` +
    reference(c) +
    (screen === 'dispute' ? proofForm(c, false) : '') +
    `<a class="secondary-button" id="check-again" href="${c.base}?lang=${e(c.m.locale)}">${e(c.t('screen.checkAgain'))}</a>`
  );
}

const STEP_LABELS: Record<string, MessageKey> = {
  created: 'timeline.created',
  paid: 'timeline.paid',
  confirming: 'timeline.confirming',
  done: 'timeline.done',
  expired: 'timeline.expired',
  cancelled: 'timeline.cancelled',
  review: 'timeline.review',
};

function timeline(c: Ctx): string {
  const { v, t } = c;
  const steps = payerTimeline(v.status, v.timeline);
  const items = steps.map(
    (s) =>
      `<li class="step ${s.state}"${s.state === 'current' ? ' aria-current="step"' : ''}><span class="dot" aria-hidden="true"></span>` +
      // The payer's own step reads "You paid" only once it is done: before that it is still theirs to do.
      `<span class="step-label">${e(t(s.step === 'paid' && s.state !== 'done' ? 'timeline.pay' : STEP_LABELS[s.step]!))}</span>` +
      `<span class="sr-only"> (${e(t(`timeline.state.${s.state}` as MessageKey))})</span>` +
      (s.at ? ` ${time(c, s.at)}` : '') +
      `</li>`,
  );
  return `<section class="card timeline" aria-labelledby="timeline-title"><h2 id="timeline-title">${e(t('timeline.title'))}</h2><ol>${items.join('')}</ol></section>`;
}

/** The part of the page the script swaps when the deal moves: everything that depends on the deal. */
function screenHtml(c: Ctx, screen: PayerScreen, heading: string, title: string): string {
  const { m, v, t } = c;
  let body: string;
  switch (screen) {
    case 'preparing':
      body = `<p class="lead">${e(t('screen.preparing.text'))}</p>`;
      break;
    case 'pay':
      body = payScreen(c);
      break;
    case 'checking':
    case 'confirmed':
      body = checkingScreen(c, screen);
      break;
    case 'dispute':
    case 'refund':
      body = reviewScreen(c, screen);
      break;
    default:
      body = finalScreen(c, screen);
  }
  const notice = m.notice
    ? `<p class="notice${m.notice === 'proof_saved' ? ' ok' : ''}" id="notice" role="${m.notice === 'proof_saved' ? 'status' : 'alert'}">${e(
        t(`notice.${m.notice}` as MessageKey, { size: formatSize(m.locale, m.maxReceiptBytes) }),
      )}</p>`
    : '';
  const description = v.description ? `<p class="order"><span class="label">${e(t('field.order'))}:</span> ${e(v.description)}</p>` : '';
  const final = FINAL.includes(screen);
  return (
    `<main id="screen" class="screen-${screen}" data-hash="${e(m.hash)}" data-status="${e(v.status)}" data-screen="${screen}" ` +
    `data-key="${e(stateKey(v))}" data-poll="${payerPollStops(v.status) ? 'stop' : 'on'}" data-final="${final}" ` +
    `data-auto-return="${final && payerReturnsAutomatically(screen)}" data-title="${e(title)}">` +
    `<section class="card main-card" aria-labelledby="screen-title">` +
    notice +
    amountChangeBanner(c) +
    `<h1 id="screen-title" tabindex="-1">${e(heading)}</h1>` +
    description +
    body +
    `</section>` +
    timeline(c) +
    `</main>`
  );
}

/** What the script compares between polls: a change of any of these re-renders the screen. */
const stateKey = (v: CheckoutView) => [v.status, v.amount_version, v.payer_proof.receipts, v.payer_proof.card_last4, v.payer_proof.can_add].join('|');

function languageSwitcher(c: Ctx): string {
  const { m, t } = c;
  const links = LOCALES.map(
    (l) => `<li><a href="${c.base}?lang=${l}" lang="${l}" hreflang="${l}"${l === m.locale ? ' aria-current="true"' : ''}>${e(LOCALE_NAMES[l])}</a></li>`,
  ).join('');
  return (
    `<details class="lang"><summary><span class="sr-only">${e(t('lang.label'))}: </span>${e(LOCALE_NAMES[m.locale])}</summary>` +
    `<nav aria-label="${e(t('lang.label'))}"><ul>${links}</ul></nav></details>`
  );
}

function head(locale: Locale, title: string, assets: AssetUrls): string {
  return (
    `<!doctype html>\n<html lang="${locale}" dir="ltr"><head><meta charset="utf-8">` +
    `<meta name="viewport" content="width=device-width, initial-scale=1">` +
    `<meta name="robots" content="noindex, nofollow"><meta name="referrer" content="no-referrer">` +
    `<meta name="color-scheme" content="light">` +
    `<title>${e(title)}</title>` +
    `<link rel="icon" href="${assets.icon}" type="image/svg+xml">` +
    `<link rel="stylesheet" href="${assets.style}">` +
    `<script src="${assets.script}" defer></script></head>`
  );
}

export function renderPayerPage(m: PayerPageModel): string {
  const t = translator(m.locale);
  const v = m.view;
  const c: Ctx = {
    m,
    t,
    v,
    brand: v.brand_name,
    money: (minor) => formatMoney(m.locale, minor, v.currency, m.exponent),
    when: (iso) => formatDateTime(m.locale, iso, zoneOf(v.currency)),
    base: `/pay/${m.hash}`,
  };
  const screen = payerScreenOf(v.status);
  const heading = screen === 'pay' ? t('screen.pay.title', { amount: c.money(v.amount_to_pay) }) : t(TITLES[screen]);
  const title = t('page.title', { title: heading, brand: c.brand });
  return (
    head(m.locale, title, m.assets) +
    `<body data-msg-error="${e(t('error.generic'))}" data-msg-too-large="${e(t('error.tooLarge', { size: formatSize(m.locale, m.maxReceiptBytes) }))}" ` +
    `data-msg-copy-failed="${e(t('copy.failed'))}" data-lang="${m.locale}">` +
    `<p class="offline" id="offline" hidden>${e(t('offline'))}</p>` +
    `<header class="top"><p class="brand"><span class="sr-only">${e(t('brand.payTo', { brand: c.brand }))}</span><span aria-hidden="true">${e(c.brand)}</span></p>${languageSwitcher(c)}</header>` +
    screenHtml(c, screen, heading, title) +
    `<p class="sr-only" id="live" aria-live="polite" aria-atomic="true"></p>` +
    `<footer class="foot"><span class="lock" aria-hidden="true"></span>${e(t('page.secure'))}</footer>` +
    `</body></html>`
  );
}

/** The styled, translated page for an unknown link (404). */
export function renderNotFound(locale: Locale, assets: AssetUrls): string {
  const t = translator(locale);
  return (
    head(locale, t('notFound.title'), assets) +
    `<body><main id="screen" class="screen-not-found"><section class="card main-card" aria-labelledby="screen-title">` +
    `<h1 id="screen-title">${e(t('notFound.title'))}</h1><p class="lead">${e(t('notFound.text'))}</p></section></main>` +
    `<footer class="foot"><span class="lock" aria-hidden="true"></span>${e(t('page.secure'))}</footer></body></html>`
  );
}
