/**
 * Four-eyes that are really two people: a withdrawal above WITHDRAWAL_FOUR_EYES_ABOVE_USDT_CENTS
 * is released by two distinct enabled console accounts of an approving role, judged again in the
 * releasing step; the operator JWT (any number of subs) never approves it; an auto-withdrawal
 * limit above the four-eyes amount is refused, and a row that still holds one does not send such
 * a withdrawal out unapproved.
 */
import test, { type ExecutionContext } from 'ava';
import { randomBytes, randomUUID } from 'node:crypto';
import { signJwt } from '../../api/auth/jwt';
import { hashPassword } from '../../domain/crypto/passwords';
import { JWT_SECRET, problemDetail, signed, withBearer, type ApiResponse } from '../helpers/api';
import { testSql } from '../helpers/app';
import { asSession, signIn, type Session } from '../helpers/operator-session';
import { eventually } from '../helpers/poll';
import { ADMIN, randomTronAddress, walletMerchant, withdraw } from '../helpers/wallet';

const sql = testSql();
test.after.always(() => sql.end());

const asJwt = async (sub: string, method: string, path: string, body?: unknown) =>
  withBearer(await signJwt({ sub, role: 'admin' }, JWT_SECRET), method, path, body);
const approve = (s: Session, id: string) => asSession(s, 'POST', `${ADMIN}/withdrawals/${id}/approve`, {});
const status = async (id: string) => (await sql<{ status: string }[]>`select status from withdrawals where id = ${id}`)[0]!.status;
const approvalsOf = async (id: string) =>
  (await sql<{ approver: string }[]>`select approver from withdrawal_approvals where withdrawal_id = ${id} order by at`).map((a) => a.approver);
const transfers = async (id: string) =>
  (await sql<{ n: number }[]>`select count(*)::int as n from simulated_chain_transfers where withdrawal_id = ${id}`)[0]!.n;
const releases = async (id: string) =>
  (
    await sql<
      { n: number }[]
    >`select count(*)::int as n from audit_log where object_id = ${id} and action = 'withdrawal.approve' and after->>'status' = 'APPROVED'`
  )[0]!.n;

function forbidden(t: ExecutionContext, res: ApiResponse) {
  t.is(res.status, 403, res.text);
  t.regex(problemDetail(res.body).message, /two console accounts/);
}

/**
 * Console accounts of a role, signed in through the API. The accounts are written with a cheap
 * scrypt cost (the stored string carries its parameters), so thirty of them cost no minute.
 */
async function accounts(n: number, role: 'finance' | 'admin' | 'support' = 'finance') {
  const password = `pw-${randomBytes(12).toString('base64url')}`;
  const hash = await hashPassword(password, { logN: 10, r: 8, p: 1 });
  const made = Array.from({ length: n }, () => ({ id: randomUUID(), email: `four-eyes-${randomUUID()}@example.test` }));
  await sql`insert into accounts ${sql(made.map((m) => ({ id: m.id, party: 'operator', email: m.email, password_hash: hash, role, created_by: 'test' })))}`;
  return Promise.all(made.map(async (m) => ({ id: m.id, session: await signIn(m.email, password) })));
}

async function bigWithdrawal(keys: Parameters<typeof withdraw>[0], amount = 1_500_000) {
  const w = await withdraw(keys, { address: randomTronAddress(), amount });
  if (w.body.status !== 'PENDING_MANUAL') throw new Error(`expected PENDING_MANUAL: ${w.text}`);
  return w.body.withdrawal_id as string;
}

test('the operator JWT never approves a four-eyes withdrawal: one sub twice, two subs, or beside one account — 403, nothing recorded, not released', async (t) => {
  const { keys } = await walletMerchant(5_000_000, { auto_withdrawal_mode: 'MANUAL_ONLY' });
  const id = await bigWithdrawal(keys);
  forbidden(t, await asJwt('alice', 'POST', `${ADMIN}/withdrawals/${id}/approve`));
  forbidden(t, await asJwt('alice', 'POST', `${ADMIN}/withdrawals/${id}/approve`));
  forbidden(t, await asJwt('bob', 'POST', `${ADMIN}/withdrawals/${id}/approve`));
  t.is(await status(id), 'PENDING_MANUAL');
  t.deepEqual(await approvalsOf(id), []);

  // One console account and the JWT: still one person.
  const [a] = await accounts(1);
  const first = await approve(a!.session, id);
  t.is(first.status, 202, first.text);
  forbidden(t, await asJwt('carol', 'POST', `${ADMIN}/withdrawals/${id}/approve`));
  t.is(await status(id), 'PENDING_MANUAL');
  t.deepEqual(await approvalsOf(id), [`operator_account:${a!.id}`]);
  t.is(await transfers(id), 0);

  // At or below the amount the JWT approves alone, as the contract has it.
  const small = await withdraw(keys, { address: randomTronAddress(), amount: 900_000 });
  const one = await asJwt('alice', 'POST', `${ADMIN}/withdrawals/${small.body.withdrawal_id}/approve`);
  t.is(one.status, 200, one.text);
  t.like(one.body, { status: 'COMPLETED', approvals_required: 1 });
  // Leave nothing held for the ledger check.
  t.is((await asJwt('alice', 'POST', `${ADMIN}/withdrawals/${id}/cancel`)).status, 200);
});

test('an auto-withdrawal limit above the four-eyes amount is refused; a row that still holds one sends a 15,000 USDT withdrawal to the queue, not out', async (t) => {
  const { merchantId, keys } = await walletMerchant(5_000_000);
  const refused = await asJwt('alice', 'PATCH', `${ADMIN}/merchants/${merchantId}`, {
    auto_withdrawal_mode: 'AUTO_UP_TO_LIMIT',
    auto_withdrawal_limit_usdt_cents: 2_000_000,
  });
  t.is(refused.status, 400, refused.text);
  t.is(refused.body.title, 'INVALID_ARGUMENT');
  t.regex(problemDetail(refused.body).message, /four-eyes/);
  t.deepEqual(
    refused.body.errors.map((e: { field: string; code: string }) => [e.field, e.code]),
    [['auto_withdrawal_limit_usdt_cents', 'too_big']],
  );
  const [row] = await sql<{ limit: bigint }[]>`select auto_withdrawal_limit_usdt_cents as limit from merchants where id = ${merchantId}`;
  t.true(row!.limit <= 1_000_000n, 'nothing changed');
  t.is(
    (await asJwt('alice', 'PATCH', `${ADMIN}/merchants/${merchantId}`, { auto_withdrawal_limit_usdt_cents: 1_000_000 })).status,
    200,
    'the amount itself is allowed',
  );

  // A limit written before the rule (or the amount lowered since): the create step still asks for four-eyes.
  await sql`update merchants set auto_withdrawal_mode = 'AUTO_UP_TO_LIMIT', auto_withdrawal_limit_usdt_cents = 2000000 where id = ${merchantId}`;
  const big = await withdraw(keys, { address: randomTronAddress(), amount: 1_500_000 });
  t.is(big.body.status, 'PENDING_MANUAL', big.text);
  const id = big.body.withdrawal_id as string;
  t.is(await transfers(id), 0);
  const [a, b] = await accounts(2);
  t.is((await approve(a!.session, id)).status, 202);
  t.is(await status(id), 'PENDING_MANUAL');
  const second = await approve(b!.session, id);
  t.is(second.status, 200, second.text);
  await eventually(async () => (await status(id)) === 'COMPLETED', 'completion');
  t.is(await transfers(id), 1);
  // Within the limit and the four-eyes amount: auto, as the contract says.
  const auto = await withdraw(keys, { address: randomTronAddress(), amount: 900_000 });
  t.is(auto.body.status, 'COMPLETED', auto.text);
});

test('an approver disabled (or demoted) before the release no longer counts; the view says which approvals count', async (t) => {
  const { keys } = await walletMerchant(5_000_000, { auto_withdrawal_mode: 'MANUAL_ONLY' });
  const [a, b, c, d] = await accounts(4);
  const id = await bigWithdrawal(keys);
  t.is((await approve(a!.session, id)).status, 202);
  t.is((await asJwt('alice', 'PATCH', `${ADMIN}/operators/${a!.id}`, { disabled: true })).status, 200);
  const second = await approve(b!.session, id);
  t.is(second.status, 202, `the disabled first approver does not count: ${second.text}`);
  t.like(second.body, { status: 'PENDING_MANUAL', approvals_required: 2 });
  t.deepEqual(
    second.body.approvals.map((x: { approver: string; counts: boolean }) => [x.approver, x.counts]),
    [
      [`operator_account:${a!.id}`, false],
      [`operator_account:${b!.id}`, true],
    ],
  );
  t.is(await status(id), 'PENDING_MANUAL');
  t.is(await transfers(id), 0);
  const third = await approve(c!.session, id);
  t.is(third.status, 200, third.text);
  await eventually(async () => (await status(id)) === 'COMPLETED', 'completion');
  t.is(await releases(id), 1);

  // A role that may no longer approve counts no more either.
  const other = await bigWithdrawal(keys, 1_200_000);
  t.is((await approve(c!.session, other)).status, 202);
  t.is((await asJwt('alice', 'PATCH', `${ADMIN}/operators/${c!.id}`, { role: 'support' })).status, 200);
  t.is((await approve(d!.session, other)).status, 202);
  t.is(await status(other), 'PENDING_MANUAL');
  t.is((await approve(b!.session, other)).status, 200);
  await eventually(async () => (await status(other)) === 'COMPLETED', 'completion');
});

test('thirty approvals at once — fifteen console accounts, fifteen JWT subs — release the withdrawal exactly once, by two accounts', async (t) => {
  const { keys } = await walletMerchant(5_000_000, { auto_withdrawal_mode: 'MANUAL_ONLY' });
  const team = await accounts(15);
  const id = await bigWithdrawal(keys);
  const answers = await Promise.all([
    ...team.map((a) => approve(a.session, id)),
    ...Array.from({ length: 15 }, (_, i) => asJwt(`sub-${i}`, 'POST', `${ADMIN}/withdrawals/${id}/approve`)),
  ]);
  const accountAnswers = answers.slice(0, 15).map((r) => r.status);
  const jwtAnswers = answers.slice(15).map((r) => r.status);
  t.deepEqual(
    jwtAnswers,
    Array(15).fill(403),
    answers
      .slice(15)
      .map((r) => r.text)
      .join(' | '),
  );
  // Served one at a time: one records (202), one releases (200), the rest come after the release
  // (400). On a starved worker a workflow task may be retried and the first approval's update then
  // comes after the release it took part in (400 too): the answers vary, the facts below do not.
  const shown = answers
    .slice(0, 15)
    .map((r) => `${r.status} ${r.text}`)
    .join(' | ');
  t.true(
    accountAnswers.every((s) => [200, 202, 400].includes(s)),
    shown,
  );
  t.true(accountAnswers.filter((s) => s === 202).length <= 1, shown);
  t.true(accountAnswers.filter((s) => s === 200).length >= 1, shown);
  await eventually(async () => (await status(id)) === 'COMPLETED', 'completion');
  t.is(await transfers(id), 1);
  t.is(await releases(id), 1);
  const approvers = await approvalsOf(id);
  t.is(approvers.length, 2);
  t.true(
    approvers.every((a) => a.startsWith('operator_account:')),
    approvers.join(', '),
  );
  t.is(new Set(approvers).size, 2);
  // The merchant saw one move: PENDING_MANUAL, then the broadcast.
  t.is((await signed(keys, 'GET', `/api/v1/p2p/merchant/wallet/withdrawals/${id}`)).body.status, 'COMPLETED');
});
