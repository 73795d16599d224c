/**
 * The trader's bank devices in Chromium at a phone's width (390 px): the trader pairs a phone in
 * the app — the test plays the phone with the code the page shows — picks the requisite it serves
 * and sees it heard; what the phone forwarded is listed in words; a silent phone raises Today's
 * banner naming the requisites that get no deals; revoking says exactly what follows. axe-core on
 * the pages, no sideways scrolling, no Content-Security-Policy violation.
 */
import anyTest, { type TestFn } from 'ava';
import { asOperator, newMerchant } from '../helpers/api';
import { testSql } from '../helpers/app';
import { pairWithCode, sendHeartbeat, sendNotification, tbankCredit, type PairedDevice } from '../helpers/bank-device';
import { accessible, browserTests, headingSettled, overflowX, type BrowserCtx } from '../helpers/console-browser';
import { createPayin, isolatedMethod } from '../helpers/deals';
import { eventually } from '../helpers/poll';
import { openTraderSection, traderShot, traderSignedIn } from '../helpers/trader-browser';
import { asTrader, newTrader, TRADER } from '../helpers/trader-session';

const test = anyTest as TestFn<BrowserCtx>;
const sql = testSql();
const browser = browserTests(test);
test.after.always(() => sql.end());

test('on a phone: pair a phone by its code, pick its requisite, see it heard and what it forwarded; silent on Today; revoke it', async (t) => {
  const method = await isolatedMethod();
  const trader = await newTrader();
  const requisite = await asOperator('POST', `/api/v1/p2p/admin/traders/${trader.traderId}/requisites`, {
    payment_method: method,
    requisite_type: 'BANK_CARD',
    card_number: '2200111122224242',
    holder_name: 'Phone Holder',
    bank_name: 'tbank',
    min_amount: 100,
    max_amount: 100_000_000,
  });
  t.is(requisite.status, 201, requisite.text);
  const requisiteId = requisite.body.requisite.requisite_id as string;
  const { page, cspViolations } = await traderSignedIn(t, browser(), trader);

  await openTraderSection(page, 'Requisites');
  await page.getByTestId('devices-line').getByRole('link', { name: 'Bank devices' }).click();
  await headingSettled(page, 'Bank devices');
  await page.getByRole('button', { name: 'Pair a phone' }).click();
  await page.getByLabel('Device name').fill('Pixel 8 (T-Bank)');
  await page.getByRole('button', { name: 'Show the pairing code' }).click();
  const code = (await page.getByTestId('pairing-code').textContent())?.trim() ?? '';
  t.regex(code, /^gwp_/);
  const qr = page.getByRole('img', { name: 'Pairing QR code for Pixel 8 (T-Bank)' });
  const box = await qr.boundingBox();
  t.true(box !== null && box.width >= 240, `a QR code large enough to scan (${box?.width} px)`);
  await page
    .getByRole('timer')
    .filter({ hasText: /The code works for \d+:\d\d more, once/ })
    .waitFor();
  await accessible(t, page, 'trader-device-pairing');
  await traderShot(page, 'devices-pairing');

  // The phone: its own key pair, the code read off the page.
  const { res, keys } = await pairWithCode(code);
  t.is(res.status, 201, res.text);
  const device: PairedDevice = { deviceId: res.body.device_id, secretKey: keys.secretKey, publicKey: keys.publicKey, sequence: 0 };
  const paired = page.getByTestId('paired');
  await paired.getByRole('heading', { name: 'Pixel 8 (T-Bank) is paired' }).waitFor();
  await paired.getByRole('checkbox', { name: /2200111122224242/ }).check();
  await paired.getByRole('button', { name: 'Save and finish' }).click();
  const card = page.getByTestId('device').filter({ hasText: 'Pixel 8 (T-Bank)' });
  await card.getByText('Confirms deals on card •••• 4242 tbank').waitFor();
  await card
    .getByTestId('device-presence')
    .filter({ hasText: /^Heard (less than a minute|\d+ min) ago$/ })
    .waitFor();
  await card.getByText('App version test-1.0').waitFor();
  const listed = await asTrader(trader.session, 'GET', `${TRADER}/devices`);
  t.deepEqual(
    listed.body.data[0].requisites.map((r: { requisite_id: string }) => r.requisite_id),
    [requisiteId],
  );

  // What it forwarded: a credit of a live deal's amount confirms the deal with no tap; another amount waits for an operator.
  const merchant = await newMerchant();
  const payin = await createPayin(merchant.keys, { payment_method_id: method, amount: 150_000 });
  t.is((await sendNotification(device, tbankCredit(150_000))).status, 202);
  await eventually(
    async () => (await asOperator('GET', `/api/v1/p2p/admin/deals/${payin.deal_id}`)).body.deal?.status === 'COMPLETED' || undefined,
    'the deal completes',
  );
  t.is((await sendNotification(device, tbankCredit(99_000))).status, 202);
  const forwarded = page.getByTestId('forwarded');
  await forwarded
    .filter({ hasText: `confirmed deal ${payin.deal_id.slice(0, 8)}` })
    .filter({ hasText: '1 500.00 RUB' })
    .waitFor();
  await forwarded.filter({ hasText: 'no deal of this amount — an operator looks' }).filter({ hasText: '990.00 RUB' }).waitFor();
  t.regex((await forwarded.first().textContent()) ?? '', /990\.00 RUB · T-Bank · \d\d:\d\d.*by Pixel 8 \(T-Bank\)/, 'newest first, with bank, time and phone');
  await accessible(t, page, 'trader-devices');
  t.true((await overflowX(page)) <= 0, 'no sideways scrolling');
  await traderShot(page, 'devices');

  // The phone falls silent: Today says what it costs and what to do.
  await sql`update bank_devices set heartbeat_at = now() - interval '15 minutes' where id = ${device.deviceId}`;
  await openTraderSection(page, 'Today');
  const banner = page.getByTestId('silent-device');
  await banner.waitFor();
  t.regex((await banner.textContent()) ?? '', /^Pixel 8 \(T-Bank\) is silent since \d\d:\d\d: card •••• 4242 tbank get no deals\. Open the bank device app\./);
  await traderShot(page, 'today-device-silent');
  await banner.getByRole('link', { name: 'Bank devices' }).click();
  await headingSettled(page, 'Bank devices');
  await card
    .getByTestId('device-presence')
    .filter({ hasText: /^Silent since \d\d:\d\d: its requisites get no deals until it is heard again$/ })
    .waitFor();
  // A heartbeat brings it back: heard again.
  const beat = await sendHeartbeat(device);
  t.is(beat.status, 200, beat.text);
  await page.reload();
  await headingSettled(page, 'Bank devices');
  await card
    .getByTestId('device-presence')
    .filter({ hasText: /^Heard / })
    .waitFor();

  // Revoke: the dialog says exactly what follows.
  await card.getByRole('button', { name: 'Revoke…' }).click();
  const dialog = page.getByRole('dialog', { name: 'Revoke Pixel 8 (T-Bank)' });
  t.is(
    (await dialog.locator('.dialog-body').textContent())?.trim(),
    'Pixel 8 (T-Bank) will not be able to confirm payments any more; card •••• 4242 tbank go back to confirmation by hand. This cannot be undone: pair the phone again to use it.',
  );
  await dialog.getByRole('button', { name: 'Revoke', exact: true }).click();
  await card
    .getByTestId('device-presence')
    .filter({ hasText: /^Revoked / })
    .waitFor();
  t.is(await card.getAttribute('data-presence'), 'revoked');
  await eventually(async () => {
    const after = await asTrader(trader.session, 'GET', `${TRADER}/devices`);
    return after.body.data[0].status === 'REVOKED' || undefined;
  }, 'the device is revoked');
  t.not((await sendNotification(device, tbankCredit(150_000))).status, 202, 'a revoked phone is refused');
  await traderShot(page, 'devices-revoked');
  t.deepEqual(cspViolations, []);
});
