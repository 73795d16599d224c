/**
 * The cabinet's money pages in Chromium (docs/cabinet.md, "Home", "PayOuts", "Wallet"): an invited
 * owner creates a PayOut whose confirmed hold is the one taken, uploads a PayOut CSV (one row
 * refused with its reason, the others created; the same file again creates nothing), gets its
 * deposit address (the QR code decodes to it) and requests a withdrawal it then sees in the
 * history; a support member sees no action and the API refuses its POST (403); every page at
 * 390 px without sideways scrolling and at 1280 px, axe clean.
 */
import anyTest, { type TestFn } from 'ava';
import jsQR from 'jsqr';
import type { Page } from 'playwright-core';
import { signed } from '../helpers/api';
import { invitedMember, merchantWithOwner } from '../helpers/cabinet-session';
import { accessible, browserTests, overflowX, PHONE, type BrowserCtx } from '../helpers/console-browser';
import { cabinetShot, cabinetSignedIn, openSection } from '../helpers/cabinet-browser';
import { deposit, randomTronAddress } from '../helpers/wallet';

const test = anyTest as TestFn<BrowserCtx>;
const browser = browserTests(test);

const M = '/api/v1/p2p/merchant';

/** The merchant's USDT wallet as its servers read it. */
async function usdt(keys: Parameters<typeof signed>[0]) {
  const res = await signed(keys, 'GET', `${M}/balance`);
  return res.body.wallets.find((w: { currency: string }) => w.currency === 'USDT') as { available: string; frozen: string };
}

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

test('an owner: a PayOut with its hold, a PayOut CSV (a refused row, a re-upload creating nothing), the deposit address’s QR, a withdrawal in the history', async (t) => {
  const { merchantId, keys, owner } = await merchantWithOwner({ sandbox: true });
  t.is((await deposit(merchantId, 5_000_000)).status, 201);
  const { page, cspViolations } = await cabinetSignedIn(t, browser(), owner);

  // Home: the world first, then the balances.
  await page.getByTestId('world').and(page.locator('[data-world="sandbox"]')).waitFor();
  await page.getByRole('banner').getByTestId('sandbox-badge').waitFor();
  await page.getByTestId('balance-USDT').getByTestId('available').filter({ hasText: '50 000.00' }).waitFor();
  await accessible(t, page, 'cabinet-home');
  await cabinetShot(page, 'home-desktop');

  // One PayOut: the hold shown before, said in the confirmation, and the one taken.
  await openSection(page, 'PayOuts');
  await page.getByLabel(/^Amount/).fill('950.00');
  await page.getByLabel('Recipient’s card, phone or IBAN').fill('4111111111111111');
  await page.getByLabel('Recipient’s name (optional)').fill('Anna Recipient');
  const hold = page.getByTestId('hold');
  await hold.waitFor();
  const held = (await hold.getAttribute('data-hold'))!;
  const quoted = await signed(keys, 'GET', `${M}/deals/payout/quote?amount=95000&currency=RUB`);
  t.is(held, quoted.body.hold_usdt_cents, 'the form shows the quote of the amount typed');
  await accessible(t, page, 'cabinet-payouts');
  await page.getByRole('button', { name: 'Create PayOut…' }).click();
  const dialog = page.getByRole('dialog');
  await dialog
    .getByTestId('confirm-text')
    .filter({ hasText: /950\.00 RUB will be paid to 4111111111111111 \(Anna Recipient\)/ })
    .waitFor();
  t.regex(
    (await dialog.textContent())!,
    new RegExp(`${(Number(held) / 100).toFixed(2).replace('.', '\\.')} USDT will move from your available balance to held`),
  );
  await accessible(t, page, 'cabinet-payout-confirm');
  await dialog.getByRole('button', { name: 'Create the PayOut' }).click();
  await page.getByTestId('payout-made').waitFor();
  t.is(BigInt((await usdt(keys)).available), 5_000_000n - BigInt(held), 'the hold taken is the one shown');

  // Many from a CSV: line 3 names a payment method that does not exist.
  const csv = [
    'amount,currency,payment_method,target_requisite,target_name,target_bank',
    '970.00,RUB,card-rub,4111111111111112,Boris Two,',
    '980.00,RUB,no-such-method,4111111111111113,Clara Three,',
    '990.00,RUB,card-rub,4111111111111114,"Dana, Four",sberbank',
  ].join('\n');
  const file = { name: 'payouts.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) };
  await page.getByLabel('CSV file', { exact: true }).and(page.locator(':enabled')).waitFor();
  await page.getByLabel('CSV file', { exact: true }).setInputFiles(file);
  await page.getByTestId('csv-summary').filter({ hasText: '3 rows, 3 to send' }).waitFor();
  for (const line of [2, 3, 4]) t.not(await page.getByTestId(`csv-row-${line}`).locator('td').nth(3).textContent(), '—', `line ${line} shows its hold`);
  await accessible(t, page, 'cabinet-payouts-preview');
  await cabinetShot(page, 'payouts-csv-preview');
  await page.getByRole('button', { name: 'Create 3 PayOuts…' }).click();
  await dialog
    .getByTestId('confirm-text')
    .filter({ hasText: /3 PayOuts will be created one by one; together they move [\d ]+\.\d\d USDT/ })
    .waitFor();
  await dialog.getByRole('button', { name: 'Create 3 PayOuts' }).click();
  await page.getByTestId('count-created').filter({ hasText: '2' }).waitFor();
  t.is(await page.getByTestId('count-refused').textContent(), '1');
  t.is(await page.getByTestId('csv-row-3').getAttribute('data-result'), 'refused');
  t.regex((await page.getByTestId('csv-row-3').textContent())!, /refused: .*payment_method/);
  t.is(await page.getByTestId('csv-row-2').getAttribute('data-result'), 'created');
  await accessible(t, page, 'cabinet-payouts-result');
  await cabinetShot(page, 'payouts-csv-result');
  const payoutsAfterFirst = (await signed(keys, 'GET', `${M}/deals?deal_type=PAYOUT`)).body.data.length;
  t.is(payoutsAfterFirst, 3, 'the single PayOut and the two rows');

  // The same file again: every row answered by its earlier PayOut, nothing new.
  await page.reload();
  await page.getByRole('heading', { level: 1, name: 'PayOuts' }).waitFor();
  await page.getByLabel('CSV file', { exact: true }).and(page.locator(':enabled')).waitFor();
  await page.getByLabel('CSV file', { exact: true }).setInputFiles(file);
  await page.getByRole('button', { name: 'Create 3 PayOuts…' }).click();
  await dialog.getByRole('button', { name: 'Create 3 PayOuts' }).click();
  await page.getByTestId('count-replayed').filter({ hasText: '2' }).waitFor();
  t.is(await page.getByTestId('count-created').textContent(), '0');
  t.is(await page.getByTestId('csv-row-4').getAttribute('data-result'), 'replayed');
  t.is((await signed(keys, 'GET', `${M}/deals?deal_type=PAYOUT`)).body.data.length, 3, 'no PayOut made by the re-upload');

  // Wallet: the deposit address and its QR code.
  await openSection(page, 'Wallet');
  await page.getByRole('button', { name: 'Get my deposit address…' }).click();
  await dialog.getByText('No money moves').waitFor();
  await dialog.getByRole('button', { name: 'Get the address' }).click();
  const addressText = (await page.getByTestId('deposit-address').textContent())!.trim();
  t.is(addressText, (await signed(keys, 'GET', `${M}/wallet/deposit-address`)).body.address);
  t.is(await decodeQr(page), addressText, 'the QR code decodes to the address');

  // A withdrawal: the fee quote, the confirmation, the history.
  const to = randomTronAddress();
  await page.getByLabel('TRON address (TRC-20)').fill(to);
  await page.getByLabel(/^Amount, fee included/).fill('100.00');
  const fee = await signed(keys, 'GET', `${M}/wallet/withdraw-fee?amount=10000`);
  await page
    .getByTestId('fee-quote')
    .filter({ hasText: `${(Number(fee.body.net_usdt_cents) / 100).toFixed(2)} USDT arrives` })
    .waitFor();
  await page.getByRole('button', { name: 'Withdraw…' }).click();
  await dialog.getByTestId('confirm-text').filter({ hasText: `100.00 USDT leaves your available balance` }).waitFor();
  t.true((await dialog.textContent())!.includes(to), 'the dialog names the address');
  await accessible(t, page, 'cabinet-withdraw-confirm');
  await dialog.getByRole('button', { name: 'Withdraw 100.00 USDT' }).click();
  await page.getByTestId('withdrawal-made').waitFor();
  const list = await signed(keys, 'GET', `${M}/wallet/withdrawals`);
  t.is(list.body.data.length, 1);
  const row = page.getByTestId(`withdrawal-${list.body.data[0].withdrawal_id}`);
  await row.filter({ hasText: to }).waitFor();
  t.truthy(await row.getAttribute('data-status'));
  await accessible(t, page, 'cabinet-wallet');
  await cabinetShot(page, 'wallet-desktop');
  t.deepEqual(cspViolations, []);
});

test('at 390 px: Home, PayOuts and Wallet fit the phone, their actions on screen; axe clean', async (t) => {
  const { merchantId, owner } = await merchantWithOwner({ sandbox: true });
  t.is((await deposit(merchantId, 1_000_000)).status, 201);
  const { page, cspViolations } = await cabinetSignedIn(t, browser(), owner, PHONE);
  await page.getByTestId('world').waitFor();
  for (const [label, action, shot] of [
    ['Home', 'Add play money…', 'home-phone'],
    ['PayOuts', 'Create PayOut…', 'payouts-phone'],
    ['Wallet', 'Get my deposit address…', 'wallet-phone'],
  ] as const) {
    await openSection(page, label);
    t.true((await overflowX(page)) <= 0, `${label}: no sideways scrolling`);
    const button = page.getByRole('button', { name: action });
    await button.scrollIntoViewIfNeeded();
    const box = (await button.boundingBox())!;
    t.true(box.x >= 0 && box.x + box.width <= PHONE.width, `${label}: “${action}” within the screen`);
    await accessible(t, page, `cabinet-${label}-phone`);
    await cabinetShot(page, shot);
  }
  t.deepEqual(cspViolations, []);
});

test('support of a live merchant: “Live” said, no money action on any page, and the API refuses its POST (403) with nothing moved', async (t) => {
  const { merchantId, keys, owner } = await merchantWithOwner();
  t.is((await deposit(merchantId, 1_000_000)).status, 201);
  const support = await invitedMember(owner, 'support');
  const { page } = await cabinetSignedIn(t, browser(), support);
  await page.getByTestId('balance-USDT').waitFor();
  await page.getByTestId('world').and(page.locator('[data-world="live"]')).filter({ hasText: 'Live: real money' }).waitFor();
  t.is(await page.getByTestId('sandbox-badge').count(), 0);
  t.is(await page.getByRole('button', { name: 'Add play money…' }).count(), 0);
  await openSection(page, 'PayOuts');
  await page.getByTestId('read-only').waitFor();
  t.is(await page.getByRole('button', { name: /Create/ }).count(), 0);
  await accessible(t, page, 'cabinet-payouts-support');
  await openSection(page, 'Wallet');
  await page.getByRole('heading', { name: 'Withdrawals' }).waitFor();
  t.is(await page.getByRole('button', { name: /Withdraw|deposit address/ }).count(), 0);
  t.is(await page.getByLabel('TRON address (TRC-20)').count(), 0);

  // The same POSTs from the signed-in page itself, with its session's CSRF token: refused.
  const statuses = await page.evaluate(async (address) => {
    // No named functions in here: the test's transpiler would wrap them in a helper the page lacks.
    const session = await (await fetch('/api/v1/p2p/cabinet/session')).json();
    const balance = await (await fetch('/api/v1/p2p/merchant/balance')).json();
    const calls: Array<[string, unknown]> = [
      [
        '/api/v1/p2p/merchant/deals/payout',
        {
          idempotency_key: 'support-try',
          amount: 95000,
          currency: 'RUB',
          wallet_id: balance.wallets[0].wallet_id,
          target_requisite: '4111111111111111',
          payment_method: 'card-rub',
        },
      ],
      ['/api/v1/p2p/merchant/wallet/withdraw', { address, amount: 10000 }],
      ['/api/v1/p2p/merchant/wallet/deposit-address', {}],
    ];
    const out: number[] = [];
    for (const [path, body] of calls) {
      const response = await fetch(path, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-CSRF-Token': session.csrf_token },
        body: JSON.stringify(body),
      });
      out.push(response.status);
    }
    return out;
  }, randomTronAddress());
  t.deepEqual(statuses, [403, 403, 403]);
  const after = await usdt(keys);
  t.deepEqual([after.available, after.frozen], ['1000000', '0'], 'nothing held or spent');
});
