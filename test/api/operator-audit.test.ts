/**
 * Every operator action is audited in the transaction of its effect — the step the
 * workflow update drives (deal, payout and appeal moves, settlement), or the service's own
 * transaction (appeal message, evidence upload): who, role, what, object, before/after and the
 * request id (the X-Trace-Id of the answer). One row even when the step runs twice (a retry of
 * the same request), none when the action is refused (wrong state, wrong role). And the payload
 * codec is the admin's alone.
 */
import test, { type ExecutionContext } from 'ava';
import { randomUUID } from 'node:crypto';
import { auditLedger } from '../../db/queries/ledger';
import type { AuditActor } from '../../domain/audit';
import { API_URL, asOperator, newMerchant, readResponse, signed, type ApiResponse, type Json } from '../helpers/api';
import { testSql } from '../helpers/app';
import { directActivities } from '../helpers/activities';
import { dealReaches, methodIn, openAppeal } from '../helpers/appeals';
import { createPayin, fundedMerchant, isolatedMethod, isolatedTrader, PAYOUT } from '../helpers/deals';
import { filePart, SAMPLES } from '../helpers/multipart';
import { ADMIN_BASE, asSession, operatorAccount } from '../helpers/operator-session';

const sql = testSql();
test.after.always(async () => {
  const report = await auditLedger(sql);
  await sql.end();
  if (report.walletMismatches.length || report.unbalancedTransactions.length) throw new Error(`ledger audit failed: ${JSON.stringify(report)}`);
});

interface AuditRow {
  actor_kind: string;
  actor_id: string;
  role: string;
  action: string;
  object_type: string;
  object_id: string;
  before: Json;
  after: Json;
  request_id: string;
}
const auditOf = (objectId: string) => sql<AuditRow[]>`select * from audit_log where object_id = ${objectId} order by id`;
const actionsOf = async (objectId: string) => (await auditOf(objectId)).map((r) => r.action);
const traceOf = (res: ApiResponse) => res.headers.get('x-trace-id') ?? '';
const REASON = 'The payer paid but the trader never confirmed.';

/** The one row of `action` on the object, written by this account under this answer's request id. */
async function rowOf(t: ExecutionContext, objectId: string, action: string, res: ApiResponse, who: { id: string; role: string }) {
  const rows = (await auditOf(objectId)).filter((r) => r.action === action);
  t.is(rows.length, 1, `one ${action} row`);
  t.like(rows[0], { actor_kind: 'operator_account', actor_id: who.id, role: who.role, object_id: objectId, request_id: traceOf(res) });
  t.true(traceOf(res).length > 0, 'the answer has a trace id');
  return rows[0]!;
}

test('PayIn moves — amount change, reconciliation, complete — are audited in their step; refused ones are not', async (t) => {
  const { keys } = await newMerchant();
  const arbiter = await operatorAccount('arbiter');
  const support = await operatorAccount('support');
  const dealId = (await createPayin(keys)).deal_id;
  const amountPath = `/api/v1/p2p/deals/${dealId}/amount`;

  // Wrong role: refused before anything runs, nothing audited.
  t.is((await asSession(support.session, 'POST', `${ADMIN_BASE}/deals/${dealId}/reconciliation`, { received_amount: 1 })).status, 403);
  t.is((await asSession(support.session, 'POST', amountPath, { amount_fiat: 200_000, reason: 'no', idempotency_key: randomUUID() })).status, 403);
  t.is((await asSession(support.session, 'POST', `${ADMIN_BASE}/deals/${dealId}/complete`)).status, 403);
  t.deepEqual(await actionsOf(dealId), []);

  const key = randomUUID();
  const changed = await asSession(arbiter.session, 'POST', amountPath, { amount_fiat: 200_000, reason: 'the payer was asked 2000', idempotency_key: key });
  t.is(changed.status, 200, changed.text);
  const change = await rowOf(t, dealId, 'deal.amount_change', changed, arbiter);
  t.like(change, { object_type: 'deal' });
  t.like(change.before, { status: 'ESCROW_LOCKED', amount: '150000', amount_version: '1' });
  t.like(change.after, { status: 'ESCROW_LOCKED', amount: '200000', amount_version: '2', reason: 'the payer was asked 2000', idempotency_key: key });
  // The same key again is a replay: no second row.
  t.is((await asSession(arbiter.session, 'POST', amountPath, { amount_fiat: 200_000, reason: 'the payer was asked 2000', idempotency_key: key })).status, 200);

  const reconciled = await asSession(arbiter.session, 'POST', `${ADMIN_BASE}/deals/${dealId}/reconciliation`, { received_amount: 1 });
  t.is(reconciled.status, 200, reconciled.text);
  const reconcile = await rowOf(t, dealId, 'deal.reconcile', reconciled, arbiter);
  t.like(reconcile.before, { received_amount: '0', amount_match_status: '' });
  t.like(reconcile.after, { received_amount: '1', amount_match_status: 'partial' });

  // Partial blocks autocompletion: the confirm stops at PAYMENT_VERIFIED, the operator completes.
  const confirmed = await asSession(arbiter.session, 'POST', `${ADMIN_BASE}/deals/${dealId}/confirm`);
  t.is(confirmed.body.deal.status, 'PAYMENT_VERIFIED', confirmed.text);
  const completed = await asSession(arbiter.session, 'POST', `${ADMIN_BASE}/deals/${dealId}/complete`);
  t.is(completed.status, 200, completed.text);
  const complete = await rowOf(t, dealId, 'deal.complete', completed, arbiter);
  t.is(complete.before.status, 'PAYMENT_VERIFIED');
  t.is(complete.after.status, 'COMPLETED');

  // Wrong state: refused by the workflow, nothing audited.
  t.is((await asSession(arbiter.session, 'POST', `${ADMIN_BASE}/deals/${dealId}/complete`)).status, 400);
  t.is((await asSession(arbiter.session, 'POST', `${ADMIN_BASE}/deals/${dealId}/reconciliation`, { received_amount: 5 })).status, 400);
  t.is((await asSession(arbiter.session, 'POST', amountPath, { amount_fiat: 300_000, reason: 'too late', idempotency_key: randomUUID() })).status, 400);
  t.deepEqual(await actionsOf(dealId), ['deal.amount_change', 'deal.reconcile', 'deal.confirm', 'deal.complete']);
});

test('PayOut moves — assign, start, reject, complete — are audited in their step; refused ones are not', async (t) => {
  const m = await fundedMerchant(10_000);
  const method = await isolatedMethod();
  const first = await isolatedTrader({ liquidity: 0, method });
  const arbiter = await operatorAccount('arbiter');
  const support = await operatorAccount('support');
  const created = await signed(m.keys, 'POST', PAYOUT, m.payoutBody({ payment_method: method }));
  t.is(created.body.deal.status, 'MATCHED', created.text);
  const dealId = created.body.deal.deal_id as string;
  const second = await isolatedTrader({ liquidity: 0, method });
  const move = (s: typeof arbiter.session, id: string, action: string, body?: unknown) =>
    asSession(s, 'POST', `${ADMIN_BASE}/deals/${id}/payout/${action}`, body);

  t.is((await move(support.session, dealId, 'assign', { requisite_id: second.requisiteId })).status, 403);
  t.is((await move(support.session, dealId, 'start')).status, 403);
  t.deepEqual(await actionsOf(dealId), []);

  const assigned = await move(arbiter.session, dealId, 'assign', { requisite_id: second.requisiteId });
  t.is(assigned.status, 200, assigned.text);
  const assign = await rowOf(t, dealId, 'payout.assign', assigned, arbiter);
  t.like(assign.before, { status: 'MATCHED', requisite_id: first.requisiteId, trader_id: first.traderId });
  t.like(assign.after, { status: 'MATCHED', requisite_id: second.requisiteId, trader_id: second.traderId });

  const started = await move(arbiter.session, dealId, 'start');
  t.is(started.status, 200, started.text);
  t.like(await rowOf(t, dealId, 'payout.start', started, arbiter), { before: { status: 'MATCHED' }, after: { status: 'PROCESSING' } });
  const rejected = await move(arbiter.session, dealId, 'reject', { reason: 'wrong requisites' });
  t.is(rejected.status, 200, rejected.text);
  t.like(await rowOf(t, dealId, 'payout.reject', rejected, arbiter), {
    before: { status: 'PROCESSING', failure_reason: '' },
    after: { status: 'FAILED', failure_reason: 'wrong requisites' },
  });
  t.is((await move(arbiter.session, dealId, 'complete')).status, 400, 'a FAILED payout cannot complete');
  t.is((await move(arbiter.session, dealId, 'start')).status, 400);
  t.deepEqual(await actionsOf(dealId), ['payout.assign', 'payout.start', 'payout.reject']);

  const other = await signed(m.keys, 'POST', PAYOUT, m.payoutBody({ payment_method: method }));
  const otherId = other.body.deal.deal_id as string;
  t.is((await move(arbiter.session, otherId, 'start')).status, 200);
  const done = await move(arbiter.session, otherId, 'complete');
  t.is(done.status, 200, done.text);
  t.like(await rowOf(t, otherId, 'payout.complete', done, arbiter), { before: { status: 'PROCESSING' }, after: { status: 'COMPLETED' } });
});

test('appeal moves, message and evidence upload are audited in their transaction; refused ones are not', async (t) => {
  const { keys } = await newMerchant();
  const arbiter = await operatorAccount('arbiter');
  const support = await operatorAccount('support');
  const dealId = (await createPayin(keys)).deal_id;
  const opened = await openAppeal(keys, { deal_id: dealId, reason: REASON });
  t.is(opened.status, 200, opened.text);
  const appealId = opened.body.data.appeal_id as string;
  const appealMove = (s: typeof arbiter.session, action: string, body?: unknown) => asSession(s, 'POST', `${ADMIN_BASE}/appeals/${appealId}/${action}`, body);

  t.is((await appealMove(support.session, 'review')).status, 403);
  t.is((await appealMove(support.session, 'messages', { body: 'hello' })).status, 403);
  t.is((await asSession(support.session, 'POST', `${ADMIN_BASE}/files`, undefined, { raw: filePart(SAMPLES.text, 'note.txt') })).status, 403);
  t.deepEqual(await actionsOf(appealId), []);

  const reviewed = await appealMove(arbiter.session, 'review');
  t.is(reviewed.status, 200, reviewed.text);
  const review = await rowOf(t, appealId, 'appeal.review', reviewed, arbiter);
  t.like(review, { object_type: 'appeal' });
  t.like(review.before, { status: 'OPEN', deal_status: 'APPEALED' });
  t.like(review.after, { status: 'IN_REVIEW', deal_status: 'APPEALED' });

  const uploaded = await asSession(arbiter.session, 'POST', `${ADMIN_BASE}/files`, undefined, { raw: filePart(SAMPLES.text, 'statement.txt') });
  t.is(uploaded.status, 201, uploaded.text);
  const fileId = uploaded.body.file.file_id as string;
  const upload = await rowOf(t, fileId, 'file.upload', uploaded, arbiter);
  t.like(upload, { object_type: 'file', before: null });
  t.like(upload.after, { file_id: fileId, content_type: 'text/plain', file_name: 'statement.txt' });

  const written = await appealMove(arbiter.session, 'messages', { body: 'Please send the bank statement.', file_ids: [fileId] });
  t.is(written.status, 200, written.text);
  t.like((await rowOf(t, appealId, 'appeal.message', written, arbiter)).after, {
    message_id: written.body.data.message_id,
    body: 'Please send the bank statement.',
    file_ids: [fileId],
    sender_role: 'ADMIN',
  });

  // Wrong state: close is refused while the deal waits for this appeal.
  t.is((await appealMove(arbiter.session, 'close')).status, 400);
  const resolved = await appealMove(arbiter.session, 'resolve', { outcome: 'REJECTED', note: 'no payment found' });
  t.is(resolved.status, 200, resolved.text);
  const resolve = await rowOf(t, appealId, 'appeal.resolve', resolved, arbiter);
  t.like(resolve.before, { status: 'IN_REVIEW', outcome: '', deal_status: 'APPEALED' });
  t.like(resolve.after, { status: 'RESOLVED_TRADER', outcome: 'REJECTED', deal_status: 'CANCELLED', resolution_note: 'no payment found' });
  t.is((await appealMove(arbiter.session, 'resolve', { outcome: 'SATISFIED' })).status, 400, 'resolved already');

  const reopened = await appealMove(arbiter.session, 'reopen');
  t.like(await rowOf(t, appealId, 'appeal.reopen', reopened, arbiter), { before: { status: 'RESOLVED_TRADER' }, after: { status: 'REOPENED' } });
  const closed = await appealMove(arbiter.session, 'close');
  t.like(await rowOf(t, appealId, 'appeal.close', closed, arbiter), { before: { status: 'REOPENED' }, after: { status: 'CLOSED', deal_status: 'CANCELLED' } });
  t.is((await appealMove(arbiter.session, 'review')).status, 400, 'a CLOSED appeal is not reviewed');
  t.is((await appealMove(arbiter.session, 'messages', { body: 'late' })).status, 400, 'a CLOSED appeal takes no messages');
  t.deepEqual(await actionsOf(appealId), ['appeal.review', 'appeal.message', 'appeal.resolve', 'appeal.reopen', 'appeal.close']);
});

test('settlement of an EXPIRED deal is audited in its step: once, not for a replay, not when refused', async (t) => {
  const { keys } = await newMerchant();
  const method = await methodIn('TRY');
  await isolatedTrader({ liquidity: 50_000, method: method.slug });
  const arbiter = await operatorAccount('arbiter');
  const support = await operatorAccount('support');
  const parent = await createPayin(keys, { amount: 340_000, currency: 'TRY', payment_method_id: method.slug });
  t.is((await asOperator('POST', `${ADMIN_BASE}/deals/${parent.deal_id}/reconciliation`, { received_amount: 170_000 })).status, 200);
  await dealReaches(keys, parent.deal_id, 'EXPIRED');
  const opened = await openAppeal(keys, { deal_id: parent.deal_id, reason: REASON });
  const appealId = opened.body.data.appeal_id as string;
  const path = `/api/v1/p2p/appeals/${appealId}/settlement`;
  const key = randomUUID();

  t.is((await asSession(support.session, 'POST', path, { idempotency_key: key })).status, 403);
  t.deepEqual(await actionsOf(appealId), []);
  const settled = await asSession(arbiter.session, 'POST', path, { idempotency_key: key });
  t.is(settled.status, 200, settled.text);
  const settlementDealId = settled.body.deal.deal_id as string;
  const row = await rowOf(t, appealId, 'appeal.settlement', settled, arbiter);
  t.like(row.before, { status: 'OPEN', deal_status: 'EXPIRED' });
  t.like(row.after.settlement, { deal_id: settlementDealId, status: 'COMPLETED', amount: '170000', idempotency_key: key });

  // The same key answers the same deal (no second row); another key is 409 (none either).
  t.is((await asSession(arbiter.session, 'POST', path, { idempotency_key: key })).body.deal.deal_id, settlementDealId);
  t.is((await asSession(arbiter.session, 'POST', path, { idempotency_key: randomUUID() })).status, 409);
  // The step itself run again (a retry after its commit) answers the settled deal and writes nothing.
  const { settlements } = directActivities(sql);
  const again = await settlements.createSettlementDeal({
    appealId,
    dealId: settlementDealId,
    idempotencyKey: key,
    receivedAmountOverride: null,
    reason: '',
    operatorId: arbiter.id,
    actor: { kind: 'operator_account', id: arbiter.id, role: 'arbiter', requestId: traceOf(settled), requestKey: randomUUID() },
  });
  t.like(again, { dealId: settlementDealId, replayed: true });
  t.deepEqual(await actionsOf(appealId), ['appeal.settlement']);
});

test('a step run twice for one request (a retry) writes its audit row once', async (t) => {
  const { payins, payouts, appeals } = directActivities(sql);
  const arbiter = await operatorAccount('arbiter');
  const actorFor = (requestId: string): AuditActor => ({ kind: 'operator_account', id: arbiter.id, role: 'arbiter', requestId, requestKey: randomUUID() });

  // A step that does its work again on a retry (reconciliation): the unique key keeps one row.
  const { keys } = await newMerchant();
  const dealId = (await createPayin(keys)).deal_id;
  const actor = actorFor(`retry-${dealId}`);
  await payins.recordReconciliation(dealId, '1', actor);
  await payins.recordReconciliation(dealId, '1', actor);
  const rows = await auditOf(dealId);
  t.is(rows.length, 1);
  t.like(rows[0], { action: 'deal.reconcile', actor_id: arbiter.id, role: 'arbiter', request_id: `retry-${dealId}` });
  // Another request is another action: its own row.
  await payins.recordReconciliation(dealId, '2', actorFor(`again-${dealId}`));
  t.deepEqual(await actionsOf(dealId), ['deal.reconcile', 'deal.reconcile']);

  // A move whose retry finds it done (the payout already reassigned): one row.
  const m = await fundedMerchant(5_000);
  const method = await isolatedMethod();
  await isolatedTrader({ liquidity: 0, method });
  const payout = await signed(m.keys, 'POST', PAYOUT, m.payoutBody({ payment_method: method }));
  const payoutId = payout.body.deal.deal_id as string;
  const target = await isolatedTrader({ liquidity: 0, method });
  const assignActor = actorFor(`assign-${payoutId}`);
  await payouts.assignPayout(payoutId, target.requisiteId, assignActor);
  await payouts.assignPayout(payoutId, target.requisiteId, assignActor);
  t.deepEqual(await actionsOf(payoutId), ['payout.assign']);

  // An appeal move retried under its command id: one row.
  const appealDeal = (await createPayin(keys)).deal_id;
  const appealId = (await openAppeal(keys, { deal_id: appealDeal, reason: REASON })).body.data.appeal_id as string;
  const command = { appealId, kind: 'review' as const, operatorId: arbiter.id, commandId: randomUUID(), actor: actorFor(`review-${appealId}`) };
  await appeals.moveAppeal(command);
  await appeals.moveAppeal(command);
  t.deepEqual(await actionsOf(appealId), ['appeal.review']);
  // A refused move (already IN_REVIEW) writes none.
  await t.throwsAsync(appeals.moveAppeal({ ...command, commandId: randomUUID(), actor: actorFor(`again-${appealId}`) }));
  t.deepEqual(await actionsOf(appealId), ['appeal.review']);
});

test('the payload codec: an admin session decodes; support and arbiter sessions are refused 403', async (t) => {
  const admin = await operatorAccount('admin');
  const support = await operatorAccount('support');
  const arbiter = await operatorAccount('arbiter');
  const plain = { metadata: { encoding: Buffer.from('json/plain').toString('base64') }, data: Buffer.from('"secret"').toString('base64') };
  const call = (s: { cookie: string; csrf: string }, action: 'encode' | 'decode', body: unknown) =>
    fetch(`${API_URL}/codec/${action}`, {
      method: 'POST',
      headers: { Cookie: s.cookie, 'X-CSRF-Token': s.csrf, 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    }).then(readResponse);

  const encoded = await call(admin.session, 'encode', { payloads: [plain] });
  t.is(encoded.status, 200, encoded.text);
  t.not(encoded.body.payloads[0].data, plain.data);
  const refused = await call(support.session, 'decode', encoded.body);
  t.is(refused.status, 403, refused.text);
  t.false(refused.text.includes('secret'));
  t.is((await call(arbiter.session, 'decode', encoded.body)).status, 403);
  t.is((await call(support.session, 'encode', { payloads: [plain] })).status, 403);
  const decoded = await call(admin.session, 'decode', encoded.body);
  t.is(decoded.status, 200, decoded.text);
  t.is(Buffer.from(decoded.body.payloads[0].data, 'base64').toString(), '"secret"');
});
