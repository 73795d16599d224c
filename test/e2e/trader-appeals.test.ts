/// <reference lib="dom" />
/**
 * A dispute from the trader's phone in Chromium (390 px): the Disputes page lists the appeal on the
 * trader's deal with its countdown; the case shows the merchant's statement and file; the trader
 * answers with text and a photo; the arbiter's case (API and console page) shows the answer,
 * labelled as the trader's, with its name. axe-core on each page, no horizontal scroll.
 */
import anyTest, { type TestFn } from 'ava';
import { randomUUID } from 'node:crypto';
import { asOperator, newMerchant, type Json } from '../helpers/api';
import { testSql } from '../helpers/app';
import { createPayin, isolatedMethod } from '../helpers/deals';
import { ADMIN_APPEALS, openAppeal } from '../helpers/appeals';
import { filePart, SAMPLES, signedUpload } from '../helpers/multipart';
import { accessible, browserTests, consoleOperator, headingSettled, overflowX, signedIn, visit, type BrowserCtx } from '../helpers/console-browser';
import { openTraderSection, traderShot, traderSignedIn } from '../helpers/trader-browser';
import { newTrader } from '../helpers/trader-session';

const test = anyTest as TestFn<BrowserCtx>;
const browser = browserTests(test);

const sql = testSql();
test.after.always(() => sql.end());

const REASON = 'The payer paid at 12:03 and sent the receipt; the trader never confirmed.';
const ANSWER = 'Nothing arrived on my card that day; my bank statement shows no such transfer.';

test.serial('the trader answers a dispute from its phone; the arbiter sees the answer as the trader’s, with its name', async (t) => {
  const trader = await newTrader({ name: `Phone trader ${randomUUID().slice(0, 6)}` });
  const { page, cspViolations } = await traderSignedIn(t, browser(), trader);
  const method = await isolatedMethod();
  const requisite = await asOperator('POST', `/api/v1/p2p/admin/traders/${trader.traderId}/requisites`, {
    payment_method: method,
    requisite_type: 'BANK_CARD',
    card_number: '2200555544443333',
    holder_name: 'Phone Holder',
    bank_name: 'phone-bank',
    min_amount: 100,
    max_amount: 100_000_000,
  });
  t.is(requisite.status, 201, requisite.text);
  const { keys } = await newMerchant({ name: `Phone shop ${randomUUID().slice(0, 6)}` });
  const deal = await createPayin(keys, { payment_method_id: method });
  const upload = await signedUpload(keys, filePart(SAMPLES.png, 'receipt.png', 'image/png'));
  const opened = await openAppeal(keys, { deal_id: deal.deal_id, reason: REASON, file_ids: [upload.body.file.file_id] });
  t.is(opened.status, 200, opened.text);
  const appealId = opened.body.data.appeal_id as string;

  // The list: the dispute with its countdown.
  await openTraderSection(page, 'Disputes');
  const card = page.getByTestId('trader-appeal').filter({ hasText: deal.deal_id.slice(0, 8) });
  await card.waitFor();
  t.regex((await card.getByTestId('countdown').textContent()) ?? '', /left/);
  await accessible(t, page, 'trader-disputes');
  await traderShot(page, 'disputes');
  t.true((await overflowX(page)) <= 0, 'no horizontal scroll at 390 px');

  // The case: the merchant's statement and file; the answer with text and a photo.
  await card.getByRole('link').first().click();
  await headingSettled(page, /Dispute on/);
  t.is(await page.getByTestId('merchant-statement').textContent(), REASON);
  t.true(await page.getByRole('link', { name: /^PNG image, \d+ B/ }).isVisible());
  await page.getByLabel('What happened').fill(ANSWER);
  await page.getByLabel(/A receipt or statement/).setInputFiles({ name: 'statement.png', mimeType: 'image/png', buffer: SAMPLES.png });
  await traderShot(page, 'dispute-answer');
  await page.getByRole('button', { name: 'Send answer' }).click();
  await page.getByTestId('answer-sent').waitFor();
  await page.locator('li[data-party="TRADER"]').filter({ hasText: ANSWER }).waitFor();
  await accessible(t, page, 'trader-dispute');
  await traderShot(page, 'dispute-answered');
  t.true((await overflowX(page)) <= 0, 'no horizontal scroll at 390 px');
  t.deepEqual(cspViolations, []);

  // The arbiter's case API: the trader's answer with its file, labelled and named.
  const admin = await asOperator('GET', `${ADMIN_APPEALS}/${appealId}`);
  t.is(admin.status, 200, admin.text);
  const a = admin.body.data;
  const name = (await sql<{ name: string }[]>`select name from traders where id = ${trader.traderId}`)[0]!.name;
  t.like(a.trader, { trader_id: trader.traderId, name, answer: 'ANSWERED' });
  const answer = a.messages.find((m: Json) => m.sender_role === 'TRADER');
  t.like(answer, { body: ANSWER, sender_name: name });
  t.is(answer.file_ids.length, 1);
  t.is(a.files.find((f: Json) => f.file_id === answer.file_ids[0]).party, 'TRADER');

  // And the console's case page.
  const arbiter = await consoleOperator('arbiter');
  const desk = await signedIn(t, browser(), arbiter);
  await visit(t, desk.page, `/appeals/${appealId}`, /Appeal/, 'appeal-case-parties');
  t.regex((await desk.page.getByTestId('party-trader').textContent()) ?? '', /ANSWERED/);
  t.regex((await desk.page.getByTestId('party-trader').textContent()) ?? '', new RegExp(name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
  t.regex((await desk.page.locator('li[data-party="TRADER"]').first().textContent()) ?? '', /Trader/);
});
