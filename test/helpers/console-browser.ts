/// <reference lib="dom" />
/**
 * The operator console in Chromium for the browser tests of test/e2e/console-*.test.ts: a browser,
 * console accounts of each role, a signed-in context (any viewport and time zone), axe-core's
 * serious and critical findings (axe.ts), and a call made from the signed-in page itself.
 */
import { randomBytes } from 'node:crypto';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { API_URL, asOperator } from './api';
import { ADMIN } from './wallet';
import { seriousViolations } from './axe';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** How long a page waits for an element or a state: a bound for a wait gone wrong, far above what a loaded machine takes. */
const BROWSER_WAIT_MS = 120_000;

export type Role = 'arbiter' | 'finance' | 'support' | 'admin';
export type Operator = { id: string; email: string; password: string; role: Role };

export function launchBrowser(): Promise<Browser> {
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
