/// <reference lib="dom" />
/**
 * The console's names, search and exports in Debian's Chromium against the real stack: a short id
 * (the 8 characters a list shows) finds its deal in the deal filter and in the header's search box;
 * the search box finds a deal by its card's last four digits; lists name merchants and traders (the
 * id on hover and behind a copy button); the audit log shows who acted (email, role, session) and
 * the before/after diff; "Export CSV" downloads the filtered list; a deal's page says where the matcher
 * routed it and why, by name. axe-core on every page.
 */
import anyTest, { type ExecutionContext, type TestFn } from 'ava';
import { randomBytes, randomInt } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import type { BrowserContext, Page } from 'playwright-core';
import { API_URL, asOperator, newMerchant } from '../helpers/api';
import { createPayin, isolatedMethod } from '../helpers/deals';
import { openAppeal } from '../helpers/appeals';
import { testSql } from '../helpers/app';
import { seriousViolations } from '../helpers/axe';
import { fileBrowser } from '../helpers/console-browser';
import { ADMIN } from '../helpers/wallet';

const FAILURES = join(process.cwd(), '.data', 'console-screenshots');
const DOC_SHOTS = process.env.CONSOLE_SCREENSHOTS ? join(process.cwd(), process.env.CONSOLE_SCREENSHOTS) : undefined;
const BROWSER_WAIT_MS = 120_000;

type Role = 'arbiter' | 'finance' | 'support' | 'admin';
interface Ctx {
  pages: Array<{ name: string; page: Page }>;
  contexts: BrowserContext[];
}
const test = anyTest as TestFn<Ctx>;
const sql = testSql();
const browser = fileBrowser(test);
test.after.always(() => sql.end());
test.beforeEach((t) => {
  t.context.pages = [];
  t.context.contexts = [];
});
test.afterEach.always(async (t) => {
  if (!t.passed) {
    mkdirSync(FAILURES, { recursive: true });
    const slug = t.title.replace(/[^a-z0-9]+/gi, '-').slice(0, 60);
    for (const [i, { name, page }] of t.context.pages.entries()) {
      await page.screenshot({ path: join(FAILURES, `names-${slug}-${i}-${name}.png`), fullPage: true }).catch(() => undefined);
    }
  }
  for (const context of t.context.contexts) await context.close().catch(() => undefined);
});

async function operator(role: Role) {
  const email = `names-${role}-${process.pid}-${randomBytes(4).toString('hex')}@example.test`;
  const password = `pw-${randomBytes(12).toString('base64url')}`;
  const created = await asOperator('POST', `${ADMIN}/operators`, { email, password, role });
  if (created.status !== 201) throw new Error(`operator create failed: ${created.status} ${created.text}`);
  return { id: created.body.operator.operator_id as string, email, password, role };
}

async function signedIn(t: ExecutionContext<Ctx>, who: { email: string; password: string; role: Role }) {
  const context = await browser().newContext({ viewport: { width: 1280, height: 860 }, acceptDownloads: true });
  context.setDefaultTimeout(BROWSER_WAIT_MS);
  t.context.contexts.push(context);
  const page = await context.newPage();
  t.context.pages.push({ name: `${who.role}-signin`, page });
  await page.goto(`${API_URL}/console/`);
  await page.getByLabel('Email').fill(who.email);
  await page.getByLabel('Password').fill(who.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByTestId('operator').filter({ hasText: who.email }).waitFor();
  return page;
}

/** The page's heading, its loading done, axe clean (no serious or critical violation), and its picture for the docs. */
async function settled(t: ExecutionContext<Ctx>, page: Page, heading: string | RegExp, name: string) {
  t.context.pages.push({ name, page });
  await page.getByRole('heading', { level: 1, name: heading }).waitFor();
  await page.waitForFunction(() => !document.querySelector('[aria-busy="true"]'));
  const violations = await seriousViolations(page);
  t.deepEqual(violations, [], `axe on ${name}`);
  if (DOC_SHOTS) {
    mkdirSync(DOC_SHOTS, { recursive: true });
    await page.screenshot({ path: join(DOC_SHOTS, `${name}.png`), fullPage: true });
  }
}

/** A deal of a merchant with a name, on a trader whose card ends in four digits no other test uses; its appeal. */
async function namedDeal() {
  const method = await isolatedMethod();
  let tail = '';
  while (!tail) {
    const candidate = String(randomInt(10_000)).padStart(4, '0');
    const [used] = await sql`select 1 from requisites where card_tail = ${candidate} or phone_tail = ${candidate}
      union all select 1 from deals where target_tail = ${candidate} union all select 1 from payer_proofs where card_last4 = ${candidate} limit 1`;
    if (!used) tail = candidate;
  }
  const traderName = `Browser Trader ${randomBytes(3).toString('hex')}`;
  const trader = await asOperator('POST', `${ADMIN}/traders`, { name: traderName });
  const traderId = trader.body.trader.trader_id as string;
  await asOperator('POST', `${ADMIN}/traders/${traderId}/deposits`, { amount: 1_000_000, tx_hash: randomBytes(32).toString('hex') });
  await asOperator('POST', `${ADMIN}/traders/${traderId}/requisites`, {
    payment_method: method,
    requisite_type: 'BANK_CARD',
    card_number: `220012345678${tail}`,
    holder_name: 'Browser Holder',
    bank_name: 'browser-bank',
    min_amount: 100,
    max_amount: 100_000_000,
  });
  const merchantName = `Browser Shop ${randomBytes(3).toString('hex')}`;
  const merchant = await newMerchant({ name: merchantName });
  const deal = await createPayin(merchant.keys, { payment_method_id: method, amount: 254_300 });
  const appeal = await openAppeal(merchant.keys, { deal_id: deal.deal_id, reason: 'The payer says the card was charged.' });
  return { ...merchant, merchantName, traderId, traderName, tail, dealId: deal.deal_id, appealId: appeal.body.data.appeal_id as string };
}

test('a short id finds its deal: the deal filter and the search box take the 8 characters a list shows; names, not ids, with the id on hover', async (t) => {
  const d = await namedDeal();
  const page = await signedIn(t, await operator('support'));
  const short = d.dealId.slice(0, 8);

  await page.goto(`${API_URL}/console/deals`);
  await settled(t, page, 'Deals', 'deals-short-id');
  // The filter bar sends the id when the typing pauses; Enter sends it at once.
  await page.getByLabel('Deal id').fill(short);
  await page.getByLabel('Deal id').press('Enter');
  const row = page.locator('tbody tr').filter({ hasText: short });
  await row.waitFor();
  t.is(await page.locator('tbody tr').count(), 1, 'only the deal with that id');
  // The merchant and the trader by name; the whole ids on hover and behind the copy buttons.
  const merchant = row.getByRole('link', { name: d.merchantName });
  t.is(await merchant.locator('[title]').getAttribute('title'), `merchant ${d.merchantId}`);
  t.is(await row.getByRole('link', { name: d.traderName }).count(), 1);
  t.is(await row.getByRole('button', { name: `Copy merchant ${d.merchantId.slice(0, 8)}` }).count(), 1);
  t.is(await row.getByRole('link', { name: 'appeal' }).getAttribute('href'), `/console/appeals/${d.appealId}`);

  // The header's search box: the same 8 characters.
  await page.getByRole('searchbox').fill(short.toUpperCase());
  await page.getByRole('button', { name: 'Find' }).click();
  await settled(t, page, /^Search/, 'search');
  const found = page.locator(`[data-kind="deals"] li[data-deal="${d.dealId}"]`);
  await found.waitFor();
  t.regex((await found.textContent()) ?? '', new RegExp(`${d.merchantName}.*by id`));
  t.is(
    await page
      .locator('[data-kind="appeals"]')
      .getByRole('link', { name: d.appealId.slice(0, 8) })
      .count(),
    1,
    'its appeal, through its deal id',
  );
  await found.getByRole('link', { name: short }).click();
  await settled(t, page, new RegExp(`^Deal ${short}`), 'deal-names');
  t.is(await page.getByRole('link', { name: d.merchantName }).count(), 1);
  t.is(
    await page
      .locator('dd')
      .getByRole('link', { name: d.appealId.slice(0, 8) })
      .count(),
    1,
    'the deal links its appeal',
  );
  t.regex((await page.locator('dd').filter({ hasText: 'BANK_CARD' }).textContent()) ?? '', new RegExp(`BANK_CARD ·· ${d.tail}`));
});

test('the search box finds a deal by the last four digits of its card, grouped by kind with names', async (t) => {
  const d = await namedDeal();
  const page = await signedIn(t, await operator('arbiter'));
  await page.getByRole('searchbox').fill(`*${d.tail}`);
  await page.getByRole('searchbox').press('Enter');
  await settled(t, page, /^Search/, 'search-card-tail');
  const deal = page.locator(`[data-kind="deals"] li[data-deal="${d.dealId}"]`);
  await deal.waitFor();
  t.regex((await deal.textContent()) ?? '', /2 543\.00 RUB/);
  t.regex((await deal.textContent()) ?? '', /by trader card or phone tail/);
  t.is(await page.locator('[data-kind="traders"]').getByRole('link', { name: d.traderName }).count(), 1, 'the trader whose requisite ends so');
  t.is(await page.locator('[data-kind="operators"]').count(), 0, 'an arbiter does not search operators');
  await deal.getByRole('link', { name: d.dealId.slice(0, 8) }).click();
  await page.getByRole('heading', { level: 1, name: new RegExp(`^Deal ${d.dealId.slice(0, 8)}`) }).waitFor();
});

test('the audit log shows who acted (email, role, session), the object by name and the before/after diff; Export CSV is the filtered list', async (t) => {
  const admin = await operator('admin');
  const name = `Audited Shop ${randomBytes(3).toString('hex')}`;
  const { merchantId } = await newMerchant({ name });
  const page = await signedIn(t, admin);
  const changed = await page.evaluate(
    async ({ path }) => {
      const session = await (await fetch('/api/v1/p2p/admin/session')).json();
      const response = await fetch(path, {
        method: 'PATCH',
        headers: { 'X-CSRF-Token': session.csrf_token, 'Content-Type': 'application/json' },
        body: JSON.stringify({ rate_limit_per_minute: 321 }),
      });
      return response.status;
    },
    { path: `/api/v1/p2p/admin/merchants/${merchantId}` },
  );
  t.is(changed, 200);

  await page.goto(`${API_URL}/console/audit?object_id=${merchantId.slice(0, 8)}&action=merchant.update_settings`);
  await settled(t, page, 'Audit log', 'audit-diff');
  const row = page.locator('tr[data-action="merchant.update_settings"]').first();
  await row.waitFor();
  const actor = row.getByTestId('actor');
  t.is(await actor.getByRole('link', { name: admin.email }).count(), 1, 'the account by its email');
  t.regex((await actor.textContent()) ?? '', /admin\s*session [0-9a-f]{12}/);
  t.is(await row.getByTestId('object').getByRole('link', { name }).getAttribute('href'), `/console/merchants/${merchantId}`);
  const diff = row.getByTestId('diff').locator('tr').filter({ hasText: 'rate_limit_per_minute' });
  t.is(await diff.locator('td.after').textContent(), '321');
  t.not(await diff.locator('td.before').textContent(), '321');

  // Export CSV: the same filters, the file named for them, the rows of the list.
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Export CSV' }).click()]);
  t.is(download.suggestedFilename(), `audit_id-${merchantId.slice(0, 8)}_action-merchant.update_settings.csv`);
  const rows: Record<string, string>[] = parse(readFileSync((await download.path())!, 'utf8'), { columns: true });
  t.is(rows.length, await page.locator('tbody tr[data-action]').count());
  t.is(rows[0]!.actor_name, admin.email);
  t.is(JSON.parse(rows[0]!.after!).rate_limit_per_minute, 321);
});

test("a deal's page says where the matcher routed it and why, by the trader's name, with the candidates by name and score", async (t) => {
  const method = await isolatedMethod();
  const names: string[] = [];
  for (let i = 0; i < 2; i++) {
    const name = `Routing Trader ${randomBytes(3).toString('hex')}`;
    const trader = await asOperator('POST', `${ADMIN}/traders`, { name });
    const traderId = trader.body.trader.trader_id as string;
    await asOperator('POST', `${ADMIN}/traders/${traderId}/deposits`, { amount: 1_000_000, tx_hash: randomBytes(32).toString('hex') });
    await asOperator('POST', `${ADMIN}/traders/${traderId}/requisites`, {
      payment_method: method,
      requisite_type: 'BANK_CARD',
      card_number: '2200123456781234',
      holder_name: 'Routing Holder',
      bank_name: 'routing-bank',
      min_amount: 100,
      max_amount: 100_000_000,
    });
    names.push(name);
  }
  const merchant = await newMerchant();
  const deal = await createPayin(merchant.keys, { payment_method_id: method, amount: 254_300 });
  const [row] = await sql<{ name: string }[]>`select t.name from deals d join traders t on t.id = d.trader_id where d.id = ${deal.deal_id}`;
  const chosen = row!.name;

  const page = await signedIn(t, await operator('support'));
  await page.goto(`${API_URL}/console/deals/${deal.deal_id}`);
  await settled(t, page, /^Deal /, 'deal-routing');
  const routing = page.getByTestId('routing');
  t.regex(
    (await routing.textContent()) ?? '',
    new RegExp(
      `^Routed to ${chosen} · BANK_CARD •••• 1234, routing-bank — (best score of 2 candidates \\(500 vs 500\\)|explored \\(10 % of deals go to a random candidate so new requisites earn a score\\))$`,
    ),
  );
  t.is(await routing.getByRole('link', { name: chosen }).count(), 1, 'the trader by name, a link to it');
  await page.locator('summary', { hasText: '2 candidates' }).click();
  for (const name of names) t.regex((await page.locator('details li', { hasText: name }).textContent()) ?? '', /score 500/);
});
