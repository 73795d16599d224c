/**
 * The cabinet's deals, developers, appeals, settings and team pages in Chromium: an invited owner
 * sets the webhook URL and sends a test event that reaches a real local receiver and shows in the
 * delivery log; finds a deal by its client id and retries its failed delivery; opens an appeal
 * with an evidence file; invites a support member, who sees no action and whose API write is 403;
 * another merchant's deal is 404 in the page and the API. Phone (390 px) and desktop (1280 px),
 * axe-core clean, screenshots for docs/cabinet.md (CABINET_SCREENSHOTS=docs/cabinet).
 */
import anyTest, { type TestFn } from 'ava';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import type { Page } from 'playwright-core';
import { API_URL } from '../helpers/api';
import { acceptAndEnrol, asMember, CABINET, merchantWithOwner, newEmail, type MemberSession } from '../helpers/cabinet-session';
import { accessible, browserTests, DESKTOP, headingSettled, overflowX, PHONE, type BrowserCtx } from '../helpers/console-browser';
import { createPayin } from '../helpers/deals';
import { eventually } from '../helpers/poll';
import { startReceiver } from '../helpers/receiver';

const test = anyTest as TestFn<BrowserCtx>;
const browser = browserTests(test);

const SHOTS = process.env.CABINET_SCREENSHOTS ? join(process.cwd(), process.env.CABINET_SCREENSHOTS) : undefined;
async function shot(page: Page, name: string) {
  if (!SHOTS) return;
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
}

/** A browser context signed in as the member: its session cookie (the door itself is test/e2e/cabinet.test.ts's). */
async function memberPage(t: { context: BrowserCtx }, session: MemberSession, name: string, viewport = DESKTOP) {
  const context = await browser().newContext({ viewport });
  context.setDefaultTimeout(30_000);
  t.context.contexts.push(context);
  const [cookieName, value] = session.cookie.split('=') as [string, string];
  await context.addCookies([{ name: cookieName, value, url: API_URL, httpOnly: true, sameSite: 'Strict' }]);
  const page = await context.newPage();
  t.context.pages.push({ name, page });
  return page;
}

async function open(page: Page, path: string, heading: string | RegExp) {
  await page.goto(`${API_URL}/cabinet${path}`);
  await headingSettled(page, heading);
}

test('an owner: webhook URL and test event, a deal found and its delivery retried, an appeal with evidence; support sees no action; a foreign deal is 404', async (t) => {
  let failDeals = true;
  const receiver = await startReceiver((_, res, request) =>
    failDeals && request.body.includes('"deal.') ? res.writeHead(500).end('down for maintenance') : res.writeHead(200).end('received'),
  );
  t.teardown(() => receiver.close());
  const { owner, keys } = await merchantWithOwner({ webhook_url: 'http://127.0.0.1:9/unset', webhook_max_retries: 1 });
  const page = await memberPage(t, owner.session, 'owner');

  // Developers: the URL, a test event through the real delivery path, its row in the delivery log.
  await open(page, '/developers', 'Developers');
  await page.getByRole('textbox', { name: /^Webhook URL/ }).fill(receiver.url);
  await page.getByRole('button', { name: 'Save URL' }).click();
  await page.getByRole('status').filter({ hasText: 'Saved' }).waitFor();
  await page.getByRole('button', { name: 'Send test event' }).click();
  const sent = page.getByTestId('test-event-sent');
  await sent.waitFor();
  const got = await eventually(async () => receiver.received.find((r) => r.body.includes('"webhook.test"')), 'the test event at the receiver', 60_000);
  const event = JSON.parse(got.body) as { event_id: string; test: { requested_by: string } };
  t.is(event.test.requested_by, owner.email);
  await page.locator(`[data-testid="delivery-row"][data-event="${event.event_id}"][data-status="SUCCESS"]`).waitFor();
  await page.getByTestId('endpoint-state').and(page.locator('[data-state="OK"]')).waitFor();
  await accessible(t, page, 'cabinet-developers');
  await shot(page, 'developers');

  // A deal whose webhook fails: found by its client id, its attempt's answer shown, retried from its page.
  const clientId = `payer-${randomUUID().slice(0, 8)}`;
  const deal = await createPayin(keys, { client_id: clientId });
  await open(page, '/deals', 'Deals');
  await page.getByLabel('Deal id or client id').fill(clientId);
  await page.getByLabel('Deal id or client id').press('Enter');
  await page.getByRole('link', { name: deal.deal_id.slice(0, 8) }).click();
  await headingSettled(page, /^Deal /);
  const delivery = page.locator('[data-testid="delivery"][data-status="ERROR"]').first();
  await delivery.waitFor({ timeout: 60_000 });
  await delivery.getByTestId('response-body').filter({ hasText: 'down for maintenance' }).first().waitFor();
  await accessible(t, page, 'cabinet-deal');
  await shot(page, 'deal');
  failDeals = false;
  await delivery.getByRole('button', { name: 'Retry delivery' }).click();
  const dialog = page.getByRole('dialog', { name: /Retry the deal\./ });
  await dialog.filter({ hasText: receiver.url }).waitFor();
  await accessible(t, page, 'cabinet-retry-dialog');
  await dialog.getByRole('button', { name: 'Send it again' }).click();
  await page.locator('[data-testid="delivery"][data-status="SUCCESS"]').first().waitFor({ timeout: 60_000 });
  t.true(
    receiver.received.some((r) => r.body.includes(deal.deal_id) && r.body.includes('"deal.created"')),
    'the retried event reached the receiver',
  );

  // An appeal on the deal, with an evidence file.
  await page.getByRole('link', { name: 'Open an appeal on this deal' }).click();
  await headingSettled(page, 'Open an appeal');
  await page.getByTestId('appeal-deal').waitFor();
  await page.getByLabel('What went wrong').fill('The payer says they paid, the provider has not confirmed it.');
  await page
    .getByLabel('Evidence files')
    .setInputFiles({ name: 'receipt.txt', mimeType: 'text/plain', buffer: Buffer.from('Bank receipt 1500.00 RUB, 2026-11-29') });
  await accessible(t, page, 'cabinet-appeal-new');
  await shot(page, 'appeal-new');
  await page.getByRole('button', { name: 'Open the appeal…' }).click();
  await page.getByRole('dialog', { name: 'Open this appeal?' }).getByRole('button', { name: 'Open the appeal' }).click();
  await headingSettled(page, /^Appeal /);
  t.is(await page.getByTestId('appeal-files').getByRole('link').count(), 1, 'the evidence file is on the appeal');
  await page
    .getByTestId('appeal-outcome')
    .filter({ hasText: /operator/ })
    .waitFor();
  await accessible(t, page, 'cabinet-appeal');
  await shot(page, 'appeal');

  // Settings and Team; a support member invited from the page.
  await open(page, '/settings', 'Settings');
  await accessible(t, page, 'cabinet-settings');
  await shot(page, 'settings');
  await open(page, '/team', 'Team');
  const supportEmail = newEmail('support');
  const inviteForm = page.getByRole('form', { name: 'Invite a member' });
  await inviteForm.getByRole('textbox', { name: 'Email' }).fill(supportEmail);
  await inviteForm.getByRole('combobox').selectOption('support');
  await inviteForm.getByRole('button', { name: 'Invite' }).click();
  const inviteUrl = (await page.getByTestId('invite-url').textContent())!.trim();
  await accessible(t, page, 'cabinet-team');
  await shot(page, 'team');
  const support = await acceptAndEnrol(inviteUrl, supportEmail);

  // Support: the same pages, no action; its API write is refused.
  const supportPage = await memberPage(t, support.session, 'support');
  await open(supportPage, `/deals/${deal.deal_id}`, /^Deal /);
  t.is(await supportPage.getByRole('link', { name: 'Open an appeal on this deal' }).count(), 0);
  await open(supportPage, '/developers', 'Developers');
  await supportPage.getByTestId('endpoint-state').waitFor();
  for (const name of ['Send test event', 'Save URL', 'Rotate keys…', 'Retry'])
    t.is(await supportPage.getByRole('button', { name, exact: true }).count(), 0, `support sees no ${name}`);
  await open(supportPage, '/team', 'Team');
  await supportPage.getByTestId('team-not-owner').waitFor();
  await accessible(t, supportPage, 'cabinet-team-support');
  const refused = await asMember(support.session, 'POST', `${CABINET}/webhook/test-event`, {});
  t.is(refused.status, 403, refused.text);

  // Another merchant's owner: the deal is 404 in the page and the API.
  const other = await merchantWithOwner();
  const otherPage = await memberPage(t, other.owner.session, 'other-owner');
  await open(otherPage, `/deals/${deal.deal_id}`, /^Deal /);
  await otherPage.getByRole('alert').filter({ hasText: 'deal not found' }).waitFor();
  t.is((await asMember(other.owner.session, 'GET', `${CABINET}/deals/${deal.deal_id}`)).status, 404);
});

test('at phone width (390 px) every page of this half fits: no sideways scroll, actions on screen, axe clean', async (t) => {
  const receiver = await startReceiver();
  t.teardown(() => receiver.close());
  const { owner, keys } = await merchantWithOwner({ webhook_url: receiver.url });
  const deal = await createPayin(keys, { client_id: `phone-${randomUUID().slice(0, 8)}` });
  const page = await memberPage(t, owner.session, 'phone', PHONE);
  for (const [path, heading, name] of [
    ['/deals', 'Deals', 'deals'],
    [`/deals/${deal.deal_id}`, /^Deal /, 'deal'],
    ['/developers', 'Developers', 'developers'],
    ['/appeals', 'Appeals', 'appeals'],
    ['/appeals/new', 'Open an appeal', 'appeal-new'],
    ['/settings', 'Settings', 'settings'],
    ['/team', 'Team', 'team'],
  ] as const) {
    await open(page, path, heading);
    t.true((await overflowX(page)) <= 0, `${name}: no sideways scroll at 390 px`);
    await accessible(t, page, `phone-${name}`);
    await shot(page, `phone-${name}`);
  }
  // The developers page's main action is on screen at phone width.
  await open(page, '/developers', 'Developers');
  const box = await page.getByRole('button', { name: 'Send test event' }).boundingBox();
  t.truthy(box && box.x >= 0 && box.x + box.width <= PHONE.width, 'Send test event within the screen');
});
