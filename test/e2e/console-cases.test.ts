/// <reference lib="dom" />
/**
 * The desk's round in Chromium: an overdue appeal shows on the home and in its queue, is taken
 * from its page, and new work reaches the header's badge without a reload; a bulk approve by one
 * finance operator records only its approval of each four-eyes withdrawal and a second operator's
 * releases them; an invitation's link → a password → the authenticator → signed in, then one's
 * own password changed; an admin creates a merchant from its form. axe-core on every page.
 */
import anyTest, { type TestFn } from 'ava';
import { randomBytes } from 'node:crypto';
import { totpAt } from '../../domain/crypto/totp';
import { API_URL, asOperator, newMerchant } from '../helpers/api';
import { testSql } from '../helpers/app';
import { createPayin, isolatedTrader } from '../helpers/deals';
import { openAppeal } from '../helpers/appeals';
import { eventually } from '../helpers/poll';
import { SAMPLES } from '../helpers/multipart';
import { ADMIN, randomTronAddress, walletMerchant, withdraw } from '../helpers/wallet';
import { accessible, browserTests, consoleOperator, docShot, freshPage, headingSettled, signedIn, visit, type BrowserCtx } from '../helpers/console-browser';

const test = anyTest as TestFn<BrowserCtx>;
const browser = browserTests(test);

const sql = testSql();
test.after.always(() => sql.end());

const REASON = 'The payer paid; the trader never confirmed.';

async function liveAppeal() {
  const { keys } = await newMerchant({ name: `Console cases ${process.pid}` });
  const { method } = await isolatedTrader({ liquidity: 10_000 });
  const deal = await createPayin(keys, { payment_method_id: method });
  const opened = await openAppeal(keys, { deal_id: deal.deal_id, reason: REASON });
  if (opened.status !== 200) throw new Error(opened.text);
  return { keys, method, appealId: opened.body.data.appeal_id as string };
}

test.serial('an overdue appeal shows on the home and in the overdue queue; the arbiter takes it; new work reaches the badge without a reload', async (t) => {
  const { keys, method, appealId } = await liveAppeal();
  await sql`update appeals set respond_by = now() - interval '3 hours' where id = ${appealId}`;
  const arbiter = await consoleOperator('arbiter');
  const { page, cspViolations } = await signedIn(t, browser(), arbiter);

  await visit(t, page, '/', 'Queues', 'home-overdue');
  await docShot(page, 'home-overdue');
  const card = page.locator('[data-queue="overdue"]');
  t.true(Number(await card.locator('.count').textContent()) >= 1);
  t.regex((await card.textContent()) ?? '', /most overdue by/);
  await card.getByRole('link', { name: 'Appeals past their deadline' }).click();
  await headingSettled(page, 'Appeals');
  const row = page.locator(`tr[data-appeal="${appealId}"]`);
  await row.waitFor();
  t.regex((await row.textContent()) ?? '', /overdue/);
  await accessible(t, page, 'appeals-overdue');
  await docShot(page, 'appeals-overdue');

  await row.getByRole('link', { name: appealId.slice(0, 8) }).click();
  await headingSettled(page, /Appeal/);
  t.regex((await page.getByTestId('respond-by').textContent()) ?? '', /overdue/);
  t.is(await page.getByTestId('assignee').textContent(), 'nobody');
  await page.getByRole('button', { name: 'Take it' }).click();
  await page.getByTestId('assignee').filter({ hasText: arbiter.email }).waitFor();
  // A paper of the case: uploaded as the operator's file, attached with a note.
  await page.getByLabel(/^File/).setInputFiles({ name: 'bank-statement.pdf', mimeType: 'application/pdf', buffer: SAMPLES.pdf });
  await page.getByLabel('What it is').fill('Bank statement of the day');
  await page.getByRole('button', { name: 'Attach', exact: true }).click();
  await page.getByTestId('attachments').getByRole('link', { name: 'Bank statement of the day' }).waitFor();
  t.is((await sql`select 1 from appeal_attachments where appeal_id = ${appealId}`).length, 1);
  t.regex((await page.getByTestId('attachments').textContent()) ?? '', new RegExp(`by ${arbiter.email.replace(/[.+]/g, '\\$&')}`), 'who attached it, by email');
  await accessible(t, page, 'appeal-case');
  await docShot(page, 'appeal-case');
  const [assigned] = await sql<{ assignee_id: string }[]>`select assignee_id from appeals where id = ${appealId}`;
  t.is(assigned!.assignee_id, arbiter.id);

  await visit(t, page, '/', 'Queues', 'home-mine');
  await page.getByTestId('mine').waitFor();
  t.regex((await page.getByTestId('mine').textContent()) ?? '', /assigned to you/);

  // New work while the page stays open: the badge counts it at the next poll, its list links it.
  const badge = page.getByTestId('notification-count');
  const before = Number(await badge.textContent());
  const deal = await createPayin(keys, { payment_method_id: method });
  const fresh = await openAppeal(keys, { deal_id: deal.deal_id, reason: 'A second appeal, opened while the console is open.' });
  await eventually(async () => Number(await badge.textContent()) > before, 'the badge to count the new appeal', 60_000);
  await page.getByRole('button', { name: /New work/ }).click();
  const item = page.getByRole('link', { name: /A second appeal, opened while the console is open/ });
  await item.waitFor();
  await accessible(t, page, 'notifications');
  await docShot(page, 'notifications');
  await item.click();
  await page.waitForURL(`**/console/appeals/${fresh.body.data.appeal_id}`);
  await headingSettled(page, /Appeal/);
  t.deepEqual(cspViolations, []);
});

test.serial(
  'bulk approve in the browser keeps four-eyes: the first operator’s bulk records its approval of each big withdrawal only; the second operator’s releases them',
  async (t) => {
    const { keys } = await walletMerchant(10_000_000, { auto_withdrawal_mode: 'MANUAL_ONLY' });
    const queue = async (amount: number) => {
      const w = await withdraw(keys, { address: randomTronAddress(), amount });
      if (w.body.status !== 'PENDING_MANUAL') throw new Error(w.text);
      return w.body.withdrawal_id as string;
    };
    const big = [await queue(1_500_000), await queue(1_600_000)];
    const small = await queue(40_000);
    const [first, second] = [await consoleOperator('finance'), await consoleOperator('finance')];

    const a = await signedIn(t, browser(), first);
    await visit(t, a.page, '/withdrawals', 'Withdrawals', 'withdrawals-bulk');
    for (const id of [...big, small]) await a.page.getByLabel(`Select withdrawal ${id.slice(0, 8)}`).check();
    t.is(await a.page.getByTestId('selected-count').textContent(), '3');
    await a.page.getByRole('button', { name: 'Approve selected' }).click();
    const dialog = a.page.getByRole('dialog', { name: 'Approve 3 withdrawals?' });
    await dialog.waitFor();
    t.regex((await dialog.textContent()) ?? '', /records only your approval and waits for a second operator/);
    await accessible(t, a.page, 'withdrawals-bulk-dialog');
    await docShot(a.page, 'withdrawals-bulk-dialog');
    await dialog.getByRole('button', { name: 'Approve each' }).click();
    const results = a.page.getByTestId('bulk-results');
    await results.waitFor();
    const summary = (await results.textContent()) ?? '';
    t.regex(summary, /1 approved and sent/);
    t.regex(summary, /2 approved, awaiting a second approval/);
    for (const id of big) {
      const [row] = await sql<{ status: string }[]>`select status from withdrawals where id = ${id}`;
      t.is(row!.status, 'PENDING_MANUAL', 'one operator released nothing above the amount');
      t.deepEqual(
        (await sql<{ approver: string }[]>`select approver from withdrawal_approvals where withdrawal_id = ${id}`).map((r) => r.approver),
        [`operator_account:${first.id}`],
      );
      await a.page.locator(`tr[data-withdrawal="${id}"]`).getByText('You approved; a second operator must approve.').waitFor();
    }
    await a.page.getByRole('button', { name: 'Approve selected', exact: true }).waitFor();
    await docShot(a.page, 'withdrawals-bulk-results');

    // The same operator again, in bulk: refused for each, nothing recorded twice.
    for (const id of big) await a.page.getByLabel(`Select withdrawal ${id.slice(0, 8)}`).check();
    await a.page.getByRole('button', { name: 'Approve selected' }).click();
    await a.page.getByRole('dialog').getByRole('button', { name: 'Approve each' }).click();
    await a.page.getByTestId('bulk-results').filter({ hasText: '2 refused' }).waitFor();
    for (const id of big) t.is((await sql`select 1 from withdrawal_approvals where withdrawal_id = ${id}`).length, 1);

    const b = await signedIn(t, browser(), second);
    await visit(t, b.page, '/withdrawals', 'Withdrawals', 'withdrawals-bulk-second');
    for (const id of big) {
      const row = b.page.locator(`tr[data-withdrawal="${id}"]`);
      t.regex((await row.getByTestId('approvals').textContent()) ?? '', /^1 of 2/);
      await b.page.getByLabel(`Select withdrawal ${id.slice(0, 8)}`).check();
    }
    await b.page.getByRole('button', { name: 'Approve selected' }).click();
    await b.page.getByRole('dialog').getByRole('button', { name: 'Approve each' }).click();
    await b.page.getByTestId('bulk-results').filter({ hasText: '2 approved and sent' }).waitFor();
    for (const id of big) {
      await eventually(
        async () => ['APPROVED', 'COMPLETED'].includes((await sql<{ status: string }[]>`select status from withdrawals where id = ${id}`)[0]!.status),
        `${id} released`,
      );
      t.is((await sql`select 1 from audit_log where object_id = ${id} and action = 'withdrawal.approve'`).length, 2, 'one audited approval per operator');
    }
    // The first operator's page reads the queue again by itself: the released ones leave it.
    await eventually(async () => (await a.page.locator(`tr[data-withdrawal="${big[0]}"]`).count()) === 0, 'the first page to refresh', 60_000);
  },
);

test.serial('an invitation: the admin invites, the link → a password → the authenticator → signed in; the account changes its own password', async (t) => {
  const admin = await consoleOperator('admin');
  const a = await signedIn(t, browser(), admin);
  await visit(t, a.page, '/operators', 'Operators', 'operators-invite');
  const email = `invited-${process.pid}-${randomBytes(3).toString('hex')}@example.test`;
  await a.page.getByLabel('Invite by email').fill(email);
  await a.page.getByLabel('Role of the invitee').selectOption('arbiter');
  await a.page.getByRole('button', { name: 'Invite', exact: true }).click();
  const link = (await a.page.getByTestId('invite-url').textContent())!;
  t.regex(link, /\/console\/invitation#token=/);
  await a.page.locator(`tr[data-invitation="${email}"]`).waitFor();
  await accessible(t, a.page, 'operators-invited');
  await docShot(a.page, 'operators-invited');

  // The invitee, in a browser of its own.
  const { page, cspViolations } = await freshPage(t, browser(), 'invitation');
  await page.goto(link.replace(/^https?:\/\/[^/]+/, API_URL));
  await headingSettled(page, 'Your operator account');
  await page.getByTestId('invited-email').filter({ hasText: email }).waitFor();
  await accessible(t, page, 'invitation');
  await docShot(page, 'invitation');
  const password = `pw-${randomBytes(12).toString('base64url')}`;
  await page.getByLabel(/^Password(?! again)/).fill(password);
  await page.getByLabel('Password again').fill(password);
  await page.getByRole('button', { name: 'Create my account' }).click();

  // Signed in, but nothing before an authenticator.
  await headingSettled(page, 'Set up your authenticator');
  t.is(await page.getByRole('navigation', { name: 'Sections' }).count(), 0);
  await accessible(t, page, 'enrol');
  await page.getByRole('button', { name: 'Set up an authenticator…' }).click();
  const secret = (await page.getByTestId('totp-secret').textContent())!.trim();
  await page.getByLabel('Code from the new authenticator').fill(totpAt(secret, Date.now()));
  await page.getByLabel('Your password').fill(password);
  await docShot(page, 'enrol');
  await page.getByRole('button', { name: 'Set the authenticator' }).click();
  await page.getByTestId('operator').filter({ hasText: email }).waitFor();
  await headingSettled(page, 'Queues');
  t.is(page.url(), `${API_URL}/console/`, 'the link is gone from the address bar');

  // The same link again: used.
  const again = await freshPage(t, browser(), 'invitation-again');
  await again.page.goto(link.replace(/^https?:\/\/[^/]+/, API_URL));
  await again.page
    .getByRole('alert')
    .filter({ hasText: /used already/ })
    .waitFor();

  // One's own password.
  await visit(t, page, '/account', 'Your account', 'account');
  const fresh = `pw-${randomBytes(12).toString('base64url')}`;
  await page.getByLabel('Present password').fill(password);
  await page.getByLabel(/^New password(?! again)/).fill(fresh);
  await page.getByLabel('New password again').fill(fresh);
  await page.getByRole('button', { name: 'Change the password' }).click();
  await page.getByRole('status').filter({ hasText: 'Password changed' }).waitFor();
  await docShot(page, 'account');

  // The admin's list shows the account's last sign-in.
  await a.page.reload();
  await headingSettled(a.page, 'Operators');
  const row = a.page.locator(`tr[data-operator="${email}"]`);
  t.regex((await row.getByTestId('last-sign-in').textContent()) ?? '', /UTC from /);
  t.deepEqual(cspViolations, []);
});

test.serial('an admin creates a merchant from its form; its page opens', async (t) => {
  const admin = await consoleOperator('admin');
  const { page } = await signedIn(t, browser(), admin);
  await visit(t, page, '/merchants', 'Merchants', 'merchants-create');
  await page.getByText('Create a merchant').click();
  const name = `Console-made ${randomBytes(3).toString('hex')}`;
  const form = page.getByRole('form', { name: 'Create a merchant' });
  await form.getByLabel('Name', { exact: true }).fill(name);
  await form.getByLabel('Email', { exact: true }).fill(`${randomBytes(4).toString('hex')}@shop.example`);
  await form.getByLabel(/Sandbox merchant/).check();
  await accessible(t, page, 'merchants-create-form');
  await docShot(page, 'merchants-create');
  await page.getByRole('button', { name: 'Create merchant' }).click();
  await headingSettled(page, new RegExp(name));
  const made = await asOperator('GET', `${ADMIN}/merchants?search=${encodeURIComponent(name)}`);
  t.is(made.body.data[0]?.name, name);
});

test.serial('an admin creates a merchant with its first owner: the link shown once opens the cabinet invitation for that merchant', async (t) => {
  const admin = await consoleOperator('admin');
  const { page } = await signedIn(t, browser(), admin);
  await visit(t, page, '/merchants', 'Merchants', 'merchants-create-owner');
  await page.getByText('Create a merchant').click();
  const name = `Owned ${randomBytes(3).toString('hex')}`;
  const owner = `owner-${randomBytes(4).toString('hex')}@shop.example`;
  const form = page.getByRole('form', { name: 'Create a merchant' });
  await form.getByLabel('Name', { exact: true }).fill(name);
  await form.getByLabel('Email', { exact: true }).fill(`${randomBytes(4).toString('hex')}@shop.example`);
  await form.getByLabel("First owner's email").fill(owner);
  await page.getByRole('button', { name: 'Create merchant' }).click();
  const url = ((await page.getByTestId('invite-url').textContent()) ?? '').trim();
  t.regex(url, /\/cabinet\/invitation#token=/);
  t.regex((await page.locator('.invite-link').textContent()) ?? '', new RegExp(owner.replace(/[.+]/g, '\\$&')));
  await accessible(t, page, 'merchants-create-owner-link');
  await docShot(page, 'merchants-create-owner');
  const invitation = await freshPage(t, browser(), 'owner-invitation');
  await invitation.page.goto(url.replace(/^https?:\/\/[^/]+/, API_URL));
  await invitation.page.getByTestId('invited-merchant').filter({ hasText: name }).waitFor();
  await invitation.page.getByTestId('invited-email').filter({ hasText: owner }).waitFor();
  // The merchant's page opens from the same place.
  await page.getByRole('link', { name: `Open ${name}` }).click();
  await headingSettled(page, new RegExp(name));
});
