/// <reference lib="dom" />
/**
 * The console as a desk, in Chromium against the real stack: each dialog's promise (the statuses
 * it says the move leaves) held against what the move really did, read back from the API; the
 * settlement offered before SATISFIED on an expired deal; deal filters in UTC from a Moscow-zone
 * browser, kept in the URL through a reload and Back, statuses as the state tables' choices,
 * sorting, saved views, and typing that does not send a request per keystroke; every page at
 * 390 px (rows as cards, actions on screen, no sideways scrolling) and at 1280 px with no serious
 * or critical axe finding; focus on the new page's heading, into dialogs and back; a name with a
 * right-to-left override shown marked.
 * CONSOLE_SCREENSHOTS=<dir> (npm run console:screenshots) writes the pages docs/console-pages.md shows.
 */
import anyTest, { type TestFn } from 'ava';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { BrowserContext, Locator, Page } from 'playwright-core';
import { API_URL, asOperator, newMerchant } from '../helpers/api';
import { createPayin } from '../helpers/deals';
import { dealReaches, openAppeal } from '../helpers/appeals';
import { testSql } from '../helpers/app';
import { eventually } from '../helpers/poll';
import { ADMIN, randomTronAddress, walletMerchant, withdraw } from '../helpers/wallet';
import { axeViolations, consoleOperator, DESKTOP, fileBrowser, overflowX, PHONE, settled, signedInContext } from '../helpers/console-browser';
import { PAYIN_STATUSES } from '../../domain/state/payin';
import { PAYOUT_STATUSES } from '../../domain/state/payout';

const FAILURES = join(process.cwd(), '.data', 'console-screenshots');
const DOC_SHOTS = process.env.CONSOLE_SCREENSHOTS ? join(process.cwd(), process.env.CONSOLE_SCREENSHOTS) : undefined;

interface Ctx {
  contexts: BrowserContext[];
  pages: Array<{ name: string; page: Page }>;
}
const test = anyTest as TestFn<Ctx>;
const sql = testSql();
const browser = fileBrowser(test);
test.after.always(() => sql.end());
test.beforeEach((t) => {
  t.context.contexts = [];
  t.context.pages = [];
});
test.afterEach.always(async (t) => {
  if (!t.passed) {
    mkdirSync(FAILURES, { recursive: true });
    const slug = t.title
      .replace(/^afterEach\.always hook for /, '')
      .replace(/[^a-z0-9]+/gi, '-')
      .slice(0, 60);
    for (const [i, { name, page }] of t.context.pages.entries()) {
      await page.screenshot({ path: join(FAILURES, `desk-${slug}-${i}-${name}.png`), fullPage: true }).catch(() => undefined);
    }
  }
  for (const context of t.context.contexts) await context.close().catch(() => undefined);
});

async function signedIn(t: { context: Ctx }, role: Parameters<typeof consoleOperator>[0], options: Parameters<typeof signedInContext>[2] = {}) {
  const who = await consoleOperator(role);
  const { context, page } = await signedInContext(browser(), who, options);
  t.context.contexts.push(context);
  t.context.pages.push({ name: role, page });
  return { who, page };
}

async function docShot(page: Page, name: string) {
  if (!DOC_SHOTS) return;
  mkdirSync(DOC_SHOTS, { recursive: true });
  await page.screenshot({ path: join(DOC_SHOTS, `${name}.png`), fullPage: true });
}

async function open(page: Page, path: string, heading: string | RegExp) {
  await page.goto(`${API_URL}/console${path}`);
  await page.getByRole('heading', { level: 1, name: heading }).waitFor();
  await settled(page);
}

/** What a dialog promises: the status it says each object will have after the move (data-after, by data-kind). */
async function promised(dialog: Locator): Promise<Record<string, string>> {
  await dialog.waitFor();
  return dialog.evaluate((el) =>
    Object.fromEntries(Array.from(el.querySelectorAll<HTMLElement>('[data-after]')).map((s) => [s.dataset.kind ?? '', s.dataset.after ?? ''])),
  );
}

const adminDeal = async (dealId: string) => (await asOperator('GET', `${ADMIN}/deals/${dealId}`)).body.deal as { status: string; amount_match_status: string };
const adminAppeal = async (appealId: string) => (await asOperator('GET', `${ADMIN}/appeals/${appealId}`)).body.data;

// A PayIn left to expire (PAYIN_TIMEOUT_SECONDS of the test stack) while the tests before the settlement run.
let expiring: Promise<{ keys: Awaited<ReturnType<typeof newMerchant>>['keys']; dealId: string }>;
test.before(() => {
  expiring = newMerchant({ name: `Desk expiring ${process.pid}` }).then(async ({ keys }) => ({ keys, dealId: (await createPayin(keys)).deal_id }));
  expiring.catch(() => undefined);
});

test.serial(
  'REJECTED on a live deal: the dialog says the deal becomes CANCELLED, and it does; close is not offered while the appeal holds the deal',
  async (t) => {
    const { keys } = await newMerchant({ name: `Desk reject ${process.pid}` });
    const deal = await createPayin(keys);
    const opened = await openAppeal(keys, { deal_id: deal.deal_id, reason: 'The payer says the money left their account' });
    t.is(opened.status, 200, opened.text);
    const appealId = opened.body.data.appeal_id as string;
    await dealReaches(keys, deal.deal_id, 'APPEALED');

    const { page } = await signedIn(t, 'arbiter');
    await open(page, `/appeals/${appealId}`, /Appeal/);
    t.is(await page.getByRole('button', { name: 'Close' }).count(), 0, 'an appeal that holds its deal is resolved, not closed');
    await page.getByLabel(/REJECTED/).check();
    await page.getByRole('button', { name: 'Resolve…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Resolve as REJECTED?' });
    const promise = await promised(dialog);
    t.deepEqual(promise, { appeal: 'RESOLVED_TRADER', deal: 'CANCELLED' });
    t.regex((await dialog.textContent()) ?? '', /the deal becomes CANCELLED \(now APPEALED\)/);
    t.notRegex((await dialog.textContent()) ?? '', /stays/);
    await docShot(page, 'appeal-reject-dialog');
    await dialog.getByRole('button', { name: 'Resolve REJECTED' }).click();
    await page.getByTestId('appeal-status').filter({ hasText: promise.appeal! }).waitFor();
    const after = await adminAppeal(appealId);
    t.is(after.status, promise.appeal);
    t.is(after.deal.status, promise.deal, 'the deal is what the dialog said');
  },
);

test.serial('an expired deal: SATISFIED is not offered until the settlement, which comes first; each dialog’s promise is the outcome', async (t) => {
  const { keys, dealId } = await expiring;
  const { page } = await signedIn(t, 'arbiter');
  await dealReaches(keys, dealId, 'EXPIRED');
  const opened = await openAppeal(keys, { deal_id: dealId, reason: 'The payer paid after the timeout' });
  t.is(opened.status, 200, opened.text);
  const appealId = opened.body.data.appeal_id as string;
  await open(page, `/appeals/${appealId}`, /Appeal/);

  t.is(await page.getByLabel(/SATISFIED/).count(), 0, 'SATISFIED is not offered before the settlement');
  t.regex((await page.getByTestId('not-offered-SATISFIED').textContent()) ?? '', /settle it first/);
  const settleBox = await page.getByRole('heading', { name: 'Settlement of the expired deal' }).boundingBox();
  const resolveBox = await page.getByRole('form', { name: 'Resolve the appeal' }).boundingBox();
  t.true(settleBox!.y < resolveBox!.y, 'the settlement is offered first');

  await page.getByLabel('Received amount override (RUB)').fill('1 500,50');
  await page.getByText('= 1 500.50 RUB').waitFor();
  await page.getByLabel('Reason', { exact: true }).fill('Bank statement shows the payment after the timeout');
  await page.getByRole('button', { name: 'Settle…' }).click();
  const settleDialog = page.getByRole('dialog', { name: 'Create the settlement deal?' });
  const settlePromise = await promised(settleDialog);
  t.deepEqual(settlePromise, { appeal: 'OPEN', deal: 'EXPIRED', 'new-deal': 'COMPLETED' });
  t.regex((await settleDialog.textContent()) ?? '', /1 500\.50 RUB/);
  await docShot(page, 'appeal-settle-first-dialog');
  await settleDialog.getByRole('button', { name: 'Settle' }).click();
  await page.locator('dt', { hasText: 'Settlement deal' }).waitFor();
  const settled = await adminAppeal(appealId);
  t.is(settled.status, settlePromise.appeal);
  t.is(settled.deal.status, settlePromise.deal);
  const settlement = (await asOperator('GET', `${ADMIN}/deals/${settled.settlement_deal_id}`)).body.deal;
  t.like(settlement, { status: settlePromise['new-deal'], amount: '150050' });

  // Now SATISFIED is offered, and REJECTED no longer (the settlement credited the merchant).
  await page.getByLabel(/SATISFIED/).check();
  t.is(await page.getByLabel(/REJECTED/).count(), 0);
  await page.getByRole('button', { name: 'Resolve…' }).click();
  const dialog = page.getByRole('dialog', { name: 'Resolve as SATISFIED?' });
  const promise = await promised(dialog);
  t.deepEqual(promise, { appeal: 'RESOLVED_MERCHANT', deal: 'EXPIRED' });
  t.regex((await dialog.textContent()) ?? '', /the deal stays EXPIRED/);
  await dialog.getByRole('button', { name: 'Resolve SATISFIED' }).click();
  await page.getByTestId('appeal-status').filter({ hasText: promise.appeal! }).waitFor();
  const resolved = await adminAppeal(appealId);
  t.is(resolved.status, promise.appeal);
  t.is(resolved.deal.status, promise.deal);
});

test.serial(
  'deal moves: a partial amount recorded, a confirmation that stops at PAYMENT_VERIFIED, the full amount that completes — each as its dialog said',
  async (t) => {
    const { keys } = await newMerchant({ name: `Desk moves ${process.pid}` });
    const { page } = await signedIn(t, 'arbiter');
    const deal = await createPayin(keys);
    await open(page, `/deals/${deal.deal_id}`, /Deal/);

    const act = async (button: string, title: string, confirm: string) => {
      await page.getByRole('button', { name: button }).click();
      const dialog = page.getByRole('dialog', { name: title });
      const promise = await promised(dialog);
      await dialog.getByRole('button', { name: confirm }).click();
      await dialog.waitFor({ state: 'detached' });
      return promise;
    };
    await page.getByLabel('Amount received (RUB)').fill('1000');
    const partial = await act('Record received amount…', 'Record the received amount?', 'Record');
    t.deepEqual(partial, { deal: 'ESCROW_LOCKED' });
    await eventually(async () => ((await adminDeal(deal.deal_id)).amount_match_status === 'partial' ? true : undefined), 'the partial amount recorded');
    t.is(partial.deal, (await adminDeal(deal.deal_id)).status);
    // The page reads the deal as recorded (on a loaded machine its refetch may have come first): the next dialog promises from it.
    await open(page, `/deals/${deal.deal_id}`, /Deal/);

    await page.getByRole('button', { name: 'Confirm payment…' }).waitFor();
    const confirmed = await act('Confirm payment…', 'Confirm the payment?', 'Confirm payment');
    t.deepEqual(confirmed, { deal: 'PAYMENT_VERIFIED' }, 'a partial amount blocks the completion, and the dialog says so');
    await page.getByRole('heading', { level: 1, name: /PAYMENT_VERIFIED/ }).waitFor();
    t.is(confirmed.deal, (await adminDeal(deal.deal_id)).status);

    await page.getByLabel('Amount received (RUB)').fill('1500');
    const full = await act('Record received amount…', 'Record the received amount?', 'Record');
    t.deepEqual(full, { deal: 'COMPLETED' });
    await page.getByRole('heading', { level: 1, name: /COMPLETED/ }).waitFor();
    t.is(full.deal, (await adminDeal(deal.deal_id)).status);
    t.is(await page.getByRole('button', { name: /Record received amount|Confirm payment/ }).count(), 0, 'nothing is offered on a COMPLETED deal');
  },
);

test.serial(
  'deal filters from a Moscow-zone browser: a UTC window finds the right deals; the filter survives a reload and Back; statuses from the state tables; sorting; a saved view; no request per keystroke',
  async (t) => {
    const { keys, merchantId } = await newMerchant({ name: `Desk Moscow ${process.pid}` });
    const deals = [];
    for (const amount of [130000, 110000, 120000]) deals.push(await createPayin(keys, { amount }));
    // 10:00, 12:00 and 14:00 UTC: in Moscow (UTC+3) 13:00, 15:00 and 17:00.
    for (const [i, d] of deals.entries()) await sql`update deals set created_at = ${new Date(Date.UTC(2031, 2, 1, 10 + 2 * i))} where id = ${d.deal_id}`;
    const ids = deals.map((d) => d.deal_id) as [string, string, string];
    const { page } = await signedIn(t, 'support', { timezoneId: 'Europe/Moscow' });
    t.is(await page.evaluate(() => Intl.DateTimeFormat().resolvedOptions().timeZone), 'Europe/Moscow');
    const shown = () => page.locator('tr[data-deal]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-deal')));

    // Typing the merchant's id: one search when the typing pauses, not one per keystroke.
    await open(page, '/deals', 'Deals');
    const searches: string[] = [];
    page.on('request', (r) => {
      if (r.url().includes('/api/v1/p2p/admin/deals?')) searches.push(r.url());
    });
    await page.getByLabel('Merchant id').pressSequentially(merchantId, { delay: 15 });
    await eventually(async () => ((await shown()).sort().join() === [...ids].sort().join() ? true : undefined), "the merchant's three deals");
    t.true(searches.length <= 3, `${searches.length} requests for ${merchantId.length} keystrokes`);

    // The window typed in UTC (the field says so, and names the browser's own zone).
    await page.getByLabel(/^Created from/).fill('2031-03-01T11:00:00');
    await page.getByLabel(/^Created to/).fill('2031-03-01T13:00:00');
    await eventually(async () => ((await shown()).join() === ids[1] ? true : undefined), 'only the 12:00Z deal');
    t.regex((await page.locator('.filters').textContent()) ?? '', /Europe\/Moscow \(UTC\+03:00\)/);
    t.true(
      searches.some((u) => new URL(u).searchParams.get('created_after') === '2031-03-01T11:00:00Z'),
      'sent as UTC',
    );
    t.is(new URL(page.url()).searchParams.get('from'), '2031-03-01T11:00:00Z');
    await docShot(page, 'deals-filters');

    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Deals' }).waitFor();
    await eventually(async () => ((await shown()).join() === ids[1] ? true : undefined), 'the same deal after a reload');
    t.regex(await page.getByLabel(/^Created from/).inputValue(), /^2031-03-01T11:00(:00)?$/);
    await page.getByRole('link', { name: ids[1]!.slice(0, 8) }).click();
    await page.getByRole('heading', { level: 1, name: /Deal/ }).waitFor();
    await page.goBack();
    await eventually(async () => ((await shown()).join() === ids[1] ? true : undefined), 'the same deal after Back');

    // A saved view keeps the filter; a view without filters shows all three again.
    await page.getByText('Saved views').click();
    await page.getByLabel('Name of this view').fill('Moscow afternoon');
    await page.getByRole('button', { name: 'Save view' }).click();
    await open(page, `/deals?merchant_id=${merchantId}`, 'Deals');
    await eventually(async () => ((await shown()).length === 3 ? true : undefined), 'all three deals');

    // Sorting by amount, both ways, in the URL.
    await page.getByRole('button', { name: /^Amount: sort/ }).click();
    await eventually(async () => ((await shown()).join() === [ids[0], ids[2], ids[1]].join() ? true : undefined), 'largest amount first');
    t.is(await page.locator('th[aria-sort="descending"]').textContent(), 'Amount ▼');
    await page.getByRole('button', { name: /^Amount: sort/ }).click();
    await eventually(async () => ((await shown()).join() === [ids[1], ids[2], ids[0]].join() ? true : undefined), 'smallest amount first');
    t.is(new URL(page.url()).searchParams.get('sort'), 'amount');

    // Statuses are the state tables' choices.
    await page.getByText(/^Status: any/).click();
    const choices = await page.locator('details.multi input[type="checkbox"]').evaluateAll((boxes) => boxes.map((b) => b.parentElement!.textContent!.trim()));
    t.deepEqual(choices.sort(), [...new Set([...PAYIN_STATUSES, ...PAYOUT_STATUSES])].sort());
    await page.getByLabel('SPAM_REJECTED').check();
    await page.getByText('No deals match.').waitFor();
    t.deepEqual(new URL(page.url()).searchParams.getAll('status'), ['SPAM_REJECTED']);

    await page.getByText('Saved views').click();
    await page.getByRole('link', { name: 'Moscow afternoon' }).click();
    await eventually(async () => ((await shown()).join() === ids[1] ? true : undefined), 'the saved view');
  },
);

test.serial(
  'phone and desktop: every page at 390 px as cards with no sideways scrolling and Approve on screen, no serious axe finding at 390 and 1280 px; focus on headings, into dialogs and back; a right-to-left override shown marked',
  async (t) => {
    const { merchantId, keys } = await walletMerchant(5_000_000, { auto_withdrawal_mode: 'MANUAL_ONLY' });
    const bidi = await newMerchant({ name: `\u202Egnp.exe ${process.pid}` });
    const big = await withdraw(keys, { address: randomTronAddress(), amount: 150_000 });
    t.is(big.body.status, 'PENDING_MANUAL', big.text);
    const deal = await createPayin(bidi.keys);
    const opened = await openAppeal(bidi.keys, { deal_id: deal.deal_id, reason: 'Paid, the deal did not complete' });
    const appealId = opened.body.data.appeal_id as string;
    const pages: Array<[string, string | RegExp, string]> = [
      ['/', 'Queues', 'home'],
      ['/appeals', 'Appeals', 'appeals'],
      [`/appeals/${appealId}`, /Appeal/, 'appeal'],
      ['/withdrawals', 'Withdrawals', 'withdrawals'],
      [`/deals?merchant_id=${bidi.merchantId}`, 'Deals', 'deals'],
      [`/deals/${deal.deal_id}`, /Deal/, 'deal'],
      ['/merchants', 'Merchants', 'merchants'],
      [`/merchants/${bidi.merchantId}`, /gnp\.exe/, 'merchant'],
      ['/traders', 'Traders and requisites', 'traders'],
      ['/alerts', 'Alerts', 'alerts'],
      ['/audit', 'Audit log', 'audit'],
      ['/operators', 'Operators', 'operators'],
      ['/account', 'Your account', 'account'],
    ];

    for (const viewport of [PHONE, DESKTOP]) {
      const { page } = await signedIn(t, 'admin', { viewport });
      for (const [path, heading, name] of pages) {
        await open(page, path, heading);
        t.deepEqual(await axeViolations(page), [], `axe on ${name} at ${viewport.width} px`);
        if (viewport === PHONE) {
          t.true((await overflowX(page)) <= 0, `no sideways scrolling on ${name} at 390 px`);
          if (['home', 'withdrawals', 'deals', 'merchant'].includes(name)) await docShot(page, `phone-${name}`);
        }
      }
      if (viewport === PHONE) {
        await open(page, `/withdrawals?merchant_id=${merchantId}`, 'Withdrawals');
        const approve = page.locator(`tr[data-withdrawal="${big.body.withdrawal_id}"]`).getByRole('button', { name: 'Approve' });
        const box = (await approve.boundingBox())!;
        t.true(box.x >= 0 && box.x + box.width <= PHONE.width, `Approve on screen: ${JSON.stringify(box)}`);
        t.is(await page.locator('table.cards-on-phone tr[data-withdrawal] td[data-label="Status"]').count(), 1, 'a card, each cell under its name');
      } else {
        // At 1280 px the sections are one row under the search and who is signed in, however long the email.
        const tops = await page.locator('header nav a').evaluateAll((links) => links.map((a) => Math.round(a.getBoundingClientRect().top)));
        t.is(new Set(tops).size, 1, `the menu in one row at 1280 px: ${tops.join(', ')}`);
        t.true((await page.locator('header').boundingBox())!.height <= 120, 'a header of two rows at most');
      }
    }

    const { page } = await signedIn(t, 'admin');
    // The name as typed would read "exe.png"; it shows the override as a marker, and the page holds no U+202E.
    await open(page, `/merchants/${bidi.merchantId}`, /gnp\.exe/);
    const heading = ((await page.getByRole('heading', { level: 1 }).textContent()) ?? '').trim();
    t.true(heading.startsWith('[RLO]gnp.exe'), heading);
    t.false(((await page.locator('main').textContent()) ?? '').includes('\u202E'));
    await docShot(page, 'merchant-bidi');

    // Navigation takes the focus to the new page's heading.
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Deals' }).click();
    await page.getByRole('heading', { level: 1, name: 'Deals' }).waitFor();
    await page.waitForFunction(() => document.activeElement?.tagName === 'H1' && document.activeElement.textContent === 'Deals');

    // A dialog takes the focus and gives it back: Escape, Cancel, and after confirming.
    await open(page, `/merchants/${bidi.merchantId}`, /gnp\.exe/);
    const toggle = page.getByRole('button', { name: 'Turn the kill-switch on' });
    const focusedText = () => page.evaluate(() => document.activeElement?.textContent ?? '');
    const inDialog = () => page.evaluate(() => !!document.activeElement?.closest('dialog[open]'));
    await toggle.click();
    await page.getByRole('dialog').waitFor();
    await page.waitForFunction(() => !!document.activeElement?.closest('dialog[open]'));
    t.true(await inDialog());
    await page.keyboard.press('Escape');
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    await page.waitForFunction(() => document.activeElement?.textContent === 'Turn the kill-switch on');
    await toggle.click();
    await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
    await page.waitForFunction(() => document.activeElement?.textContent === 'Turn the kill-switch on');
    await toggle.click();
    await page.getByRole('dialog').getByRole('button', { name: 'Turn on' }).click();
    await page.getByTestId('kill-switch-on').waitFor();
    await page.waitForFunction(() => document.activeElement?.textContent === 'Turn the kill-switch off');
    t.is(await focusedText(), 'Turn the kill-switch off');
  },
);
