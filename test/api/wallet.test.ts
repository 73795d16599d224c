import test, { type ExecutionContext } from 'ava';
import { loadConfig } from '../../config';
import { randomUUID } from 'node:crypto';
import { auditLedger } from '../../db/queries/ledger';
import { isTronAddress } from '../../domain/tron/address';
import { createTemporalClient } from '../../temporal/client';
import { asOperator, cabinetToken, newMerchant, problemDetail, signed, withBearer, type ApiResponse, type Json } from '../helpers/api';
import { testSql } from '../helpers/app';
import { walletOf } from '../helpers/deals';
import { eventually } from '../helpers/poll';
import { startReceiver } from '../helpers/receiver';
import { ADMIN, deposit, merchantSettings, randomTronAddress, txHashOf, WALLET, walletMerchant, withdraw, withdrawalAction } from '../helpers/wallet';

const sql = testSql();
// The arithmetic audit holds at any moment; the business invariants are checked after the whole suite.
test.after.always(async () => {
  const report = await auditLedger(sql);
  await sql.end();
  if (report.walletMismatches.length || report.unbalancedTransactions.length) throw new Error(`ledger audit failed: ${JSON.stringify(report)}`);
});

const WITHDRAWAL_KEYS = [
  'address',
  'amount',
  'approved_at',
  'cancel_reason',
  'cancelled_at',
  'completed_at',
  'created_at',
  'currency',
  'fee_usdt_cents',
  'idempotency_key',
  'net_usdt_cents',
  'processing',
  'status',
  'tx_hash',
  'updated_at',
  'withdrawal_id',
];

function expectProblem(t: ExecutionContext, res: ApiResponse, status: number, title: string, message?: RegExp) {
  t.is(res.status, status, res.text);
  t.is(res.headers.get('content-type'), 'application/problem+json');
  t.is(res.body.title, title, res.text);
  if (message) t.regex(problemDetail(res.body).message, message);
}

const withdrawalRow = async (id: string) => (await sql`select * from withdrawals where id = ${id}`)[0]!;
const transfersOf = (id: string) => sql<{ tx_hash: string; amount: bigint; send_calls: number; to_address: string }[]>`
  select * from simulated_chain_transfers where withdrawal_id = ${id}`;
const withdrawalEvents = (merchantId: string) =>
  sql<
    { event_type: string; payload: Json }[]
  >`select event_type, payload from outbox_events where merchant_id = ${merchantId} and deal_id is null order by created_at`;

test('deposit address: 404 until generated; POST generates and rotates; the profile shows trc20_address; old addresses stay attributed', async (t) => {
  const { merchantId, keys } = await newMerchant();
  expectProblem(t, await signed(keys, 'GET', `${WALLET}/deposit-address`), 404, 'NOT_FOUND', /deposit address not generated/);
  const first = await signed(keys, 'POST', `${WALLET}/deposit-address`);
  t.is(first.status, 201, first.text);
  t.deepEqual(Object.keys(first.body).sort(), ['address', 'updated_at']);
  t.true(isTronAddress(first.body.address));
  t.regex(first.body.address, /^T[1-9A-HJ-NP-Za-km-z]{33}$/);
  const got = await signed(keys, 'GET', `${WALLET}/deposit-address`);
  t.deepEqual(got.body, first.body);
  const profile = await signed(keys, 'GET', '/api/v1/p2p/my-merchant');
  t.is(profile.body.merchant.trc20_address, first.body.address);

  const rotated = await signed(keys, 'POST', `${WALLET}/deposit-address`);
  t.is(rotated.status, 201);
  t.not(rotated.body.address, first.body.address);
  t.true(isTronAddress(rotated.body.address));
  t.is((await signed(keys, 'GET', `${WALLET}/deposit-address`)).body.address, rotated.body.address);
  t.is((await signed(keys, 'GET', '/api/v1/p2p/my-merchant')).body.merchant.trc20_address, rotated.body.address);
  const owned = await sql`select address from deposit_addresses where merchant_id = ${merchantId} order by derivation_index`;
  t.deepEqual(
    owned.map((r) => r.address),
    [first.body.address, rotated.body.address],
  );

  // Concurrent rotations: each gets its own index; the current address is the newest one.
  const burst = await Promise.all(Array.from({ length: 5 }, () => signed(keys, 'POST', `${WALLET}/deposit-address`)));
  t.true(burst.every((r) => r.status === 201));
  t.is(new Set(burst.map((r) => r.body.address)).size, 5);
  const [newest] = await sql`select address from deposit_addresses where merchant_id = ${merchantId} order by derivation_index desc limit 1`;
  t.is((await signed(keys, 'GET', '/api/v1/p2p/my-merchant')).body.merchant.trc20_address, newest!.address);
  const other = await newMerchant();
  expectProblem(t, await signed(other.keys, 'GET', `${WALLET}/deposit-address`), 404, 'NOT_FOUND');
});

test('deposits: admin deposit idempotent by tx_hash (409 on mismatch), credited once, listed newest first with keyset pages', async (t) => {
  const { merchantId, keys } = await newMerchant();
  const hashes = [txHashOf(), txHashOf(), txHashOf()];
  const first = await deposit(merchantId, 1_000, hashes[0]);
  t.is(first.status, 201, first.text);
  const repeat = await deposit(merchantId, 1_000, hashes[0]);
  t.is(repeat.status, 200);
  t.is(repeat.body.deposit.deposit_id, first.body.deposit.deposit_id);
  t.is((await deposit(merchantId, 999, hashes[0])).status, 409);
  const stranger = await newMerchant();
  t.is((await deposit(stranger.merchantId, 1_000, hashes[0])).status, 409);
  await deposit(merchantId, 2_000, hashes[1]);
  await deposit(merchantId, 3_000, hashes[2]);
  t.is((await walletOf(sql, 'merchant', merchantId)).available, 6_000n);

  const all = await signed(keys, 'GET', `${WALLET}/deposits`);
  t.is(all.status, 200, all.text);
  t.deepEqual(Object.keys(all.body).sort(), ['data', 'next_page_token']);
  t.is(all.body.next_page_token, '');
  t.deepEqual(
    all.body.data.map((d: { tx_hash: string }) => d.tx_hash),
    [...hashes].reverse(),
  );
  const item = all.body.data[2];
  t.deepEqual(Object.keys(item).sort(), ['address', 'amount', 'confirmations', 'confirmed_at', 'created_at', 'currency', 'deposit_id', 'status', 'tx_hash']);
  t.like(item, { amount: '1000', currency: 'USDT', status: 'CONFIRMED', tx_hash: hashes[0], deposit_id: first.body.deposit.deposit_id });
  t.truthy(Date.parse(item.confirmed_at));

  const page1 = await signed(keys, 'GET', `${WALLET}/deposits?page_size=2`);
  t.is(page1.body.data.length, 2);
  t.truthy(page1.body.next_page_token);
  const page2 = await signed(keys, 'GET', `${WALLET}/deposits?page_size=2&page_token=${encodeURIComponent(page1.body.next_page_token)}`);
  t.deepEqual(
    page2.body.data.map((d: { tx_hash: string }) => d.tx_hash),
    [hashes[0]],
  );
  t.is(page2.body.next_page_token, '');
  expectProblem(t, await signed(keys, 'GET', `${WALLET}/deposits?page_token=forged`), 400, 'INVALID_ARGUMENT', /invalid page_token/);
  const foreign = await signed(stranger.keys, 'GET', `${WALLET}/deposits?page_token=${encodeURIComponent(page1.body.next_page_token)}`);
  t.is(foreign.status, 400, 'a token is bound to its merchant');
  t.deepEqual((await signed(stranger.keys, 'GET', `${WALLET}/deposits`)).body, { data: [], next_page_token: '' });
});

test('fee quote: flat fee plus bps, bad amounts 400, an amount not above the fee 400 FAILED_PRECONDITION', async (t) => {
  const { keys } = await newMerchant();
  const quote = await signed(keys, 'GET', `${WALLET}/withdraw-fee?amount=10000`);
  t.is(quote.status, 200, quote.text);
  t.deepEqual(quote.body, { amount: '10000', fee_usdt_cents: '100', net_usdt_cents: '9900' });
  t.deepEqual((await signed(keys, 'GET', `${WALLET}/withdraw-fee?amount=101`)).body, { amount: '101', fee_usdt_cents: '100', net_usdt_cents: '1' });
  for (const bad of ['', '?amount=', '?amount=1.5', '?amount=-5', '?amount=0', '?amount=abc', '?amount=1e3', '?amount=99999999999999999999']) {
    expectProblem(t, await signed(keys, 'GET', `${WALLET}/withdraw-fee${bad}`), 400, 'INVALID_ARGUMENT');
  }
  expectProblem(t, await signed(keys, 'GET', `${WALLET}/withdraw-fee?amount=100`), 400, 'FAILED_PRECONDITION', /does not cover the withdrawal fee of 100/);
});

test('auto withdrawal within the limit: COMPLETED with tx_hash at once; hold debited, net to the chain, fee to the platform; one transfer', async (t) => {
  const { merchantId, keys } = await walletMerchant(10_000);
  const address = randomTronAddress();
  const res = await withdraw(keys, { address, amount: 5_000, idempotency_key: 'order-77' });
  t.is(res.status, 200, res.text);
  t.deepEqual(Object.keys(res.body).sort(), WITHDRAWAL_KEYS);
  t.like(res.body, {
    status: 'COMPLETED',
    amount: '5000',
    fee_usdt_cents: '100',
    net_usdt_cents: '4900',
    address,
    currency: 'USDT',
    processing: 'AUTO',
    idempotency_key: 'order-77',
  });
  t.regex(res.body.tx_hash, /^[0-9a-f]{64}$/);
  t.truthy(Date.parse(res.body.completed_at));
  const wallet = await walletOf(sql, 'merchant', merchantId);
  t.deepEqual([wallet.available, wallet.frozen], [5_000n, 0n]);
  const transfers = await transfersOf(res.body.withdrawal_id);
  t.is(transfers.length, 1);
  t.like(transfers[0], { tx_hash: res.body.tx_hash, amount: 4_900n, to_address: address, send_calls: 1 });
  const postings =
    await sql`select idempotency_key from ledger_transactions where ref_type = 'withdrawal' and ref_id = ${res.body.withdrawal_id} order by created_at`;
  t.deepEqual(
    postings.map((p) => p.idempotency_key),
    [`withdrawal:${res.body.withdrawal_id}:hold`, `withdrawal:${res.body.withdrawal_id}:complete`],
  );
  const balance = await signed(keys, 'GET', '/api/v1/p2p/merchant/balance');
  t.like(balance.body.wallets[0], { available: '5000', frozen: '0', total: '5000' });

  // The workflow withdrawal:<id> is findable by MerchantId in Temporal.
  const client = await createTemporalClient(loadConfig(process.env));
  t.teardown(() => client.connection.close());
  const described = await client.workflow.getHandle(`withdrawal:${res.body.withdrawal_id}`).describe();
  t.is(described.type, 'withdrawalWorkflow');
  const found = await eventually(async () => {
    for await (const w of client.workflow.list({ query: `MerchantId = "${merchantId}"` }))
      if (w.workflowId === `withdrawal:${res.body.withdrawal_id}`) return w;
    return undefined;
  }, 'visibility by MerchantId');
  t.is(found.type, 'withdrawalWorkflow');

  const history = await signed(keys, 'GET', `${WALLET}/withdrawals`);
  t.is(history.status, 200);
  t.deepEqual(
    history.body.data,
    [res.body].map((w) => ({ ...w, updated_at: history.body.data[0].updated_at })),
  );
  const one = await signed(keys, 'GET', `${WALLET}/withdrawals/${res.body.withdrawal_id}`);
  t.is(one.body.tx_hash, res.body.tx_hash);
  const stranger = await newMerchant();
  t.is((await signed(stranger.keys, 'GET', `${WALLET}/withdrawals/${res.body.withdrawal_id}`)).status, 404);
  t.is((await signed(keys, 'GET', `${WALLET}/withdrawals/${randomUUID()}`)).status, 404);
});

test('above the limit → PENDING_MANUAL with the hold frozen; in the operator queue; approve → COMPLETED; approve again and cancel are 400', async (t) => {
  const { merchantId, keys } = await walletMerchant(20_000, { auto_withdrawal_limit_usdt_cents: 1_000 });
  const profile = await signed(keys, 'GET', '/api/v1/p2p/my-merchant');
  t.is(profile.body.auto_withdrawal_effective_limit_usdt_cents, '1000');
  t.like(await withdraw(keys, { address: randomTronAddress(), amount: 1_000 }), { status: 200, body: { status: 'COMPLETED', processing: 'AUTO' } });
  const res = await withdraw(keys, { address: randomTronAddress(), amount: 1_001 });
  t.is(res.status, 200, res.text);
  t.like(res.body, { status: 'PENDING_MANUAL', processing: 'MANUAL', tx_hash: '', completed_at: '' });
  const id = res.body.withdrawal_id;
  t.deepEqual(await walletOf(sql, 'merchant', merchantId).then((w) => [w.available, w.frozen]), [20_000n - 1_000n - 1_001n, 1_001n]);
  t.is((await transfersOf(id)).length, 0);

  const queue = await asOperator('GET', `${ADMIN}/withdrawals?status=PENDING_MANUAL&merchant_id=${merchantId}`);
  t.is(queue.status, 200, queue.text);
  t.deepEqual(
    queue.body.data.map((w: { withdrawal_id: string }) => w.withdrawal_id),
    [id],
  );
  t.like(queue.body.data[0], { merchant_id: merchantId, status: 'PENDING_MANUAL', broadcast_attempts: 0 });
  t.is((await signed(keys, 'GET', `${ADMIN}/withdrawals`)).status, 403, 'HMAC on an operator route');

  const approved = await withdrawalAction(id, 'approve');
  t.is(approved.status, 200, approved.text);
  t.like(approved.body, { withdrawal_id: id, status: 'COMPLETED', approved_by: 'test-operator', broadcast_attempts: 1 });
  t.regex(approved.body.tx_hash, /^[0-9a-f]{64}$/);
  t.truthy(Date.parse(approved.body.approved_at));
  expectProblem(t, await withdrawalAction(id, 'approve'), 400, 'FAILED_PRECONDITION', /withdrawal is COMPLETED/);
  expectProblem(t, await withdrawalAction(id, 'cancel'), 400, 'FAILED_PRECONDITION', /withdrawal is COMPLETED/);
  expectProblem(t, await withdrawalAction(randomUUID(), 'approve'), 404, 'NOT_FOUND');
  expectProblem(t, await withdrawalAction(randomUUID(), 'cancel'), 404, 'NOT_FOUND');
  t.deepEqual(await walletOf(sql, 'merchant', merchantId).then((w) => [w.available, w.frozen]), [17_999n, 0n]);
  t.is((await transfersOf(id)).length, 1);
  const done = await asOperator('GET', `${ADMIN}/withdrawals?status=PENDING_MANUAL&merchant_id=${merchantId}`);
  t.deepEqual(done.body.data, []);
});

test('MANUAL_ONLY and limit 0 send everything to the queue; cancel returns the hold and emits p2p.finance.withdrawal_failed', async (t) => {
  const receiver = await startReceiver();
  t.teardown(() => receiver.close());
  const { merchantId, keys } = await walletMerchant(10_000, { auto_withdrawal_mode: 'MANUAL_ONLY' }, { webhook_url: receiver.url });
  const profile = await signed(keys, 'GET', '/api/v1/p2p/my-merchant');
  t.like(profile.body, { auto_withdrawal_mode: 'MANUAL_ONLY', auto_withdrawal_effective_limit_usdt_cents: '0' });
  const small = await withdraw(keys, { address: randomTronAddress(), amount: 200 });
  t.is(small.body.status, 'PENDING_MANUAL');

  const cancelled = await withdrawalAction(small.body.withdrawal_id, 'cancel', { reason: 'address on a sanctions list' });
  t.is(cancelled.status, 200, cancelled.text);
  t.like(cancelled.body, { status: 'CANCELLED', cancel_reason: 'address on a sanctions list', cancelled_by: 'test-operator' });
  expectProblem(t, await withdrawalAction(small.body.withdrawal_id, 'approve'), 400, 'FAILED_PRECONDITION', /CANCELLED/);
  t.deepEqual(await walletOf(sql, 'merchant', merchantId).then((w) => [w.available, w.frozen]), [10_000n, 0n]);
  const events = await withdrawalEvents(merchantId);
  t.deepEqual(
    events.map((e) => e.event_type),
    ['p2p.finance.withdrawal_failed'],
  );
  t.like(events[0]!.payload.withdrawal, { withdrawal_id: small.body.withdrawal_id, status: 'CANCELLED', amount: '200' });
  const delivered = await eventually(async () => receiver.received.find((r) => JSON.parse(r.body).type === 'p2p.finance.withdrawal_failed'), 'webhook');
  const body = JSON.parse(delivered.body);
  t.deepEqual(Object.keys(body).sort(), ['created_at', 'event_id', 'type', 'withdrawal']);
  t.like(body.withdrawal, { withdrawal_id: small.body.withdrawal_id, status: 'CANCELLED', fee_usdt_cents: '100', net_usdt_cents: '100' });

  // AUTO_UP_TO_LIMIT with limit 0: everything manual too. The merchant cannot change its mode.
  const settings = await merchantSettings(merchantId, { auto_withdrawal_mode: 'AUTO_UP_TO_LIMIT', auto_withdrawal_limit_usdt_cents: 0 });
  t.like(settings, { auto_withdrawal_mode: 'AUTO_UP_TO_LIMIT', auto_withdrawal_limit_usdt_cents: '0', auto_withdrawal_effective_limit_usdt_cents: '0' });
  t.is((await withdraw(keys, { address: randomTronAddress(), amount: 150 })).body.status, 'PENDING_MANUAL');
  t.is((await signed(keys, 'PATCH', '/api/v1/p2p/my-merchant', { auto_withdrawal_mode: 'AUTO_UP_TO_LIMIT' })).status, 403);
  expectProblem(t, await asOperator('PATCH', `${ADMIN}/merchants/${merchantId}`, { auto_withdrawal_mode: 'SOMETIMES' }), 400, 'INVALID_ARGUMENT');
  expectProblem(t, await asOperator('PATCH', `${ADMIN}/merchants/${merchantId}`, { auto_withdrawal_limit_usdt_cents: -1 }), 400, 'INVALID_ARGUMENT');
  expectProblem(t, await asOperator('PATCH', `${ADMIN}/merchants/${merchantId}`, { balance: 5 }), 400, 'INVALID_ARGUMENT');
  expectProblem(t, await asOperator('PATCH', `${ADMIN}/merchants/${randomUUID()}`, { payin_fee_bps: 5 }), 404, 'NOT_FOUND');
});

test('double approve race: exactly one wins; approve against cancel: exactly one wins', async (t) => {
  const { merchantId, keys } = await walletMerchant(10_000, { auto_withdrawal_mode: 'MANUAL_ONLY' });
  const a = await withdraw(keys, { address: randomTronAddress(), amount: 1_000 });
  const approvals = await Promise.all([withdrawalAction(a.body.withdrawal_id, 'approve'), withdrawalAction(a.body.withdrawal_id, 'approve')]);
  t.deepEqual(approvals.map((r) => r.status).sort(), [200, 400], approvals.map((r) => r.text).join(' | '));
  t.is(approvals.find((r) => r.status === 400)!.body.title, 'FAILED_PRECONDITION');
  t.is((await transfersOf(a.body.withdrawal_id)).length, 1);
  await eventually(async () => (await withdrawalRow(a.body.withdrawal_id)).status === 'COMPLETED', 'completion');

  const b = await withdraw(keys, { address: randomTronAddress(), amount: 2_000 });
  const race = await Promise.all([withdrawalAction(b.body.withdrawal_id, 'approve'), withdrawalAction(b.body.withdrawal_id, 'cancel')]);
  t.deepEqual(race.map((r) => r.status).sort(), [200, 400], race.map((r) => r.text).join(' | '));
  const final = await eventually(async () => {
    const row = await withdrawalRow(b.body.withdrawal_id);
    return (row.status === 'COMPLETED' || row.status === 'CANCELLED') && row;
  }, 'a final state');
  t.is((await transfersOf(b.body.withdrawal_id)).length, final.status === 'COMPLETED' ? 1 : 0);
  const wallet = await walletOf(sql, 'merchant', merchantId);
  t.is(wallet.frozen, 0n);
  t.is(wallet.available, 10_000n - 1_000n - (final.status === 'COMPLETED' ? 2_000n : 0n));
});

test('concurrent identical withdrawals make one withdrawal and one transfer; a later identical one within the window too', async (t) => {
  const { merchantId, keys } = await walletMerchant(10_000);
  const address = randomTronAddress();
  const burst = await Promise.all(Array.from({ length: 8 }, () => withdraw(keys, { address, amount: 3_000 })));
  t.true(
    burst.every((r) => r.status === 200),
    burst.map((r) => r.text).join(' | '),
  );
  t.is(new Set(burst.map((r) => r.body.withdrawal_id)).size, 1);
  const id = burst[0]!.body.withdrawal_id;
  await eventually(async () => (await withdrawalRow(id)).status === 'COMPLETED', 'completion');
  t.is((await sql`select count(*)::int as n from withdrawals where merchant_id = ${merchantId}`)[0]!.n, 1);
  t.deepEqual(
    (await transfersOf(id)).map((x) => x.send_calls),
    [1],
  );
  t.deepEqual(await walletOf(sql, 'merchant', merchantId).then((w) => [w.available, w.frozen]), [7_000n, 0n]);
  const repeat = await withdraw(keys, { address, amount: 3_000, idempotency_key: 'another-key' });
  t.is(repeat.body.withdrawal_id, id, 'the server-side key ignores idempotency_key');
  t.is(repeat.body.status, 'COMPLETED');
  t.not((await withdraw(keys, { address, amount: 3_001 })).body.withdrawal_id, id, 'another amount is another withdrawal');

  // Manual queue: concurrent identical requests while it is pending still give one withdrawal and one hold.
  await merchantSettings(merchantId, { auto_withdrawal_mode: 'MANUAL_ONLY' });
  const queued = await Promise.all(Array.from({ length: 6 }, () => withdraw(keys, { address, amount: 1_000 })));
  t.is(new Set(queued.map((r) => r.body.withdrawal_id)).size, 1);
  t.is(queued[0]!.body.status, 'PENDING_MANUAL');
  t.is((await walletOf(sql, 'merchant', merchantId)).frozen, 1_000n);
  // A cancelled withdrawal releases its key: the same request then makes a new one.
  await withdrawalAction(queued[0]!.body.withdrawal_id, 'cancel');
  const again = await withdraw(keys, { address, amount: 1_000 });
  t.not(again.body.withdrawal_id, queued[0]!.body.withdrawal_id);
  t.is(again.body.status, 'PENDING_MANUAL');
  t.is((await withdrawalRow(again.body.withdrawal_id)).dedup_generation, 1);
  await withdrawalAction(again.body.withdrawal_id, 'cancel');
});

test('insufficient balance and invalid addresses are refused with nothing moved', async (t) => {
  const { merchantId, keys } = await walletMerchant(5_000);
  expectProblem(
    t,
    await withdraw(keys, { address: randomTronAddress(), amount: 5_001 }),
    400,
    'FAILED_PRECONDITION',
    /^insufficient balance: the withdrawal needs 5001 USDT cents, available 5000$/,
  );
  expectProblem(t, await withdraw(keys, { address: randomTronAddress(), amount: 100 }), 400, 'FAILED_PRECONDITION', /does not cover the withdrawal fee/);
  const good = randomTronAddress();
  const cases: [unknown, RegExp][] = [
    [good.slice(0, 33), /34 characters/],
    [`${good}1`, /34 characters/],
    [good.slice(0, 33) + (good[33] === '2' ? '3' : '2'), /checksum/],
    ['TJRyWwFs9wTFGZg3JbrVriFbNfCug5tDe0', /base58 alphabet/],
    ['TJRyWwFs9wTFGZg3JbrVriFbNfCug5tDeO', /base58 alphabet/],
    ['1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2', /not a TRON mainnet address/],
    ['0x9858EfFD232B4033E47d90003D41EC34EcaEda94', /base58 alphabet/],
    ['', /address is required/],
    [undefined, /address is required/],
    [42, /./],
  ];
  for (const [address, message] of cases) {
    const res = await withdraw(keys, { address, amount: 1_000 });
    expectProblem(t, res, 400, 'INVALID_ARGUMENT', message);
    t.is(res.body.errors?.[0]?.field, 'address', res.text);
  }
  for (const amount of [1.5, '1000', 0, -5, undefined]) expectProblem(t, await withdraw(keys, { address: good, amount }), 400, 'INVALID_ARGUMENT');
  t.deepEqual(await walletOf(sql, 'merchant', merchantId).then((w) => [w.available, w.frozen]), [5_000n, 0n]);
  t.is((await sql`select count(*)::int as n from withdrawals where merchant_id = ${merchantId}`)[0]!.n, 0);
  // The refused create leaves nothing behind: the same request succeeds once funded.
  await deposit(merchantId, 1);
  t.is((await withdraw(keys, { address: good, amount: 5_001 })).body.status, 'COMPLETED');
});

test("without an address the profile's withdrawal_address is used (when it is a valid TRON address)", async (t) => {
  const { merchantId, keys } = await walletMerchant(5_000);
  const setAddress = async (withdrawal_address: string) => {
    const res = await withBearer(await cabinetToken(merchantId), 'PATCH', '/api/v1/p2p/my-merchant', { withdrawal_address });
    t.is(res.status, 200, res.text);
  };
  expectProblem(t, await withdraw(keys, { amount: 1_000 }), 400, 'INVALID_ARGUMENT', /address is required/);
  await setAddress('not-a-tron-address');
  expectProblem(t, await withdraw(keys, { amount: 1_000 }), 400, 'INVALID_ARGUMENT', /withdrawal_address is not usable/);
  const address = randomTronAddress();
  await setAddress(address);
  const res = await withdraw(keys, { amount: 1_000 });
  t.is(res.status, 200, res.text);
  t.like(res.body, { address, status: 'COMPLETED' });
  t.is((await withdraw(keys, { amount: 1_000, address })).body.withdrawal_id, res.body.withdrawal_id, 'the same request spelled out');
});

test('withdrawal history: one row per withdrawal, newest first, status filter, keyset pages', async (t) => {
  const { keys } = await walletMerchant(50_000, { auto_withdrawal_limit_usdt_cents: 2_000 });
  const made: string[] = [];
  for (const amount of [1_000, 3_000, 1_500, 4_000]) made.push((await withdraw(keys, { address: randomTronAddress(), amount })).body.withdrawal_id);
  await withdrawalAction(made[1]!, 'cancel');
  const all = await signed(keys, 'GET', `${WALLET}/withdrawals`);
  t.deepEqual(
    all.body.data.map((w: { withdrawal_id: string }) => w.withdrawal_id),
    [...made].reverse(),
  );
  t.deepEqual(
    all.body.data.map((w: { status: string }) => w.status),
    ['PENDING_MANUAL', 'COMPLETED', 'CANCELLED', 'COMPLETED'],
  );
  for (const w of all.body.data) t.deepEqual(Object.keys(w).sort(), WITHDRAWAL_KEYS);
  const pending = await signed(keys, 'GET', `${WALLET}/withdrawals?status=PENDING_MANUAL`);
  t.deepEqual(
    pending.body.data.map((w: { withdrawal_id: string }) => w.withdrawal_id),
    [made[3]],
  );
  const two = await signed(keys, 'GET', `${WALLET}/withdrawals?status=COMPLETED,CANCELLED`);
  t.is(two.body.data.length, 3);
  t.deepEqual((await signed(keys, 'GET', `${WALLET}/withdrawals?status=NOPE`)).body, { data: [], next_page_token: '' });
  const p1 = await signed(keys, 'GET', `${WALLET}/withdrawals?page_size=3`);
  t.is(p1.body.data.length, 3);
  const p2 = await signed(keys, 'GET', `${WALLET}/withdrawals?page_size=3&page_token=${encodeURIComponent(p1.body.next_page_token)}`);
  t.deepEqual(
    p2.body.data.map((w: { withdrawal_id: string }) => w.withdrawal_id),
    [made[0]],
  );
  t.is(p2.body.next_page_token, '');
  expectProblem(t, await signed(keys, 'GET', `${WALLET}/withdrawals?page_token=x.y`), 400, 'INVALID_ARGUMENT', /invalid page_token/);
  await withdrawalAction(made[3]!, 'cancel');
});

test('the OpenAPI document describes the wallet routes', async (t) => {
  const doc = await fetch(`${process.env.TEST_API_URL}/openapi.json`).then((r) => r.json());
  for (const path of ['deposit-address', 'deposits', 'withdraw-fee', 'withdraw', 'withdrawals', 'withdrawals/{withdrawal_id}']) {
    t.truthy(doc.paths[`${WALLET}/${path}`], path);
  }
  for (const path of ['withdrawals', 'withdrawals/{withdrawal_id}/approve', 'withdrawals/{withdrawal_id}/cancel', 'merchants/{merchant_id}']) {
    t.truthy(doc.paths[`${ADMIN}/${path}`], path);
  }
  t.truthy(doc.components.schemas.Withdrawal);
});
