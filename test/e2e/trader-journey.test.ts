/**
 * A trader's working day in the trader app, in Chromium at a phone's size (390 px), with no
 * operator acting on any deal: sign in, go online, add a requisite (an operator approves the
 * requisite, as the rules want, not the deal), confirm a PayIn, complete a PayOut with a receipt,
 * answer a dispute, go offline — and then no new deal reaches the trader. The merchant's side is
 * its signed API; the operators' only part is approving the new requisite.
 */
import anyTest, { type TestFn } from 'ava';
import { randomUUID } from 'node:crypto';
import { asOperator, newMerchant, signed } from '../helpers/api';
import { openAppeal } from '../helpers/appeals';
import { browserTests, headingSettled, type BrowserCtx } from '../helpers/console-browser';
import { createPayin, isolatedMethod, PAYIN, payinBody, PAYOUT } from '../helpers/deals';
import { SAMPLES } from '../helpers/multipart';
import { openTraderSection, traderShot, traderSignedIn } from '../helpers/trader-browser';
import { asTrader, newTrader, TRADER } from '../helpers/trader-session';
import { txHashOf } from '../helpers/tx-hash';
import { eventually } from '../helpers/poll';

const test = anyTest as TestFn<BrowserCtx>;
const browser = browserTests(test);

test('a working day on a phone: online, a new requisite, a PayIn confirmed, a PayOut completed with proof, a dispute answered, offline and no new deal', async (t) => {
  t.timeout(300_000);
  const method = await isolatedMethod();
  const trader = await newTrader({ online: false, name: `Journey trader ${randomUUID().slice(0, 6)}` });
  const { page, cspViolations } = await traderSignedIn(t, browser(), trader);

  // Online with the thumb switch in the header.
  await page.getByRole('switch').click();
  await page.getByRole('switch', { checked: true }).waitFor();

  // A requisite of its own; an operator approves it before its first use.
  await openTraderSection(page, 'Requisites');
  await page.getByLabel('Payment method').selectOption(method);
  await page.getByLabel('Card number').fill('2200111122223333');
  await page.getByLabel('Holder name').fill('Journey Holder');
  await page.getByLabel('Bank', { exact: true }).fill('journey-bank');
  await page.getByLabel(/^Smallest deal/).fill('1');
  await page.getByLabel(/^Largest deal/).fill('100000');
  await page.getByRole('button', { name: 'Add requisite' }).click();
  await page.getByTestId('requisite').filter({ hasText: '2200111122223333' }).filter({ hasText: 'waiting for approval' }).waitFor();
  const requisiteId = (await asTrader(trader.session, 'GET', `${TRADER}/requisites`)).body.data[0].requisite_id as string;
  t.is((await asOperator('POST', `/api/v1/p2p/admin/requisites/${requisiteId}/approve`)).status, 200);

  // A merchant's PayIn and PayOut reach the trader: nobody else serves this payment method.
  const { merchantId, keys } = await newMerchant();
  const funded = await asOperator('POST', '/api/v1/p2p/admin/deposits', {
    merchant_id: merchantId,
    amount: 10_000,
    tx_hash: txHashOf(`journey-${merchantId}`),
  });
  t.true(funded.status === 201 || funded.status === 200, funded.text);
  const payin = await createPayin(keys, { payment_method_id: method, amount: 150_000 });
  t.is(payin.status, 'ESCROW_LOCKED');
  const walletId = (await signed(keys, 'GET', '/api/v1/p2p/merchant/balance')).body.wallets[0].wallet_id as string;
  const payout = await signed(keys, 'POST', PAYOUT, {
    idempotency_key: `journey-${payin.deal_id}`,
    amount: 95_000,
    currency: 'RUB',
    wallet_id: walletId,
    target_requisite: '4111111111111111',
    target_name: 'Anna Recipient',
    payment_method: method,
  });
  t.is(payout.body.deal?.status, 'MATCHED', payout.text);
  const payoutId = payout.body.deal.deal_id as string;

  // The queue: confirm the PayIn with the amount prefilled, complete the PayOut with a receipt.
  await openTraderSection(page, 'Deals');
  const payinCard = page.locator(`article[data-deal-id="${payin.deal_id}"]`);
  await payinCard.getByRole('button', { name: 'Confirm received' }).click();
  await page.getByRole('dialog', { name: '1 500.00 RUB arrived?' }).getByRole('button', { name: 'Yes, 1 500.00 RUB arrived' }).click();
  await page.locator(`.trader-history li[data-deal-id="${payin.deal_id}"]`).filter({ hasText: 'Completed' }).waitFor();
  const payoutCard = page.locator(`article[data-deal-id="${payoutId}"]`);
  await payoutCard.getByRole('button', { name: 'Start transfer' }).click();
  await payoutCard.getByLabel('Bank reference of the transfer').fill('JOURNEY-REF-1');
  await payoutCard.getByLabel(/^Receipt/).setInputFiles({ name: 'receipt.png', mimeType: 'image/png', buffer: SAMPLES.png });
  await payoutCard.getByRole('button', { name: 'Complete with proof' }).click();
  await page.locator(`.trader-history li[data-deal-id="${payoutId}"]`).filter({ hasText: 'Completed' }).waitFor();

  // The merchant's own reads agree: both deals completed, the payout carries the trader's proof.
  t.is((await signed(keys, 'GET', `/api/v1/p2p/merchant/deals/${payin.deal_id}`)).body.deal.status, 'COMPLETED');
  const done = (await signed(keys, 'GET', `/api/v1/p2p/merchant/deals/${payoutId}`)).body.deal;
  t.is(done.status, 'COMPLETED');
  t.is(done.payout_proof?.bank_reference, 'JOURNEY-REF-1');

  // A dispute on another PayIn of the trader: it answers from its phone.
  const disputed = await createPayin(keys, { payment_method_id: method, amount: 160_000 });
  const opened = await openAppeal(keys, { deal_id: disputed.deal_id, reason: 'The payer paid and the trader never confirmed.' });
  t.is(opened.status, 200, opened.text);
  await openTraderSection(page, 'Disputes');
  await page
    .getByTestId('trader-appeal')
    .filter({ hasText: disputed.deal_id.slice(0, 8) })
    .getByRole('link')
    .first()
    .click();
  await headingSettled(page, /Dispute on/);
  await page.getByLabel('What happened').fill('No transfer of that amount reached my card.');
  await page.getByRole('button', { name: 'Send answer' }).click();
  await page.getByTestId('answer-sent').waitFor();
  await traderShot(page, 'journey-dispute-answered');

  // Offline: the next PayIn on this method finds no trader.
  await page.getByRole('switch', { checked: true }).click();
  await page.getByRole('switch', { checked: false }).waitFor();
  await eventually(async () => (await asTrader(trader.session, 'GET', `${TRADER}/presence`)).body.presence.online === false, 'the trader offline');
  const refused = await signed(keys, 'POST', PAYIN, payinBody({ payment_method_id: method, amount: 170_000 }));
  t.is(refused.status, 400, refused.text);
  t.regex(refused.text, /no trader is available/);
  t.deepEqual(cspViolations, []);
});
