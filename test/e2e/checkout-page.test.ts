/// <reference lib="dom" />
/**
 * The payer's page in Debian's Chromium, as a payer on a phone (390 × 844) and a desktop
 * (1280 × 800): every state in every language (plain words, Intl amounts, lang, axe-core with no
 * serious or critical finding, nothing wider than the screen), an amount change seen on an open
 * page without a reload and acknowledged before "I paid", copy buttons, the cancel confirmation,
 * the poll (backs off, pauses while hidden, stops where people decide, offline banner), final
 * states announced and focused with the return to the shop, framing refused, and every form
 * without JavaScript. No Content-Security-Policy violation anywhere.
 * PAYER_SCREENSHOTS=<dir> (npm run payer:screenshots) writes each state's PNG there for docs/.
 */
import anyTest, { type ExecutionContext, type TestFn } from 'ava';
import { mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileBrowser } from '../helpers/console-browser';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { API_URL, asOperator, newMerchant, signed, type KeyPair } from '../helpers/api';
import { testSql } from '../helpers/app';
import { changeAmount, checkout, createPayin, hashOf, operatorDeal, payinBody, PAYIN } from '../helpers/deals';
import { dealReaches, openAppeal } from '../helpers/appeals';
import { eventually } from '../helpers/poll';
import { seriousViolations } from '../helpers/axe';
import { startIsolatedStack } from '../helpers/worker';
import { SAMPLES } from '../helpers/multipart';
import { LOCALES, translator, type Locale } from '../../api/pages/payer/i18n';
import { formatMoney } from '../../api/pages/payer/format';
import type { MessageKey } from '../../api/pages/payer/messages/en';

const FAILURES = join(process.cwd(), '.data', 'payer-screenshots');
const SHOTS = process.env.PAYER_SCREENSHOTS ? join(process.cwd(), process.env.PAYER_SCREENSHOTS) : undefined;
const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 800 };

declare global {
  interface Window {
    /** Set by a test in the page: still there after a swap means the page did not reload. */
    __sameDocument?: boolean;
  }
}

const RAW_CODES =
  /\b(INITIALIZED|ESCROW_LOCKED|PAYMENT_NOTIFIED|PAYMENT_VERIFIED|COMPLETED|EXPIRED|APPEALED|REFUND_PENDING|SPAM_REJECTED|SOFT_DISPUTED|CANCELLED)\b/;
const spaces = (s: string) => s.replace(/[\u00a0\u202f]/g, ' ');

interface Ctx {
  pages: Array<{ name: string; page: Page }>;
  contexts: BrowserContext[];
  csp: string[];
}
const test = anyTest as TestFn<Ctx>;

const browser = fileBrowser(test);
/** An API and worker whose deals wait 15 minutes before they expire: the live states stay live for the whole file. */
let slow: Awaited<ReturnType<typeof startIsolatedStack>>;
const sql = testSql();

test.before(async () => {
  mkdirSync(FAILURES, { recursive: true });
  slow = await startIsolatedStack({ PAYIN_TIMEOUT_SECONDS: 900 });
});
test.after.always(async () => {
  await slow?.close();
  await sql.end();
});
test.beforeEach((t) => {
  t.context.pages = [];
  t.context.contexts = [];
  t.context.csp = [];
});
test.afterEach.always(async (t) => {
  if (!t.passed) {
    const slug = t.title
      .replace(/^afterEach\.always hook for /, '')
      .replace(/[^a-z0-9]+/gi, '-')
      .slice(0, 50);
    for (const [i, { name, page }] of t.context.pages.entries()) {
      await page.screenshot({ path: join(FAILURES, `${slug}-${i}-${name}.png`), fullPage: true }).catch(() => undefined);
    }
  }
  for (const context of t.context.contexts) await context.close().catch(() => undefined);
});

async function newContext(t: ExecutionContext<Ctx>, options: Parameters<Browser['newContext']>[0] = {}) {
  const context = await browser().newContext({ viewport: PHONE, ...options });
  // Waits without a deadline of their own: a bound for a wait gone wrong, far above what a loaded machine takes.
  context.setDefaultTimeout(120_000);
  t.context.contexts.push(context);
  return context;
}

async function open(t: ExecutionContext<Ctx>, context: BrowserContext, url: string, name: string) {
  const page = await context.newPage();
  page.on('console', (message) => {
    if (/Content Security Policy|Refused to/i.test(message.text())) t.context.csp.push(message.text());
  });
  t.context.pages.push({ name, page });
  await page.goto(url);
  return page;
}

async function accessible(t: ExecutionContext<Ctx>, page: Page, name: string) {
  t.deepEqual(await seriousViolations(page), [], `axe on ${name}`);
}

async function shot(page: Page, name: string) {
  if (!SHOTS) return;
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
}

/** A PayIn made through the slow stack (its payment timeout 15 minutes). */
async function slowPayin(keys: KeyPair, overrides: Record<string, unknown> = {}) {
  const res = await signed(keys, 'POST', `${slow.url}${PAYIN}`, payinBody(overrides));
  if (res.status !== 200) throw new Error(`payin create failed: ${res.status} ${res.text}`);
  return res.body.deal as { deal_id: string; payment_url: string; status: string };
}
const pageUrl = (deal: { payment_url: string }) => `${API_URL}/pay/${hashOf(deal.payment_url)}`;

async function shop(name: string, urls: { success?: string; fail?: string } = {}) {
  const merchant = await newMerchant({ name });
  await sql`update merchants set success_redirect_url = ${urls.success ?? ''}, fail_redirect_url = ${urls.fail ?? ''},
    checkout_brand_name = ${name} where id = ${merchant.merchantId}`;
  return merchant;
}

/** A page on another origin of this machine (the test's own HTTP server). */
async function otherOrigin(html: (path: string) => string | undefined): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    const body = html(req.url ?? '/');
    res.writeHead(body === undefined ? 404 : 200, { 'Content-Type': 'text/html; charset=utf-8' }).end(body ?? 'not found');
  });
  server.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

const TITLES: Record<string, MessageKey> = {
  pay: 'screen.pay.title',
  amountChanged: 'screen.pay.title',
  checking: 'screen.checking.title',
  confirmed: 'screen.confirmed.title',
  paid: 'screen.paid.title',
  expired: 'screen.expired.title',
  cancelled: 'screen.cancelled.title',
  dispute: 'screen.dispute.title',
};

test.serial('every state in every language, at phone and desktop size: plain words, Intl amounts, lang, nothing too wide, axe clean', async (t) => {
  t.timeout(20 * 60_000);
  const { keys } = await shop('Sunrise Books', { success: 'https://sunrise.example/thanks', fail: 'https://sunrise.example/cart' });
  const expiring = await createPayin(keys, { description: 'Order 1042' }); // the shared stack's 30-second timeout
  await checkout(hashOf(expiring.payment_url), 'notify-payment'); // paid late: the expired screen says what to do
  const deals: Record<string, { payment_url: string; deal_id: string }> = {};
  deals.pay = await slowPayin(keys, { description: 'Order 1042' });
  deals.amountChanged = await slowPayin(keys, { description: 'Order 1043' });
  deals.checking = await slowPayin(keys);
  await checkout(hashOf(deals.checking.payment_url), 'notify-payment');
  deals.confirmed = await slowPayin(keys);
  await operatorDeal(deals.confirmed.deal_id, 'reconciliation', { received_amount: 140_000 });
  await operatorDeal(deals.confirmed.deal_id, 'confirm');
  deals.paid = await slowPayin(keys);
  await checkout(hashOf(deals.paid.payment_url), 'notify-payment');
  await operatorDeal(deals.paid.deal_id, 'confirm');
  deals.cancelled = await slowPayin(keys);
  await checkout(hashOf(deals.cancelled.payment_url), 'cancel');
  deals.dispute = await slowPayin(keys);
  t.is((await openAppeal(keys, { deal_id: deals.dispute.deal_id, reason: 'the payer says the bank rejected it' })).status, 200);
  await dealReaches(keys, deals.confirmed.deal_id, 'PAYMENT_VERIFIED');
  await dealReaches(keys, deals.paid.deal_id, 'COMPLETED');
  await dealReaches(keys, deals.dispute.deal_id, 'APPEALED');
  deals.expired = expiring;
  await dealReaches(keys, expiring.deal_id, 'EXPIRED', '', 120_000);

  const docLanguages: Locale[] = ['en', 'ru'];
  const sizes = [
    ['phone', await newContext(t, { viewport: PHONE })],
    ['desktop', await newContext(t, { viewport: DESKTOP })],
  ] as const;
  // The amount-changed banner appears for a browser that saw the old amount: both browsers saw it.
  for (const [, context] of sizes) await (await open(t, context, pageUrl(deals.amountChanged), 'before-change')).close();
  t.is((await changeAmount(deals.amountChanged.deal_id, { amount_fiat: 160_000, expected_amount_version: 1 })).status, 200);
  for (const [size, context] of sizes) {
    const page = await context.newPage();
    page.on('console', (m) => {
      if (/Content Security Policy|Refused to/i.test(m.text())) t.context.csp.push(m.text());
    });
    t.context.pages.push({ name: `matrix-${size}`, page });
    for (const [state, deal] of Object.entries(deals)) {
      for (const locale of LOCALES) {
        const name = `${state}-${size}-${locale}`;
        await page.goto(`${pageUrl(deal)}?lang=${locale}`);
        // The final screens return to the shop after a countdown: the payer stays to be looked at.
        if (await page.isVisible('#return-stay')) await page.click('#return-stay');
        const tr = translator(locale);
        t.is(await page.getAttribute('html', 'lang'), locale, name);
        const amount = state === 'amountChanged' ? '160000' : '150000';
        const title = tr(TITLES[state]!, { amount: formatMoney(locale, amount, 'RUB') });
        t.is(spaces((await page.textContent('h1')) ?? ''), spaces(title), name);
        // biome-ignore lint/performance/useDomNodeTextContent: the check is about what the payer sees, which is the rendered text, not the hidden nodes'
        const text = await page.evaluate(() => document.body.innerText);
        t.false(RAW_CODES.test(text), `${name}: a status code is shown`);
        if (state === 'pay') {
          t.is(spaces((await page.textContent('#amount')) ?? ''), spaces(formatMoney(locale, '150000', 'RUB')), name);
          if (locale === 'ru') t.is(spaces((await page.textContent('#amount')) ?? ''), '1 500,00 ₽');
          t.regex((await page.textContent('#requisite')) ?? '', /^\d{4} \d{4} \d{4} \d{4}$/, name);
          // The payer's step is theirs to do: it does not say "You paid" before they have.
          t.is(spaces((await page.textContent('.step[aria-current="step"] .step-label')) ?? ''), spaces(tr('timeline.pay')), name);
        }
        if (state === 'checking') t.is(spaces((await page.textContent('.step.done:nth-child(2) .step-label')) ?? ''), spaces(tr('timeline.paid')), name);
        if (state === 'amountChanged') {
          t.true(await page.isVisible('#amount-changed'), name);
          t.true(await page.isDisabled('#paid'), name);
        }
        t.true(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), `${name}: wider than the screen`);
        await accessible(t, page, name);
        // docs/payer-page: every state on a phone in English and Russian, the pay screen in every language, three on a desktop.
        const docShot = size === 'phone' ? docLanguages.includes(locale) || state === 'pay' : locale === 'en' && ['pay', 'checking', 'paid'].includes(state);
        if (docShot) await shot(page, name);
      }
    }
  }
  t.deepEqual(t.context.csp, []);
});

test('an amount changed by an operator reaches an open page within one poll, without a reload; "I paid" waits for the payer to acknowledge it', async (t) => {
  t.timeout(4 * 60_000);
  const { keys } = await shop('Kazan Market');
  const deal = await slowPayin(keys);
  const context = await newContext(t);
  const page = await open(t, context, `${pageUrl(deal)}?lang=ru`, 'amount-change');
  await page.evaluate(() => (window.__sameDocument = true));
  t.is(spaces((await page.textContent('#amount')) ?? ''), '1 500,00 ₽');
  const changedAt = Date.now();
  t.is((await changeAmount(deal.deal_id, { amount_fiat: 160_000, expected_amount_version: 1 })).status, 200);
  await page.waitForFunction(() => /1\s600,00/.test(document.querySelector('#amount')?.textContent ?? ''), undefined, { timeout: 15_000 });
  const seenAfter = Date.now() - changedAt;
  t.true(seenAfter < 12_000, `the new amount was shown ${seenAfter} ms after the change (polls every 3 s at first)`);
  t.true(await page.evaluate(() => window.__sameDocument === true), 'no reload');
  t.regex(spaces((await page.textContent('#amount-changed')) ?? ''), /1 500,00 ₽.*1 600,00 ₽/);
  t.true(await page.isDisabled('#paid'), '"I paid" waits for the acknowledgement');
  await accessible(t, page, 'amount-changed');
  await shot(page, 'amount-changed-live-phone-ru');

  await page.click('#amount-ack');
  await page.waitForSelector('#amount-changed', { state: 'detached' });
  t.false(await page.isDisabled('#paid'));
  await page.click('.paid-form summary');
  await page.fill('#card_last4', '4417');
  await page.click('#paid');
  await page.waitForFunction(() => document.querySelector('#screen')?.getAttribute('data-screen') === 'checking');
  t.true(await page.evaluate(() => window.__sameDocument === true), 'still no reload');
  t.false(await page.isVisible('#cancel'), 'no cancel once the payer said they paid');
  t.regex((await page.textContent('#proof-sent')) ?? '', /4417/);
  t.is((await checkout(hashOf(deal.payment_url))).body.status, 'PAYMENT_NOTIFIED');

  // The trader confirms: the page turns to its final screen by itself, announces it and moves focus there.
  await operatorDeal(deal.deal_id, 'confirm');
  await page.waitForFunction(() => document.querySelector('#screen')?.getAttribute('data-screen') === 'paid', undefined, { timeout: 20_000 });
  const heading = (await page.textContent('h1')) ?? '';
  t.is(heading, 'Оплата получена');
  // Focus moves after the new screen is swapped in: wait for it (a loaded machine is slow to get there).
  await page.waitForFunction(() => document.activeElement?.id === 'screen-title', undefined, { timeout: 60_000 }).catch(() => undefined);
  t.is(await page.evaluate(() => document.activeElement?.id), 'screen-title');
  await page.waitForFunction((h) => document.querySelector('#live')?.textContent === h, heading);
  t.true(await page.isVisible('#return-none'), 'no return URL: the branded close message');
  t.deepEqual(t.context.csp, []);
});

test('copy buttons put what a bank app accepts on the clipboard: amount, card, phone, IBAN, reference', async (t) => {
  t.timeout(4 * 60_000);
  const { keys } = await shop('Istanbul Bazaar');
  const context = await newContext(t, { permissions: ['clipboard-read', 'clipboard-write'] });
  const clipboard = async (page: Page, selector: string) => {
    await page.click(selector);
    return page.evaluate(() => navigator.clipboard.readText());
  };
  const card = await open(t, context, `${pageUrl(await slowPayin(keys))}?lang=en`, 'copy-card');
  t.is(await clipboard(card, '.amount-row .copy'), '1500');
  t.regex(await clipboard(card, '#requisite + .copy'), /^\d{16}$/);
  await card.waitForFunction(() => /^Copied: /.test(document.querySelector('#live')?.textContent ?? ''));

  const sbp = await open(t, context, `${pageUrl(await slowPayin(keys, { payment_method_id: 'sbp-rub' }))}?lang=ru`, 'copy-phone');
  t.regex(await clipboard(sbp, '#requisite + .copy'), /^\+79\d{9}$/);
  t.regex((await sbp.getAttribute('#requisite a', 'href')) ?? '', /^tel:\+79\d{9}$/);
  t.regex((await sbp.textContent('#requisite')) ?? '', /^\+7 9\d\d \d{3}-\d\d-\d\d$/);
  t.regex((await sbp.textContent('#bank')) ?? '', /^(Sberbank|T-Bank)$/);

  const iban = await open(t, context, `${pageUrl(await slowPayin(keys, { payment_method_id: 'iban-try', currency: 'TRY' }))}?lang=tr`, 'copy-iban');
  const copiedIban = await clipboard(iban, '#requisite + .copy');
  t.regex(copiedIban, /^TR\d{24}$/);
  t.is((await iban.textContent('#requisite'))?.replace(/ /g, ''), copiedIban);
  t.regex((await iban.textContent('#requisite')) ?? '', /^TR\d\d( \d{4}){5} \d\d$/);
  t.is((await iban.textContent('#bank')) ?? '', 'Ziraat Bankası');
  t.regex(spaces((await iban.textContent('#amount')) ?? ''), /^₺1\.500,00$/);
  await shot(iban, 'pay-iban-phone-tr');
  t.deepEqual(t.context.csp, []);
});

test('cancel asks first; "No" keeps the payment; "Yes" cancels, announces and focuses the result, then returns to the shop unless the payer stays', async (t) => {
  t.timeout(4 * 60_000);
  const target = await otherOrigin((path) => (path === '/cart' ? '<!doctype html><title>Cart</title><h1>Back at the shop</h1>' : undefined));
  t.teardown(() => target.server.close());
  const { keys } = await shop('Almaty Books', { fail: `${target.url}/cart` });
  const deal = await slowPayin(keys);
  const context = await newContext(t);
  const page = await open(t, context, `${pageUrl(deal)}?lang=kk`, 'cancel');
  await page.click('#cancel');
  t.true(await page.isVisible('#cancel-dialog'));
  await accessible(t, page, 'cancel-dialog');
  await shot(page, 'cancel-dialog-phone-kk');
  await page.click('#cancel-keep');
  t.false(await page.isVisible('#cancel-dialog'));
  t.is((await checkout(hashOf(deal.payment_url))).body.status, 'ESCROW_LOCKED', 'one tap cancels nothing');

  await page.click('#cancel');
  await page.click('#cancel-confirm');
  await page.waitForFunction(() => document.querySelector('#screen')?.getAttribute('data-screen') === 'cancelled');
  t.is((await checkout(hashOf(deal.payment_url))).body.status, 'CANCELLED');
  // Focus moves after the new screen is swapped in: wait for it (a loaded machine is slow to get there).
  await page.waitForFunction(() => document.activeElement?.id === 'screen-title', undefined, { timeout: 60_000 }).catch(() => undefined);
  t.is(await page.evaluate(() => document.activeElement?.id), 'screen-title');
  const heading = (await page.textContent('h1')) ?? '';
  await page.waitForFunction((h) => document.querySelector('#live')?.textContent === h, heading);
  t.true(await page.isVisible('#return-countdown'), 'the return to the shop counts down');
  await page.click('#return-stay');
  t.false(await page.isVisible('#return-countdown'));
  await page.waitForTimeout(11_000);
  t.true(page.url().includes('/pay/'), 'the payer chose to stay');

  // Opened again, it returns by itself after the countdown.
  const again = await open(t, context, `${pageUrl(deal)}?lang=kk`, 'cancel-return');
  await again.waitForURL(`${target.url}/cart`, { timeout: 20_000 });
  t.is(await again.textContent('h1'), 'Back at the shop');
  t.deepEqual(t.context.csp, []);
});

test('a cancel whose answer arrives after the poll already showed the result keeps the focus on the result', async (t) => {
  t.timeout(4 * 60_000);
  const { keys } = await shop('Almaty Cards');
  const deal = await slowPayin(keys);
  const context = await newContext(t);
  const page = await open(t, context, `${pageUrl(deal)}?lang=ru`, 'cancel-late-answer');
  // The cancel reaches the server at once; its answer is held until the poll has swapped in the result.
  let release: () => void = () => undefined;
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  await page.route('**/cancel', async (route) => {
    const response = await route.fetch();
    await held;
    await route.fulfill({ response });
  });
  await page.click('#cancel');
  await page.click('#cancel-confirm');
  await page.waitForFunction(() => document.querySelector('#screen')?.getAttribute('data-screen') === 'cancelled', undefined, { timeout: 120_000 });
  await page.waitForFunction(() => document.activeElement?.id === 'screen-title', undefined, { timeout: 60_000 });
  const answered = page.waitForResponse((r) => r.url().endsWith('/cancel'));
  release();
  await answered;
  // The form's answer swaps in the same screen again: the focus stays on its heading.
  await page.waitForTimeout(1_000);
  t.is(await page.evaluate(() => document.activeElement?.id), 'screen-title');
  t.is((await checkout(hashOf(deal.payment_url))).body.status, 'CANCELLED');
});

test('the poll backs off while nothing changes, pauses while the tab is hidden, stops where people decide, and says when the connection is gone', async (t) => {
  t.timeout(4 * 60_000);
  const { keys } = await shop('Tashkent Tea');
  const deal = await slowPayin(keys);
  const hash = hashOf(deal.payment_url);
  const context = await newContext(t);
  const polls: number[] = [];
  const page = await context.newPage();
  t.context.pages.push({ name: 'poll', page });
  page.on('request', (r) => {
    if (r.url().endsWith(`/api/v1/p2p/checkout/${hash}`)) polls.push(Date.now());
  });
  await page.goto(`${pageUrl(deal)}?lang=uz-Latn`);
  await eventually(async () => polls.length >= 5, 'five polls', 60_000);
  const gaps = polls.slice(1).map((at, i) => at - polls[i]!);
  // The first poll comes after the base interval (3 s, never sooner); on a loaded machine the timer and the
  // request may start late, so only a wide upper bound — the growth below is what the back-off shows.
  t.true(gaps[0]! >= 2500 && gaps[0]! < 10_000, `first gap ${gaps[0]}`);
  t.true(gaps[gaps.length - 1]! > gaps[0]! + 1500, `the gaps grow: ${gaps.join(', ')}`);

  // As a browser does when the payer switches to the bank app (a string: the test's transpiler would wrap a function's inner ones).
  const visibility = (hidden: boolean) =>
    page.evaluate(
      `Object.defineProperty(document, 'hidden', { configurable: true, value: ${hidden} });` +
        `Object.defineProperty(document, 'visibilityState', { configurable: true, value: '${hidden ? 'hidden' : 'visible'}' });` +
        `document.dispatchEvent(new Event('visibilitychange'));`,
    );
  await visibility(true);
  const hiddenFrom = polls.length;
  await page.waitForTimeout(12_000);
  t.is(polls.length, hiddenFrom, 'no poll while hidden');
  await visibility(false);
  await eventually(async () => polls.length > hiddenFrom, 'a poll when shown again', 3_000);

  await context.setOffline(true);
  await page.waitForSelector('#offline', { state: 'visible' });
  await shot(page, 'offline-phone-uz-Latn');
  await context.setOffline(false);
  await page.waitForSelector('#offline', { state: 'hidden', timeout: 20_000 });

  // Under review: the arbiter decides, so the page does not poll at all; it offers to check again.
  const disputed = await slowPayin(keys);
  await openAppeal(keys, { deal_id: disputed.deal_id, reason: 'the payer says the bank rejected it' });
  await dealReaches(keys, disputed.deal_id, 'APPEALED');
  const reviewPolls: number[] = [];
  const review = await context.newPage();
  t.context.pages.push({ name: 'review', page: review });
  review.on('request', (r) => {
    if (r.url().includes('/api/v1/p2p/checkout/')) reviewPolls.push(Date.now());
  });
  await review.goto(`${pageUrl(disputed)}?lang=uz-Cyrl`);
  await review.waitForTimeout(8_000);
  t.deepEqual(reviewPolls, [], 'no poll under review');
  t.true(await review.isVisible('#check-again'));
});

test('framing is refused: a page on another origin cannot show the payment page in a frame', async (t) => {
  t.timeout(4 * 60_000);
  const { keys } = await shop('Decoy Target');
  const deal = await slowPayin(keys);
  const decoy = await otherOrigin(() => `<!doctype html><title>Win a prize</title><iframe id="f" src="${pageUrl(deal)}" width="400" height="600"></iframe>`);
  t.teardown(() => decoy.server.close());
  const context = await newContext(t);
  const page = await context.newPage();
  const refusals: string[] = [];
  page.on('console', (m) => refusals.push(m.text()));
  t.context.pages.push({ name: 'decoy', page });
  await page.goto(decoy.url);
  await page.waitForTimeout(2_000);
  const frame = page.frames().find((f) => f !== page.mainFrame());
  t.truthy(frame);
  const inside = await frame!.$('#screen').catch(() => null);
  t.is(inside, null, 'the payment page did not render inside the frame');
  t.true(
    frame!.url().startsWith('chrome-error://') || refusals.some((m) => /frame-ancestors|X-Frame-Options|Refused to (display|frame)/i.test(m)),
    `frame at ${frame!.url()}; console: ${refusals.join(' | ')}`,
  );
});

test('without JavaScript every form works by POST and redirect: "I paid" with a receipt, the amount acknowledgement, cancel with its confirmation, the language', async (t) => {
  t.timeout(4 * 60_000);
  const { keys } = await shop('No Script Shop');
  const context = await newContext(t, { javaScriptEnabled: false });

  const deal = await slowPayin(keys);
  const page = await open(t, context, `${pageUrl(deal)}?lang=en`, 'nojs-pay');
  t.false(await page.isVisible('.copy'), 'copy buttons need script: hidden without it');
  t.is(spaces((await page.textContent('#amount')) ?? ''), '₽1,500.00');
  // The amount changes while the page is open; the reload shows it old → new, "I paid" locked until acknowledged.
  await changeAmount(deal.deal_id, { amount_fiat: 160_000, expected_amount_version: 1 });
  await page.reload();
  t.true(await page.isVisible('#amount-changed'));
  t.true(await page.isDisabled('#paid'));
  await page.click('#amount-ack');
  await page.waitForLoadState();
  t.false(await page.isVisible('#amount-changed'));
  t.false(await page.isDisabled('#paid'));
  await page.click('.paid-form summary');
  await page.setInputFiles('#receipt', { name: 'receipt.png', mimeType: 'image/png', buffer: SAMPLES.png });
  await page.fill('#card_last4', '0042');
  await page.click('#paid');
  await page.waitForURL(/\/pay\/[0-9a-f]{64}\?lang=en$/);
  t.is(await page.textContent('h1'), 'We are checking your payment');
  t.regex((await page.textContent('#proof-sent')) ?? '', /Receipt sent, card ending in 0042/);
  t.false(await page.isVisible('#cancel'));
  await shot(page, 'checking-nojs-phone-en');
  const operator = await asOperator('GET', `/api/v1/p2p/admin/deals/${deal.deal_id}`);
  t.is(operator.body.payer_proof.card_last4, '0042');
  t.is(operator.body.payer_proof.receipts.length, 1);

  const other = await slowPayin(keys);
  const cancel = await open(t, context, `${pageUrl(other)}?lang=tr`, 'nojs-cancel');
  await cancel.click('#cancel');
  await cancel.waitForURL(/confirm=cancel/);
  t.true(await cancel.isVisible('#cancel-confirmation'));
  // axe runs as a script: the same confirmation, looked at in a browser that runs scripts.
  const withScript = await open(t, await newContext(t), cancel.url(), 'nojs-cancel-confirmation');
  await accessible(t, withScript, 'nojs-cancel-confirmation');
  await shot(withScript, 'cancel-confirmation-nojs-phone-tr');
  await cancel.click('#cancel-keep');
  t.is((await checkout(hashOf(other.payment_url))).body.status, 'ESCROW_LOCKED');
  await cancel.click('#cancel');
  await cancel.click('#cancel-confirm');
  await cancel.waitForURL(/\?lang=tr$/);
  t.is(await cancel.textContent('h1'), 'Ödeme iptal edildi');
  t.false(await cancel.isVisible('#paid'), 'a finished payment shows no buttons');
  t.is(await cancel.$('#requisite'), null, 'and no requisites');

  // The switcher: plain links, remembered by a cookie.
  await cancel.click('.lang summary');
  await cancel.click('a[hreflang="uz-Cyrl"]');
  t.is(await cancel.getAttribute('html', 'lang'), 'uz-Cyrl');
  await cancel.goto(pageUrl(other));
  t.is(await cancel.getAttribute('html', 'lang'), 'uz-Cyrl');
});
