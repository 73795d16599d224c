/**
 * Bulk actions are the single action once per object: a bulk approve by one operator records
 * only that operator's approval of each four-eyes withdrawal (thirty at once: one approval each,
 * nothing released), a second operator's releases each exactly once; bulk cancel and bulk
 * resolve answer per object and audit each.
 */
import test from 'ava';
import { randomBytes, randomUUID } from 'node:crypto';
import { hashPassword } from '../../domain/crypto/passwords';
import { asOperator, type Json } from '../helpers/api';
import { testSql } from '../helpers/app';
import { asSession, signIn, type Session } from '../helpers/operator-session';
import { eventually } from '../helpers/poll';
import { ADMIN, randomTronAddress, walletMerchant, withdraw } from '../helpers/wallet';

const sql = testSql();
test.after.always(() => sql.end());

const status = async (id: string) => (await sql<{ status: string }[]>`select status from withdrawals where id = ${id}`)[0]!.status;
const approvalsOf = async (id: string) =>
  (await sql<{ approver: string }[]>`select approver from withdrawal_approvals where withdrawal_id = ${id} order by approver`).map((a) => a.approver);
const transfers = async (id: string) =>
  (await sql<{ n: number }[]>`select count(*)::int as n from simulated_chain_transfers where withdrawal_id = ${id}`)[0]!.n;
const audits = async (id: string, action: string) =>
  (await sql<{ n: number }[]>`select count(*)::int as n from audit_log where object_id = ${id} and action = ${action}`)[0]!.n;

/** Finance accounts written with a cheap scrypt cost (the stored string carries its parameters), signed in through the API. */
async function financeAccounts(n: number) {
  const password = `pw-${randomBytes(12).toString('base64url')}`;
  const hash = await hashPassword(password, { logN: 10, r: 8, p: 1 });
  const made = Array.from({ length: n }, () => ({ id: randomUUID(), email: `bulk-${randomUUID()}@example.test` }));
  await sql`insert into accounts ${sql(made.map((m) => ({ id: m.id, party: 'operator', email: m.email, password_hash: hash, role: 'finance', created_by: 'test' })))}`;
  return Promise.all(made.map(async (m) => ({ id: m.id, session: await signIn(m.email, password) })));
}

async function queued(keys: Parameters<typeof withdraw>[0], amount: number) {
  const w = await withdraw(keys, { address: randomTronAddress(), amount });
  if (w.body.status !== 'PENDING_MANUAL') throw new Error(`expected PENDING_MANUAL: ${w.text}`);
  return w.body.withdrawal_id as string;
}

const bulkApprove = (s: Session, ids: string[]) => asSession(s, 'POST', `${ADMIN}/withdrawals/bulk-approve`, { withdrawal_ids: ids });

test('bulk approve keeps four-eyes per withdrawal: thirty parallel bulk approvals by one operator record its approval once each and release nothing; a second operator’s release each exactly once', async (t) => {
  // Three above the four-eyes amount (default 10,000 USDT) and one below it.
  const { keys } = await walletMerchant(10_000_000, { auto_withdrawal_mode: 'MANUAL_ONLY' });
  const big = [await queued(keys, 1_500_000), await queued(keys, 1_600_000), await queued(keys, 1_700_000)];
  const small = await queued(keys, 50_000);
  const ids = [...big, small];
  const [alice, bob] = await financeAccounts(2);

  const first = await Promise.all(Array.from({ length: 30 }, () => bulkApprove(alice!.session, ids)));
  for (const res of first) {
    t.is(res.status, 200, res.text);
    t.deepEqual(
      res.body.results.map((r: Json) => r.id),
      ids,
      'one result per id, in order',
    );
  }
  for (const id of big) {
    const answers = first.map((res) => res.body.results.find((r: Json) => r.id === id));
    t.is(answers.filter((r) => r.status === 202 && r.outcome === 'approval_recorded').length, 1, `${id}: one approval recorded`);
    // The others are refused: 409 (this account approved already) or, while the workflow is busy with the
    // parallel updates, 429 — the single action's own answer under contention, nothing recorded.
    const refused = answers.filter((r) => r.outcome === 'refused');
    t.is(refused.length, 29, `${id}: the same account again is refused`);
    t.deepEqual(
      refused.filter((r) => r.status !== 409 && r.status !== 429),
      [],
      `${id}: refused as 409 or 429 only`,
    );
    t.true(
      refused.some((r) => r.status === 409),
      `${id}: the same account again is 409`,
    );
    t.is(await status(id), 'PENDING_MANUAL', 'one operator released nothing');
    t.deepEqual(await approvalsOf(id), [`operator_account:${alice!.id}`]);
    t.is(await audits(id, 'withdrawal.approve'), 1, 'one audited action per object');
  }
  // The small one needs one approval: released by exactly one of the thirty.
  const smallAnswers = first.map((res) => res.body.results.find((r: Json) => r.id === small));
  t.is(smallAnswers.filter((r) => r.status === 200 && r.outcome === 'released').length, 1);
  t.true(smallAnswers.every((r) => r.status === 200 || (r.status === 400 && r.outcome === 'refused')));
  await eventually(async () => (await transfers(small)) === 1, 'the small withdrawal sent once');

  // Fifteen bulk approvals by each operator at once: Bob's release each big one exactly once.
  const second = await Promise.all(Array.from({ length: 30 }, (_, i) => bulkApprove((i % 2 ? alice : bob)!.session, big)));
  for (const id of big) {
    const answers = second.map((res) => res.body.results.find((r: Json) => r.id === id));
    t.is(answers.filter((r) => r.status === 200 && r.outcome === 'released').length, 1, `${id}: released once`);
    t.deepEqual(await approvalsOf(id), [`operator_account:${alice!.id}`, `operator_account:${bob!.id}`].sort());
    await eventually(async () => ['APPROVED', 'COMPLETED'].includes(await status(id)), `${id} released`);
    await eventually(async () => (await transfers(id)) === 1, `${id} sent once`);
  }
  t.is(await transfers(small), 1);

  // The operator JWT is no console account: 403 for each four-eyes withdrawal in a bulk too.
  const another = await queued(keys, 1_500_000);
  const byJwt = await asOperator('POST', `${ADMIN}/withdrawals/bulk-approve`, { withdrawal_ids: [another] });
  t.like(byJwt.body.results[0], { id: another, status: 403, outcome: 'refused' });
  t.deepEqual(await approvalsOf(another), []);
});

test('bulk cancel: each withdrawal cancelled by the cancel action (audited), an approved one refused in its result; unknown ids 404 in theirs', async (t) => {
  const { keys } = await walletMerchant(1_000_000, { auto_withdrawal_mode: 'MANUAL_ONLY' });
  const a = await queued(keys, 10_000);
  const b = await queued(keys, 20_000);
  const unknown = randomUUID();
  const res = await asOperator('POST', `${ADMIN}/withdrawals/bulk-cancel`, { withdrawal_ids: [a, b, a, unknown], reason: 'duplicate requests' });
  t.is(res.status, 200, res.text);
  t.deepEqual(
    res.body.results.map((r: Json) => [r.id, r.status, r.outcome]),
    [
      [a, 200, 'cancelled'],
      [b, 200, 'cancelled'],
      [unknown, 404, 'refused'],
    ],
  );
  t.is(await status(a), 'CANCELLED');
  t.is(await audits(a, 'withdrawal.cancel'), 1);
  const again = await asOperator('POST', `${ADMIN}/withdrawals/bulk-cancel`, { withdrawal_ids: [a] });
  t.like(again.body.results[0], { status: 400, outcome: 'refused' });
  const empty = await asOperator('POST', `${ADMIN}/withdrawals/bulk-cancel`, { withdrawal_ids: [] });
  t.is(empty.status, 400);
});

test('bulk resolve of alerts: each resolved with its own audit row; one resolved already is answered as it is', async (t) => {
  const ids = [randomUUID(), randomUUID()];
  for (const id of ids) {
    await sql`insert into operator_alerts (id, kind, subject, message) values (${id}, 'test_bulk', ${`subject-${id}`}, 'a test alert')`;
  }
  const res = await asOperator('POST', `${ADMIN}/alerts/bulk-resolve`, { alert_ids: [...ids, randomUUID()] });
  t.is(res.status, 200, res.text);
  t.deepEqual(
    res.body.results.map((r: Json) => [r.status, r.outcome]),
    [
      [200, 'resolved'],
      [200, 'resolved'],
      [404, 'refused'],
    ],
  );
  for (const id of ids) t.is(await audits(id, 'alert.resolve'), 1);
  const again = await asOperator('POST', `${ADMIN}/alerts/bulk-resolve`, { alert_ids: ids });
  t.deepEqual(
    again.body.results.map((r: Json) => r.outcome),
    ['resolved', 'resolved'],
  );
  for (const id of ids) t.is(await audits(id, 'alert.resolve'), 1, 'nothing written twice');
  // Each raised alert was new work for the desk.
  t.is((await sql`select id from desk_events where object_id = any(${ids}::uuid[]) and kind = 'alert.raised'`).length, 2);
});
