/**
 * The trader as a party of the appeals on its deals: it reads the merchant's statement and files,
 * answers with its statement and evidence before its trader_respond_by (then 409), only on its own
 * deals (else 404); the arbiter's case shows both parties, labelled and named; the merchant's
 * view stays as it was (no TRADER messages, no trader files); every answer is a command of the
 * appeal's workflow, audited with the trader account.
 */
import test from 'ava';
import { randomUUID } from 'node:crypto';
import { loadConfig } from '../../config';
import { API_URL, asOperator, hmacHeaders, newMerchant, readResponse, signed, type ApiResponse, type Json } from '../helpers/api';
import { appEnv, testSql } from '../helpers/app';
import { createPayin, isolatedMethod } from '../helpers/deals';
import { ADMIN_APPEALS, APPEALS, arbiter, historyOf, openAppeal } from '../helpers/appeals';
import { filePart, multipart, SAMPLES, signedUpload } from '../helpers/multipart';
import { asTrader, newTrader, TRADER, type TraderSession } from '../helpers/trader-session';

const sql = testSql();
test.after.always(() => sql.end());

const TRADER_SECONDS = loadConfig(appEnv()).APPEAL_TRADER_RESPONSE_SECONDS;
const REASON = 'The payer paid 1500.00 at 12:03 but the trader never confirmed.';

/** A trader with its own account whose requisite (added by an operator) takes the deals of a fresh method. */
async function traderWithRequisite() {
  const trader = await newTrader({ name: `Appeal trader ${randomUUID().slice(0, 6)}` });
  const method = await isolatedMethod();
  const requisite = await asOperator('POST', `/api/v1/p2p/admin/traders/${trader.traderId}/requisites`, {
    payment_method: method,
    requisite_type: 'BANK_CARD',
    card_number: '2200777766665555',
    holder_name: 'Appeal Holder',
    bank_name: 'appeal-bank',
    min_amount: 100,
    max_amount: 100_000_000,
  });
  if (requisite.status !== 201) throw new Error(requisite.text);
  return { ...trader, method };
}

/** A live PayIn of a new merchant on the trader's requisite, under appeal with the merchant's file. */
let nextAmount = 150_000;
async function appealOn(trader: { method: string }) {
  const { merchantId, keys } = await newMerchant({ name: `Shop ${randomUUID().slice(0, 6)}` });
  // An amount of its own: one live PayIn per requisite and amount (docs/trader.md).
  nextAmount += 100;
  const deal = await createPayin(keys, { payment_method_id: trader.method, amount: nextAmount });
  const upload = await signedUpload(keys, filePart(SAMPLES.png, 'receipt.png', 'image/png'));
  if (upload.status !== 201) throw new Error(upload.text);
  const fileId = upload.body.file.file_id as string;
  const opened = await openAppeal(keys, { deal_id: deal.deal_id, reason: REASON, file_ids: [fileId] });
  if (opened.status !== 200) throw new Error(`appeal not opened: ${opened.status} ${opened.text}`);
  return { merchantId, keys, dealId: deal.deal_id as string, appealId: opened.body.data.appeal_id as string, fileId };
}

const path = (appealId: string, tail = '') => `${TRADER}/appeals/${appealId}${tail}`;

/** A multipart upload under the trader's session (cookie and CSRF token). */
async function traderUpload(s: TraderSession, appealId: string, parts: Parameters<typeof multipart>[0]): Promise<ApiResponse> {
  const { body, contentType } = multipart(parts);
  return readResponse(
    await fetch(`${API_URL}${path(appealId, '/evidence')}`, {
      method: 'POST',
      headers: { Cookie: s.cookie, 'X-CSRF-Token': s.csrf, 'Content-Type': contentType },
      body: new Uint8Array(body),
    }),
  );
}

async function traderDownload(s: TraderSession, appealId: string, fileId: string) {
  const response = await fetch(`${API_URL}${path(appealId, `/files/${fileId}`)}`, { headers: { Cookie: s.cookie } });
  return { status: response.status, bytes: Buffer.from(await response.arrayBuffer()) };
}

const evidence = (note?: string) => [
  { name: 'file', filename: 'statement.pdf', contentType: 'application/pdf', data: SAMPLES.pdf },
  ...(note !== undefined ? [{ name: 'note', data: note }] : []),
];

test("the trader reads the merchant's statement and files on its own deal; another trader's appeal is 404 everywhere", async (t) => {
  const trader = await traderWithRequisite();
  const other = await traderWithRequisite();
  const { appealId, dealId, fileId, keys } = await appealOn(trader);
  t.is((await signed(keys, 'POST', `${APPEALS}/${appealId}/messages`, { body: 'Here is the bank statement as well.' })).status, 200);
  t.is((await arbiter(appealId, 'messages', { body: 'To the merchant only: we are looking into it.' })).status, 200);

  const list = await asTrader(trader.session, 'GET', `${TRADER}/appeals`);
  t.is(list.status, 200, list.text);
  const listed = list.body.data.find((a: Json) => a.appeal_id === appealId);
  t.like(listed, { deal_id: dealId, status: 'OPEN', deal_status: 'APPEALED', reason: REASON, answer: 'WAITING', can_answer: true, responded_at: '' });
  t.is(Date.parse(listed.respond_by) - Date.parse(listed.created_at), TRADER_SECONDS * 1000);

  const got = await asTrader(trader.session, 'GET', path(appealId));
  t.is(got.status, 200, got.text);
  t.deepEqual(got.body.data.file_ids, [fileId]);
  t.deepEqual(
    got.body.data.messages.map((m: Json) => [m.sender_role, m.body]),
    [['MERCHANT', 'Here is the bank statement as well.']],
    "the merchant's messages, not the arbiter's to the merchant",
  );
  t.deepEqual(
    got.body.data.files.map((f: Json) => [f.file_id, f.party]),
    [[fileId, 'MERCHANT']],
  );
  const file = await traderDownload(trader.session, appealId, fileId);
  t.is(file.status, 200);
  t.deepEqual(file.bytes, SAMPLES.png);

  // Another trader: the appeal does not exist for it.
  t.false((await asTrader(other.session, 'GET', `${TRADER}/appeals`)).body.data.some((a: Json) => a.appeal_id === appealId));
  t.is((await asTrader(other.session, 'GET', path(appealId))).status, 404);
  t.is((await asTrader(other.session, 'POST', path(appealId, '/messages'), { body: 'Not my deal, but let me say...' })).status, 404);
  t.is((await traderUpload(other.session, appealId, evidence())).status, 404);
  t.is((await traderDownload(other.session, appealId, fileId)).status, 404);
  t.is((await asTrader(trader.session, 'GET', path(randomUUID()))).status, 404);
  // The merchant's key pair does not open the trader door (403, as every other door's credential).
  const asMerchant = await fetch(`${API_URL}${path(appealId)}`, { headers: hmacHeaders(keys, '') });
  t.is(asMerchant.status, 403);
  t.is((await sql`select count(*)::int as n from appeal_messages where appeal_id = ${appealId} and sender_role = 'TRADER'`)[0]!.n, 0);
});

test("the trader answers with a statement and evidence: the arbiter sees both parties, the merchant's view is unchanged, each answer is audited with the trader", async (t) => {
  const trader = await traderWithRequisite();
  const { appealId, fileId, keys, merchantId } = await appealOn(trader);

  const said = await asTrader(trader.session, 'POST', path(appealId, '/messages'), { body: 'No money arrived on the card at that time.' });
  t.is(said.status, 201, said.text);
  t.like(said.body.data, { appeal_id: appealId, sender_role: 'TRADER', body: 'No money arrived on the card at that time.', file_ids: [] });
  const shown = await traderUpload(trader.session, appealId, evidence('My bank statement for that day'));
  t.is(shown.status, 201, shown.text);
  const traderFile = shown.body.file.file_id as string;
  t.is(shown.body.file.content_type, 'application/pdf');
  t.like(shown.body.data, { sender_role: 'TRADER', body: 'My bank statement for that day', file_ids: [traderFile] });
  // A statement may name the trader's own earlier evidence, never another's file.
  t.is((await asTrader(trader.session, 'POST', path(appealId, '/messages'), { body: 'See the statement above.', file_ids: [traderFile] })).status, 201);
  const foreign = await asTrader(trader.session, 'POST', path(appealId, '/messages'), { body: 'The merchant file.', file_ids: [fileId] });
  t.is(foreign.status, 400, foreign.text);

  // The trader's own case: its answers, its file.
  const mine = (await asTrader(trader.session, 'GET', path(appealId))).body.data;
  t.is(mine.answer, 'ANSWERED');
  t.not(mine.responded_at, '');
  t.deepEqual(mine.files.map((f: Json) => f.party).sort(), ['MERCHANT', 'TRADER']);
  t.deepEqual((await traderDownload(trader.session, appealId, traderFile)).bytes, SAMPLES.pdf);

  // The arbiter: both parties, labelled, with names.
  const admin = await asOperator('GET', `${ADMIN_APPEALS}/${appealId}`);
  t.is(admin.status, 200, admin.text);
  const a = admin.body.data;
  const merchantName = (await sql<{ name: string }[]>`select name from merchants where id = ${merchantId}`)[0]!.name;
  const traderName = (await sql<{ name: string }[]>`select name from traders where id = ${trader.traderId}`)[0]!.name;
  t.like(a, { reason: REASON, merchant_name: merchantName });
  t.like(a.trader, { trader_id: trader.traderId, name: traderName, answer: 'ANSWERED', file_ids: [traderFile] });
  t.is(a.trader.responded_at, mine.responded_at);
  t.deepEqual(
    a.messages.map((m: Json) => [m.sender_role, m.sender_name]),
    [
      ['TRADER', traderName],
      ['TRADER', traderName],
      ['TRADER', traderName],
    ],
  );
  t.deepEqual(Object.fromEntries(a.files.map((f: Json) => [f.file_id, f.party])), { [fileId]: 'MERCHANT', [traderFile]: 'TRADER' });

  // The merchant: no TRADER message in its thread, the trader's file is not found.
  const thread = await signed(keys, 'GET', `${APPEALS}/${appealId}/messages`);
  t.is(thread.status, 200, thread.text);
  t.deepEqual(thread.body.data.messages, []);
  const merchantView = await signed(keys, 'GET', `${APPEALS}/${appealId}`);
  t.false(JSON.stringify(merchantView.body).includes(trader.traderId));
  const download = await fetch(`${API_URL}/api/v1/p2p/merchant/files/${traderFile}`, { headers: hmacHeaders(keys, '') });
  t.is(download.status, 404);

  // Audited with the trader's account, in the answer's step; the answers went through the appeal's workflow.
  const audit = await sql<{ actor_kind: string; actor_id: string; role: string }[]>`
    select actor_kind, actor_id, role from audit_log where object_id = ${appealId} and action = 'appeal.trader_answer' order by id`;
  t.is(audit.length, 3);
  t.true(audit.every((r) => r.actor_kind === 'trader_account' && r.actor_id === trader.accountId && r.role === 'trader'));
  const uploads = await sql`select 1 from audit_log where object_id = ${traderFile} and action = 'file.upload' and actor_kind = 'trader_account'`;
  t.is(uploads.length, 1);
  t.true((await historyOf(`appeal:${appealId}`)).filter((e) => e === 'workflowExecutionUpdateCompletedEventAttributes').length >= 3);
});

test('past its respond_by the trader can no longer answer (409, nothing stored) and the arbiter sees it did not answer', async (t) => {
  const trader = await traderWithRequisite();
  const { appealId } = await appealOn(trader);
  // The deadline passes (moved back by the owner: no test waits for it).
  await sql`update appeals set trader_respond_by = now() - interval '1 second' where id = ${appealId}`;

  const late = await asTrader(trader.session, 'POST', path(appealId, '/messages'), { body: 'Sorry, I was away from my phone.' });
  t.is(late.status, 409, late.text);
  t.regex(late.body.detail, /time to answer ended/);
  const lateFile = await traderUpload(trader.session, appealId, evidence('late'));
  t.is(lateFile.status, 409, lateFile.text);
  t.is((await sql`select 1 from evidence_files where trader_id = ${trader.traderId}`).length, 0, 'no file kept for a refused answer');

  const listed = (await asTrader(trader.session, 'GET', `${TRADER}/appeals`)).body.data.find((a: Json) => a.appeal_id === appealId);
  t.like(listed, { answer: 'MISSED', can_answer: false });
  const admin = (await asOperator('GET', `${ADMIN_APPEALS}/${appealId}`)).body.data;
  t.like(admin.trader, { answer: 'MISSED', responded_at: '', file_ids: [] });
  t.is((await sql`select 1 from appeal_messages where appeal_id = ${appealId} and sender_role = 'TRADER'`).length, 0);
});

test('a resolved appeal takes no more answers (409), and the list puts the waiting appeals first', async (t) => {
  const trader = await traderWithRequisite();
  const first = await appealOn(trader);
  const second = await appealOn(trader);
  t.is((await arbiter(first.appealId, 'resolve', { outcome: 'REJECTED', note: 'no payment seen' })).status, 200);
  const refused = await asTrader(trader.session, 'POST', path(first.appealId, '/messages'), { body: 'Thanks, agreed with the decision.' });
  t.is(refused.status, 409, refused.text);

  const list = (await asTrader(trader.session, 'GET', `${TRADER}/appeals`)).body.data as Json[];
  t.deepEqual(
    list.map((a) => a.appeal_id),
    [second.appealId, first.appealId],
  );
  t.like(list[1], { status: 'RESOLVED_TRADER', can_answer: false, answer: 'WAITING' });
});

test('concurrent answers: 8 at once all land and the first answer time is stamped once; past the deadline 5 at once are all refused', async (t) => {
  const trader = await traderWithRequisite();
  const { appealId } = await appealOn(trader);
  const answers = await Promise.all(
    Array.from({ length: 8 }, (_, i) => asTrader(trader.session, 'POST', path(appealId, '/messages'), { body: `Answer number ${i}` })),
  );
  t.true(
    answers.every((r) => r.status === 201),
    answers.map((r) => r.status).join(','),
  );
  const [row] = await sql<{ trader_responded_at: Date }[]>`select trader_responded_at from appeals where id = ${appealId}`;
  const messages = await sql<
    { created_at: Date }[]
  >`select created_at from appeal_messages where appeal_id = ${appealId} and sender_role = 'TRADER' order by seq`;
  t.is(messages.length, 8);
  t.true(row!.trader_responded_at.getTime() <= messages[0]!.created_at.getTime(), 'stamped by the first answer, kept by the others');

  // Past the deadline, concurrent answers are all refused and none is stored.
  await sql`update appeals set trader_respond_by = now() - interval '1 second' where id = ${appealId}`;
  const late = await Promise.all(
    Array.from({ length: 5 }, (_, i) => asTrader(trader.session, 'POST', path(appealId, '/messages'), { body: `Late answer ${i}` })),
  );
  t.true(late.every((r) => r.status === 409));
  t.is((await sql`select 1 from appeal_messages where appeal_id = ${appealId} and sender_role = 'TRADER'`).length, 8);
});
