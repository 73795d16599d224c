/**
 * Appeals as the desk's cases: a response deadline from APPEAL_RESPONSE_SLA_SECONDS (set at the
 * opening and again at a reopening) that the home counts once missed; an assignee (assign,
 * unassign, take — each audited, none a move of the appeal); the oldest-first, "mine" and overdue
 * queues; operator attachments; and the notifications of new work the triggers write.
 */
import test from 'ava';
import { parse } from 'csv-parse/sync';
import { loadConfig } from '../../config';
import { asOperator, newMerchant, operatorToken, problemDetail, signed, type Json } from '../helpers/api';
import { appEnv, testSql } from '../helpers/app';
import { createPayin, isolatedTrader } from '../helpers/deals';
import { ADMIN_APPEALS, arbiter, openAppeal } from '../helpers/appeals';
import { bearerUpload, filePart, SAMPLES, signedUpload } from '../helpers/multipart';
import { ADMIN_BASE, asSession, operatorAccount } from '../helpers/operator-session';

const sql = testSql();
test.after.always(() => sql.end());

const csvOf = (text: string): Record<string, string>[] => parse(text, { columns: true, skip_empty_lines: true });

const SLA_SECONDS = loadConfig(appEnv()).APPEAL_RESPONSE_SLA_SECONDS;
const REASON = 'The payer paid but the trader never confirmed.';

/** A live merchant's PayIn under appeal (the deal APPEALED, the appeal OPEN). */
async function liveAppeal() {
  const { merchantId, keys } = await newMerchant();
  const { method } = await isolatedTrader({ liquidity: 10_000 });
  const deal = await createPayin(keys, { payment_method_id: method });
  const opened = await openAppeal(keys, { deal_id: deal.deal_id, reason: REASON });
  if (opened.status !== 200) throw new Error(`appeal not opened: ${opened.status} ${opened.text}`);
  return { merchantId, keys, dealId: deal.deal_id as string, appealId: opened.body.data.appeal_id as string };
}

const auditOf = (appealId: string, action: string) =>
  sql<
    { actor_id: string; before: Json; after: Json }[]
  >`select actor_id, before, after from audit_log where object_id = ${appealId} and action = ${action} order by id`;

test('the response deadline: opening + the SLA, overdue once past it (the home counts it, the overdue queue lists it), a reopening sets a new one', async (t) => {
  const { appealId } = await liveAppeal();
  const got = await asOperator('GET', `${ADMIN_APPEALS}/${appealId}`);
  t.is(got.status, 200, got.text);
  const a = got.body.data;
  t.is(Date.parse(a.respond_by) - Date.parse(a.created_at), SLA_SECONDS * 1000);
  t.like(a, { overdue: false, assignee_id: '', assigned_at: '', attachments: [] });
  const before = (await asOperator('GET', `${ADMIN_BASE}/queues`)).body;
  t.is(typeof before.appeals_overdue.count, 'number');
  t.is(before.appeals_overdue.sla_seconds, SLA_SECONDS);

  // The deadline passes (moved back by the owner: no test waits a day).
  await sql`update appeals set respond_by = now() - interval '2 hours' where id = ${appealId}`;
  t.true((await asOperator('GET', `${ADMIN_APPEALS}/${appealId}`)).body.data.overdue);
  const after = (await asOperator('GET', `${ADMIN_BASE}/queues`)).body;
  t.true(after.appeals_overdue.count >= 1, JSON.stringify(after.appeals_overdue));
  t.true(after.appeals_overdue.oldest_age_seconds >= 7200 - 5);
  const overdue = await asOperator('GET', `${ADMIN_APPEALS}?overdue=true&page_size=100`);
  t.is(overdue.status, 200, overdue.text);
  t.true(
    overdue.body.data.some((x: Json) => x.appeal_id === appealId && x.overdue),
    'the overdue queue lists it',
  );
  t.true(overdue.body.data.every((x: Json) => x.overdue));

  // Resolved: no longer waiting, so no longer overdue; reopened: a new deadline runs from now.
  t.is((await arbiter(appealId, 'resolve', { outcome: 'REJECTED', note: 'no payment seen' })).status, 200);
  t.false((await asOperator('GET', `${ADMIN_APPEALS}/${appealId}`)).body.data.overdue);
  const reopened = await arbiter(appealId, 'reopen');
  t.is(reopened.status, 200, reopened.text);
  const again = (await asOperator('GET', `${ADMIN_APPEALS}/${appealId}`)).body.data;
  t.false(again.overdue);
  t.true(Math.abs(Date.parse(again.respond_by) - (Date.now() + SLA_SECONDS * 1000)) < 120_000, again.respond_by);

  // Each is new work for the desk: the notifications list both.
  const kinds = (await sql<{ kind: string }[]>`select kind from desk_events where object_id = ${appealId} order by id`).map((r) => r.kind);
  t.deepEqual(kinds, ['appeal.opened', 'appeal.reopened']);
  const notes = await asOperator('GET', `${ADMIN_BASE}/notifications?limit=100`);
  t.is(notes.status, 200, notes.text);
  t.true(notes.body.data.some((n: Json) => n.object_id === appealId && n.kind === 'appeal.opened' && n.text.includes(REASON)));
  const newer = await asOperator('GET', `${ADMIN_BASE}/notifications?after=${notes.body.latest_id}`);
  t.true(newer.body.data.every((n: Json) => BigInt(n.id) > BigInt(notes.body.latest_id)));
});

test('a sandbox merchant’s appeal is no desk event (play money)', async (t) => {
  const { keys } = await newMerchant({ sandbox: true });
  const deal = await createPayin(keys, { amount: 150033 }); // …33: nobody pays, the deal stays live
  const opened = await openAppeal(keys, { deal_id: deal.deal_id, reason: REASON });
  t.is(opened.status, 200, opened.text);
  t.is((await sql`select id from desk_events where object_id = ${opened.body.data.appeal_id}`).length, 0);
});

test('the assignee: take, assign, unassign — each audited, none a move; "mine" lists an account’s appeals; only accounts that may resolve appeals', async (t) => {
  const { appealId } = await liveAppeal();
  const [alice, bob, support] = await Promise.all([operatorAccount('arbiter'), operatorAccount('arbiter'), operatorAccount('support')]);

  const taken = await asSession(alice.session, 'POST', `${ADMIN_APPEALS}/${appealId}/take`);
  t.is(taken.status, 200, taken.text);
  t.like(taken.body.data, { appeal_id: appealId, status: 'OPEN', assignee_id: alice.id });
  t.truthy(Date.parse(taken.body.data.assigned_at));
  const again = await asSession(alice.session, 'POST', `${ADMIN_APPEALS}/${appealId}/take`);
  t.is(again.status, 200);
  t.is((await auditOf(appealId, 'appeal.assign')).length, 1, 'taking it again changes nothing and writes no row');

  const mine = (s: typeof alice.session) => asSession(s, 'GET', `${ADMIN_APPEALS}?assignee=me&page_size=100`);
  t.true((await mine(alice.session)).body.data.some((x: Json) => x.appeal_id === appealId));
  t.false((await mine(bob.session)).body.data.some((x: Json) => x.appeal_id === appealId));
  t.deepEqual((await asOperator('GET', `${ADMIN_APPEALS}?assignee=me`)).body.data, [], 'the operator JWT has no appeal of its own');

  const refused = await asSession(alice.session, 'POST', `${ADMIN_APPEALS}/${appealId}/assign`, { operator_id: support.id });
  t.is(refused.status, 400, refused.text);
  t.regex(problemDetail(refused.body).message, /may not work on appeals/);
  const byJwt = await asOperator('POST', `${ADMIN_APPEALS}/${appealId}/take`);
  t.is(byJwt.status, 403, byJwt.text);
  t.is((await asSession(support.session, 'POST', `${ADMIN_APPEALS}/${appealId}/unassign`)).status, 403, 'support changes nothing');

  const assigned = await asOperator('POST', `${ADMIN_APPEALS}/${appealId}/assign`, { operator_id: bob.id });
  t.is(assigned.status, 200, assigned.text);
  t.is(assigned.body.data.assignee_id, bob.id);
  t.true((await mine(bob.session)).body.data.some((x: Json) => x.appeal_id === appealId));
  t.true((await asOperator('GET', `${ADMIN_APPEALS}?assignee=${bob.id}`)).body.data.some((x: Json) => x.appeal_id === appealId));

  const unassigned = await asSession(bob.session, 'POST', `${ADMIN_APPEALS}/${appealId}/unassign`);
  t.is(unassigned.status, 200, unassigned.text);
  t.is(unassigned.body.data.assignee_id, '');
  t.true((await asOperator('GET', `${ADMIN_APPEALS}?assignee=none&page_size=100`)).body.data.some((x: Json) => x.appeal_id === appealId));

  const assigns = await auditOf(appealId, 'appeal.assign');
  t.deepEqual(
    assigns.map((r) => [r.actor_id, r.before.assignee_id, r.after.assignee_id]),
    [
      [alice.id, '', alice.id],
      ['test-operator', alice.id, bob.id],
    ],
  );
  const unassigns = await auditOf(appealId, 'appeal.unassign');
  t.deepEqual(
    unassigns.map((r) => [r.actor_id, r.before.assignee_id, r.after.assignee_id]),
    [[bob.id, bob.id, '']],
  );
  t.is((await asOperator('GET', `${ADMIN_APPEALS}/${appealId}`)).body.data.status, 'OPEN', 'the appeal did not move');
  const assignees = await asSession(support.session, 'GET', `${ADMIN_BASE}/appeal-assignees`);
  t.is(assignees.status, 200);
  t.true(assignees.body.data.some((o: Json) => o.operator_id === alice.id));
  t.false(assignees.body.data.some((o: Json) => o.operator_id === support.id));
});

test('oldest first: the queue pages from its oldest case forward, tokens keep the order', async (t) => {
  const { merchantId, keys } = await newMerchant();
  const { method } = await isolatedTrader({ liquidity: 10_000 });
  const made: string[] = [];
  for (let i = 0; i < 3; i++) {
    const deal = await createPayin(keys, { payment_method_id: method });
    made.push((await openAppeal(keys, { deal_id: deal.deal_id, reason: REASON })).body.data.appeal_id);
  }
  const queue = `${ADMIN_APPEALS}?merchant_id=${merchantId}&sort=oldest&page_size=2`;
  const first = await asOperator('GET', queue);
  t.is(first.status, 200, first.text);
  t.deepEqual(
    first.body.data.map((x: Json) => x.appeal_id),
    made.slice(0, 2),
  );
  const next = await asOperator('GET', `${queue}&page_token=${encodeURIComponent(first.body.next_page_token)}`);
  t.deepEqual(
    next.body.data.map((x: Json) => x.appeal_id),
    made.slice(2),
  );
  t.is(next.body.next_page_token, '');
  const newest = await asOperator('GET', `${ADMIN_APPEALS}?merchant_id=${merchantId}&page_size=3`);
  t.deepEqual(
    newest.body.data.map((x: Json) => x.appeal_id),
    [...made].reverse(),
  );
  const mixed = await asOperator('GET', `${ADMIN_APPEALS}?merchant_id=${merchantId}&page_size=2&page_token=${encodeURIComponent(first.body.next_page_token)}`);
  t.is(mixed.status, 400, 'a token of the oldest-first queue is not one of the newest-first');
  t.true(
    first.body.data.every((x: Json) => typeof x.merchant_name === 'string' && x.merchant_name.length > 0),
    'the queue names each merchant',
  );

  // The export is the queue: the same filters and order, the order named in the file.
  const exported = await asOperator('GET', `${ADMIN_APPEALS}/export?merchant_id=${merchantId.slice(0, 8)}&sort=oldest`);
  t.is(exported.status, 200, exported.text);
  t.is(exported.headers.get('content-disposition'), `attachment; filename="appeals_merchant-${merchantId.slice(0, 8)}_sort-oldest.csv"`);
  t.deepEqual(
    csvOf(exported.text).map((row) => row.appeal_id),
    made,
  );
  const unassigned = await asOperator('GET', `${ADMIN_APPEALS}/export?merchant_id=${merchantId}&assignee=me`);
  t.is(unassigned.status, 200, unassigned.text);
  t.deepEqual(csvOf(unassigned.text), [], 'the operator JWT has no appeal of its own: the header row only');
});

test('operator attachments: uploads of operators attached to the case (audited), the merchant’s own files refused, repeats kept once', async (t) => {
  const { keys, appealId } = await liveAppeal();
  const upload = await bearerUpload(await operatorToken(), filePart(SAMPLES.pdf, 'bank-statement.pdf'), `${ADMIN_BASE}/files`);
  t.is(upload.status, 201, upload.text);
  const fileId = upload.body.file.file_id;
  const attached = await asOperator('POST', `${ADMIN_APPEALS}/${appealId}/attachments`, { file_ids: [fileId], note: 'the bank statement' });
  t.is(attached.status, 201, attached.text);
  t.like(attached.body.data[0], {
    file_id: fileId,
    note: 'the bank statement',
    attached_by: 'operator_jwt:test-operator',
    attached_by_name: 'operator JWT (test-operator)',
  });
  const repeat = await asOperator('POST', `${ADMIN_APPEALS}/${appealId}/attachments`, { file_ids: [fileId] });
  t.is(repeat.body.data.length, 1);
  t.is((await auditOf(appealId, 'appeal.attach')).length, 1);
  const detail = (await asOperator('GET', `${ADMIN_APPEALS}/${appealId}`)).body.data;
  t.deepEqual(
    detail.attachments.map((x: Json) => x.file_id),
    [fileId],
  );

  const merchants = await signedUpload(keys, filePart(SAMPLES.pdf, 'receipt.pdf'));
  const foreign = await asOperator('POST', `${ADMIN_APPEALS}/${appealId}/attachments`, { file_ids: [merchants.body.file.file_id] });
  t.is(foreign.status, 400, foreign.text);
  // The merchant does not see the case's papers.
  const view = await signed(keys, 'GET', `/api/v1/p2p/merchant/appeals/${appealId}`);
  t.false(JSON.stringify(view.body).includes(fileId));
});
