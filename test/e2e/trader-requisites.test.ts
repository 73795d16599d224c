/**
 * The trader's requisites and online switch in Chromium at a phone's width (390 px): add a card,
 * see it waiting for approval, an operator approves it (API), it shows active; switch online and
 * see the switch hold. axe-core on the page, no Content-Security-Policy violation.
 */
import anyTest, { type TestFn } from 'ava';
import { asOperator } from '../helpers/api';
import { accessible, browserTests, consoleOperator, PHONE, signedIn, visit, type BrowserCtx } from '../helpers/console-browser';
import { isolatedMethod } from '../helpers/deals';
import { openTraderSection, traderShot, traderSignedIn } from '../helpers/trader-browser';
import { asTrader, newTrader, TRADER } from '../helpers/trader-session';

const test = anyTest as TestFn<BrowserCtx>;
const browser = browserTests(test);

test('on a phone: add a requisite, see it waiting, an operator approves it, it shows active; go online', async (t) => {
  t.is(PHONE.width, 390);
  const method = await isolatedMethod();
  const trader = await newTrader({ online: false });
  const { page, cspViolations } = await traderSignedIn(t, browser(), trader);
  await openTraderSection(page, 'Requisites');
  await page.getByLabel('Payment method').selectOption(method);
  await page.getByLabel('Card number').fill('2200555566667777');
  await page.getByLabel('Holder name').fill('Phone Holder');
  await page.getByLabel('Bank', { exact: true }).fill('phone-bank');
  await page.getByLabel(/^Smallest deal/).fill('100');
  await page.getByLabel(/^Largest deal/).fill('50000');
  await page.getByLabel(/^Volume per day/).fill('200000.50');
  await page
    .getByText('= 200 000.50 RUB')
    .or(page.getByText('= 200,000.50 RUB'))
    .or(page.getByText(/= 200.000[,.]50 RUB/))
    .first()
    .waitFor();
  await page.getByRole('button', { name: 'Add requisite' }).click();
  const card = page.getByTestId('requisite').filter({ hasText: '2200555566667777' });
  await card.filter({ hasText: 'waiting for approval' }).waitFor();
  await accessible(t, page, 'trader-requisites');
  await traderShot(page, 'requisite-waiting');

  const listed = await asTrader(trader.session, 'GET', `${TRADER}/requisites`);
  const requisite = listed.body.data[0];
  t.is(requisite.status, 'PENDING_APPROVAL');
  t.is(requisite.limits.daily_limit, '20000050', 'typed in major units, sent in minor units');
  t.is((await asOperator('POST', `/api/v1/p2p/admin/requisites/${requisite.requisite_id}/approve`)).status, 200);
  await page.reload();
  await card.filter({ hasText: 'active' }).waitFor();
  t.is(await card.getAttribute('data-status'), 'ACTIVE');
  await traderShot(page, 'requisites');

  const toggle = page.getByRole('switch');
  t.is(await toggle.getAttribute('aria-checked'), 'false');
  const box = await toggle.boundingBox();
  t.true(box !== null && box.height >= 48, 'a thumb-sized switch');
  await toggle.click();
  await page.getByRole('switch', { checked: true }).waitFor();
  await page.getByTestId('presence').getByText('Online: deals can reach you').waitFor();
  const presence = await asTrader(trader.session, 'GET', `${TRADER}/presence`);
  t.like(presence.body.presence, { online: true, matchable: true });
  await traderShot(page, 'online');
  t.deepEqual(cspViolations, []);
});

test('an admin on the console rejects a waiting requisite with a reason; the dialog says what happens; the trader reads the reason', async (t) => {
  const method = await isolatedMethod();
  const trader = await newTrader();
  const number = `2200${Date.now().toString().slice(-12)}`;
  const added = await asTrader(trader.session, 'POST', `${TRADER}/requisites`, {
    payment_method: method,
    requisite_type: 'BANK_CARD',
    card_number: number,
    holder_name: 'Console Holder',
    bank_name: 'console-bank',
    min_amount: 100,
    max_amount: 100_000,
  });
  t.is(added.status, 201, added.text);
  const admin = await consoleOperator('admin');
  const { page } = await signedIn(t, browser(), admin);
  await visit(t, page, '/traders', 'Traders and requisites', 'traders-pending');
  await traderShot(page, 'console-traders');
  const row = page.getByTestId('pending-requisite').filter({ hasText: number });
  await row.getByText('Reject with a reason', { exact: true }).click();
  await row.getByLabel('Reason the trader reads').fill('the holder name differs from the card');
  await row.getByRole('button', { name: 'Reject…' }).click();
  const dialog = page.getByRole('dialog', { name: `Reject ${number}` });
  await dialog.getByText(/becomes REJECTED and is never matched/).waitFor();
  await traderShot(page, 'console-traders-reject');
  await dialog.getByRole('button', { name: 'Reject the requisite' }).click();
  await row.waitFor({ state: 'detached' });
  const seen = await asTrader(trader.session, 'GET', `${TRADER}/requisites/${added.body.requisite.requisite_id}`);
  t.like(seen.body.requisite, { status: 'REJECTED', rejection_reason: 'the holder name differs from the card' });
});
