/**
 * The operators' queue of bank notifications in Chromium: a message a trader's phone forwarded and
 * no parser read waits with the trader's and the phone's names, and is dismissed with a required
 * reason; a credit that came before its deal shows that deal by its merchant's name, the attach
 * dialog says the deal completes, the deal then completes and its timeline names the phone and the
 * trader; a second credit offers no attach to the completed deal (it says why), and attaching it
 * to a deal the payer cancels while the dialog is open is refused in words inside the dialog. axe-core on the pages, the queue as cards at a phone's width.
 */
import anyTest, { type TestFn } from 'ava';
import { asOperator, newMerchant } from '../helpers/api';
import { testSql } from '../helpers/app';
import { pairedDevice, sendNotification, tbankCredit, type PairedDevice } from '../helpers/bank-device';
import { accessible, browserTests, consoleOperator, docShot, overflowX, signedIn, visit, type BrowserCtx } from '../helpers/console-browser';
import { checkout, createPayin, hashOf, isolatedMethod } from '../helpers/deals';
import { eventually } from '../helpers/poll';
import { newTrader } from '../helpers/trader-session';

const test = anyTest as TestFn<BrowserCtx>;
const sql = testSql();
const browser = browserTests(test);
test.after.always(() => sql.end());

const ADMIN = '/api/v1/p2p/admin';

/** A message the phone forwards, once it has left RECEIVED (matched, or in the queue). */
async function forward(device: PairedDevice, n: { sender: string; text: string }) {
  const sent = await sendNotification(device, n);
  if (sent.status !== 202) throw new Error(`notification refused: ${sent.status} ${sent.text}`);
  const id = sent.body.notification_id as string;
  return eventually(async () => {
    const [r] = await sql<{ id: string; status: string }[]>`select id, status from bank_notifications where id = ${id}`;
    return r && r.status !== 'RECEIVED' ? r : undefined;
  }, 'the notification settles');
}

test('the queue: an unread message is dismissed with a reason; a credit attaches to its deal, which completes, and the timeline names the phone', async (t) => {
  const method = await isolatedMethod();
  const traderName = `Queue trader ${Date.now()}`;
  const trader = await newTrader({ name: traderName });
  const requisite = await asOperator('POST', `${ADMIN}/traders/${trader.traderId}/requisites`, {
    payment_method: method,
    requisite_type: 'BANK_CARD',
    card_number: '2200999988884242',
    holder_name: 'Queue Holder',
    bank_name: 'tbank',
    min_amount: 100,
    max_amount: 100_000_000,
  });
  t.is(requisite.status, 201, requisite.text);
  const merchantName = `Shop ${Date.now()}`;
  const merchant = await newMerchant({ name: merchantName });
  const device = await pairedDevice(trader, [requisite.body.requisite.requisite_id], 'Queue Pixel');
  const unread = await forward(device, { sender: 'Parcel SMS', text: 'Your parcel waits at the pickup point' });
  t.is(unread.status, 'UNPARSED');
  // The money came before the deal was made: it waits, and the deal made then is its candidate.
  const credit = await forward(device, tbankCredit(150_000));
  t.is(credit.status, 'UNMATCHED');
  const payin = await createPayin(merchant.keys, { payment_method_id: method, amount: 150_000 });

  const arbiter = await consoleOperator('arbiter');
  const { page, cspViolations } = await signedIn(t, browser(), arbiter);
  await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Bank notifications' }).waitFor();
  await visit(t, page, `/bank-notifications?trader_id=${trader.traderId}`, 'Bank notifications', 'bank-notifications');
  await page.getByRole('combobox', { name: 'Trader', exact: true }).getByRole('option', { name: traderName }).waitFor({ state: 'attached' });
  t.is(await page.getByRole('combobox', { name: 'Trader', exact: true }).inputValue(), trader.traderId, 'the trader filter shows the trader by name');

  const unreadRow = page.locator(`tr[data-notification="${unread.id}"]`);
  const creditRow = page.locator(`tr[data-notification="${credit.id}"]`);
  await unreadRow.waitFor();
  for (const row of [unreadRow, creditRow]) {
    await row.getByText(traderName).waitFor();
    await row.getByText('phone Queue Pixel').waitFor();
  }
  await unreadRow.getByText('Nothing could be read from it: no bank parser knew the message').waitFor();
  await unreadRow.getByText('unknown (sender Parcel SMS)').waitFor();
  await creditRow.getByText('No live deal of this amount on the requisites this phone serves').waitFor();
  await creditRow.getByText('T-Bank (parser v1)').waitFor();
  await creditRow.getByText('Иван И.', { exact: true }).waitFor();
  const candidate = creditRow.locator(`li[data-candidate="${payin.deal_id}"]`);
  await candidate.getByText(merchantName).waitFor();
  await candidate.getByText('exact amount').waitFor();
  await creditRow.getByText('Text from T-Bank').click();
  await creditRow.getByText(/Пополнение, счет RUB/).waitFor();
  await docShot(page, 'bank-notifications');

  // Dismiss needs a reason, and says what it does.
  await unreadRow.getByRole('button', { name: 'Dismiss…' }).click();
  const dismiss = page.getByRole('dialog', { name: 'Dismiss this notification' });
  t.is(
    (await dismiss.getByTestId('dismiss-says').textContent())?.trim(),
    `The message forwarded by Queue Pixel (${traderName}) leaves the queue for good and confirms no deal. Your reason is kept with it and in the audit log.`,
  );
  await dismiss.getByRole('button', { name: 'Dismiss', exact: true }).click();
  await dismiss.getByText('Say why it needs no deal.').waitFor();
  await dismiss.getByLabel(/^Reason/).fill('a transfer between the trader’s own cards');
  await dismiss.getByRole('button', { name: 'Dismiss', exact: true }).click();
  await unreadRow.waitFor({ state: 'detached' });
  const dismissed = await asOperator('GET', `${ADMIN}/bank-notifications/${unread.id}`);
  t.like(dismissed.body.notification, { status: 'DISMISSED', resolution_note: 'a transfer between the trader’s own cards' });

  // Attach: the dialog says the deal completes; it does.
  await candidate.getByRole('button', { name: `Attach to deal ${payin.deal_id.slice(0, 8)}…` }).click();
  const attach = page.getByRole('dialog', { name: `Attach to deal ${payin.deal_id.slice(0, 8)}` });
  t.regex(
    (await attach.getByTestId('attach-says').textContent()) ?? '',
    new RegExp(
      `^Confirms deal ${payin.deal_id.slice(0, 8)} of ${merchantName} with 1 500\\.00 RUB received\\. The deal’s amount to pay is 1 500\\.00 RUB: it completes\\.`,
    ),
  );
  await docShot(page, 'bank-notifications-attach');
  await attach.getByRole('button', { name: 'Attach', exact: true }).click();
  await creditRow.waitFor({ state: 'detached' });
  await eventually(
    async () => (await asOperator('GET', `${ADMIN}/deals/${payin.deal_id}`)).body.deal?.status === 'COMPLETED' || undefined,
    'the deal completes',
  );

  // A second credit: the completed deal takes no attach and says why; a live deal of another
  // amount does, and its dialog says the deal stays for a reconciliation. The payer cancels that
  // deal while the dialog is open: the dialog stays, and the API's refusal is said in it, in words.
  const second = await forward(device, tbankCredit(150_000));
  t.is(second.status, 'UNMATCHED');
  const other = await createPayin(merchant.keys, { payment_method_id: method, amount: 100_000 });
  await page.getByRole('combobox', { name: 'Status', exact: true }).selectOption({ label: 'matched no deal' });
  const secondRow = page.locator(`tr[data-notification="${second.id}"]`);
  const completed = secondRow.locator(`li[data-candidate="${payin.deal_id}"]`);
  await completed.getByText('completed already: no attach (a second payment?)').waitFor();
  t.is(await completed.getByRole('button').count(), 0, 'no attach button on a completed deal');
  await secondRow.getByRole('button', { name: `Attach to deal ${other.deal_id.slice(0, 8)}…` }).click();
  const refused = page.getByRole('dialog', { name: `Attach to deal ${other.deal_id.slice(0, 8)}` });
  t.regex(
    (await refused.getByTestId('attach-says').textContent()) ?? '',
    /with 1 500\.00 RUB received\. The deal’s amount to pay is 1 000\.00 RUB: it stays for a reconciliation \(overpaid: more than asked\)\./,
  );
  await checkout(hashOf(other.payment_url), 'cancel');
  await eventually(
    async () => (await asOperator('GET', `${ADMIN}/deals/${other.deal_id}`)).body.deal?.status === 'CANCELLED' || undefined,
    'the payer cancels',
  );
  await refused.getByRole('button', { name: 'Attach', exact: true }).click();
  await refused.getByRole('alert').waitFor();
  t.regex((await refused.getByRole('alert').textContent()) ?? '', /CANCELLED: money that arrived after the deal ended is settled through an appeal/);
  await docShot(page, 'bank-notifications-attach-refused');
  await refused.getByRole('button', { name: 'Cancel' }).click();
  await refused.waitFor({ state: 'detached' });
  await secondRow.locator(`li[data-candidate="${other.deal_id}"]`).getByText('settle through an appeal').waitFor();

  // The deal's timeline names the notification that confirmed it.
  await visit(t, page, `/deals/${payin.deal_id}`, new RegExp(`^Deal ${payin.deal_id.slice(0, 8)}`), 'deal-confirmed-by-bank');
  t.regex(
    (await page.getByTestId('confirmed-by-bank').textContent()) ?? '',
    new RegExp(
      `^Confirmed by the bank notification forwarded by Queue Pixel \\(${traderName}\\) at \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d UTC: T-Bank credit of 1 500\\.00 RUB, attached by an operator\\.`,
    ),
  );
  await docShot(page, 'deal-confirmed-by-bank');

  // At a phone's width the queue is cards, with nothing to scroll sideways.
  await page.setViewportSize({ width: 390, height: 844 });
  await visit(t, page, `/bank-notifications?status=ATTACHED&trader_id=${trader.traderId}`, 'Bank notifications', 'bank-notifications-phone');
  await page
    .locator(`tr[data-notification="${credit.id}"]`)
    .getByText(/Attached to deal/)
    .waitFor();
  t.true((await overflowX(page)) <= 0, 'no sideways scrolling on a phone');
  await docShot(page, 'bank-notifications-390');
  await accessible(t, page, 'bank-notifications-phone');
  t.deepEqual(cspViolations, []);
});
