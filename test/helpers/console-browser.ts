/// <reference lib="dom" />
/**
 * The console in Debian's Chromium for a browser test: one browser per test file, a context per
 * operator (its own cookies), sign-in through the page, a visit that waits for the page's heading
 * and runs axe-core (no serious or critical violation), screenshots of the pages a test visited
 * when it fails (.data/console-screenshots/) and, with CONSOLE_SCREENSHOTS=<dir>, of the pages the
 * docs show.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { ExecutionContext } from 'ava';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { totpAt } from '../../domain/crypto/totp';
import { API_URL, asOperator } from './api';
import { seriousViolations } from './axe';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const FAILURES = join(process.cwd(), '.data', 'console-screenshots');
const DOC_SHOTS = process.env.CONSOLE_SCREENSHOTS ? join(process.cwd(), process.env.CONSOLE_SCREENSHOTS) : undefined;
/** How long a page waits for an element or a state: a bound for a wait gone wrong, far above what a loaded machine takes. */
const BROWSER_WAIT_MS = 120_000;

export type Role = 'arbiter' | 'finance' | 'support' | 'admin';
export interface BrowserCtx {
  pages: Array<{ name: string; page: Page }>;
  contexts: BrowserContext[];
}

export function launchChromium(): Promise<Browser> {
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

/** A test's pages, screenshotted when it failed; its contexts closed. */
export async function closeTestPages(t: ExecutionContext<BrowserCtx>) {
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

let counter = 0;
/** A console account of a role, made with the spec's operator JWT (as an admin would). */
export async function consoleOperator(role: Role) {
  counter += 1;
  const email = `console-${role}-${process.pid}-${counter}-${randomBytes(3).toString('hex')}@example.test`;
  const password = `pw-${randomBytes(12).toString('base64url')}`;
  const created = await asOperator('POST', '/api/v1/p2p/admin/operators', { email, password, role });
  if (created.status !== 201) throw new Error(`operator create failed: ${created.status} ${created.text}`);
  return { id: created.body.operator.operator_id as string, email, password, role };
}

/** A browser context of its own (cookies), its console messages watched for CSP violations. */
export async function freshPage(t: ExecutionContext<BrowserCtx>, browser: Browser, name: string) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
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

/** Signed in through the sign-in page. */
export async function signedIn(t: ExecutionContext<BrowserCtx>, browser: Browser, who: { email: string; password: string; role: Role }, totpSecret?: string) {
  const opened = await freshPage(t, browser, `${who.role}-signin`);
  const { page } = opened;
  await page.goto(`${API_URL}/console/`);
  await page.getByLabel('Email').fill(who.email);
  await page.getByLabel('Password').fill(who.password);
  if (totpSecret) {
    await page.getByLabel('I use an authenticator code').check();
    await page.getByRole('textbox', { name: /^Authenticator code/ }).fill(totpAt(totpSecret, Date.now()));
  }
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByTestId('operator').filter({ hasText: who.email }).waitFor();
  return opened;
}

/** Opens a console page by URL, waits for its heading and for nothing to be loading, checks accessibility (docShot takes its picture). */
export async function visit(t: ExecutionContext<BrowserCtx>, page: Page, path: string, heading: string | RegExp, name: string) {
  t.context.pages.push({ name, page });
  await page.goto(`${API_URL}/console${path}`);
  await settled(page, heading);
  await accessible(t, page, name);
}

/** The page's heading is there and nothing is loading. */
export async function settled(page: Page, heading: string | RegExp) {
  await page.getByRole('heading', { level: 1, name: heading }).waitFor();
  await page.waitForFunction(() => !document.querySelector('[aria-busy="true"]'));
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
