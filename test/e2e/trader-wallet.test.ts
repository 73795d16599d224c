/**
 * The trader app's Wallet in Chromium at 390 px: the balances and why the trader gets no deals
 * (its security deposit short), the deposit address whose QR code decodes to it, a withdrawal —
 * fee quote, confirmation, "waiting for an operator" in the history — and a completed PayIn's
 * money per deal. No sideways scrolling, axe clean, no Content-Security-Policy violation.
 */
import anyTest, { type TestFn } from 'ava';
import { randomUUID } from 'node:crypto';
import jsQR from 'jsqr';
import type { Page } from 'playwright-core';
import { asOperator, newMerchant } from '../helpers/api';
import { testSql } from '../helpers/app';
import { accessible, browserTests, overflowX, type BrowserCtx } from '../helpers/console-browser';
import { createPayin, dealRow, isolatedMethod, operatorDeal } from '../helpers/deals';
import { eventually } from '../helpers/poll';
import { openTraderSection, traderShot, traderSignedIn } from '../helpers/trader-browser';
import { asTrader, newTrader, TRADER } from '../helpers/trader-session';
import { ADMIN, randomTronAddress } from '../helpers/wallet';

const test = anyTest as TestFn<BrowserCtx>;
const sql = testSql();
const browser = browserTests(test);
test.after.always(() => sql.end());

/** The QR code's SVG drawn on a canvas, its pixels decoded by jsQR. */
async function decodeQr(page: Page): Promise<string | undefined> {
  const image = await page.getByTestId('deposit-qr').evaluate(async (svg) => {
    const size = 400;
    const xml = new XMLSerializer().serializeToString(svg);
    const img = new Image();
    img.src = URL.createObjectURL(new Blob([xml], { type: 'image/svg+xml' }));
    await img.decode();
    const canvas = document.createElement('canvas');
    canvas.width = size;
    canvas.height = size;
    const ctx = canvas.getContext('2d')!;
    ctx.drawImage(img, 0, 0, size, size);
    return { width: size, height: size, data: Array.from(ctx.getImageData(0, 0, size, size).data) };
  });
  return jsQR(Uint8ClampedArray.from(image.data), image.width, image.height)?.data;
}

test('at 390 px: balances and why no deals, the deposit address and its QR, a withdrawal waiting for an operator, a PayIn’s money', async (t) => {
  const trader = await newTrader({ liquidity: 1_000_000 });
  // A completed PayIn on a requisite of its own: its money shows per deal.
  const method = await isolatedMethod();
  const requisite = await asOperator('POST', `${ADMIN}/traders/${trader.traderId}/requisites`, {
    payment_method: method,
    requisite_type: 'BANK_CARD',
    card_number: '2200999988882222',
    holder_name: 'Phone Holder',
    bank_name: 'phone-bank',
    min_amount: 100,
    max_amount: 100_000_000,
  });
  t.is(requisite.status, 201, requisite.text);
  const { keys } = await newMerchant();
  const deal = await createPayin(keys, { amount: 92_500, payment_method_id: method, idempotency_key: randomUUID() });
  t.is((await operatorDeal(deal.deal_id, 'confirm')).status, 200);
  await eventually(async () => (await dealRow(sql, deal.deal_id)).status === 'COMPLETED', 'the PayIn COMPLETED');
  // A security deposit above what it has: held in part, no deals.
  t.is((await asOperator('PATCH', `${ADMIN}/traders/${trader.traderId}/wallet`, { security_deposit: 2_000_000 })).status, 200);

  const { page, cspViolations } = await traderSignedIn(t, browser(), trader);
  await openTraderSection(page, 'Wallet');
  await page.getByTestId('available').filter({ hasText: '0.00 USDT' }).waitFor();
  await page
    .getByTestId('security-deposit')
    .filter({ hasText: /9\s990\.00 USDT held of 20\s000\.00 USDT/ })
    .waitFor();
  const pool = page.getByTestId('pool');
  t.is(await pool.getAttribute('data-in-pool'), 'false');
  t.regex((await pool.textContent())!, /security deposit is not held in full/);

  const addressText = (await page.getByTestId('deposit-address').textContent())!.trim();
  t.is(addressText, (await asTrader(trader.session, 'GET', `${TRADER}/wallet/deposit-address`)).body.address);
  t.is(await decodeQr(page), addressText, 'the QR code decodes to the address');

  const earning = page.getByTestId(`earning-${deal.deal_id}`);
  await earning.filter({ hasText: 'Completed' }).waitFor();
  t.is((await earning.getByTestId('usdt-change').textContent())!.trim(), '−10.00 USDT');
  t.regex((await earning.textContent())!, /\+925\.00 RUB/);
  t.true((await overflowX(page)) <= 0, 'no sideways scrolling');
  await accessible(t, page, 'trader-wallet');
  await traderShot(page, 'wallet');

  // Lower the security deposit: USDT is available again, and a withdrawal goes to the operators.
  t.is((await asOperator('PATCH', `${ADMIN}/traders/${trader.traderId}/wallet`, { security_deposit: 500_000 })).status, 200);
  await page.reload();
  await page
    .getByTestId('available')
    .filter({ hasText: /4\s990\.00 USDT/ })
    .waitFor();
  t.is(await page.getByTestId('pool').getAttribute('data-in-pool'), 'true');
  const to = randomTronAddress();
  await page.getByLabel('TRON address (TRC-20)').fill(to);
  await page.getByLabel(/^Amount in USDT, fee included/).fill('100.00');
  const fee = await asTrader(trader.session, 'GET', `${TRADER}/withdrawals/fee?amount=10000`);
  await page
    .getByTestId('fee-quote')
    .filter({ hasText: `${(Number(fee.body.net_usdt_cents) / 100).toFixed(2)} USDT arrives` })
    .waitFor();
  await page.getByRole('button', { name: 'Withdraw…' }).click();
  const dialog = page.getByRole('dialog');
  await dialog.getByTestId('confirm-text').filter({ hasText: '100.00 USDT leaves your available balance' }).waitFor();
  t.true((await dialog.textContent())!.includes(to), 'the dialog names the address');
  await traderShot(page, 'wallet-withdraw-confirm');
  await accessible(t, page, 'trader-withdraw-confirm');
  await dialog.getByRole('button', { name: 'Withdraw 100.00 USDT' }).click();
  await page.getByTestId('withdrawal-made').filter({ hasText: 'waiting for an operator' }).waitFor();
  const list = await asTrader(trader.session, 'GET', `${TRADER}/withdrawals`);
  t.is(list.body.data.length, 1);
  const row = page.getByTestId(`withdrawal-${list.body.data[0].withdrawal_id}`);
  await row.filter({ hasText: 'waiting for an operator' }).waitFor();
  await page
    .getByTestId('available')
    .filter({ hasText: /4\s890\.00 USDT/ })
    .waitFor();
  t.true((await overflowX(page)) <= 0, 'no sideways scrolling with the history');
  t.deepEqual(cspViolations, []);
  // Leave nothing held for the ledger check.
  t.is((await asOperator('POST', `${ADMIN}/withdrawals/${list.body.data[0].withdrawal_id}/cancel`, {})).status, 200);
});
