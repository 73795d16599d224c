/**
 * The console's names, search and exports: one search box across deals, appeals, withdrawals,
 * merchants, traders and operators (by a short id, a card tail, a name, an amount; scoped by role),
 * lists that name merchants and traders and take an id's start, CSV exports that are the filtered
 * list, and an audit trail that says who acted, with which session or token, and what changed.
 */
import test from 'ava';
import { randomBytes, randomInt, randomUUID } from 'node:crypto';
import { parse } from 'csv-parse/sync';
import { signJwt } from '../../api/auth/jwt';
import { API_URL, asOperator, cabinetToken, JWT_SECRET, newMerchant, signed, withBearer } from '../helpers/api';
import { createPayin, isolatedMethod } from '../helpers/deals';
import { openAppeal } from '../helpers/appeals';
import { asSession, operatorAccount, signIn } from '../helpers/operator-session';
import { ADMIN, randomTronAddress, walletMerchant, withdraw } from '../helpers/wallet';
import { testSql } from '../helpers/app';

const sql = testSql();
test.after.always(() => sql.end());

const SEARCH = `${ADMIN}/search`;
const search = (q: string) => asOperator('GET', `${SEARCH}?q=${encodeURIComponent(q)}&limit=25`);

/** A trader with one requisite whose card ends in a tail no other test uses (four random digits, checked), on a method of its own. */
async function traderWithCard() {
  const method = await isolatedMethod();
  let tail = '';
  for (let attempt = 0; attempt < 50 && !tail; attempt++) {
    const candidate = String(randomInt(10_000)).padStart(4, '0');
    const [used] = await sql`select 1 from requisites where card_tail = ${candidate} or phone_tail = ${candidate}
      union all select 1 from deals where target_tail = ${candidate} union all select 1 from payer_proofs where card_last4 = ${candidate} limit 1`;
    if (!used) tail = candidate;
  }
  const name = `Trader Card ${randomBytes(3).toString('hex')}`;
  const trader = await asOperator('POST', `${ADMIN}/traders`, { name });
  const traderId = trader.body.trader.trader_id as string;
  await asOperator('POST', `${ADMIN}/traders/${traderId}/deposits`, { amount: 1_000_000, tx_hash: randomBytes(32).toString('hex') });
  const requisite = await asOperator('POST', `${ADMIN}/traders/${traderId}/requisites`, {
    payment_method: method,
    requisite_type: 'BANK_CARD',
    card_number: `2200 1234 5678 ${tail}`,
    holder_name: 'Search Holder',
    bank_name: 'search-bank',
    min_amount: 100,
    max_amount: 100_000_000,
  });
  if (requisite.status !== 201) throw new Error(requisite.text);
  return { traderId, name, method, tail };
}

const csvOf = (text: string): Record<string, string>[] => parse(text, { columns: true, skip_empty_lines: true });

test('the search finds a deal by its trader card tail and by its short id, its appeal through it, and names the merchant', async (t) => {
  const name = `Searchable ${randomBytes(4).toString('hex')}`;
  const { merchantId, keys } = await newMerchant({ name });
  const trader = await traderWithCard();
  const deal = await createPayin(keys, { payment_method_id: trader.method, amount: 123_456, client_id: `client-${randomUUID()}` });
  const appeal = await openAppeal(keys, { deal_id: deal.deal_id, reason: 'The payer paid; please check the card.' });
  t.is(appeal.status, 200, appeal.text);
  const appealId = appeal.body.data.appeal_id as string;

  for (const q of [trader.tail, `*${trader.tail}`]) {
    const byTail = await search(q);
    t.is(byTail.status, 200, byTail.text);
    const hit = byTail.body.deals.find((d: { deal_id: string }) => d.deal_id === deal.deal_id);
    t.truthy(hit, `the deal by card tail ${q}`);
    t.like(hit, { merchant_id: merchantId, merchant_name: name, amount: '123456', currency: 'RUB' });
    t.true(hit.matched.includes('trader card or phone tail'));
    t.truthy(
      byTail.body.appeals.find((a: { appeal_id: string }) => a.appeal_id === appealId),
      'the appeal of the deal the tail found',
    );
    t.truthy(
      byTail.body.traders.find((tr: { trader_id: string; name: string }) => tr.trader_id === trader.traderId && tr.name === trader.name),
      'the trader by its requisite tail',
    );
  }

  const short = deal.deal_id.slice(0, 8);
  const byId = await search(short);
  t.like(
    byId.body.deals.find((d: { deal_id: string }) => d.deal_id === deal.deal_id),
    { matched: ['id'] },
  );
  t.truthy(byId.body.appeals.find((a: { appeal_id: string; matched: string[] }) => a.appeal_id === appealId && a.matched.includes('deal id')));
  const byAppealId = await search(appealId.slice(0, 8).toUpperCase());
  t.truthy(byAppealId.body.appeals.find((a: { appeal_id: string }) => a.appeal_id === appealId));

  const byName = await search(name.slice(0, 12).toLowerCase());
  t.truthy(byName.body.merchants.find((m: { merchant_id: string; name: string }) => m.merchant_id === merchantId && m.name === name));
  const byAmount = await search('1 234.56');
  t.truthy(
    byAmount.body.deals.find((d: { deal_id: string }) => d.deal_id === deal.deal_id),
    'the amount in major units',
  );
  const byClient = await search((await sql<{ client_id: string }[]>`select client_id from deals where id = ${deal.deal_id}`)[0]!.client_id);
  t.truthy(byClient.body.deals.find((d: { deal_id: string }) => d.deal_id === deal.deal_id));
});

test("the search is scoped by role: operators only for an admin; a merchant's credentials are refused", async (t) => {
  const admin = await operatorAccount('admin');
  const support = await operatorAccount('support');
  const arbiter = await operatorAccount('arbiter');
  const [me] = await sql<{ email: string }[]>`select email from accounts where id = ${support.id}`;
  const q = encodeURIComponent(me!.email.slice(0, 20));

  const asAdmin = await asSession(admin.session, 'GET', `${SEARCH}?q=${q}`);
  t.is(asAdmin.status, 200, asAdmin.text);
  t.true(asAdmin.body.kinds.includes('operators'));
  t.truthy(asAdmin.body.operators.find((o: { operator_id: string }) => o.operator_id === support.id));

  for (const who of [support, arbiter]) {
    const res = await asSession(who.session, 'GET', `${SEARCH}?q=${q}`);
    t.is(res.status, 200, res.text);
    t.deepEqual(res.body.kinds, ['deals', 'appeals', 'withdrawals', 'merchants', 'traders'], `${who.role} lists no operators`);
    t.deepEqual(res.body.operators, []);
  }

  const { merchantId, keys } = await newMerchant();
  t.is((await signed(keys, 'GET', `${SEARCH}?q=abcd`)).status, 403, 'HMAC credentials are not an operator');
  t.is((await withBearer(await cabinetToken(merchantId), 'GET', `${SEARCH}?q=abcd`)).status, 403, 'the cabinet JWT is not an operator');
  t.is((await fetch(`${API_URL}${SEARCH}?q=abcd`)).status, 401);
  t.is((await asOperator('GET', `${SEARCH}?q=`)).status, 400, 'q is required');
});

test('lists name merchants and traders and take the 8-character ids they show; a deal links its appeal', async (t) => {
  const name = `Named ${randomBytes(4).toString('hex')}`;
  const { merchantId, keys } = await newMerchant({ name });
  const trader = await traderWithCard();
  const deal = await createPayin(keys, { payment_method_id: trader.method });
  const appeal = await openAppeal(keys, { deal_id: deal.deal_id, reason: 'The payer paid; please check the card.' });

  const byShortId = await asOperator('GET', `${ADMIN}/deals?deal_id=${deal.deal_id.slice(0, 8)}`);
  t.is(byShortId.status, 200, byShortId.text);
  t.like(
    byShortId.body.data.find((d: { deal_id: string }) => d.deal_id === deal.deal_id),
    {
      merchant_id: merchantId,
      merchant_name: name,
      trader_id: trader.traderId,
      trader_name: trader.name,
      appeal_id: appeal.body.data.appeal_id,
      requisite_summary: `BANK_CARD ·· ${trader.tail}, Search Holder, search-bank`,
    },
  );
  const byMerchant = await asOperator('GET', `${ADMIN}/deals?merchant_id=${merchantId.slice(0, 8)}`);
  t.deepEqual(
    byMerchant.body.data.map((d: { deal_id: string }) => d.deal_id),
    [deal.deal_id],
  );
  t.is((await asOperator('GET', `${ADMIN}/deals?deal_id=abc`)).status, 400, 'fewer than 4 hex digits');
  t.is((await asOperator('GET', `${ADMIN}/deals?deal_id=xyz12345`)).status, 400);

  const timeline = await asOperator('GET', `${ADMIN}/deals/${deal.deal_id}`);
  t.like(timeline.body.deal, { merchant_name: name, trader_name: trader.name, appeal_id: appeal.body.data.appeal_id });

  const appeals = await asOperator('GET', `${ADMIN}/appeals?merchant_id=${merchantId.slice(0, 8)}`);
  t.like(appeals.body.data, [{ appeal_id: appeal.body.data.appeal_id, merchant_name: name }]);
  const one = await asOperator('GET', `${ADMIN}/appeals/${appeal.body.data.appeal_id}`);
  t.is(one.body.data.merchant_name, name);
  const merchants = await asOperator('GET', `${ADMIN}/merchants?search=${merchantId.slice(0, 8)}`);
  t.deepEqual(
    merchants.body.data.map((m: { id: string }) => m.id),
    [merchantId],
  );
});

test('a withdrawal names its merchant and approver; the CSV exports are the filtered lists, named for the filters', async (t) => {
  const name = `Exporter ${randomBytes(4).toString('hex')}`;
  const m = await walletMerchant(5_000_000, { auto_withdrawal_mode: 'MANUAL_ONLY' }, { name });
  const address = randomTronAddress();
  for (const amount of [10_000, 20_000, 30_000]) {
    const res = await withdraw(m.keys, { address, amount });
    t.is(res.body.status, 'PENDING_MANUAL', res.text);
  }
  const list = await asOperator('GET', `${ADMIN}/withdrawals?merchant_id=${m.merchantId.slice(0, 8)}&page_size=200`);
  t.is(list.status, 200, list.text);
  t.is(list.body.data.length, 3);
  t.true(list.body.data.every((w: { merchant_name: string }) => w.merchant_name === name));

  const exported = await fetch(`${API_URL}${ADMIN}/withdrawals/export?merchant_id=${m.merchantId.slice(0, 8)}`, {
    headers: { Authorization: `Bearer ${await signJwt({ sub: 'test-operator', role: 'admin' }, JWT_SECRET)}` },
  });
  t.is(exported.status, 200);
  t.regex(exported.headers.get('content-type') ?? '', /^text\/csv/);
  t.is(exported.headers.get('content-disposition'), `attachment; filename="withdrawals_merchant-${m.merchantId.slice(0, 8)}.csv"`);
  const rows = csvOf(await exported.text());
  t.deepEqual(
    rows.map((r) => [r.withdrawal_id, r.amount, r.status, r.merchant_name, r.address]),
    list.body.data.map((w: Record<string, string>) => [w.withdrawal_id, w.amount, w.status, name, address]),
  );

  // Deals: the export is every page of the list, with the same filters.
  const deals = await newMerchant({ name: `Deals ${name}` });
  for (let i = 0; i < 3; i++) await createPayin(deals.keys, { amount: 100_000 + i });
  const pages: string[] = [];
  let token = '';
  do {
    const page = await asOperator('GET', `${ADMIN}/deals?merchant_id=${deals.merchantId}&page_size=2${token ? `&page_token=${token}` : ''}`);
    pages.push(...page.body.data.map((d: { deal_id: string }) => d.deal_id));
    token = page.body.next_page_token;
  } while (token);
  const dealCsv = await asOperator('GET', `${ADMIN}/deals/export?merchant_id=${deals.merchantId.slice(0, 8)}&status=ESCROW_LOCKED`);
  t.is(dealCsv.status, 200, dealCsv.text);
  t.is(dealCsv.headers.get('content-disposition'), `attachment; filename="deals_merchant-${deals.merchantId.slice(0, 8)}_status-ESCROW_LOCKED.csv"`);
  const dealRows = csvOf(dealCsv.text);
  t.deepEqual(
    dealRows.map((r) => r.deal_id),
    pages,
  );
  t.true(dealRows.every((r) => r.merchant_name === `Deals ${name}` && r.status === 'ESCROW_LOCKED'));
  t.deepEqual(Object.keys(dealRows[0]!).slice(0, 7), ['deal_id', 'deal_type', 'status', 'amount', 'currency', 'merchant_id', 'merchant_name']);
  t.deepEqual((await asOperator('GET', `${ADMIN}/deals/export?merchant_id=${deals.merchantId}&status=COMPLETED`)).text.trim(), dealCsv.text.split('\r\n')[0]);

  const appeals = await asOperator('GET', `${ADMIN}/appeals/export?status=NOT_A_STATUS`);
  t.is(appeals.status, 200);
  t.is(
    appeals.text,
    'appeal_id,status,outcome,deal_id,merchant_id,merchant_name,reason,deal_status_at_open,resolution_note,created_at,updated_at,resolved_at\r\n',
  );
});

test('the audit log says who acted — email, role, session or token — with the before/after diff and the object named', async (t) => {
  const admin = await operatorAccount('admin');
  const [account] = await sql<{ email: string }[]>`select email from accounts where id = ${admin.id}`;
  const name = `Audited ${randomBytes(4).toString('hex')}`;
  const { merchantId } = await newMerchant({ name });
  const patched = await asSession(admin.session, 'PATCH', `${ADMIN}/merchants/${merchantId}`, { rate_limit_per_minute: 77 });
  t.is(patched.status, 200, patched.text);

  const entries = await asOperator('GET', `${ADMIN}/audit?object_id=${merchantId.slice(0, 8)}&action=merchant.update_settings`);
  t.is(entries.status, 200, entries.text);
  const [entry] = entries.body.data;
  t.like(entry, {
    actor_kind: 'operator_account',
    actor_id: admin.id,
    actor_name: account!.email,
    actor_email: account!.email,
    role: 'admin',
    object_type: 'merchant',
    object_id: merchantId,
    object_name: name,
  });
  t.regex(entry.actor_credential, /^session:[0-9a-f]{12}$/);
  t.is(entry.after.rate_limit_per_minute, 77);
  t.not(entry.before.rate_limit_per_minute, 77);

  // One session's actions, and only its: the credential filter.
  const again = await signIn(account!.email, await passwordOf(admin));
  t.is((await asSession(again, 'PATCH', `${ADMIN}/merchants/${merchantId}`, { rate_limit_per_minute: 78 })).status, 200);
  const bySession = await asOperator('GET', `${ADMIN}/audit?credential=${entry.actor_credential}`);
  t.true(bySession.body.data.length >= 1);
  t.true(bySession.body.data.every((e: { actor_credential: string }) => e.actor_credential === entry.actor_credential));

  // Two operator JWTs of one sub are told apart by their token reference.
  const credentials = new Set<string>();
  for (const ttl of [600, 900]) {
    const token = await signJwt({ sub: 'acc-operator', role: 'admin' }, JWT_SECRET, ttl);
    t.is((await withBearer(token, 'PATCH', `${ADMIN}/merchants/${merchantId}`, { rate_limit_per_minute: 60 + ttl / 100 })).status, 200);
  }
  const byJwt = await asOperator('GET', `${ADMIN}/audit?object_id=${merchantId}&actor=acc-operator`);
  for (const e of byJwt.body.data) {
    t.is(e.actor_name, 'operator JWT acc-operator');
    t.regex(e.actor_credential, /^jwt:[0-9a-f]{12}$/);
    credentials.add(e.actor_credential);
  }
  t.is(credentials.size, 2);

  const exported = await asOperator('GET', `${ADMIN}/audit/export?object_id=${merchantId}&action=merchant.update_settings`);
  t.is(exported.headers.get('content-disposition'), `attachment; filename="audit_id-${merchantId}_action-merchant.update_settings.csv"`);
  const rows = csvOf(exported.text);
  t.is(rows.length, 4);
  t.is(rows[3]!.actor_name, account!.email);
  t.is(JSON.parse(rows[3]!.after!).rate_limit_per_minute, 77);
});

/** The test accounts' passwords are not kept by operatorAccount: set a known one (the admin's sessions then end). */
async function passwordOf(account: { id: string }) {
  const password = `pw-${randomBytes(12).toString('base64url')}`;
  const res = await asOperator('PATCH', `${ADMIN}/operators/${account.id}`, { password });
  if (res.status !== 200) throw new Error(res.text);
  return password;
}
