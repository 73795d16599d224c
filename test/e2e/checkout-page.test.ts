/// <reference lib="dom" />
import test from 'ava';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { newMerchant } from '../helpers/api';
import { testSql } from '../helpers/app';
import { createPayin, operatorDeal } from '../helpers/deals';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const ARTIFACTS = join(process.cwd(), 'test-results');

let browser: Browser;
test.before(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
});
test.after.always(async () => browser?.close());

test('the payer opens payment_url, presses "I paid", and sees the deal complete with the merchant redirect', async (t) => {
  const { merchantId, keys } = await newMerchant({ name: 'Sunrise Books' });
  const sql = testSql();
  t.teardown(() => sql.end());
  await sql`update merchants set success_redirect_url = 'https://sunrise.example/thanks' where id = ${merchantId}`;
  const deal = await createPayin(keys, { amount: 150_000, description: 'Order 1042' });

  const page = await browser.newPage();
  // A bound for a wait gone wrong, far above what a loaded machine takes.
  page.setDefaultTimeout(120_000);
  await page.goto(deal.payment_url);
  t.is(await page.textContent('h1'), 'Sunrise Books');
  t.regex((await page.textContent('.amount')) ?? '', /1 500\.00\s+RUB/);
  t.regex((await page.textContent('#requisite')) ?? '', /^\d{16}$/);
  t.is(await page.textContent('#status'), 'ESCROW_LOCKED');
  await page.waitForFunction(() => /Time left: \d+:\d{2}/.test(document.querySelector('#countdown')?.textContent ?? ''));

  await page.click('#paid');
  await page.waitForFunction(() => document.querySelector('#status')?.textContent === 'PAYMENT_NOTIFIED');
  t.true(await page.isDisabled('#paid'));
  await page.screenshot({ path: join(ARTIFACTS, 'checkout-payment-notified.png'), fullPage: true });

  const confirmed = await operatorDeal(deal.deal_id, 'confirm');
  t.is(confirmed.body.deal.status, 'COMPLETED');
  await page.waitForFunction(() => document.querySelector('#status')?.textContent === 'COMPLETED', undefined, { timeout: 120_000 });
  t.is(await page.textContent('#final h2'), 'Payment received');
  t.is(await page.getAttribute('#final a', 'href'), 'https://sunrise.example/thanks');
  t.true(await page.isHidden('#details'), 'requisites are no longer shown');
  await page.screenshot({ path: join(ARTIFACTS, 'checkout-completed.png'), fullPage: true });
});

test('the payer cancels from the page', async (t) => {
  const { keys } = await newMerchant();
  const deal = await createPayin(keys);
  const page = await browser.newPage();
  // A bound for a wait gone wrong, far above what a loaded machine takes.
  page.setDefaultTimeout(120_000);
  await page.goto(deal.payment_url);
  await page.click('#cancel');
  await page.waitForFunction(() => document.querySelector('#status')?.textContent === 'CANCELLED');
  t.is(await page.textContent('#final h2'), 'Payment cancelled');
});
