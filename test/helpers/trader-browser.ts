/**
 * The trader app in Chromium: a trader signed in through the app's own sign-in page (email,
 * password, a fresh authenticator code) in a context of the test's own, at a phone's size unless
 * told otherwise; screenshots for docs/trader.md when TRADER_SCREENSHOTS names the folder.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { ExecutionContext } from 'ava';
import type { Browser, Page } from 'playwright-core';
import { API_URL } from './api';
import { freshCode } from './cabinet-session';
import { headingSettled, PHONE, type BrowserCtx } from './console-browser';
import type { TraderAccount } from './trader-session';

const DOC_SHOTS = process.env.TRADER_SCREENSHOTS ? join(process.cwd(), process.env.TRADER_SCREENSHOTS) : undefined;

/** A context of the test's own at `viewport` (a phone by default), the trader signed in at /trader; CSP violations collected. */
export async function traderSignedIn(t: ExecutionContext<BrowserCtx>, browser: Browser, trader: TraderAccount, viewport = PHONE) {
  const context = await browser.newContext({ viewport, hasTouch: viewport.width < 700, isMobile: viewport.width < 700 });
  context.setDefaultTimeout(120_000);
  t.context.contexts.push(context);
  const page = await context.newPage();
  const cspViolations: string[] = [];
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) cspViolations.push(message.text());
  });
  t.context.pages.push({ name: `trader-${viewport.width}`, page });
  await page.goto(`${API_URL}/trader/`);
  await headingSettled(page, 'Trader app');
  await page.getByLabel('Email').fill(trader.email);
  await page.getByLabel('Password').fill(trader.password);
  await page.getByLabel('I use an authenticator code').check();
  await page.getByRole('textbox', { name: /^Authenticator code/ }).fill(await freshCode(trader.secret, trader.used));
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByTestId('trader-account').filter({ hasText: trader.email }).waitFor();
  return { context, page, cspViolations };
}

/** Opens a trader-app section by its tab and waits for its heading with nothing loading. */
export async function openTraderSection(page: Page, label: string, heading: string | RegExp = label) {
  await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: label, exact: true }).click();
  await headingSettled(page, heading);
}

/** A PNG of the page for docs/trader.md, when TRADER_SCREENSHOTS names the folder; a phone's page also at a desk's width (`name-1280.png`). */
export async function traderShot(page: Page, name: string) {
  if (!DOC_SHOTS) return;
  mkdirSync(DOC_SHOTS, { recursive: true });
  await page.screenshot({ path: join(DOC_SHOTS, `${name}.png`), fullPage: true });
  const size = page.viewportSize();
  if (!size || size.width >= 700) return;
  await page.setViewportSize({ width: 1280, height: 860 });
  await page.screenshot({ path: join(DOC_SHOTS, `${name}-1280.png`), fullPage: true });
  await page.setViewportSize(size);
}
