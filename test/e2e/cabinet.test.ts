/**
 * The merchant cabinet in Chromium: the console's base at the merchant's door (/cabinet). The
 * first owner's link (made with the merchant) → a password → the authenticator → signed in to
 * its merchant; signed out, it signs in again with its code; the same link again is used. axe-core
 * on every page, no Content-Security-Policy violation.
 */
import anyTest, { type TestFn } from 'ava';
import { randomBytes } from 'node:crypto';
import { totpAt, TOTP_STEP_SECONDS } from '../../domain/crypto/totp';
import { API_URL, asOperator } from '../helpers/api';
import { accessible, browserTests, freshPage, headingSettled, type BrowserCtx } from '../helpers/console-browser';
import { newEmail } from '../helpers/cabinet-session';

const test = anyTest as TestFn<BrowserCtx>;
const browser = browserTests(test);

test('the first owner: the link → a password → the authenticator → its merchant; signed out, it signs in with a code', async (t) => {
  const email = newEmail('browser-owner');
  const name = `Cabinet shop ${randomBytes(3).toString('hex')}`;
  const created = await asOperator('POST', '/api/v1/p2p/admin/merchants', { name, email: newEmail('shop'), owner_email: email });
  t.is(created.status, 201, created.text);
  const link = created.body.owner_invitation.invite_url as string;

  const { page, cspViolations } = await freshPage(t, browser(), 'cabinet-invitation');
  await page.goto(link.replace(/^https?:\/\/[^/]+/, API_URL));
  await headingSettled(page, 'Your cabinet account');
  await page.getByTestId('invited-email').filter({ hasText: email }).waitFor();
  await page.getByTestId('invited-merchant').filter({ hasText: name }).waitFor();
  await accessible(t, page, 'cabinet-invitation');
  const password = `pw-${randomBytes(12).toString('base64url')}`;
  await page.getByLabel(/^Password(?! again)/).fill(password);
  await page.getByLabel('Password again').fill(password);
  await page.getByRole('button', { name: 'Create my account' }).click();

  // Signed in, but nothing before an authenticator.
  await headingSettled(page, 'Set up your authenticator');
  t.is(await page.getByTestId('merchant-name').count(), 0);
  await accessible(t, page, 'cabinet-enrol');
  await page.getByRole('button', { name: 'Set up an authenticator…' }).click();
  const secret = (await page.getByTestId('totp-secret').textContent())!.trim();
  const enrolledAt = Date.now();
  await page.getByLabel('Code from the new authenticator').fill(totpAt(secret, enrolledAt));
  await page.getByLabel('Your password').fill(password);
  await page.getByRole('button', { name: 'Set the authenticator' }).click();
  await page.getByTestId('member').filter({ hasText: email }).waitFor();
  await headingSettled(page, 'Home');
  await page.getByTestId('merchant-name').filter({ hasText: name }).waitFor();
  await page.getByTestId('profile').filter({ hasText: created.body.merchant.id }).waitFor();
  t.is(page.url(), `${API_URL}/cabinet/`, 'the link is gone from the address bar');
  await accessible(t, page, 'cabinet-home');

  // Signed out: the sign-in page; in again with the password and a code not used yet (the next step's).
  await page.getByRole('button', { name: 'Sign out' }).click();
  await headingSettled(page, 'Merchant cabinet');
  await accessible(t, page, 'cabinet-sign-in');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByLabel('I use an authenticator code').check();
  const nextStep = Math.floor(enrolledAt / 1000 / TOTP_STEP_SECONDS) + 1;
  await page.getByRole('textbox', { name: /^Authenticator code/ }).fill(totpAt(secret, nextStep * TOTP_STEP_SECONDS * 1000));
  await page.getByRole('button', { name: 'Sign in' }).click();
  await headingSettled(page, 'Home');
  await page.getByTestId('merchant-name').filter({ hasText: name }).waitFor();
  await page.getByTestId('member').filter({ hasText: email }).waitFor();

  // The same link again: used.
  const again = await freshPage(t, browser(), 'cabinet-invitation-again');
  await again.page.goto(link.replace(/^https?:\/\/[^/]+/, API_URL));
  await again.page
    .getByRole('alert')
    .filter({ hasText: /used already/ })
    .waitFor();
  // The console is still the operators': a member's session there is the console's sign-in page.
  await page.goto(`${API_URL}/console/`);
  await headingSettled(page, 'Operator console');
  t.deepEqual([...cspViolations, ...again.cspViolations], []);
});
