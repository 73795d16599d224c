/**
 * The trader app in Chromium at a phone's size (/trader): the invitation link → a password → the
 * authenticator → "waiting for approval"; an operator approves; signed in again with a code, the
 * trader is approved. The sections are a tab bar at the bottom of the screen, in reach of the
 * thumb. axe-core on every page, no Content-Security-Policy violation.
 */
import anyTest, { type TestFn } from 'ava';
import { randomBytes } from 'node:crypto';
import { totpAt, TOTP_STEP_SECONDS } from '../../domain/crypto/totp';
import { API_URL, asOperator } from '../helpers/api';
import { accessible, browserTests, freshPage, headingSettled, PHONE, type BrowserCtx } from '../helpers/console-browser';
import { newEmail } from '../helpers/cabinet-session';
import { openTraderSection, traderShot, traderSignedIn } from '../helpers/trader-browser';

const test = anyTest as TestFn<BrowserCtx>;
const browser = browserTests(test);

test('an invited trader on a phone: the link → a password → the authenticator → waiting for approval → approved', async (t) => {
  const email = newEmail('browser-trader');
  const name = `Phone trader ${randomBytes(3).toString('hex')}`;
  const created = await asOperator('POST', '/api/v1/p2p/admin/traders', { name, email });
  t.is(created.status, 201, created.text);
  const traderId = created.body.trader.trader_id as string;

  const { page, cspViolations } = await freshPage(t, browser(), 'trader-invitation', PHONE);
  await page.goto((created.body.account_invitation.invite_url as string).replace(/^https?:\/\/[^/]+/, API_URL));
  await headingSettled(page, 'Your trader account');
  await page.getByTestId('invited-email').filter({ hasText: email }).waitFor();
  await page.getByTestId('invited-trader').filter({ hasText: name }).waitFor();
  await accessible(t, page, 'trader-invitation');
  await traderShot(page, 'invitation');
  const password = `pw-${randomBytes(12).toString('base64url')}`;
  await page.getByLabel(/^Password(?! again)/).fill(password);
  await page.getByLabel('Password again').fill(password);
  await page.getByRole('button', { name: 'Create my account' }).click();

  await headingSettled(page, 'Set up your authenticator');
  t.is(await page.getByTestId('trader-name').count(), 0, 'nothing before an authenticator');
  await page.getByRole('button', { name: 'Set up an authenticator…' }).click();
  const secret = (await page.getByTestId('totp-secret').textContent())!.trim();
  const enrolledAt = Date.now();
  await page.getByLabel('Code from the new authenticator').fill(totpAt(secret, enrolledAt));
  await page.getByLabel('Your password').fill(password);
  await page.getByRole('button', { name: 'Set the authenticator' }).click();
  await headingSettled(page, 'Today');
  await page.getByTestId('trader-name').filter({ hasText: name }).waitFor();
  await page.getByTestId('trader-standing').filter({ hasText: 'Waiting for approval' }).waitFor();
  await accessible(t, page, 'trader-waiting');
  await traderShot(page, 'waiting-for-approval');

  // The sections are a tab bar along the bottom of the phone's screen, each tab tall enough for a thumb.
  const tab = await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Today' }).boundingBox();
  t.truthy(tab);
  t.true(tab!.y + tab!.height >= PHONE.height - 2 && tab!.height >= 48, `the tab bar sits at the bottom: ${JSON.stringify(tab)}`);
  const scrollWidth = await page.evaluate(() => document.documentElement.scrollWidth);
  t.true(scrollWidth <= PHONE.width, `no sideways scrolling (${scrollWidth})`);

  const approved = await asOperator('POST', `/api/v1/p2p/admin/traders/${traderId}/approve`);
  t.is(approved.status, 200, approved.text);
  await page.getByRole('button', { name: 'Sign out' }).click();
  await headingSettled(page, 'Trader app');

  const used = { step: Math.floor(enrolledAt / 1000 / TOTP_STEP_SECONDS) };
  const again = await traderSignedIn(t, browser(), { traderId, accountId: '', email, password, secret, used, session: { cookie: '', csrf: '' } });
  await openTraderSection(again.page, 'Today');
  await again.page.getByTestId('trader-standing').filter({ hasText: 'is approved' }).waitFor();
  await accessible(t, again.page, 'trader-today');
  await traderShot(again.page, 'today');
  t.deepEqual([...cspViolations, ...again.cspViolations], []);
});
