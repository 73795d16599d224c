import test from 'ava';
import { randomUUID } from 'node:crypto';
import { asOperator, newMerchant, signed } from '../helpers/api';
import { deposit, merchantSettings, randomTronAddress } from '../helpers/wallet';
import { startReceiver } from '../helpers/receiver';
import { eventually } from '../helpers/poll';
import { testSql } from '../helpers/app';
import { v1, type V1Merchant, type V1Options } from './v1-client';

const sql = testSql();
test.after.always(() => sql.end());

const WITHDRAWAL_FIELDS = [
  'amount',
  'blockchain',
  'callbackUrl',
  'comment',
  'commissionAmount',
  'createdAt',
  'currency',
  'exchangeRate',
  'id',
  'isBalanceCommission',
  'lastModifiedAt',
  'requestId',
  'sentAmount',
  'sentAt',
  'status',
  'transactionHash',
  'userId',
  'wallet',
  'withdrawId',
];

const withdraw = (m: V1Merchant, body: Record<string, unknown>, options: V1Options = {}) =>
  v1(m, 'POST', '/v1/merchant/withdraw', body, [body.requestId, body.wallet ?? body.address, body.salt], options);
const getWithdrawal = (m: V1Merchant, id: string) => v1(m, 'GET', `/v1/merchant/withdraw/${id}`, undefined, [id]);
const listWithdrawals = (m: V1Merchant, body: Record<string, unknown> = {}) => v1(m, 'POST', '/v1/merchant/withdraw/list', body, []);

async function v1WalletMerchant(cents: number, extra: Record<string, unknown> = {}) {
  const m = await newMerchant({ api_version: 'v1', ...extra });
  const funded = await deposit(m.merchantId, cents);
  if (funded.status !== 201) throw new Error(funded.text);
  return m;
}

test('a V1 merchant withdraws: 19-field profile, sent (3) at once within the auto limit, idempotent by requestId, list and GET', async (t) => {
  const m = await v1WalletMerchant(20_000);
  const wallet = randomTronAddress();
  const body = {
    requestId: `wd-${randomUUID()}`,
    amount: '50.00',
    blockchain: 1,
    wallet,
    comment: 'payout to cold wallet',
    isBalanceCommission: false,
    salt: 'nacl',
    callbackUrl: 'https://shop.example/hook',
  };
  const res = await withdraw(m, body);
  t.is(res.status, 200, res.text);
  t.true(res.body.isSuccess);
  t.is(res.headers.get('deprecation'), 'true');
  const w = res.body.value;
  t.deepEqual(Object.keys(w).sort(), WITHDRAWAL_FIELDS);
  t.like(w, {
    withdrawId: w.id,
    userId: m.merchantId,
    status: 3,
    requestId: body.requestId,
    blockchain: 1,
    currency: 'USDT',
    amount: '50.00',
    wallet,
    comment: 'payout to cold wallet',
    isBalanceCommission: false,
    exchangeRate: '1',
    sentAmount: '49.00',
    commissionAmount: '1.00',
    callbackUrl: 'https://shop.example/hook',
  });
  t.regex(w.transactionHash, /^[0-9a-f]{64}$/);
  t.truthy(Date.parse(w.sentAt));

  // The same requestId with the same body answers the same withdrawal (in its current state); nothing more is held.
  const again = await withdraw(m, body);
  t.is(again.status, 200, again.text);
  t.like(again.body.value, { id: w.id, amount: '50.00', status: 3, transactionHash: w.transactionHash });
  const balance = await signed(m.keys, 'GET', '/api/v1/p2p/merchant/balance');
  t.like(balance.body.wallets[0], { available: '15000', frozen: '0' });
  // The V2 view of the same withdrawal.
  const v2 = await signed(m.keys, 'GET', `/api/v1/p2p/merchant/wallet/withdrawals/${w.id}`);
  t.like(v2.body, { withdrawal_id: w.id, amount: '5000', status: 'COMPLETED', idempotency_key: body.requestId });

  const read = (await getWithdrawal(m, w.id)).body.value;
  t.like(read, { id: w.id, status: 3, comment: '', callbackUrl: '', transactionHash: w.transactionHash });
  // The legacy alias `address`, signed as the wallet field.
  const viaAlias = await withdraw(m, { requestId: `wd-${randomUUID()}`, amount: '20', address: wallet });
  t.is(viaAlias.status, 200, viaAlias.text);
  t.is(viaAlias.body.value.wallet, wallet);

  const list = (await listWithdrawals(m)).body.value;
  t.is(list.count, 2);
  t.deepEqual(list.items, list.data);
  t.deepEqual(
    list.data.map((x: { id: string }) => x.id),
    [viaAlias.body.value.id, w.id],
  );
  t.is((await listWithdrawals(m, { status: 3, take: 1 })).body.value.next_page_token, '1');
  t.is((await listWithdrawals(m, { status: 4 })).body.value.count, 0);
  const unknown = await listWithdrawals(m, { status: 7 });
  t.is(unknown.status, 400);
  t.regex(unknown.body.failures[0].message, /unknown status code: 7/);

  const stranger = await newMerchant({ api_version: 'v1' });
  t.is((await getWithdrawal(stranger, w.id)).status, 404);
  t.is((await getWithdrawal(m, randomUUID())).status, 404);
  t.is((await listWithdrawals(stranger)).body.value.count, 0);
});

test('V1 withdraw input: TRON address validation, required wallet, exact USDT decimals, isBalanceCommission, wrong signature', async (t) => {
  const m = await v1WalletMerchant(20_000);
  const base = { requestId: `wd-${randomUUID()}`, amount: '10.00', wallet: randomTronAddress() };
  const refuse = async (body: Record<string, unknown>, message: RegExp) => {
    const res = await withdraw(m, body);
    t.is(res.status, 400, res.text);
    t.like(res.body, { isFailure: true, status: 400 });
    t.is(res.body.failures[0].code, 'INVALID_ARGUMENT');
    t.regex(JSON.stringify(res.body.failures), message);
  };
  await refuse({ ...base, wallet: 'TJRyWwFs9wTFGZg3JbrVriFbNfCug5tDeD' }, /checksum|address/i);
  await refuse({ ...base, wallet: '0x52908400098527886E0F7030069857D2E4169EE7' }, /address/i);
  await refuse({ ...base, wallet: undefined }, /wallet is required/);
  await refuse({ ...base, wallet: undefined, address: 'not-an-address' }, /address/i);
  await refuse({ ...base, amount: '10.001' }, /at most 2 fraction digits/);
  await refuse({ ...base, amount: 'ten' }, /decimal string/);
  await refuse({ ...base, isBalanceCommission: true }, /isBalanceCommission/);
  await refuse({ ...base, requestId: '' }, /requestId is required/);
  // Always four fields: an absent salt signs as the empty string ("t;requestId;wallet;"), not as a missing field.
  t.is((await v1(m, 'POST', '/v1/merchant/withdraw', base, [base.requestId, base.wallet])).status, 401, 'three fields');
  const absentSalt = await v1(m, 'POST', '/v1/merchant/withdraw', base, [base.requestId, base.wallet, undefined]);
  t.is(absentSalt.status, 200, absentSalt.text);
  const wrong = await v1(m, 'POST', '/v1/merchant/withdraw', { ...base, requestId: `wd-${randomUUID()}` }, [base.requestId, base.wallet, undefined]);
  t.is(wrong.status, 401, 'the payload names this requestId');
  t.is((await v1(m, 'POST', '/v1/merchant/withdraw', base, [base.requestId, base.wallet, undefined], { secret: 'whsec_x' })).status, 401);
  t.is(
    (await v1(m, 'POST', '/v1/merchant/withdraw', base, [base.requestId, base.wallet, undefined], { timestamp: Math.floor(Date.now() / 1000) - 400 })).status,
    401,
  );
});

test('manual queue: pending (1) → approved → sent (3); a cancelled one is 4 and reaches V1 webhooks with the legacy envelope', async (t) => {
  const receiver = await startReceiver();
  t.teardown(() => receiver.close());
  const m = await v1WalletMerchant(20_000, { webhook_url: receiver.url });
  await merchantSettings(m.merchantId, { auto_withdrawal_mode: 'MANUAL_ONLY' });
  const first = (await withdraw(m, { requestId: `wd-${randomUUID()}`, amount: '30.00', wallet: randomTronAddress() })).body.value;
  t.is(first.status, 1);
  t.is(first.sentAt, null);
  const second = (await withdraw(m, { requestId: `wd-${randomUUID()}`, amount: '40.00', wallet: randomTronAddress() })).body.value;
  t.is((await asOperator('POST', `/api/v1/p2p/admin/withdrawals/${first.id}/approve`)).status, 200);
  await eventually(async () => (await getWithdrawal(m, first.id)).body.value.status === 3, 'sent');
  t.is((await asOperator('POST', `/api/v1/p2p/admin/withdrawals/${second.id}/cancel`, { reason: 'suspicious' })).status, 200);
  t.is((await getWithdrawal(m, second.id)).body.value.status, 4);
  t.deepEqual(
    (await listWithdrawals(m, { status: 4 })).body.value.data.map((x: { id: string }) => x.id),
    [second.id],
  );
  const failed = await eventually(
    async () => receiver.received.map((r) => JSON.parse(r.body)).find((b) => b.eventType === 'p2p.finance.withdrawal_failed'),
    'withdrawal_failed webhook',
  );
  t.like(failed, { paymentType: 'withdraw', id: second.id, status: 4, amount: '40.00', currency: 'USDT', userId: m.merchantId });
  t.truthy(receiver.received[0]!.headers.signature);
});

/** The ledger postings of the merchant's withdrawals, by kind. */
async function withdrawalPostings(merchantId: string) {
  const rows = await sql<{ kind: string; count: number }[]>`
    select t.kind, count(*)::int as count from ledger_transactions t
    join withdrawals w on t.ref_type = 'withdrawal' and t.ref_id = w.id::text
    where w.merchant_id = ${merchantId} group by t.kind`;
  return Object.fromEntries(rows.map((r) => [r.kind, r.count]));
}

test('V1 withdraw is keyed by requestId: a new requestId with the same wallet and amount is a new withdrawal (two holds, two debits)', async (t) => {
  const m = await v1WalletMerchant(20_000);
  const wallet = randomTronAddress();
  const first = await withdraw(m, { requestId: `wd-${randomUUID()}`, amount: '50.00', wallet });
  t.is(first.status, 200, first.text);
  t.is(first.body.value.status, 3);
  const second = await withdraw(m, { requestId: `wd-${randomUUID()}`, amount: '50.00', wallet });
  t.is(second.status, 200, second.text);
  t.not(second.body.value.id, first.body.value.id, 'a new requestId is a new withdrawal');
  t.is(second.body.value.status, 3);
  t.not(second.body.value.transactionHash, first.body.value.transactionHash);
  t.deepEqual(await withdrawalPostings(m.merchantId), { withdrawal_hold: 2, withdrawal_complete: 2 });
  const balance = await signed(m.keys, 'GET', '/api/v1/p2p/merchant/balance');
  t.like(balance.body.wallets[0], { available: '10000', frozen: '0' });
  t.is((await listWithdrawals(m)).body.value.count, 2);
});

test('V1 withdraw: the same requestId with another amount or wallet is 409 in the V1 envelope; nothing more is held', async (t) => {
  const m = await v1WalletMerchant(20_000);
  await merchantSettings(m.merchantId, { auto_withdrawal_mode: 'MANUAL_ONLY' });
  const body = { requestId: `wd-${randomUUID()}`, amount: '30.00', wallet: randomTronAddress(), salt: 's' };
  const created = await withdraw(m, body);
  t.is(created.status, 200, created.text);
  t.is(created.body.value.status, 1);
  for (const other of [{ amount: '30.01' }, { wallet: randomTronAddress() }, { wallet: undefined, address: randomTronAddress() }]) {
    const res = await withdraw(m, { ...body, ...other });
    t.is(res.status, 409, res.text);
    t.like(res.body, { isSuccess: false, isFailure: true, value: null, status: 409, instance: '/v1/merchant/withdraw' });
    t.is(res.body.failures[0].code, 'ABORTED');
    t.regex(res.body.failures[0].message, /requestId/);
    t.is(res.headers.get('deprecation'), 'true');
  }
  // The same body (alias spelling included) still answers it, in its current state.
  t.is((await asOperator('POST', `/api/v1/p2p/admin/withdrawals/${created.body.value.id}/cancel`, { reason: 'test' })).status, 200);
  const again = await withdraw(m, { requestId: body.requestId, amount: '30', address: body.wallet, salt: 's' });
  t.is(again.status, 200, again.text);
  t.like(again.body.value, { id: created.body.value.id, status: 4 });
  t.deepEqual(await withdrawalPostings(m.merchantId), { withdrawal_hold: 1, withdrawal_release: 1 });
  t.is((await listWithdrawals(m)).body.value.count, 1);
});

test('V1 withdraw: concurrent first requests with one requestId make exactly one withdrawal; other bodies get 409', async (t) => {
  const m = await v1WalletMerchant(20_000);
  const requestId = `wd-${randomUUID()}`;
  const wallet = randomTronAddress();
  const amounts = ['10.00', '20.00', '10.00', '30.00', '20.00', '10.00'];
  // Each its own timestamp (so its own signature): concurrent, and never mistaken for a replay.
  const now = Math.floor(Date.now() / 1000);
  const answers = await Promise.all(amounts.map((amount, i) => withdraw(m, { requestId, amount, wallet }, { timestamp: now - i })));
  const rows = await sql<{ id: string; amount: bigint }[]>`select id, amount from withdrawals where merchant_id = ${m.merchantId}`;
  t.is(rows.length, 1, 'exactly one withdrawal');
  const winner = `${rows[0]!.amount / 100n}.00`;
  answers.forEach((res, i) => {
    if (amounts[i] === winner) {
      t.is(res.status, 200, res.text);
      t.like(res.body.value, { id: rows[0]!.id, amount: winner, requestId });
    } else {
      t.is(res.status, 409, res.text);
      t.is(res.body.failures[0].code, 'ABORTED');
    }
  });
  t.deepEqual(await withdrawalPostings(m.merchantId), { withdrawal_hold: 1, withdrawal_complete: 1 });
});
