import { loadConfig } from '../../config';
import test from 'ava';
import { randomUUID } from 'node:crypto';
import { auditLedger } from '../../db/queries/ledger';
import { createTemporalClient } from '../../temporal/client';
import { asOperator, cabinetToken, hmacHeaders, newMerchant, operatorToken, problemDetail, signed, unsigned, withBearer } from '../helpers/api';
import { testSql } from '../helpers/app';
import { createPayin, dealRow, eventsOf, fundedMerchant, isolatedTrader, operatorDeal, PAYIN, PAYOUT, payinBody, walletOf } from '../helpers/deals';
import { ADMIN_APPEALS, APPEALS, arbiter, dealReaches, historyOf, methodIn, openAppeal, settle } from '../helpers/appeals';
import { bearerUpload, download, filePart, SAMPLES, signedUpload } from '../helpers/multipart';
import { ownCurrency } from '../helpers/catalog';
import { eventually } from '../helpers/poll';
import { startReceiver } from '../helpers/receiver';

const sql = testSql();
test.after.always(async () => {
  const report = await auditLedger(sql);
  await sql.end();
  if (report.walletMismatches.length || report.unbalancedTransactions.length) throw new Error(`ledger audit failed: ${JSON.stringify(report)}`);
});

const APPEAL_FIELDS = ['appeal_id', 'created_at', 'deal_id', 'file_ids', 'reason', 'resolution_note', 'resolved_at', 'status', 'updated_at'];
const REASON = 'The payer paid but the trader never confirmed.';
const dealEvents = async (dealId: string) => (await eventsOf(sql, dealId)).filter((e) => e.startsWith('deal.'));
const outboxTypes = async (dealId: string) =>
  (await sql<{ event_type: string }[]>`select event_type from outbox_events where deal_id = ${dealId} order by seq`).map((r) => r.event_type);

/**
 * A PayIn that expires at the suite's PAYIN_TIMEOUT_SECONDS (the shared stack: no extra worker to
 * bundle while the whole suite runs), optionally with a reported received amount.
 */
async function expiredDeal(keys: { token: string; secret: string }, body: Record<string, unknown>, received?: number) {
  const deal = await createPayin(keys, body);
  if (received) await operatorDeal(deal.deal_id, 'reconciliation', { received_amount: received });
  await dealReaches(keys, deal.deal_id, 'EXPIRED');
  return deal;
}

test('live deal: the appeal holds it (APPEALED, not expired at its timeout, escrow locked); REJECTED cancels it and returns the escrow', async (t) => {
  const receiver = await startReceiver();
  t.teardown(() => receiver.close());
  const { keys } = await newMerchant({ webhook_url: receiver.url });
  const { traderId, method } = await isolatedTrader({ liquidity: 10_000 });
  const deal = await createPayin(keys, { payment_method_id: method });
  const evidence = await signedUpload(keys, filePart(SAMPLES.pdf, 'receipt.pdf'));

  const opened = await openAppeal(keys, { deal_id: deal.deal_id, reason: REASON, file_ids: [evidence.body.file.file_id] });
  t.is(opened.status, 200, opened.text);
  t.deepEqual(Object.keys(opened.body), ['data']);
  const appeal = opened.body.data;
  t.deepEqual(Object.keys(appeal).sort(), APPEAL_FIELDS);
  t.like(appeal, { deal_id: deal.deal_id, status: 'OPEN', reason: REASON, resolution_note: '', resolved_at: '', file_ids: [evidence.body.file.file_id] });
  t.is((await signed(keys, 'GET', `/api/v1/p2p/merchant/deals/${deal.deal_id}`)).body.deal.status, 'APPEALED');

  // The payment timeout fires in the deal's workflow, but APPEALED is not expirable.
  await eventually(async () => (await historyOf(`payin:${deal.deal_id}`)).includes('timerFiredEventAttributes'), 'the expiry timer to fire', 120_000);
  t.is((await dealRow(sql, deal.deal_id)).status, 'APPEALED');
  t.deepEqual(await walletOf(sql, 'trader', traderId).then((w) => [w.available, w.frozen]), [10_000n - 1622n, 1622n]);

  t.is((await arbiter(appeal.appeal_id, 'review')).body.data.status, 'IN_REVIEW');
  const close = await arbiter(appeal.appeal_id, 'close');
  t.is(close.status, 400, 'an appeal that holds a live deal cannot just be closed');
  t.is(close.body.title, 'FAILED_PRECONDITION');

  const resolved = await arbiter(appeal.appeal_id, 'resolve', { outcome: 'REJECTED', note: 'The bank statement shows no payment.' });
  t.is(resolved.status, 200, resolved.text);
  t.is(resolved.body.deal.status, 'CANCELLED');
  t.like(resolved.body.data, { status: 'RESOLVED_TRADER', resolution_note: 'The bank statement shows no payment.' });
  t.truthy(Date.parse(resolved.body.data.resolved_at));
  t.deepEqual(await walletOf(sql, 'trader', traderId).then((w) => [w.available, w.frozen]), [10_000n, 0n]);
  const events = await dealEvents(deal.deal_id);
  t.deepEqual(events, ['deal.created', 'deal.escrow_locked', 'deal.appealed', 'deal.cancelled']);
  const [appealed] = await sql`select payload from outbox_events where deal_id = ${deal.deal_id} and event_type = 'deal.appealed'`;
  t.is(appealed!.payload.deal.status, 'APPEALED');

  const again = await arbiter(appeal.appeal_id, 'resolve', { outcome: 'SATISFIED', note: 'changed my mind' });
  t.is(again.status, 400);
  t.regex(problemDetail(again.body).message, /already resolved/);
  const got = await signed(keys, 'GET', `${APPEALS}/${appeal.appeal_id}`);
  t.like(got.body.data, { status: 'RESOLVED_TRADER', resolution_note: 'The bank statement shows no payment.' });

  // Reopen: the money is final; a new resolution must agree with it.
  t.is((await arbiter(appeal.appeal_id, 'reopen')).body.data.status, 'REOPENED');
  t.is((await signed(keys, 'GET', `${APPEALS}/${appeal.appeal_id}`)).body.data.resolved_at, '');
  const satisfied = await arbiter(appeal.appeal_id, 'resolve', { outcome: 'SATISFIED' });
  t.is(satisfied.status, 400);
  t.regex(problemDetail(satisfied.body).message, /CANCELLED/);
  t.is((await arbiter(appeal.appeal_id, 'resolve', { outcome: 'REJECTED', note: 'confirmed' })).status, 200);
  t.is((await arbiter(appeal.appeal_id, 'close')).body.data.status, 'CLOSED');
  t.is((await arbiter(appeal.appeal_id, 'review')).status, 400);
  const late = await signed(keys, 'POST', `${APPEALS}/${appeal.appeal_id}/messages`, { body: 'hello?' });
  t.is(late.status, 400);
  t.is(late.body.title, 'FAILED_PRECONDITION');
  t.deepEqual(await walletOf(sql, 'trader', traderId).then((w) => [w.available, w.frozen]), [10_000n, 0n]);

  // Every move reached the outbox; the deal's and the appeal's events reach the merchant's webhook.
  const types = await outboxTypes(deal.deal_id);
  for (const type of ['appeal.opened', 'appeal.in_review', 'appeal.resolved', 'appeal.reopened', 'appeal.closed']) t.true(types.includes(type), type);
  const delivered = await eventually(async () => {
    const bodies = receiver.received.map((r) => JSON.parse(r.body));
    return bodies.some((b) => b.type === 'deal.cancelled') && bodies.some((b) => b.type === 'deal.appealed') ? bodies : undefined;
  }, 'webhooks');
  const appealedHook = delivered.find((b) => b.type === 'deal.appealed');
  t.is(appealedHook.deal.status, 'APPEALED');
  t.is(delivered.find((b) => b.type === 'deal.cancelled').deal.status, 'CANCELLED');
  const openedHook = await eventually(async () => receiver.received.map((r) => JSON.parse(r.body)).find((b) => b.type === 'appeal.opened'), 'appeal.opened');
  t.is(openedHook.appeal.appeal_id, appeal.appeal_id);
});

test('SATISFIED on a live deal: COMPLETED through the normal completion, the merchant credited once (pending, then available)', async (t) => {
  const { merchantId, keys } = await newMerchant({ payin_fee_bps: 250 });
  const { traderId, method } = await isolatedTrader({ liquidity: 50_000 });
  const deal = await createPayin(keys, { amount: 92_500, payment_method_id: method }); // exactly 10 USDT
  await operatorDeal(deal.deal_id, 'reconciliation', { received_amount: 80_000 }); // partial: autocompletion would be blocked
  const opened = await openAppeal(keys, { deal_id: deal.deal_id, reason: 'Payer paid, please verify the receipt.' });
  t.is(opened.status, 200, opened.text);
  t.is((await operatorDeal(deal.deal_id, 'confirm')).status, 400, 'trader confirmation is closed while APPEALED');

  const resolved = await arbiter(opened.body.data.appeal_id, 'resolve', { outcome: 'SATISFIED', note: 'Receipt verified.' });
  t.is(resolved.status, 200, resolved.text);
  t.is(resolved.body.deal.status, 'COMPLETED');
  t.is(resolved.body.data.status, 'RESOLVED_MERCHANT');
  const merchant = await eventually(async () => {
    const w = await walletOf(sql, 'merchant', merchantId);
    return w.available === 975n && w.pending_credits === 0n ? w : undefined;
  }, 'fee distribution');
  t.is(merchant.frozen, 0n);
  t.deepEqual(await walletOf(sql, 'trader', traderId).then((w) => [w.available, w.frozen]), [49_000n, 0n]);
  const [postings] = await sql`select count(*)::int as n from ledger_transactions where ref_id = ${deal.deal_id} and kind = 'payin_complete'`;
  t.is(postings!.n, 1);
  t.deepEqual(await dealEvents(deal.deal_id), ['deal.created', 'deal.escrow_locked', 'deal.appealed', 'deal.completed']);
  t.is((await arbiter(opened.body.data.appeal_id, 'resolve', { outcome: 'REJECTED' })).status, 400);
});

test('the reason counts what the merchant sent: 10 characters with a leading or trailing space are enough', async (t) => {
  const { keys } = await newMerchant();
  for (const reason of [' 123456789', '123456789 ', 'ab  cd  ef']) {
    const deal = await createPayin(keys);
    const res = await openAppeal(keys, { deal_id: deal.deal_id, reason });
    t.is(res.status, 200, `${JSON.stringify(reason)}: ${res.text}`);
    t.is(res.body.data.reason, reason, 'kept verbatim');
  }
});

test('create rules: reason length and text, unknown and foreign deals 404, foreign files 400, PayOut, CANCELLED, one appeal per deal', async (t) => {
  const { merchantId, keys } = await newMerchant();
  const deal = await createPayin(keys);
  const expect = async (body: Record<string, unknown>, status: number, title: string | undefined, message: RegExp, k = keys) => {
    const res = await openAppeal(k, body);
    t.is(res.status, status, res.text);
    if (title) t.is(res.body.title, title);
    t.regex(problemDetail(res.body).message, message);
  };
  await expect({ deal_id: deal.deal_id, reason: 'too short' }, 400, 'INVALID_ARGUMENT', /at least 10 characters/);
  await expect({ deal_id: deal.deal_id, reason: ' 2345678 ' }, 400, 'INVALID_ARGUMENT', /at least 10 characters/);
  await expect({ deal_id: deal.deal_id, reason: ' '.repeat(12) }, 400, 'INVALID_ARGUMENT', /reason must not be blank/);
  await expect({ deal_id: deal.deal_id, reason: ' \n\t'.repeat(4) }, 400, 'INVALID_ARGUMENT', /reason must not be blank/);
  await expect({ deal_id: deal.deal_id }, 400, 'INVALID_ARGUMENT', /reason is required/);
  await expect({ deal_id: deal.deal_id, reason: 'payer paid\u0000 twice over' }, 400, 'INVALID_ARGUMENT', /control character/);
  await expect({ deal_id: 'not-a-uuid', reason: REASON }, 400, 'INVALID_ARGUMENT', /deal_id must be a UUID/);
  await expect({ deal_id: randomUUID(), reason: REASON }, 404, 'NOT_FOUND', /deal not found/);
  const stranger = await newMerchant();
  await expect({ deal_id: deal.deal_id, reason: REASON }, 404, 'NOT_FOUND', /deal not found/, stranger.keys);

  const theirFile = await signedUpload(stranger.keys, filePart(SAMPLES.text));
  const unknownFile = randomUUID();
  await expect(
    { deal_id: deal.deal_id, reason: REASON, file_ids: [theirFile.body.file.file_id] },
    400,
    'INVALID_ARGUMENT',
    new RegExp(theirFile.body.file.file_id),
  );
  await expect({ deal_id: deal.deal_id, reason: REASON, file_ids: [unknownFile] }, 400, 'INVALID_ARGUMENT', new RegExp(unknownFile));

  const funded = await fundedMerchant(100_000);
  const payout = await signed(funded.keys, 'POST', PAYOUT, funded.payoutBody());
  t.is(payout.status, 200, payout.text);
  await expect({ deal_id: payout.body.deal.deal_id, reason: REASON }, 400, 'INVALID_ARGUMENT', /PayIn deals only/, funded.keys);

  const cancelled = await createPayin(keys);
  await signed(keys, 'POST', `/api/v1/p2p/merchant/deals/${cancelled.deal_id}/cancel`);
  await expect({ deal_id: cancelled.deal_id, reason: REASON }, 400, 'FAILED_PRECONDITION', /CANCELLED/);

  const first = await openAppeal(keys, { deal_id: deal.deal_id, reason: REASON });
  t.is(first.status, 200, first.text);
  await expect({ deal_id: deal.deal_id, reason: `${REASON} (again)` }, 400, 'FAILED_PRECONDITION', /already opened/);
  // Still one after the resolution: one appeal per deal unless an operator reopens it.
  await arbiter(first.body.data.appeal_id, 'resolve', { outcome: 'REJECTED' });
  await expect({ deal_id: deal.deal_id, reason: REASON }, 400, 'FAILED_PRECONDITION', /already opened/);
  const [count] = await sql`select count(*)::int as n from appeals where merchant_id = ${merchantId}`;
  t.is(count!.n, 1);

  // The cabinet JWT works as well; an operator JWT on the merchant route does not.
  const viaCabinet = await withBearer(await cabinetToken(merchantId), 'POST', APPEALS, { deal_id: (await createPayin(keys)).deal_id, reason: REASON });
  t.is(viaCabinet.status, 200, viaCabinet.text);
  t.is((await withBearer(await operatorToken(), 'POST', APPEALS, { deal_id: deal.deal_id, reason: REASON })).status, 403);
});

test('races: concurrent appeals on one deal — exactly one wins, live (deal workflow) and expired (appeal workflow) alike', async (t) => {
  const { keys } = await newMerchant();
  const { method } = await isolatedTrader({ liquidity: 10_000 });
  const expired = await expiredDeal(keys, { payment_method_id: method });
  const live = await createPayin(keys, { payment_method_id: method });
  for (const deal of [live, expired]) {
    const results = await Promise.all(Array.from({ length: 6 }, (_, i) => openAppeal(keys, { deal_id: deal.deal_id, reason: `${REASON} #${i}` })));
    const won = results.filter((r) => r.status === 200);
    const lost = results.filter((r) => r.status === 400);
    t.is(won.length, 1, results.map((r) => `${r.status} ${r.text}`).join('\n'));
    t.is(lost.length, 5);
    t.true(lost.every((r) => r.body.title === 'FAILED_PRECONDITION'));
    const [count] = await sql`select count(*)::int as n from appeals where deal_id = ${deal.deal_id}`;
    t.is(count!.n, 1);
  }
  t.is((await dealRow(sql, live.deal_id)).status, 'APPEALED');
  t.is((await dealRow(sql, expired.deal_id)).status, 'EXPIRED');
  t.deepEqual(await dealEvents(live.deal_id), ['deal.created', 'deal.escrow_locked', 'deal.appealed']);
  t.deepEqual(await dealEvents(expired.deal_id), ['deal.created', 'deal.escrow_locked', 'deal.expired']);
});

test('messages, listing and the arbiter view: oldest first, scoped, keyset pages, ADMIN files readable by the merchant', async (t) => {
  const { merchantId, keys } = await newMerchant();
  const deals = await Promise.all([createPayin(keys), createPayin(keys), createPayin(keys)]);
  const appeals = [];
  for (const d of deals) appeals.push((await openAppeal(keys, { deal_id: d.deal_id, reason: REASON })).body.data);
  const [a] = appeals;

  const mine = await signedUpload(keys, filePart(SAMPLES.jpeg, 'photo.jpg'));
  const m1 = await signed(keys, 'POST', `${APPEALS}/${a.appeal_id}/messages`, { body: 'First: see the photo.', file_ids: [mine.body.file.file_id] });
  t.is(m1.status, 200, m1.text);
  t.deepEqual(Object.keys(m1.body.data).sort(), ['appeal_id', 'body', 'created_at', 'file_ids', 'message_id', 'sender_role']);
  t.like(m1.body.data, { sender_role: 'MERCHANT', body: 'First: see the photo.', file_ids: [mine.body.file.file_id] });
  const adminFile = await bearerUpload(await operatorToken(), filePart(SAMPLES.text, 'statement.txt'), '/api/v1/p2p/admin/files');
  t.is((await download(hmacHeaders(keys, ''), `/api/v1/p2p/merchant/files/${adminFile.body.file.file_id}`)).status, 404);
  const m2 = await arbiter(a.appeal_id, 'messages', { body: 'Please send the bank statement.\nThanks.', file_ids: [adminFile.body.file.file_id] });
  t.is(m2.status, 200, m2.text);
  t.is(m2.body.data.sender_role, 'ADMIN');
  const m3 = await signed(keys, 'POST', `${APPEALS}/${a.appeal_id}/messages`, { body: 'Attached.' });
  t.is(m3.status, 200);
  // The merchant can now read the arbiter's file (attached to its appeal), but cannot attach it itself.
  t.is((await download(hmacHeaders(keys, ''), `/api/v1/p2p/merchant/files/${adminFile.body.file.file_id}`)).status, 200);
  t.is((await signed(keys, 'POST', `${APPEALS}/${a.appeal_id}/messages`, { body: 'x', file_ids: [adminFile.body.file.file_id] })).status, 400);
  t.is((await signed(keys, 'POST', `${APPEALS}/${a.appeal_id}/messages`, { body: '   ' })).status, 400);
  t.is((await signed(keys, 'POST', `${APPEALS}/${a.appeal_id}/messages`, { body: 'bell \u0007' })).status, 400);

  const thread = await signed(keys, 'GET', `${APPEALS}/${a.appeal_id}/messages`);
  t.is(thread.status, 200);
  t.deepEqual(Object.keys(thread.body), ['data']);
  t.deepEqual(
    thread.body.data.messages.map((m: { sender_role: string }) => m.sender_role),
    ['MERCHANT', 'ADMIN', 'MERCHANT'],
  );
  t.deepEqual(
    thread.body.data.messages.map((m: { message_id: string }) => m.message_id),
    [m1.body.data.message_id, m2.body.data.message_id, m3.body.data.message_id],
  );
  t.true((await outboxTypes(a.deal_id)).includes('appeal.message'));

  // Scope: another merchant sees none of it.
  const stranger = await newMerchant();
  t.is((await signed(stranger.keys, 'GET', `${APPEALS}/${a.appeal_id}`)).status, 404);
  t.is((await signed(stranger.keys, 'GET', `${APPEALS}/${a.appeal_id}/messages`)).status, 404);
  t.is((await signed(stranger.keys, 'POST', `${APPEALS}/${a.appeal_id}/messages`, { body: 'hi there' })).status, 404);
  t.deepEqual((await signed(stranger.keys, 'GET', APPEALS)).body, { data: [], next_page_token: '' });

  // Keyset pages, newest first; page_size clamps; tokens are bound to the merchant.
  const page1 = await signed(keys, 'GET', `${APPEALS}?page_size=2`);
  t.is(page1.status, 200);
  t.deepEqual(
    page1.body.data.map((x: { appeal_id: string }) => x.appeal_id),
    [appeals[2].appeal_id, appeals[1].appeal_id],
  );
  t.truthy(page1.body.next_page_token);
  const page2 = await signed(keys, 'GET', `${APPEALS}?page_size=2&page_token=${page1.body.next_page_token}`);
  t.deepEqual(
    page2.body.data.map((x: { appeal_id: string }) => x.appeal_id),
    [a.appeal_id],
  );
  t.is(page2.body.next_page_token, '');
  t.is((await signed(keys, 'GET', `${APPEALS}?page_size=5000`)).body.data.length, 3);
  t.is((await signed(keys, 'GET', `${APPEALS}?page_size=-1`)).status, 400);
  const foreignToken = await signed(stranger.keys, 'GET', `${APPEALS}?page_token=${page1.body.next_page_token}`);
  t.is(foreignToken.status, 400);
  t.is(problemDetail(foreignToken.body).message, 'invalid page_token');
  await arbiter(a.appeal_id, 'review');
  t.deepEqual(
    (await signed(keys, 'GET', `${APPEALS}?status=IN_REVIEW`)).body.data.map((x: { appeal_id: string }) => x.appeal_id),
    [a.appeal_id],
  );
  t.is((await signed(keys, 'GET', `${APPEALS}?status=OPEN`)).body.data.length, 2);
  // IN_PROGRESS, the settlement rule's name, is the same state as IN_REVIEW, for the merchant and the arbiter alike.
  const inProgress = await signed(keys, 'GET', `${APPEALS}?status=IN_PROGRESS`);
  t.is(inProgress.status, 200, inProgress.text);
  t.deepEqual(
    inProgress.body.data.map((x: { appeal_id: string }) => x.appeal_id),
    [a.appeal_id],
  );
  t.is(inProgress.body.data[0].status, 'IN_REVIEW');
  t.is((await signed(keys, 'GET', `${APPEALS}?status=IN_PROGRESS,OPEN`)).body.data.length, 3);
  t.is((await signed(keys, 'GET', `${APPEALS}?status=IN_PROGRESS&status=IN_REVIEW`)).body.data.length, 1);
  t.deepEqual(
    (await asOperator('GET', `${ADMIN_APPEALS}?merchant_id=${merchantId}&status=IN_PROGRESS`)).body.data.map((x: { appeal_id: string }) => x.appeal_id),
    [a.appeal_id],
  );
  t.deepEqual((await signed(keys, 'GET', `${APPEALS}?status=NOPE`)).body, { data: [], next_page_token: '' });

  // The arbiter's queue and view.
  const queue = await asOperator('GET', `${ADMIN_APPEALS}?merchant_id=${merchantId}&status=OPEN`);
  t.is(queue.status, 200);
  t.is(queue.body.data.length, 2);
  t.true(queue.body.data.every((x: { merchant_id: string }) => x.merchant_id === merchantId));
  const view = await asOperator('GET', `${ADMIN_APPEALS}/${a.appeal_id}`);
  t.is(view.status, 200, view.text);
  t.like(view.body.data, { appeal_id: a.appeal_id, merchant_id: merchantId, status: 'IN_REVIEW', outcome: '', settlement_deal_id: '' });
  t.is(view.body.data.deal.status, 'APPEALED');
  t.is(view.body.data.messages.length, 3);
  t.deepEqual(view.body.data.files.map((f: { file_id: string }) => f.file_id).sort(), [mine.body.file.file_id, adminFile.body.file.file_id].sort());
  t.is((await asOperator('GET', `${ADMIN_APPEALS}/${randomUUID()}`)).status, 404);
  t.is((await signed(keys, 'GET', ADMIN_APPEALS)).status, 403);
  t.is((await signed(keys, 'POST', `${ADMIN_APPEALS}/${a.appeal_id}/resolve`, { outcome: 'SATISFIED' })).status, 403);
  t.is((await arbiter(a.appeal_id, 'resolve', { outcome: 'MAYBE' })).status, 400);
  // Leave no deal held: resolve all three.
  for (const x of appeals) t.is((await arbiter(x.appeal_id, 'resolve', { outcome: 'REJECTED' })).status, 200);
});

test("settlement of an EXPIRED deal: a new deal at today's rate, escrow from the parent's trader, COMPLETED at once; one per appeal", async (t) => {
  const { merchantId, keys } = await newMerchant({ payin_fee_bps: 100 });
  // The rate changes below: a currency of this test's own (rates are global; other files read TRY's).
  const currency = await ownCurrency({ buyMicro: 34_000_000n, sellMicro: 34_800_000n });
  const method = await methodIn(currency);
  const { traderId } = await isolatedTrader({ liquidity: 50_000, method: method.slug });
  // 3400.00 at 34 per USDT = 100 USDT of escrow; the payer paid 1700.00 after expiry.
  const parent = await expiredDeal(keys, { amount: 340_000, currency, payment_method_id: method.slug }, 170_000);
  t.deepEqual(await walletOf(sql, 'trader', traderId).then((w) => [w.available, w.frozen]), [50_000n, 0n]);
  const parentEvents = await dealEvents(parent.deal_id);

  const opened = await openAppeal(keys, { deal_id: parent.deal_id, reason: 'The payer paid 1700 after the timeout.' });
  t.is(opened.status, 200, opened.text);
  const appealId = opened.body.data.appeal_id;
  t.is((await dealRow(sql, parent.deal_id)).status, 'EXPIRED', 'the deal stays EXPIRED');
  const early = await arbiter(appealId, 'resolve', { outcome: 'SATISFIED' });
  t.is(early.status, 400);
  t.regex(problemDetail(early.body).message, /settle it first/);

  // Body rules: a UUID idempotency_key; an override needs a reason and must be positive.
  t.is((await asOperator('POST', `/api/v1/p2p/appeals/${appealId}/settlement`, {})).status, 400);
  t.is((await settle(appealId, { idempotency_key: 'not-a-uuid' })).status, 400);
  const noReason = await settle(appealId, { received_amount_override: 100_000 });
  t.is(noReason.status, 400);
  t.regex(problemDetail(noReason.body).message, /reason is required/);
  t.is((await settle(appealId, { received_amount_override: 0, reason: 'zero' })).status, 400);
  t.is((await settle(randomUUID(), {})).status, 404);
  t.is((await signed(keys, 'POST', `/api/v1/p2p/appeals/${appealId}/settlement`, { idempotency_key: randomUUID() })).status, 403);

  // Today's rate, not the parent's: 17 per USDT now.
  t.is((await asOperator('PUT', `/api/v1/p2p/admin/rates/${currency}`, { buy_rate_micro: 17_000_000, sell_rate_micro: 17_500_000 })).status, 200);

  // Two settlements racing with different keys: one deal, the other 409.
  const [keyA, keyB] = [randomUUID(), randomUUID()];
  const raced = await Promise.all([settle(appealId, { idempotency_key: keyA }), settle(appealId, { idempotency_key: keyB })]);
  t.deepEqual(raced.map((r) => r.status).sort(), [200, 409], raced.map((r) => r.text).join('\n'));
  const winner = raced.find((r) => r.status === 200)!;
  const winningKey = winner === raced[0] ? keyA : keyB;
  const settlement = winner.body.deal;
  t.deepEqual(Object.keys(winner.body), ['deal']);
  t.like(settlement, { status: 'COMPLETED', deal_type: 'PAYIN', amount: '170000', currency, received_amount: '170000', amount_match_status: 'full' });
  t.not(settlement.deal_id, parent.deal_id);
  const replay = await settle(appealId, { idempotency_key: winningKey });
  t.is(replay.status, 200);
  t.is(replay.body.deal.deal_id, settlement.deal_id);
  // A UUID key is one key whatever its case: upper-cased it is the same replay, never 409.
  const shouted = await settle(appealId, { idempotency_key: winningKey.toUpperCase() });
  t.is(shouted.status, 200, shouted.text);
  t.is(shouted.body.deal.deal_id, settlement.deal_id);

  const row = await dealRow(sql, settlement.deal_id);
  t.is(row.parent_deal_id, parent.deal_id);
  t.is(row.origin_appeal_id, appealId);
  t.is(row.exchange_rate_micro, 17_000_000n);
  t.is(row.amount_usdt, 10_000n); // 1700.00 / 17 = 100 USDT
  t.is(row.fee_usdt, 100n); // 1 %
  t.is(row.trader_id, traderId);
  // The parent's trader backs it: 100 USDT left its liquidity; the merchant gets 99 USDT once.
  t.deepEqual(await walletOf(sql, 'trader', traderId).then((w) => [w.available, w.frozen]), [40_000n, 0n]);
  const credited = await eventually(async () => {
    const w = await walletOf(sql, 'merchant', merchantId);
    return w.available === 9_900n && w.pending_credits === 0n ? w : undefined;
  }, 'the settlement credit to become available');
  t.is(credited.frozen, 0n);
  t.deepEqual(await dealEvents(settlement.deal_id), ['deal.created', 'deal.escrow_locked', 'deal.payment_verified', 'deal.completed']);
  const [created] = await sql`select payload from outbox_events where deal_id = ${settlement.deal_id} and event_type = 'deal.created'`;
  t.is(created!.payload.deal.status, 'INITIALIZED');
  t.is((await dealRow(sql, parent.deal_id)).status, 'EXPIRED');
  t.deepEqual(await dealEvents(parent.deal_id), parentEvents, 'the parent stays EXPIRED, with no new events');
  const merchantView = await signed(keys, 'GET', `/api/v1/p2p/merchant/deals/${settlement.deal_id}`);
  t.is(merchantView.body.deal.status, 'COMPLETED');

  // Resolving SATISFIED links the settlement; REJECTED is no longer possible; a settled appeal takes no second settlement.
  t.is((await arbiter(appealId, 'resolve', { outcome: 'REJECTED' })).status, 400);
  const resolved = await arbiter(appealId, 'resolve', { outcome: 'SATISFIED', note: 'Paid late; settled.' });
  t.is(resolved.status, 200, resolved.text);
  t.is(resolved.body.data.status, 'RESOLVED_MERCHANT');
  t.is(resolved.body.data.resolution_note, `Paid late; settled.\nsettlement deal ${settlement.deal_id}`);
  t.is(resolved.body.deal.status, 'EXPIRED');
  t.is((await settle(appealId, {})).status, 409);
  t.is((await settle(appealId, { idempotency_key: winningKey })).body.deal.deal_id, settlement.deal_id);
  t.is((await asOperator('GET', `${ADMIN_APPEALS}/${appealId}`)).body.data.settlement_deal_id, settlement.deal_id);

  // Its own workflow, searchable like a deal and by its parent and appeal.
  const client = await createTemporalClient(loadConfig(process.env));
  t.teardown(() => client.connection.close());
  const found = await eventually(async () => {
    for await (const wf of client.workflow.list({
      query: `ParentDealId = "${parent.deal_id}" AND OriginAppealId = "${appealId}" AND DealId = "${settlement.deal_id}"`,
    }))
      return wf;
    return undefined;
  }, 'the settlement workflow in visibility');
  t.is(found.workflowId, `settlement:${appealId}`);
  t.is(found.type, 'settlementWorkflow');
});

const DEAL_FIELDS = [
  'amount',
  'amount_match_status',
  'client_id',
  'created_at',
  'currency',
  'deal_id',
  'deal_type',
  'payment_url',
  'received_amount',
  'status',
  'target_requisite',
  'updated_at',
];
const SETTLEMENT_FIELDS = [...DEAL_FIELDS, 'origin_appeal_id', 'parent_deal_id'].sort();

test('settlement deals carry parent_deal_id and origin_appeal_id (answer, GET, listing, webhooks) and live outside the merchant key space', async (t) => {
  const receiver = await startReceiver();
  t.teardown(() => receiver.close());
  const { keys } = await newMerchant({ webhook_url: receiver.url });
  const { method } = await isolatedTrader({ liquidity: 20_000 });
  const [first, second] = await Promise.all([
    expiredDeal(keys, { payment_method_id: method }, 150_000),
    expiredDeal(keys, { payment_method_id: method }, 120_000),
  ]);
  const appealOf = async (dealId: string) => (await openAppeal(keys, { deal_id: dealId, reason: REASON })).body.data.appeal_id as string;
  const [appealA, appealB] = [await appealOf(first.deal_id), await appealOf(second.deal_id)];
  const payinWithKey = (key: string) => signed(keys, 'POST', PAYIN, payinBody({ idempotency_key: key, payment_method_id: method }));

  // A: the merchant's own PayIn takes the key `settlement:<appeal_id>` before the settlement; the settlement still succeeds.
  const own = await payinWithKey(`settlement:${appealA}`);
  t.is(own.status, 200, own.text);
  t.deepEqual(Object.keys(own.body.deal).sort(), DEAL_FIELDS, 'an ordinary deal has no settlement fields');
  const settledA = await settle(appealA, {});
  t.is(settledA.status, 200, settledA.text);
  const a = settledA.body.deal;
  t.not(a.deal_id, own.body.deal.deal_id);
  t.like(a, { status: 'COMPLETED', amount: '150000', parent_deal_id: first.deal_id, origin_appeal_id: appealA });
  t.deepEqual(Object.keys(a).sort(), SETTLEMENT_FIELDS, 'the settlement answer');
  const ownAgain = await payinWithKey(`settlement:${appealA}`);
  t.is(ownAgain.status, 200, ownAgain.text);
  t.is(ownAgain.body.deal.deal_id, own.body.deal.deal_id, "the merchant's key keeps answering its own deal");
  t.is(ownAgain.body.deal.status, 'ESCROW_LOCKED');

  // B: settled first; the merchant's PayIn under that key is a new deal of its own, never the settlement.
  const settledB = await settle(appealB, {});
  t.is(settledB.status, 200, settledB.text);
  const b = settledB.body.deal;
  const mine = await payinWithKey(`settlement:${appealB}`);
  t.is(mine.status, 200, mine.text);
  t.not(mine.body.deal.deal_id, b.deal_id);
  t.deepEqual(Object.keys(mine.body.deal).sort(), DEAL_FIELDS);
  t.is((await payinWithKey(`settlement:${appealB}`)).body.deal.deal_id, mine.body.deal.deal_id);
  t.is((await settle(appealB, { idempotency_key: randomUUID() })).status, 409, 'a second settlement is still 409');

  // GET /deals/{id}: the settlement shows both ids; the parent (an ordinary deal) shows neither.
  const got = await signed(keys, 'GET', `/api/v1/p2p/merchant/deals/${a.deal_id}`);
  t.deepEqual(Object.keys(got.body.deal).sort(), SETTLEMENT_FIELDS);
  t.like(got.body.deal, { parent_deal_id: first.deal_id, origin_appeal_id: appealA });
  t.deepEqual(Object.keys((await signed(keys, 'GET', `/api/v1/p2p/merchant/deals/${first.deal_id}`)).body.deal).sort(), DEAL_FIELDS);

  // The listing: settlement deals with both, every other deal without.
  const listed = (await signed(keys, 'GET', '/api/v1/p2p/merchant/deals?page_size=250')).body.data as Array<Record<string, string>>;
  t.is(listed.length, 6);
  const settlementIds = new Map([
    [a.deal_id, [first.deal_id, appealA]],
    [b.deal_id, [second.deal_id, appealB]],
  ]);
  for (const deal of listed) {
    const expected = settlementIds.get(deal.deal_id!);
    if (expected) t.like(deal, { parent_deal_id: expected[0], origin_appeal_id: expected[1] });
    else t.deepEqual(Object.keys(deal).sort(), DEAL_FIELDS);
  }

  // Webhooks: every event of the settlement deal carries both in its deal.
  const delivered = await eventually(async () => {
    const bodies = receiver.received.map((r) => JSON.parse(r.body)).filter((e) => e.deal?.deal_id === a.deal_id);
    return bodies.length >= 4 ? bodies : undefined;
  }, 'the settlement webhooks');
  t.deepEqual(delivered.map((e) => e.type).sort(), ['deal.completed', 'deal.created', 'deal.escrow_locked', 'deal.payment_verified']);
  for (const e of delivered) t.like(e.deal, { parent_deal_id: first.deal_id, origin_appeal_id: appealA });
  const ordinary = receiver.received.map((r) => JSON.parse(r.body)).find((e) => e.deal?.deal_id === own.body.deal.deal_id);
  t.truthy(ordinary);
  t.false('parent_deal_id' in ordinary.deal);
  t.false('origin_appeal_id' in ordinary.deal);

  // The OpenAPI document names them as optional fields of MerchantDealInfo.
  const doc = await unsigned('GET', '/openapi.json');
  const schema = doc.body.components.schemas.MerchantDealInfo;
  t.truthy(schema.properties.parent_deal_id);
  t.truthy(schema.properties.origin_appeal_id);
  t.false(schema.required.includes('parent_deal_id'));
  t.false(schema.required.includes('origin_appeal_id'));
});

test('settlement refusals (409): a live parent, nothing received, an appeal no longer open; REJECTED on an expired deal moves no money', async (t) => {
  const { merchantId, keys } = await newMerchant();
  const { traderId, method } = await isolatedTrader({ liquidity: 20_000 });
  const appealOf = async (dealId: string) => (await openAppeal(keys, { deal_id: dealId, reason: REASON })).body.data.appeal_id as string;
  // The live deal is appealed at once, so it is held (APPEALED) before its own timeout.
  const live = await createPayin(keys, { payment_method_id: method });
  const liveAppeal = await appealOf(live.deal_id);
  const [nothingPaid, closedOne] = await Promise.all([
    expiredDeal(keys, { payment_method_id: method }),
    expiredDeal(keys, { payment_method_id: method }, 150_000),
  ]);
  const [nothingAppeal, closedAppeal] = [await appealOf(nothingPaid.deal_id), await appealOf(closedOne.deal_id)];

  const notExpired = await settle(liveAppeal, {});
  t.is(notExpired.status, 409);
  t.regex(problemDetail(notExpired.body).message, /only an EXPIRED deal/);
  const zero = await settle(nothingAppeal, {});
  t.is(zero.status, 409);
  t.regex(problemDetail(zero.body).message, /received_amount_override/);
  t.is((await arbiter(closedAppeal, 'close')).body.data.status, 'CLOSED', 'an expired deal is not held: its appeal may close');
  const closed = await settle(closedAppeal, {});
  t.is(closed.status, 409);
  t.regex(problemDetail(closed.body).message, /CLOSED/);
  // Reopened, it may be settled again (a settlement needs OPEN, IN_PROGRESS or REOPENED).
  t.is((await arbiter(closedAppeal, 'reopen')).status, 200);
  t.is((await arbiter(closedAppeal, 'review')).body.data.status, 'IN_REVIEW');
  const afterReopen = await settle(closedAppeal, {});
  t.is(afterReopen.status, 200, afterReopen.text);
  t.is(afterReopen.body.deal.amount, '150000');

  // An override with a reason settles what the payer proved; REJECTED on an expired deal changes nothing.
  const rejected = await arbiter(nothingAppeal, 'resolve', { outcome: 'REJECTED', note: 'No payment found.' });
  t.is(rejected.status, 200);
  t.is(rejected.body.deal.status, 'EXPIRED');
  t.is((await settle(nothingAppeal, { received_amount_override: 50_000, reason: 'receipt' })).status, 409, 'resolved: no longer settleable');
  const before = await walletOf(sql, 'trader', traderId);
  t.deepEqual([before.available, before.frozen], [20_000n - 1622n - 1622n, 1622n], 'the live deal still holds its escrow; one settlement took 1622');
  t.is((await arbiter(liveAppeal, 'resolve', { outcome: 'REJECTED' })).status, 200);
  t.deepEqual(await walletOf(sql, 'trader', traderId).then((w) => [w.available, w.frozen]), [20_000n - 1622n, 0n]);
  await eventually(async () => (await walletOf(sql, 'merchant', merchantId)).available === 1622n, 'the settlement credit');
});

test('a COMPLETED deal can be appealed: it stays COMPLETED, the money stays where it is, either outcome is recorded', async (t) => {
  const { merchantId, keys } = await newMerchant();
  const { traderId, method } = await isolatedTrader({ liquidity: 10_000 });
  const deal = await createPayin(keys, { amount: 92_500, payment_method_id: method });
  t.is((await operatorDeal(deal.deal_id, 'confirm')).body.deal.status, 'COMPLETED');
  const opened = await openAppeal(keys, { deal_id: deal.deal_id, reason: 'The payer was charged twice for this order.' });
  t.is(opened.status, 200, opened.text);
  t.is((await dealRow(sql, deal.deal_id)).status, 'COMPLETED');
  t.deepEqual(await dealEvents(deal.deal_id), ['deal.created', 'deal.escrow_locked', 'deal.payment_verified', 'deal.completed']);
  const settle409 = await settle(opened.body.data.appeal_id, {});
  t.is(settle409.status, 409, 'only EXPIRED deals are settled');
  const resolved = await arbiter(opened.body.data.appeal_id, 'resolve', { outcome: 'REJECTED', note: 'Charged once only.' });
  t.is(resolved.status, 200, resolved.text);
  t.is(resolved.body.deal.status, 'COMPLETED');
  t.is(resolved.body.data.status, 'RESOLVED_TRADER');
  await eventually(async () => (await walletOf(sql, 'merchant', merchantId)).available === 1000n, 'the original credit');
  t.deepEqual(await walletOf(sql, 'trader', traderId).then((w) => [w.available, w.frozen]), [9_000n, 0n]);
  t.is((await arbiter(opened.body.data.appeal_id, 'close')).body.data.status, 'CLOSED');
});
