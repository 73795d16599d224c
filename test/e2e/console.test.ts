/// <reference lib="dom" />
/**
 * The operator console in Debian's Chromium against the real stack: sign in,
 * resolve an appeal with evidence and a message, approve a withdrawal with four-eyes (the same
 * operator refused), kill-switch a merchant and see its API calls refused, a support operator
 * sees no action buttons and is refused by the API too, the audit log shows each step; axe-core
 * finds no serious or critical violation on any page; no Content-Security-Policy violation.
 * On failure, a screenshot of each page visited goes to .data/console-screenshots/.
 * CONSOLE_SCREENSHOTS=<dir> (npm run console:screenshots) also writes each page's PNG there for docs/.
 */
import anyTest, { type ExecutionContext, type TestFn } from 'ava';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { browserTests, type BrowserCtx } from '../helpers/console-browser';
import type { Page } from 'playwright-core';
import { API_URL, asOperator, newMerchant, signed, type Json } from '../helpers/api';
import { createPayin, isolatedMethod } from '../helpers/deals';
import { dealReaches, openAppeal } from '../helpers/appeals';
import { testSql } from '../helpers/app';
import { totpAt } from '../../domain/crypto/totp';
import { filePart, SAMPLES, signedUpload } from '../helpers/multipart';
import { ADMIN, randomTronAddress, walletMerchant, withdraw } from '../helpers/wallet';
import { eventually } from '../helpers/poll';
import { seriousViolations } from '../helpers/axe';
import { OPERATOR_ROUTE_ROLES } from '../../domain/roles';

const DOC_SHOTS = process.env.CONSOLE_SCREENSHOTS ? join(process.cwd(), process.env.CONSOLE_SCREENSHOTS) : undefined;

type Role = 'arbiter' | 'finance' | 'support' | 'admin';

const test = anyTest as TestFn<BrowserCtx>;
const browser = browserTests(test);
// A PayIn left to expire (PAYIN_TIMEOUT_SECONDS of the test stack) while the tests before the settlement run.
let expiringDeal: Promise<{ keys: Awaited<ReturnType<typeof newMerchant>>['keys']; dealId: string }>;
test.before(() => {
  expiringDeal = newMerchant({ name: `Console deals ${process.pid}` }).then(async ({ keys }) => ({ keys, dealId: (await createPayin(keys)).deal_id }));
  expiringDeal.catch(() => undefined);
});

let counter = 0;
/** A console account of a role, made with the spec's operator JWT (as an admin would). */
async function operator(role: Role) {
  counter += 1;
  const email = `console-${role}-${process.pid}-${counter}-${randomBytes(3).toString('hex')}@example.test`;
  const password = `pw-${randomBytes(12).toString('base64url')}`;
  const created = await asOperator('POST', `${ADMIN}/operators`, { email, password, role });
  if (created.status !== 201) throw new Error(`operator create failed: ${created.status} ${created.text}`);
  return { id: created.body.operator.operator_id as string, email, password, role };
}

/** How long a page waits for an element or a state: a bound for a wait gone wrong, far above what a loaded machine takes. */
const BROWSER_WAIT_MS = 120_000;

/** A browser of its own (cookies) signed in through the sign-in page. */
async function signedIn(t: ExecutionContext<BrowserCtx>, who: { email: string; password: string; role: Role }, totpSecret?: string) {
  const context = await browser().newContext({ viewport: { width: 1280, height: 860 } });
  context.setDefaultTimeout(BROWSER_WAIT_MS);
  t.context.contexts.push(context);
  const page = await context.newPage();
  const cspViolations: string[] = [];
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) cspViolations.push(message.text());
  });
  t.context.pages.push({ name: `${who.role}-signin`, page });
  await page.goto(`${API_URL}/console/`);
  await page.getByLabel('Email').fill(who.email);
  await page.getByLabel('Password').fill(who.password);
  if (totpSecret) {
    await page.getByLabel('I use an authenticator code').check();
    await page.getByRole('textbox', { name: /^Authenticator code/ }).fill(totpAt(totpSecret, Date.now()));
  }
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByTestId('operator').filter({ hasText: who.email }).waitFor();
  return { context, page, cspViolations };
}

/** Opens a console page from the navigation or by URL, waits for its heading, checks accessibility. */
async function visit(t: ExecutionContext<BrowserCtx>, page: Page, path: string, heading: string | RegExp, name: string) {
  t.context.pages.push({ name, page });
  await page.goto(`${API_URL}/console${path}`);
  await page.getByRole('heading', { level: 1, name: heading }).waitFor();
  await page.waitForFunction(() => !document.querySelector('[aria-busy="true"]'));
  await accessible(t, page, name);
  await docShot(page, name);
}

/** The pages docs/console-pages.md shows. */
const DOC_PAGES = new Set([
  'signin',
  'home',
  'appeals',
  'appeal',
  'appeal-resolve-dialog',
  'deal',
  'deals',
  'withdrawals-second',
  'merchants',
  'merchant',
  'traders',
  'alerts',
  'audit',
  'appeal-support',
  'signin-totp',
  'alerts-actions',
  'alert-resolve-dialog',
  'merchant-settings',
  'traders-forms',
  'deal-actions',
  'deal-confirm-dialog',
  'appeal-settle-dialog',
  'operators',
]);
async function docShot(page: Page, name: string) {
  if (!DOC_SHOTS || !DOC_PAGES.has(name)) return;
  mkdirSync(DOC_SHOTS, { recursive: true });
  await page.screenshot({ path: join(DOC_SHOTS, `${name}.png`), fullPage: true });
}

/** axe-core on the page as it is: no serious or critical violation. */
async function accessible(t: ExecutionContext<BrowserCtx>, page: Page, name: string) {
  t.deepEqual(await seriousViolations(page), [], `axe on ${name}`);
}

/** A call from the signed-in browser itself (its cookie and CSRF token): what the API answers this operator. */
async function fromBrowser(page: Page, method: string, path: string, body?: unknown) {
  return page.evaluate(
    async ({ method, path, body }) => {
      const session = await (await fetch('/api/v1/p2p/admin/session', { credentials: 'same-origin' })).json();
      const response = await fetch(path, {
        method,
        credentials: 'same-origin',
        headers: { 'X-CSRF-Token': session.csrf_token, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await response.text();
      return { status: response.status, text };
    },
    { method, path, body },
  );
}

const sql = testSql();
test.after.always(() => sql.end());

const auditActions = async (objectId: string) =>
  ((await asOperator('GET', `${ADMIN}/audit?object_id=${objectId}`)).body.data as Array<{ action: string; actor_id: string }>).map(
    (e) => `${e.action}:${e.actor_id}`,
  );

test.serial('served under /console: CSP self only, no framing, immutable hashed assets, index.html for client routes', async (t) => {
  const index = await fetch(`${API_URL}/console/appeals/some-id`);
  t.is(index.status, 200);
  t.regex(index.headers.get('content-type') ?? '', /^text\/html/);
  const csp = index.headers.get('content-security-policy') ?? '';
  t.regex(csp, /default-src 'self'/);
  t.regex(csp, /script-src 'self'(;|$)/);
  t.regex(csp, /frame-ancestors 'none'/);
  t.is(index.headers.get('x-frame-options'), 'DENY');
  const html = await index.text();
  t.notRegex(html, /<script>(?!<\/script>)/, 'no inline script');
  const script = /src="(\/console\/assets\/[^"]+\.js)"/.exec(html)?.[1];
  t.truthy(script);
  const asset = await fetch(`${API_URL}${script}`);
  t.regex(asset.headers.get('content-type') ?? '', /^text\/javascript/);
  t.regex(asset.headers.get('cache-control') ?? '', /immutable/);
  t.is((await fetch(`${API_URL}/console/assets/missing.js`)).status, 404);
  t.is((await fetch(`${API_URL}/console/..%2f..%2fpackage.json`)).headers.get('content-type')?.startsWith('text/html'), true, 'no file outside dist');
});

test.serial(
  'an arbiter signs in and resolves an appeal: the evidence inline, a message, SATISFIED after the confirmation; the audit log shows it',
  async (t) => {
    const { keys, merchantId } = await newMerchant({ name: `Console appeals ${process.pid}` });
    const deal = await createPayin(keys);
    const image = await signedUpload(keys, filePart(SAMPLES.png, 'screen.png'));
    const pdf = await signedUpload(keys, filePart(SAMPLES.pdf, 'receipt.pdf'));
    const opened = await openAppeal(keys, {
      deal_id: deal.deal_id,
      reason: 'Paid but the deal did not complete',
      file_ids: [image.body.file.file_id, pdf.body.file.file_id],
    });
    t.is(opened.status, 200, opened.text);
    const appealId = opened.body.data.appeal_id as string;

    const arbiter = await operator('arbiter');
    const { page, cspViolations } = await signedIn(t, arbiter);
    await visit(t, page, '/', 'Queues', 'home');
    t.regex((await page.locator('[data-queue="appeals"] .count').textContent()) ?? '', /^\d+$/);
    await visit(t, page, '/appeals', 'Appeals', 'appeals');
    await page.getByRole('link', { name: appealId.slice(0, 8) }).click();
    await page.getByRole('heading', { level: 1, name: /Appeal/ }).waitFor();
    await accessible(t, page, 'appeal');
    await docShot(page, 'appeal');

    // The image is shown (loaded from the files route), the PDF is a download.
    const img = page.getByRole('img', { name: new RegExp(`Evidence ${image.body.file.file_id.slice(0, 8)}`) });
    await img.waitFor();
    await page.waitForFunction((id) => {
      const el = Array.from(document.querySelectorAll('img')).find((i) => i.src.includes(id));
      return !!el && el.complete && el.naturalWidth > 0;
    }, image.body.file.file_id);
    t.not(await page.getByRole('link', { name: /Download application\/pdf/ }).getAttribute('download'), null, 'the PDF is a download');

    // A message to the merchant.
    await page.getByLabel('Reply to the merchant').fill('Please send the bank statement page too.');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.locator('.chat li.mine', { hasText: 'Please send the bank statement page too.' }).waitFor();
    const thread = await signed(keys, 'GET', `/api/v1/p2p/merchant/appeals/${appealId}/messages`);
    t.true(
      thread.body.data.messages.some(
        (m: { sender_role: string; body: string }) => m.sender_role === 'ADMIN' && m.body === 'Please send the bank statement page too.',
      ),
    );

    // Resolve: the dialog first; cancelling does nothing.
    await page.getByLabel(/SATISFIED/).check();
    await page.getByLabel('Note').fill('The receipt matches the amount.');
    await page.getByRole('button', { name: 'Resolve…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Resolve as SATISFIED?' });
    await dialog.waitFor();
    await accessible(t, page, 'appeal-resolve-dialog');
    await docShot(page, 'appeal-resolve-dialog');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    t.is(await page.getByTestId('appeal-status').textContent(), 'OPEN');
    await page.getByRole('button', { name: 'Resolve…' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Resolve SATISFIED' }).click();
    await page.getByTestId('appeal-status').filter({ hasText: 'RESOLVED_MERCHANT' }).waitFor();
    const merchantView = await signed(keys, 'GET', `/api/v1/p2p/merchant/appeals/${appealId}`);
    t.like(merchantView.body.data, { status: 'RESOLVED_MERCHANT', resolution_note: 'The receipt matches the amount.' });

    // The deal's timeline and its workflow link.
    await page.getByRole('link', { name: deal.deal_id }).first().click();
    await page.getByRole('heading', { level: 1, name: /Deal/ }).waitFor();
    await page.waitForFunction(() => !document.querySelector('[aria-busy="true"]'));
    await accessible(t, page, 'deal');
    await docShot(page, 'deal');
    t.regex(
      (await page.getByRole('link', { name: /in the Temporal UI/ }).getAttribute('href')) ?? '',
      new RegExp(`/namespaces/[^/]+/workflows/payin%3A${deal.deal_id}$`),
    );
    await visit(t, page, `/deals?merchant_id=${merchantId}`, 'Deals', 'deals');
    await page.getByRole('link', { name: deal.deal_id.slice(0, 8) }).waitFor();

    // The audit log: the message and the resolution, by this arbiter.
    await visit(t, page, '/audit', 'Audit log', 'audit');
    await page.getByLabel('Object id').fill(appealId);
    await page.getByLabel('Object id').press('Enter');
    await page.locator('tr[data-action="appeal.resolve"]').waitFor();
    await page.locator('tr[data-action="appeal.message"]').waitFor();
    t.deepEqual((await auditActions(appealId)).sort(), [`appeal.message:${arbiter.id}`, `appeal.resolve:${arbiter.id}`]);
    t.deepEqual(cspViolations, []);
  },
);

test.serial('four-eyes in the browser: the first finance operator approves and cannot give the second approval; another releases it', async (t) => {
  const { keys } = await walletMerchant(5_000_000, { auto_withdrawal_mode: 'MANUAL_ONLY' });
  const big = await withdraw(keys, { address: randomTronAddress(), amount: 1_500_000 });
  t.is(big.body.status, 'PENDING_MANUAL', big.text);
  const id = big.body.withdrawal_id as string;
  const [first, second] = [await operator('finance'), await operator('finance')];

  const a = await signedIn(t, first);
  await visit(t, a.page, '/withdrawals', 'Withdrawals', 'withdrawals');
  const row = a.page.locator(`tr[data-withdrawal="${id}"]`);
  await row.getByRole('button', { name: 'Approve' }).click();
  await a.page.getByRole('dialog').getByRole('button', { name: 'Approve' }).click();
  await row.getByText('You approved; a second operator must approve.').waitFor();
  t.regex((await row.getByTestId('approvals').textContent()) ?? '', /^1 of 2/);
  t.is(await row.getByRole('button', { name: /Approve|second approval/ }).count(), 0, 'no approve button for the first approver');
  const again = await fromBrowser(a.page, 'POST', `${ADMIN}/withdrawals/${id}/approve`, {});
  t.is(again.status, 409, again.text);
  t.regex(again.text, /another operator/);

  const b = await signedIn(t, second);
  await visit(t, b.page, '/withdrawals', 'Withdrawals', 'withdrawals-second');
  const rowB = b.page.locator(`tr[data-withdrawal="${id}"]`);
  await rowB.getByRole('button', { name: 'Give second approval' }).click();
  await b.page.getByRole('dialog').getByRole('button', { name: 'Approve' }).click();
  await rowB.waitFor({ state: 'detached' });
  const status = await eventually(async () => {
    const got = await signed(keys, 'GET', `/api/v1/p2p/merchant/wallet/withdrawals/${id}`);
    return got.body.status !== 'PENDING_MANUAL' ? got.body.status : undefined;
  }, 'the withdrawal released');
  t.true(['APPROVED', 'COMPLETED'].includes(status));
  t.deepEqual(
    (await auditActions(id)).filter((e) => e.startsWith('withdrawal.approve')).sort(),
    [`withdrawal.approve:${first.id}`, `withdrawal.approve:${second.id}`].sort(),
  );
});

test.serial('an admin turns a merchant’s kill-switch on: its API calls are refused; an API error is shown as the API’s text', async (t) => {
  const { keys, merchantId } = await newMerchant({ name: `Console kill ${process.pid}` });
  t.is((await signed(keys, 'GET', '/api/v1/p2p/my-merchant')).status, 200);
  const admin = await operator('admin');
  const { page } = await signedIn(t, admin);
  await visit(t, page, '/merchants', 'Merchants', 'merchants');
  await page.getByLabel('Name, email or id').fill(merchantId);
  await page.getByRole('button', { name: 'Search' }).click();
  await page.getByRole('link', { name: `Console kill ${process.pid}` }).click();
  await page.getByRole('heading', { level: 1, name: /Console kill/ }).waitFor();
  await accessible(t, page, 'merchant');
  await docShot(page, 'merchant');
  await page.getByRole('button', { name: 'Turn the kill-switch on' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Turn on' }).click();
  await page.getByTestId('kill-switch-on').waitFor();
  const refused = await signed(keys, 'GET', '/api/v1/p2p/my-merchant');
  t.true(refused.status === 403 || refused.status === 401, `${refused.status} ${refused.text}`);

  // A refused action shows the problem's message: an out-of-range setting.
  await page.getByLabel('Webhook retries').fill('99');
  await page.getByRole('button', { name: 'Save settings' }).click();
  const error = page.getByRole('alert').filter({ hasText: /webhook_max_retries/ });
  await error.waitFor();
  t.deepEqual(
    (await auditActions(merchantId)).filter((e) => e.startsWith('merchant.kill_switch')),
    [`merchant.kill_switch_toggle:${admin.id}`],
  );

  await visit(t, page, '/traders', 'Traders and requisites', 'traders');
  await visit(t, page, '/alerts', 'Alerts', 'alerts');
});

test.serial('a support operator sees every page without an action button and is refused by the API too', async (t) => {
  const { keys, merchantId } = await newMerchant({ name: `Console support ${process.pid}` });
  const deal = await createPayin(keys);
  const opened = await openAppeal(keys, { deal_id: deal.deal_id, reason: 'Support looks at this' });
  const appealId = opened.body.data.appeal_id as string;
  const support = await operator('support');
  const { page } = await signedIn(t, support);

  await visit(t, page, `/appeals/${appealId}`, /Appeal/, 'appeal-support');
  for (const name of ['Resolve…', 'Send', 'Close', 'Take into review']) t.is(await page.getByRole('button', { name }).count(), 0, name);
  t.is(await page.getByLabel('Reply to the merchant').count(), 0);
  await visit(t, page, `/merchants/${merchantId}`, /Console support/, 'merchant-support');
  for (const name of ['Turn the kill-switch on', 'Rotate keys', 'Save settings']) t.is(await page.getByRole('button', { name }).count(), 0, name);
  await visit(t, page, '/withdrawals', 'Withdrawals', 'withdrawals-support');
  t.is(await page.getByRole('button', { name: /Approve|Cancel withdrawal/ }).count(), 0);
  await visit(t, page, '/traders', 'Traders and requisites', 'traders-support');
  t.is(await page.getByRole('button', { name: 'Create trader' }).count(), 0);

  const kill = await fromBrowser(page, 'POST', `${ADMIN}/merchants/${merchantId}/kill-switch`);
  t.is(kill.status, 403, kill.text);
  t.regex(kill.text, /support may not call adminToggleKillSwitch/);
  const resolve = await fromBrowser(page, 'POST', `${ADMIN}/appeals/${appealId}/resolve`, { outcome: 'SATISFIED' });
  t.is(resolve.status, 403, resolve.text);
  t.is((await signed(keys, 'GET', '/api/v1/p2p/my-merchant')).status, 200, 'nothing changed');
  t.deepEqual(
    (await auditActions(merchantId)).filter((e) => e.endsWith(`:${support.id}`)),
    [],
    'nothing done, nothing audited',
  );

  // Signing out ends the session: the console asks to sign in again.
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByRole('button', { name: 'Sign in' }).waitFor();
  await accessible(t, page, 'signin');
  await docShot(page, 'signin');
});

test.serial('alerts: a finance operator acknowledges and then resolves an alert; both are in the audit log', async (t) => {
  const alertId = randomUUID();
  const subject = `console-e2e-${alertId}`;
  await sql`insert into operator_alerts (id, kind, subject, message) values (${alertId}, 'console_e2e', ${subject}, ${`hot wallet check ${alertId.slice(0, 8)}`})`;
  t.teardown(() => sql`update operator_alerts set resolved_at = now() where id = ${alertId} and resolved_at is null`.then(() => undefined));
  const finance = await operator('finance');
  const { page } = await signedIn(t, finance);
  await visit(t, page, '/alerts', 'Alerts', 'alerts-actions');
  const row = page.locator(`tr[data-alert="${alertId}"]`);
  await row.getByRole('button', { name: 'Acknowledge' }).click();
  await row
    .getByTestId('acknowledged')
    .filter({ hasText: `by ${finance.id}` })
    .waitFor();
  await row.getByRole('button', { name: 'Resolve' }).click();
  await page.getByRole('dialog', { name: 'Resolve this alert?' }).waitFor();
  await accessible(t, page, 'alert-resolve-dialog');
  await docShot(page, 'alert-resolve-dialog');
  await page.getByRole('dialog').getByRole('button', { name: 'Resolve alert' }).click();
  await row.waitFor({ state: 'detached' });
  await page.getByLabel('Include resolved alerts').check();
  await row
    .getByTestId('resolved')
    .filter({ hasText: `by ${finance.id}` })
    .waitFor();
  t.deepEqual(await auditActions(alertId), [`alert.resolve:${finance.id}`, `alert.acknowledge:${finance.id}`]);
  const [stored] = await sql<
    { acknowledged_by: string; resolved_by: string }[]
  >`select acknowledged_by, resolved_by from operator_alerts where id = ${alertId}`;
  t.deepEqual(stored, { acknowledged_by: finance.id, resolved_by: finance.id });
});

test.serial(
  'an admin sets a merchant’s IP whitelist, a deal limit above 2^53 (exact) and an auto-withdrawal limit (not above four-eyes), and the merchant’s call from elsewhere is refused',
  async (t) => {
    const { keys, merchantId } = await newMerchant({ name: `Console limits ${process.pid}` });
    const admin = await operator('admin');
    const { page } = await signedIn(t, admin);
    await visit(t, page, `/merchants/${merchantId}`, /Console limits/, 'merchant-settings');
    await page.getByLabel('IP whitelist').fill('203.0.113.10\n2001:db8::10');
    await page.getByLabel('Deal maximum (in the deal’s currency)').fill('90071992547409.93');
    await page.getByLabel('Auto-withdrawal limit (USDT)').fill('90071992547409.93');
    await page.getByRole('button', { name: 'Save settings' }).click();
    // Above the four-eyes amount a limit would send out unapproved what needs two approvals.
    await page
      .getByRole('alert')
      .filter({ hasText: /must not be above the four-eyes amount/ })
      .waitFor();
    await page.getByLabel('Auto-withdrawal limit (USDT)').fill('10000');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByTestId('ip-whitelist').filter({ hasText: '203.0.113.10, 2001:db8::10' }).waitFor();
    await docShot(page, 'merchant-settings');
    const profile = await asOperator('GET', `${ADMIN}/merchants/${merchantId}`);
    t.like(profile.body.merchant, {
      ip_whitelist: ['203.0.113.10', '2001:db8::10'],
      deal_max_amount: '9007199254740993',
      auto_withdrawal_limit_usdt_cents: '1000000',
    });
    const refused = await signed(keys, 'GET', '/api/v1/p2p/my-merchant');
    t.is(refused.status, 403, refused.text);
    t.regex(refused.text, /ip_whitelist/);
    const [row] = (await asOperator('GET', `${ADMIN}/audit?object_id=${merchantId}&action=merchant.update_settings`)).body.data as {
      actor_id: string;
      before: Json;
      after: Json;
    }[];
    t.is(row!.actor_id, admin.id);
    t.deepEqual([row!.before.ip_whitelist, row!.after.ip_whitelist], [[], ['203.0.113.10', '2001:db8::10']]);

    // The API's rule and message, shown as they are.
    await page.getByLabel('IP whitelist').fill('not-an-address');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page
      .getByRole('alert')
      .filter({ hasText: /ip_whitelist must list IPv4 or IPv6 addresses/ })
      .waitFor();
    await page.getByLabel('IP whitelist').fill('');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByTestId('ip-whitelist').filter({ hasText: 'any address' }).waitFor();
    t.is((await signed(keys, 'GET', '/api/v1/p2p/my-merchant')).status, 200);
  },
);

test.serial('an arbiter confirms a deal from its page, and settles an EXPIRED deal’s appeal from the console', async (t) => {
  const { keys, dealId } = await expiringDeal;
  const expiring = { deal_id: dealId };
  const live = await createPayin(keys);
  const arbiter = await operator('arbiter');
  const { page } = await signedIn(t, arbiter);
  await visit(t, page, `/deals/${live.deal_id}`, /Deal/, 'deal-actions');
  // A refused move shows the API's text.
  await page.getByLabel('Amount received (RUB)').fill('0');
  await page.getByRole('button', { name: 'Record received amount…' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Record' }).click();
  await page
    .getByRole('alert')
    .filter({ hasText: /received_amount must be greater than 0/ })
    .waitFor();
  await page.getByRole('button', { name: 'Confirm payment…' }).click();
  await page.getByRole('dialog', { name: 'Confirm the payment?' }).waitFor();
  await accessible(t, page, 'deal-confirm-dialog');
  await docShot(page, 'deal-confirm-dialog');
  await page.getByRole('dialog').getByRole('button', { name: 'Confirm payment' }).click();
  await page.getByRole('heading', { level: 1, name: /COMPLETED/ }).waitFor();
  t.is(await page.getByRole('button', { name: 'Confirm payment…' }).count(), 0, 'no move left on a COMPLETED deal');
  t.deepEqual(await auditActions(live.deal_id), [`deal.confirm:${arbiter.id}`]);

  await dealReaches(keys, expiring.deal_id, 'EXPIRED');
  const opened = await openAppeal(keys, { deal_id: expiring.deal_id, reason: 'The payer paid after the timeout' });
  t.is(opened.status, 200, opened.text);
  const appealId = opened.body.data.appeal_id as string;
  await visit(t, page, `/appeals/${appealId}`, /Appeal/, 'appeal-settle');
  await page.getByLabel('Received amount override (RUB)').fill('1200');
  await page.getByLabel('Reason', { exact: true }).fill('Bank statement shows 1 200.00 RUB after the timeout');
  await page.getByRole('button', { name: 'Settle…' }).click();
  await page.getByRole('dialog', { name: 'Create the settlement deal?' }).getByText('1 200.00').waitFor();
  await accessible(t, page, 'appeal-settle-dialog');
  await docShot(page, 'appeal-settle-dialog');
  await page.getByRole('dialog').getByRole('button', { name: 'Settle' }).click();
  await page.locator('dt', { hasText: 'Settlement deal' }).waitFor();
  const appeal = await asOperator('GET', `${ADMIN}/appeals/${appealId}`);
  const settlementId = appeal.body.data.settlement_deal_id as string;
  t.truthy(settlementId);
  const settlement = await asOperator('GET', `${ADMIN}/deals/${settlementId}`);
  t.like(settlement.body.deal, { status: 'COMPLETED', amount: '120000' });
});

test.serial('operators page: an admin creates an operator, who signs in; a role change and disabling end its session', async (t) => {
  const admin = await operator('admin');
  const { page } = await signedIn(t, admin);
  await visit(t, page, '/operators', 'Operators', 'operators');
  const email = `console-new-${process.pid}-${randomBytes(3).toString('hex')}@example.test`;
  const password = `pw-${randomBytes(12).toString('base64url')}`;
  await page.getByLabel("New operator's email").fill(email);
  await page.getByLabel('Initial password').fill(password);
  await page.getByRole('form', { name: 'Create an operator' }).getByRole('combobox').selectOption('support');
  await page.getByRole('button', { name: 'Create operator' }).click();
  const row = page.locator(`tr[data-operator="${email}"]`);
  await row.waitFor();
  await accessible(t, page, 'operators');
  await docShot(page, 'operators');

  const created = await signedIn(t, { email, password, role: 'support' });
  t.is(await created.page.getByRole('link', { name: 'Operators' }).count(), 0, 'the operators page is the admin’s');
  await row.getByRole('combobox').selectOption('arbiter');
  await row.getByRole('button', { name: 'Change role' }).click();
  // The session check waits for the change's answer (the button is disabled while it is on its way, too).
  const changed = page.waitForResponse((r) => r.request().method() === 'PATCH' && r.url().includes(`${ADMIN}/operators/`));
  await page.getByRole('dialog').getByRole('button', { name: 'Change role' }).click();
  t.is((await changed).status(), 200);
  await row.getByRole('button', { name: 'Change role' }).and(page.locator('[disabled]')).waitFor();
  t.is((await fromBrowser(created.page, 'GET', `${ADMIN}/session`)).status, 401, 'a role change ends its sessions');
  await row.getByRole('button', { name: 'Disable' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Disable' }).click();
  await row.getByText(/^disabled /).waitFor();
  const operators = (await asOperator('GET', `${ADMIN}/operators`)).body.data as { email: string; operator_id: string }[];
  const operatorId = operators.find((o) => o.email === email)!.operator_id;
  t.deepEqual(
    (await auditActions(operatorId)).filter((a) => a.startsWith('operator.')),
    [`operator.update:${admin.id}`, `operator.update:${admin.id}`, `operator.create:${admin.id}`],
  );
});

test.serial('TOTP at sign-in: the code field behind its toggle; without the code the one message and a hint, with it signed in', async (t) => {
  const who = await operator('finance');
  // Enroll through the API with a session of its own (as the operator would from its app).
  const signIn = await fetch(`${API_URL}${ADMIN}/session`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ email: who.email, password: who.password }),
  });
  const cookie = (signIn.headers.get('set-cookie') ?? '').split(';')[0]!;
  const csrf = ((await signIn.json()) as { csrf_token: string }).csrf_token;
  const enroll = async (body: object) =>
    (
      await fetch(`${API_URL}${ADMIN}/session/totp`, {
        method: 'POST',
        headers: { Cookie: cookie, 'X-CSRF-Token': csrf, 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      })
    ).json() as Promise<{ secret: string; enrolled: boolean }>;
  const { secret } = await enroll({});
  const enrolledAt = Date.now();
  t.true((await enroll({ secret, code: totpAt(secret, enrolledAt), confirm_password: who.password })).enrolled);

  const context = await browser().newContext({ viewport: { width: 1280, height: 860 } });
  context.setDefaultTimeout(BROWSER_WAIT_MS);
  t.context.contexts.push(context);
  const page = await context.newPage();
  t.context.pages.push({ name: 'signin-totp', page });
  await page.goto(`${API_URL}/console/`);
  t.is(await page.getByRole('textbox', { name: /^Authenticator code/ }).count(), 0, 'no code field until asked for');
  await page.getByLabel('Email').fill(who.email);
  await page.getByLabel('Password').fill(who.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('alert').filter({ hasText: 'invalid email, password or code' }).waitFor();
  await page.getByText('tick “I use an authenticator code”').waitFor();
  await page.getByLabel('I use an authenticator code').check();
  // A code is good once: the enrolment used its step, so the next step's code (within the drift allowed).
  await page.getByRole('textbox', { name: /^Authenticator code/ }).fill(totpAt(secret, enrolledAt + 30_000));
  await accessible(t, page, 'signin-totp');
  await docShot(page, 'signin-totp');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByTestId('operator').filter({ hasText: who.email }).waitFor();
});

test.serial(
  'your account: an operator sets up its authenticator with its password, replaces it with a present code, its other sessions end; an admin removes it with its own password',
  async (t) => {
    const who = await operator('finance');
    const elsewhere = await fetch(`${API_URL}${ADMIN}/session`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ email: who.email, password: who.password }),
    });
    const elsewhereCookie = (elsewhere.headers.get('set-cookie') ?? '').split(';')[0]!;
    const elsewhereAlive = async () => (await fetch(`${API_URL}${ADMIN}/session`, { headers: { Cookie: elsewhereCookie } })).status === 200;
    t.true(await elsewhereAlive());

    const { page } = await signedIn(t, who);
    await visit(t, page, '/account', 'Your account', 'account');
    await page.getByTestId('authenticator').filter({ hasText: 'No authenticator' }).waitFor();
    await page.getByRole('button', { name: 'Set up an authenticator…' }).click();
    const form = page.getByRole('form', { name: 'Set up the authenticator' });
    const first = ((await form.getByTestId('totp-secret').textContent()) ?? '').trim();
    t.regex(first, /^[A-Z2-7]{32}$/);
    await accessible(t, page, 'account-setup');
    await form.getByLabel('Code from the new authenticator').fill(totpAt(first, Date.now()));
    // A session alone cannot bind an authenticator: the password is asked for, and checked.
    await form.getByRole('button', { name: 'Set the authenticator' }).click();
    await form
      .getByRole('alert')
      .filter({ hasText: /confirm this change with your password/ })
      .waitFor();
    await form.getByLabel('Your password').fill('not-my-password-at-all');
    await form.getByRole('button', { name: 'Set the authenticator' }).click();
    await form
      .getByRole('alert')
      .filter({ hasText: /the password is not yours/ })
      .waitFor();
    t.true(await elsewhereAlive(), 'nothing changed yet');
    await form.getByLabel('Your password').fill(who.password);
    await form.getByRole('button', { name: 'Set the authenticator' }).click();
    await page.getByRole('status').filter({ hasText: 'Your other sessions have ended' }).waitFor();
    await page.getByTestId('authenticator').filter({ hasText: 'Sign-in asks for a code' }).waitFor();
    t.false(await elsewhereAlive(), 'the other session ended');

    // Replacing it: a present code (the next step's, as the last one was used) instead of the password.
    await page.getByRole('button', { name: 'Replace the authenticator…' }).click();
    const second = ((await form.getByTestId('totp-secret').textContent()) ?? '').trim();
    const later = Date.now() + 30_000;
    await form.getByLabel('Code from the new authenticator').fill(totpAt(second, later));
    await form.getByLabel('Code of your present authenticator').fill(totpAt(first, later));
    await form.getByRole('button', { name: 'Replace the authenticator' }).click();
    await page.getByRole('status').filter({ hasText: 'Authenticator set' }).waitFor();
    t.is((await fromBrowser(page, 'GET', `${ADMIN}/session`)).status, 200, 'the session that replaced it goes on');

    // The admin removes it, confirming with its own password.
    const admin = await operator('admin');
    const adminBrowser = await signedIn(t, admin);
    await visit(t, adminBrowser.page, '/operators', 'Operators', 'operators-remove-authenticator');
    const row = adminBrowser.page.locator(`tr[data-operator="${who.email}"]`);
    await row.getByRole('button', { name: 'Remove authenticator' }).click();
    const dialog = adminBrowser.page.getByRole('dialog');
    await dialog.getByLabel('Your own password, to confirm').fill('not-the-admins-password');
    await dialog.getByRole('button', { name: 'Remove' }).click();
    await row
      .getByRole('alert')
      .filter({ hasText: /the password is not yours/ })
      .waitFor();
    await row.getByRole('button', { name: 'Remove authenticator' }).click();
    await dialog.getByLabel('Your own password, to confirm').fill(admin.password);
    await dialog.getByRole('button', { name: 'Remove' }).click();
    await row.getByRole('cell', { name: 'none', exact: true }).waitFor();
    t.is((await fromBrowser(page, 'GET', `${ADMIN}/session`)).status, 401, "the operator's sessions ended");
  },
);

test.serial('traders: an admin adds a requisite and tops a trader up from the console', async (t) => {
  const traderName = `Console trader ${process.pid}-${randomBytes(2).toString('hex')}`;
  // A payment method of this test's own: a funded trader's requisite on a seeded one would take other files' deals.
  const method = await isolatedMethod();
  const created = await asOperator('POST', `${ADMIN}/traders`, { name: traderName });
  t.is(created.status, 201, created.text);
  const admin = await operator('admin');
  const { page } = await signedIn(t, admin);
  await visit(t, page, '/traders', 'Traders and requisites', 'traders-page');
  const card = page.getByRole('region', { name: `Trader ${traderName}` });
  await card.getByText(`Add a requisite to ${traderName}`).click();
  const form = card.getByRole('form', { name: `Add a requisite to ${traderName}` });
  await form.getByLabel('Payment method').fill(method);
  await form.getByLabel('Card, phone or IBAN').fill('4111111111111111');
  await form.getByLabel('Holder name').fill('Ivan Petrov');
  await form.getByLabel('Bank name').fill('Test Bank');
  await form.getByLabel('Minimum amount (minor units)').fill('10000');
  await form.getByLabel('Maximum amount (minor units)').fill('5000');
  await form.getByRole('button', { name: 'Add requisite' }).click();
  await form
    .getByRole('alert')
    .filter({ hasText: /max_amount must not be below min_amount/ })
    .waitFor();
  await form.getByLabel('Maximum amount (minor units)').fill('5000000');
  await form.getByRole('button', { name: 'Add requisite' }).click();
  await card.getByRole('cell', { name: '4111111111111111' }).waitFor();
  await card.getByText(`Top up ${traderName}`).click();
  await card.getByLabel('Amount (USDT)').fill('2500');
  await card.getByLabel('Transaction id').fill(randomBytes(32).toString('hex'));
  await card.getByRole('button', { name: 'Top up…' }).click();
  await page.getByRole('dialog').getByText('2 500.00 USDT').waitFor();
  await page.getByRole('dialog').getByRole('button', { name: 'Top up' }).click();
  await card.getByText(/balance 2 500\.00 USDT/).waitFor();
  await accessible(t, page, 'traders-forms');
  await docShot(page, 'traders-forms');
  const traderId = created.body.trader.trader_id as string;
  t.deepEqual(
    (await auditActions(traderId)).filter((a) => a.startsWith('trader.deposit')),
    [`trader.deposit:${admin.id}`],
  );
});

test('docs/console-pages.md shows the role table the server enforces', (t) => {
  const doc = readFileSync(join(process.cwd(), 'docs', 'console-pages.md'), 'utf8');
  const block = /<!-- console-roles:start -->([\s\S]*?)<!-- console-roles:end -->/.exec(doc)?.[1] ?? '';
  const rows = Object.fromEntries(
    [...block.matchAll(/^\| `(\w+)` \| ([^|]+) \|/gm)].map((m) => [
      m[1]!,
      m[2]!
        .split(',')
        .map((r) => r.trim())
        .sort(),
    ]),
  );
  const expected = Object.fromEntries(Object.entries(OPERATOR_ROUTE_ROLES).map(([op, roles]) => [op, [...roles].sort()]));
  t.deepEqual(rows, expected);
});
