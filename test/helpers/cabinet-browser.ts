/**
 * The merchant cabinet in Chromium: a member signed in through the cabinet's own sign-in page
 * (email, password, a fresh authenticator code) in a context of the test's own, at any viewport;
 * screenshots for docs/cabinet.md when CABINET_SCREENSHOTS names the folder.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { ExecutionContext } from 'ava';
import type { Browser, Page } from 'playwright-core';
import { API_URL } from './api';
import { freshCode, type Member } from './cabinet-session';
import { DESKTOP, headingSettled, type BrowserCtx } from './console-browser';

const DOC_SHOTS = process.env.CABINET_SCREENSHOTS ? join(process.cwd(), process.env.CABINET_SCREENSHOTS) : undefined;

/** A context of the test's own at `viewport`, the member signed in at /cabinet; CSP violations collected. */
export async function cabinetSignedIn(t: ExecutionContext<BrowserCtx>, browser: Browser, member: Member, viewport = DESKTOP) {
  const context = await browser.newContext({ viewport });
  context.setDefaultTimeout(120_000);
  t.context.contexts.push(context);
  const page = await context.newPage();
  const cspViolations: string[] = [];
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) cspViolations.push(message.text());
  });
  t.context.pages.push({ name: `${member.role}-${viewport.width}`, page });
  await page.goto(`${API_URL}/cabinet/`);
  await headingSettled(page, 'Merchant cabinet');
  await page.getByLabel('Email').fill(member.email);
  await page.getByLabel('Password').fill(member.password);
  await page.getByLabel('I use an authenticator code').check();
  await page.getByRole('textbox', { name: /^Authenticator code/ }).fill(await freshCode(member.secret, member.used));
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByTestId('member').filter({ hasText: member.email }).waitFor();
  return { context, page, cspViolations };
}

/** Opens a cabinet section by its link in the header and waits for its heading with nothing loading. */
export async function openSection(page: Page, label: string, heading: string | RegExp = label) {
  await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: label, exact: true }).click();
  await headingSettled(page, heading);
}

/** A PNG of the page for docs/cabinet.md, when CABINET_SCREENSHOTS names the folder. */
export async function cabinetShot(page: Page, name: string) {
  if (!DOC_SHOTS) return;
  mkdirSync(DOC_SHOTS, { recursive: true });
  await page.screenshot({ path: join(DOC_SHOTS, `${name}.png`), fullPage: true });
}
