/// <reference lib="dom" />
/**
 * The operator console in Chromium for the browser tests of test/e2e/console-*.test.ts: a browser,
 * console accounts of each role, a signed-in context (any viewport and time zone), axe-core's
 * serious and critical findings (axe.ts), and a call made from the signed-in page itself; for a
 * test that keeps its pages, screenshots when it fails (.data/console-screenshots/) and of the pages
 * the docs show (CONSOLE_SCREENSHOTS=<dir>).
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { ExecutionContext, TestFn } from 'ava';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { API_URL, asOperator } from './api';
import { ADMIN } from './wallet';
import { seriousViolations } from './axe';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** How long a page waits for an element or a state: a bound for a wait gone wrong, far above what a loaded machine takes. */
const BROWSER_WAIT_MS = 120_000;

export type Role = 'arbiter' | 'finance' | 'support' | 'admin';
export type Operator = { id: string; email: string; password: string; role: Role };

function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/**
 * One Chromium for a test file: launched before its tests, closed after them. The getter gives it
 * to the tests (it exists once the file's before hooks have run).
 */
export function fileBrowser<Context>(test: TestFn<Context>): () => Browser {
  let browser: Browser | undefined;
  test.before(async () => {
    browser = await launchBrowser();
  });
  test.after.always(async () => browser?.close());
  return () => {
    if (!browser) throw new Error('the browser is launched in the before hook of the file');
    return browser;
  };
}

/** The frame of a browser test file: fileBrowser's Chromium, and each test's pages and contexts kept for closeTestPages. */
export function browserTests(test: TestFn<BrowserCtx>): () => Browser {
  const browser = fileBrowser(test);
  test.beforeEach((t) => {
    t.context.pages = [];
    t.context.contexts = [];
  });
  test.afterEach.always((t) => closeTestPages(t));
  return browser;
}

let counter = 0;
/** A console account of a role, made with the spec's operator JWT (as an admin would). */
export async function consoleOperator(role: Role): Promise<Operator> {
  counter += 1;
  const email = `desk-${role}-${process.pid}-${counter}-${randomBytes(3).toString('hex')}@example.test`;
  const password = `pw-${randomBytes(12).toString('base64url')}`;
  const created = await asOperator('POST', `${ADMIN}/operators`, { email, password, role });
  if (created.status !== 201) throw new Error(`operator create failed: ${created.status} ${created.text}`);
  return { id: created.body.operator.operator_id as string, email, password, role };
}

export const PHONE = { width: 390, height: 844 };
export const DESKTOP = { width: 1280, height: 860 };

/** A browser context of its own (cookies), signed in through the sign-in page. */
export async function signedInContext(
  browser: Browser,
  who: Operator,
  options: { viewport?: { width: number; height: number }; timezoneId?: string } = {},
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: options.viewport ?? DESKTOP, ...(options.timezoneId ? { timezoneId: options.timezoneId } : {}) });
  context.setDefaultTimeout(BROWSER_WAIT_MS);
  const page = await context.newPage();
  await page.goto(`${API_URL}/console/`);
  await page.getByLabel('Email').fill(who.email);
  await page.getByLabel('Password').fill(who.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByTestId('operator').filter({ hasText: who.email }).waitFor();
  return { context, page };
}

/** Waits until no part of the page says it is loading. */
export const settled = (page: Page) => page.waitForFunction(() => !document.querySelector('[aria-busy="true"]'));

/** axe-core on the page as it is: its serious and critical violations, one line each. */
export const axeViolations = seriousViolations;

/** How far the page reaches beyond the viewport sideways (0: no sideways scrolling). */
export const overflowX = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);

// ---- A test's pages: screenshots on failure and for the docs, a visit that checks the page ----

const FAILURES = join(process.cwd(), '.data', 'console-screenshots');
const DOC_SHOTS = process.env.CONSOLE_SCREENSHOTS ? join(process.cwd(), process.env.CONSOLE_SCREENSHOTS) : undefined;

/** What a test keeps of its browsers: the pages it visited (screenshotted if it fails) and its contexts (closed after it). */
export interface BrowserCtx {
  pages: Array<{ name: string; page: Page }>;
  contexts: BrowserContext[];
}

/** A test's pages, screenshotted when it failed; its contexts closed. */
async function closeTestPages(t: ExecutionContext<BrowserCtx>) {
  if (!t.passed) {
    mkdirSync(FAILURES, { recursive: true });
    const slug = t.title
      .replace(/^afterEach\.always hook for /, '')
      .replace(/[^a-z0-9]+/gi, '-')
      .slice(0, 60);
    for (const [i, { name, page }] of t.context.pages.entries()) {
      await page.screenshot({ path: join(FAILURES, `${slug}-${i}-${name}.png`), fullPage: true }).catch(() => undefined);
    }
  }
  for (const context of t.context.contexts) await context.close().catch(() => undefined);
}

/** A browser context of the test's own (cookies), its console watched for CSP violations. */
export async function freshPage(t: ExecutionContext<BrowserCtx>, browser: Browser, name: string, viewport = DESKTOP) {
  const context = await browser.newContext({ viewport });
  context.setDefaultTimeout(BROWSER_WAIT_MS);
  t.context.contexts.push(context);
  const page = await context.newPage();
  const cspViolations: string[] = [];
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) cspViolations.push(message.text());
  });
  t.context.pages.push({ name, page });
  return { context, page, cspViolations };
}

/** The test's own context, signed in through the sign-in page. */
export async function signedIn(t: ExecutionContext<BrowserCtx>, browser: Browser, who: Operator) {
  const opened = await freshPage(t, browser, `${who.role}-signin`);
  await opened.page.goto(`${API_URL}/console/`);
  await opened.page.getByLabel('Email').fill(who.email);
  await opened.page.getByLabel('Password').fill(who.password);
  await opened.page.getByRole('button', { name: 'Sign in' }).click();
  await opened.page.getByTestId('operator').filter({ hasText: who.email }).waitFor();
  return opened;
}

/** The page's heading is there and nothing is loading. */
export async function headingSettled(page: Page, heading: string | RegExp) {
  await page.getByRole('heading', { level: 1, name: heading }).waitFor();
  await settled(page);
}

/** Opens a console page by URL, waits for its heading and for nothing to be loading, checks accessibility (docShot takes its picture). */
export async function visit(t: ExecutionContext<BrowserCtx>, page: Page, path: string, heading: string | RegExp, name: string) {
  t.context.pages.push({ name, page });
  await page.goto(`${API_URL}/console${path}`);
  await headingSettled(page, heading);
  await accessible(t, page, name);
}

/** A PNG of the page for docs/console-pages.md, when CONSOLE_SCREENSHOTS names the folder. */
export async function docShot(page: Page, name: string) {
  if (!DOC_SHOTS) return;
  mkdirSync(DOC_SHOTS, { recursive: true });
  await page.screenshot({ path: join(DOC_SHOTS, `${name}.png`), fullPage: true });
}

/** axe-core on the page as it is: no serious or critical violation. */
export async function accessible(t: ExecutionContext<BrowserCtx>, page: Page, name: string) {
  t.deepEqual(await seriousViolations(page), [], `axe on ${name}`);
}
