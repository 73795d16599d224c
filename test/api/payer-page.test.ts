/**
 * The payer's page over HTTP (no browser): its headers and language, "I paid" answering the
 * checkout view only, its forms (POST, then 303 back to the page) with the payer's proof, the
 * bounds on what an anonymous payer may upload, and where the proof shows up for the operator and
 * the merchant.
 */
import test from 'ava';
import { randomUUID } from 'node:crypto';
import { loadConfig } from '../../config';
import { cardDataRing, openRequisiteNumbers } from '../../db/queries/requisite-secrets';
import { API_URL, asOperator, newMerchant, operatorToken, signed } from '../helpers/api';
import { changeAmount, checkout, createPayin, hashOf } from '../helpers/deals';
import { multipart, SAMPLES, type Part } from '../helpers/multipart';
import { openAppeal } from '../helpers/appeals';
import { startApp, testSql } from '../helpers/app';

const sql = testSql();
test.after.always(() => sql.end());

async function page(hash: string, headers: Record<string, string> = {}, query = '') {
  const res = await fetch(`${API_URL}/pay/${hash}${query}`, { headers });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

/** A form of the page as a browser without script sends it: multipart, the answer not followed. */
async function form(hash: string, action: string, parts: Part[], base = API_URL) {
  const { body, contentType } = multipart(parts);
  const res = await fetch(`${base}/pay/${hash}/${action}`, {
    method: 'POST',
    headers: { 'Content-Type': contentType, Accept: 'text/html' },
    body: new Uint8Array(body),
    redirect: 'manual',
  });
  const location = res.headers.get('location') ?? '';
  await res.arrayBuffer();
  return { status: res.status, location, notice: new URL(location || '/', API_URL).searchParams.get('notice'), headers: res.headers };
}

const field = (name: string, data: string): Part => ({ name, data });
const receipt = (data: Buffer, filename = 'receipt.png', contentType = 'image/png'): Part => ({ name: 'receipt', filename, contentType, data });

test('the page and its JSON are never cached, framed or indexed; the page is in the chosen language and says so', async (t) => {
  const { keys } = await newMerchant();
  const deal = await createPayin(keys);
  const hash = hashOf(deal.payment_url);

  const kk = await page(hash, { 'Accept-Language': 'de-DE, kk;q=0.9, ru;q=0.8' });
  t.is(kk.status, 200);
  t.is(kk.headers.get('cache-control'), 'no-store');
  t.is(kk.headers.get('x-frame-options'), 'DENY');
  t.regex(kk.headers.get('x-robots-tag') ?? '', /noindex/);
  const csp = kk.headers.get('content-security-policy') ?? '';
  t.regex(csp, /frame-ancestors 'none'/);
  t.regex(csp, /script-src 'self'(;|$)/);
  t.regex(csp, /style-src 'self'(;|$)/);
  t.false(csp.includes('unsafe-inline'));
  t.is(kk.headers.get('content-language'), 'kk');
  t.regex(kk.headers.get('vary') ?? '', /Accept-Language/);
  t.regex(kk.headers.get('vary') ?? '', /Cookie/);
  t.regex(kk.text, /<html lang="kk"/);
  t.regex(kk.text, /<meta name="robots" content="noindex, nofollow">/);
  t.regex(kk.text.replace(/[\u00a0\u202f]/g, ' '), /1 500,00 ₽/);
  t.regex(kk.text, /2200 0000 0000 \d{4}/, 'the card in groups of four');
  t.false(/ESCROW_LOCKED/.test(kk.text.replace(/data-[a-z-]+="[^"]*"/g, '')), 'no status code for the payer to read');

  // ?lang= wins and is remembered in the switcher's cookie, which then beats Accept-Language.
  const tr = await page(hash, { 'Accept-Language': 'kk' }, '?lang=tr');
  t.regex(tr.text, /<html lang="tr"/);
  const cookie = (tr.headers.getSetCookie?.() ?? []).find((c) => c.startsWith('lang='));
  t.regex(cookie ?? '', /^lang=tr; Path=\/pay;.*HttpOnly; SameSite=Lax/);
  const remembered = await page(hash, { 'Accept-Language': 'kk', Cookie: 'lang=uz-Cyrl' });
  t.regex(remembered.text, /<html lang="uz-Cyrl"/);
  t.is((await page(hash, { 'Accept-Language': 'fr' })).headers.get('content-language'), 'en');

  const json = await fetch(`${API_URL}/api/v1/p2p/checkout/${hash}`);
  t.is(json.headers.get('cache-control'), 'no-store');
  t.is(json.headers.get('x-frame-options'), 'DENY');
  t.regex(json.headers.get('x-robots-tag') ?? '', /noindex/);
  const view = await json.json();
  t.is(view.amount_version, '1');
  t.regex(view.reference, /^[0-9A-F]{5}-[0-9A-F]{5}$/);
  t.not(view.bank_display_name, '');

  // The static files are versioned and may be kept; the page links them with their version.
  const script = /<script src="(\/pay\/assets\/checkout\.js\?v=[0-9a-f]+)" defer>/.exec(kk.text)?.[1];
  t.truthy(script);
  const asset = await fetch(`${API_URL}${script}`);
  t.is(asset.status, 200);
  t.regex(asset.headers.get('cache-control') ?? '', /immutable/);
});

test("an unknown link answers a styled page in the payer's language, with a viewport and noindex", async (t) => {
  const missing = await page('0'.repeat(64), { 'Accept-Language': 'ru' });
  t.is(missing.status, 404);
  t.regex(missing.text, /<html lang="ru"/);
  t.regex(missing.text, /Платёж не найден/);
  t.regex(missing.text, /<meta name="viewport"/);
  t.regex(missing.text, /<link rel="stylesheet" href="\/pay\/assets\/checkout\.css/);
  t.regex(missing.text, /<link rel="icon"/);
  t.is(missing.headers.get('x-frame-options'), 'DENY');
  t.is(missing.headers.get('cache-control'), 'no-store');
});

test('"I paid" through the checkout API answers the CheckoutView and the contract\'s { deal } with the payer-safe fields only, never the merchant\'s deal', async (t) => {
  const { keys } = await newMerchant();
  const deal = await createPayin(keys, { client_id: 'payer-secret-id' });
  const hash = hashOf(deal.payment_url);
  const notified = await checkout(hash, 'notify-payment');
  t.is(notified.status, 200, notified.text);
  t.is(notified.body.status, 'PAYMENT_NOTIFIED');
  t.is(notified.headers.get('cache-control'), 'no-store');
  t.deepEqual(notified.body.deal, {
    deal_id: deal.deal_id,
    status: 'PAYMENT_NOTIFIED',
    amount: notified.body.amount,
    currency: notified.body.currency,
    amount_version: '1',
  });
  for (const key of ['deal_id', 'client_id', 'received_amount', 'merchant_id', 'idempotency_key']) t.false(key in notified.body, key);
  t.false(notified.text.includes('payer-secret-id'));
  const view = await checkout(hash);
  t.deepEqual(
    Object.keys(notified.body)
      .filter((k) => k !== 'deal')
      .sort(),
    Object.keys(view.body).sort(),
  );
  t.not(view.body.timeline.payment_notified_at, '');
});

test('the page\'s "I paid" form: 303 back to the page; the receipt and card digits reach the operator and the merchant\'s appeal', async (t) => {
  const { keys } = await newMerchant();
  const other = await newMerchant();
  const deal = await createPayin(keys);
  const hash = hashOf(deal.payment_url);
  const paid = await form(hash, 'paid', [field('amount_version', '1'), field('card_last4', '4417'), field('lang', 'ru'), receipt(SAMPLES.png)]);
  t.is(paid.status, 303);
  t.is(paid.location, `/pay/${hash}?lang=ru`);
  t.is(paid.headers.get('cache-control'), 'no-store');
  const view = (await checkout(hash)).body;
  t.is(view.status, 'PAYMENT_NOTIFIED');
  t.deepEqual(view.payer_proof, { receipts: 1, card_last4: '4417', can_add: true });

  const operator = await asOperator('GET', `/api/v1/p2p/admin/deals/${deal.deal_id}`);
  t.is(operator.status, 200, operator.text);
  const proof = operator.body.payer_proof;
  t.is(proof.card_last4, '4417');
  t.is(proof.reference, view.reference);
  t.is(proof.receipts.length, 1);
  t.is(proof.receipts[0].content_type, 'image/png');
  const fileId = proof.receipts[0].file_id as string;
  const asAdmin = await fetch(`${API_URL}/api/v1/p2p/admin/files/${fileId}`, { headers: { Authorization: `Bearer ${await operatorToken()}` } });
  t.deepEqual(Buffer.from(await asAdmin.arrayBuffer()), SAMPLES.png);

  const mine = await signed(keys, 'GET', `/api/v1/p2p/merchant/files/${fileId}`);
  t.is(mine.status, 200, "the merchant reads its payer's receipt");
  t.is((await signed(other.keys, 'GET', `/api/v1/p2p/merchant/files/${fileId}`)).status, 404, 'another merchant does not');

  const appeal = await openAppeal(keys, { deal_id: deal.deal_id, reason: 'the payer says they paid, see the receipt' });
  t.is(appeal.status, 200, appeal.text);
  const got = await signed(keys, 'GET', `/api/v1/p2p/merchant/appeals/${appeal.body.data.appeal_id}`);
  t.deepEqual(Object.keys(got.body), ['data']);
  t.deepEqual(got.body.data.payer_proof, proof);
  const { payer_proof: _proof, ...unchanged } = got.body.data;
  t.deepEqual(Object.keys(unchanged).sort(), Object.keys(appeal.body.data).sort(), 'the appeal object gains only payer_proof');
});

test('"I paid" for an amount that changed since the page showed it is refused and moves nothing; the new version goes through', async (t) => {
  const { keys } = await newMerchant();
  const deal = await createPayin(keys);
  const hash = hashOf(deal.payment_url);
  const changed = await changeAmount(deal.deal_id, { amount_fiat: 160_000, expected_amount_version: 1 });
  t.is(changed.status, 200, changed.text);
  const stale = await form(hash, 'paid', [field('amount_version', '1'), field('lang', 'en')]);
  t.is(stale.notice, 'amount_changed');
  t.is((await checkout(hash)).body.status, 'ESCROW_LOCKED');
  const fresh = await form(hash, 'paid', [field('amount_version', '2'), field('lang', 'en')]);
  t.is(fresh.notice, null);
  t.is((await checkout(hash)).body.status, 'PAYMENT_NOTIFIED');
});

test('a refused proof changes nothing: not an image or PDF, digits that are not four, an empty form', async (t) => {
  const { keys } = await newMerchant();
  const deal = await createPayin(keys);
  const hash = hashOf(deal.payment_url);
  t.is((await form(hash, 'paid', [field('amount_version', '1'), receipt(SAMPLES.text, 'receipt.png')])).notice, 'proof_type');
  t.is((await form(hash, 'paid', [field('amount_version', '1'), receipt(SAMPLES.exe, 'receipt.pdf', 'application/pdf')])).notice, 'proof_type');
  t.is((await form(hash, 'paid', [field('amount_version', '1'), field('card_last4', '12a4')])).notice, 'last4');
  t.is((await form(hash, 'receipt', [field('lang', 'en')])).notice, 'proof_missing');
  t.is((await checkout(hash)).body.status, 'ESCROW_LOCKED', '"I paid" was not sent');
  const [rows] = await sql<{ proofs: number; files: number }[]>`
    select (select count(*)::int from payer_proofs where deal_id = ${deal.deal_id}) as proofs,
           (select count(*)::int from evidence_files where deal_id = ${deal.deal_id}) as files`;
  t.deepEqual({ ...rows }, { proofs: 0, files: 0 });
});

test("an anonymous payer's proofs are bounded: of 30 concurrent receipts for one deal exactly 3 are kept, the rest refused", async (t) => {
  const { keys } = await newMerchant();
  const deal = await createPayin(keys);
  const hash = hashOf(deal.payment_url);
  const answers = await Promise.all(
    Array.from({ length: 30 }, (_, i) => form(hash, 'receipt', [field('card_last4', String(1000 + i)), receipt(SAMPLES.jpeg, `r${i}.jpg`, 'image/jpeg')])),
  );
  const notices = answers.map((a) => a.notice).sort();
  t.is(notices.filter((n) => n === 'proof_saved').length, 3, notices.join(','));
  t.is(notices.filter((n) => n === 'proof_limit').length, 27, notices.join(','));
  const [rows] = await sql<{ proofs: number; files: number; slots: number[] }[]>`
    select (select count(*)::int from payer_proofs where deal_id = ${deal.deal_id}) as proofs,
           (select count(*)::int from evidence_files where deal_id = ${deal.deal_id}) as files,
           (select array_agg(slot order by slot) from payer_proofs where deal_id = ${deal.deal_id}) as slots`;
  t.deepEqual({ ...rows }, { proofs: 3, files: 3, slots: [1, 2, 3] }, 'the losers left no file row behind');
  t.false((await checkout(hash)).body.payer_proof.can_add);
});

test("a receipt beyond the evidence size cap is refused with a notice; an unknown link's form is 404 before its body is read", async (t) => {
  const app = await startApp({ EVIDENCE_MAX_BYTES: 1024 });
  t.teardown(() => app.close());
  const { keys } = await newMerchant();
  const deal = await createPayin(keys);
  const hash = hashOf(deal.payment_url);
  const big = await form(hash, 'paid', [field('amount_version', '1'), receipt(Buffer.concat([SAMPLES.png, Buffer.alloc(4096)]))], app.url);
  t.is(big.notice, 'too_large');
  t.is((await checkout(hash)).body.status, 'ESCROW_LOCKED');
  const unknown = await form('f'.repeat(64), 'paid', [field('amount_version', '1')]);
  t.is(unknown.status, 404);
});

test("the page offers no cancel once the payer said they paid (its form is refused), while the checkout API keeps the spec's cancel", async (t) => {
  const { keys } = await newMerchant();
  const deal = await createPayin(keys);
  const hash = hashOf(deal.payment_url);
  t.is((await form(hash, 'paid', [field('amount_version', '1')])).notice, null);
  const html = await page(hash, { 'Accept-Language': 'en' });
  t.regex(html.text, /We are checking your payment/);
  t.false(html.text.includes('id="cancel"'), 'no cancel on the checking screen');
  t.is((await form(hash, 'cancel', [field('lang', 'en')])).notice, 'not_allowed');
  t.is((await checkout(hash)).body.status, 'PAYMENT_NOTIFIED');
  const api = await checkout(hash, 'cancel');
  t.is(api.body.status, 'CANCELLED', 'the PayIn table lets the checkout cancel PAYMENT_NOTIFIED');
});

test("the seed's requisites: banks of their own country by display name, valid phone numbers", async (t) => {
  const ring = cardDataRing(loadConfig(process.env));
  const stored = await sql<
    { id: string; slug: string; bank: string; country: string; card_sealed: string | null; phone_sealed: string | null; iban_sealed: string | null }[]
  >`
    select r.id, pm.slug, r.bank_name as bank, b.country, r.card_sealed, r.phone_sealed, r.iban_sealed
    from requisites r join payment_methods pm on pm.id = r.payment_method_id
    join traders tr on tr.id = r.trader_id
    left join banks b on b.bank_name = r.bank_name
    where tr.id::text like '30000000-%'`;
  t.true(stored.length > 0);
  // Their numbers are sealed at rest: opened here as the payer's page opens them.
  const rows = stored.map((r) => {
    const { phone_number: phone, iban } = openRequisiteNumbers(ring, r);
    return { ...r, phone, iban };
  });
  const country: Record<string, string> = { 'card-rub': 'RU', 'sbp-rub': 'RU', 'card-uzs': 'UZ', 'card-kzt': 'KZ', 'iban-try': 'TR' };
  for (const row of rows) {
    t.is(row.country, country[row.slug] ?? '?', `${row.slug} at ${row.bank}`);
    if (row.phone) t.regex(row.phone, /^\+79\d{9}$/);
    if (row.iban) {
      const moved = row.iban.slice(4) + row.iban.slice(0, 4);
      t.is(BigInt(moved.replace(/[A-Z]/g, (c) => String(c.charCodeAt(0) - 55))) % 97n, 1n, `${row.iban} has valid check digits`);
    }
  }
  const { keys } = await newMerchant();
  const sbp = await createPayin(keys, { payment_method_id: 'sbp-rub', idempotency_key: randomUUID() });
  const html = await page(hashOf(sbp.payment_url), { 'Accept-Language': 'ru' });
  t.regex(html.text, /href="tel:\+79\d{9}"/);
  t.regex(html.text, />\+7 900 000-00-\d\d</);
  t.regex(html.text, /Sberbank|T-Bank/, 'the bank by its display name');
});
