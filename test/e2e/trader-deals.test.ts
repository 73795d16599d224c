/**
 * The trader app's deal queue in Chromium at a phone's size (390 px): a PayIn confirmed with the
 * amount field prefilled with what the payer was asked to pay, a PayOut started and completed with
 * a bank reference and a photo of the receipt; the merchant's cabinet then shows the proof. axe-core
 * on the queue, no sideways scrolling, no Content-Security-Policy violation.
 */
import anyTest, { type TestFn } from 'ava';
import { API_URL, asOperator, signed } from '../helpers/api';
import { cabinetSignedIn } from '../helpers/cabinet-browser';
import { merchantWithOwner } from '../helpers/cabinet-session';
import { accessible, browserTests, headingSettled, overflowX, PHONE, type BrowserCtx } from '../helpers/console-browser';
import { createPayin, isolatedMethod, PAYOUT } from '../helpers/deals';
import { SAMPLES } from '../helpers/multipart';
import { openTraderSection, traderShot, traderSignedIn } from '../helpers/trader-browser';
import { newTrader } from '../helpers/trader-session';
import { txHashOf } from '../helpers/tx-hash';

const test = anyTest as TestFn<BrowserCtx>;
const browser = browserTests(test);

test('on a phone: confirm a PayIn with the prefilled amount, complete a PayOut with a receipt photo; the merchant’s cabinet shows the proof', async (t) => {
  const method = await isolatedMethod();
  const trader = await newTrader();
  const requisite = await asOperator('POST', `/api/v1/p2p/admin/traders/${trader.traderId}/requisites`, {
    payment_method: method,
    requisite_type: 'BANK_CARD',
    card_number: '2200333344445555',
    holder_name: 'Phone Holder',
    bank_name: 'phone-bank',
    min_amount: 100,
    max_amount: 100_000_000,
  });
  t.is(requisite.status, 201, requisite.text);

  const merchant = await merchantWithOwner();
  const funded = await asOperator('POST', '/api/v1/p2p/admin/deposits', {
    merchant_id: merchant.merchantId,
    amount: 10_000,
    tx_hash: txHashOf(`fund-${merchant.merchantId}`),
  });
  t.true(funded.status === 201 || funded.status === 200, funded.text);
  const walletId = (await signed(merchant.keys, 'GET', '/api/v1/p2p/merchant/balance')).body.wallets[0].wallet_id as string;
  const payin = await createPayin(merchant.keys, { payment_method_id: method, amount: 150_000 });
  const payout = await signed(merchant.keys, 'POST', PAYOUT, {
    idempotency_key: `phone-${payin.deal_id}`,
    amount: 95_000,
    currency: 'RUB',
    wallet_id: walletId,
    target_requisite: '4111111111111111',
    target_name: 'Anna Recipient',
    payment_method: method,
  });
  t.is(payout.body.deal?.status, 'MATCHED', payout.text);
  const payoutId = payout.body.deal.deal_id as string;

  const { page, cspViolations } = await traderSignedIn(t, browser(), trader);
  await openTraderSection(page, 'Deals');
  await accessible(t, page, 'trader-deals');
  t.true((await overflowX(page)) <= 0, 'no sideways scrolling on a phone');
  await traderShot(page, 'deals');

  // The PayIn: its timer counts down, the amount received is prefilled with what the payer was asked to pay.
  const payinCard = page.locator(`article[data-deal-id="${payin.deal_id}"]`);
  await payinCard.getByRole('timer').waitFor();
  const amount = payinCard.getByLabel(/^Amount received/);
  t.is(await amount.inputValue(), '1500.00');
  const button = await payinCard.getByRole('button', { name: 'Confirm received' }).boundingBox();
  t.true(button !== null && button.height >= 48 && button.width >= PHONE.width * 0.7, `a one-thumb button: ${JSON.stringify(button)}`);
  await payinCard.getByRole('button', { name: 'Confirm received' }).click();
  // One more tap: the dialog says what arrived, on which requisite, and that the deal completes for good.
  const confirmDialog = page.getByRole('dialog', { name: '1 500.00 RUB arrived?' });
  t.regex((await confirmDialog.getByTestId('confirm-text').textContent()) ?? '', /completes at once.*cannot be undone/);
  await accessible(t, page, 'trader-confirm-received');
  await traderShot(page, 'deals-confirm');
  await confirmDialog.getByRole('button', { name: 'Yes, 1 500.00 RUB arrived' }).click();
  await page.locator(`.trader-history li[data-deal-id="${payin.deal_id}"]`).filter({ hasText: 'Completed' }).waitFor();

  // The PayOut: start, then the bank reference and a photo of the receipt.
  const payoutCard = page.locator(`article[data-deal-id="${payoutId}"]`);
  // The recipient's card number grouped as printed, with a thumb-sized button to copy it for the bank app.
  t.is(await payoutCard.getByTestId('target-requisite').textContent(), '4111 1111 1111 1111');
  const copy = await payoutCard.getByRole('button', { name: "Copy the recipient's number" }).boundingBox();
  t.true(copy !== null && copy.height >= 44, `a thumb-sized copy button: ${JSON.stringify(copy)}`);
  await payoutCard.getByRole('button', { name: 'Start transfer' }).click();
  await payoutCard.getByLabel('Bank reference of the transfer').fill('SBER-PHONE-42');
  await payoutCard.getByLabel(/^Receipt/).setInputFiles({ name: 'receipt.png', mimeType: 'image/png', buffer: SAMPLES.png });
  await traderShot(page, 'deals-payout-proof');
  await payoutCard.getByRole('button', { name: 'Complete with proof' }).click();
  await page.locator(`.trader-history li[data-deal-id="${payoutId}"]`).filter({ hasText: 'Completed' }).waitFor();
  await traderShot(page, 'deals-history');
  t.deepEqual(cspViolations, []);

  // The merchant's cabinet shows the proof: the bank reference and the trader's receipt to download.
  const cabinet = await cabinetSignedIn(t, browser(), merchant.owner);
  await cabinet.page.goto(`${API_URL}/cabinet/deals/${payoutId}`);
  await headingSettled(cabinet.page, /^Deal/);
  const proof = cabinet.page.getByTestId('payout-proof');
  await proof.filter({ hasText: 'SBER-PHONE-42' }).waitFor();
  const href = await proof.getByRole('link', { name: "the trader's receipt" }).getAttribute('href');
  t.regex(href ?? '', /^\/api\/v1\/p2p\/merchant\/files\/[0-9a-f-]{36}$/);
  const download = await cabinet.page.evaluate(async (url) => {
    const response = await fetch(url);
    return { status: response.status, size: (await response.arrayBuffer()).byteLength };
  }, href!);
  t.deepEqual(download, { status: 200, size: SAMPLES.png.length });
});
