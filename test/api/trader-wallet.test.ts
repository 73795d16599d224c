/**
 * The trader's money on the real stack: the security deposit an operator asks is held (frozen)
 * from the trader's available, topped up from its next deposit, released and held again by an
 * operator; a trader whose security deposit is not held in full or whose available is below its
 * minimum working balance gets no deal, and gets them again once it is back; every move is in
 * the ledger, backed (ledger:check's rules) and the trader's frozen equals escrow + security
 * deposit + live withdrawals. Through the trader's own door: its wallet and deposit address, a
 * deposit to it credited by the chain watcher (the fake TRON node), each deal's money, and
 * withdrawals of its available USDT that operators approve (two above the four-eyes amount);
 * another trader's withdrawal is 404.
 */
import test from 'ava';
import { randomBytes, randomUUID } from 'node:crypto';
import { Client } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { loadConfig } from '../../config';
import { signJwt } from '../../api/auth/jwt';
import { hashPassword } from '../../domain/crypto/passwords';
import { parsePrivateKey } from '../../domain/tron/transaction';
import { tronAddressFromPrivateKey } from '../../domain/tron/address';
import { temporalConnectionOptions } from '../../temporal/connection';
import { temporalDataConverter } from '../../temporal/payload-codec';
import { chainWatchStatusQuery, chainWatchWorkflowId } from '../../workflows/contracts/chain-watch';
import { auditInvariants, auditLedger, postLedger, type LedgerPosting } from '../../db/queries/ledger';
import { unbackedLiveMoney } from '../../db/queries/ledger-backing';
import { asOperator, JWT_SECRET, newMerchant, signed, withBearer, type Json } from '../helpers/api';
import { testSql } from '../helpers/app';
import { createPayin, dealRow, isolatedMethod, isolatedTrader, operatorDeal, PAYIN, payinBody, walletOf } from '../helpers/deals';
import { ADMIN, randomTronAddress, startWalletStack, walletMerchant, withdraw } from '../helpers/wallet';
import { asSession, signIn } from '../helpers/operator-session';
import { asTrader, newTrader, TRADER } from '../helpers/trader-session';
import { startFakeTronGrid } from '../helpers/fake-trongrid';
import { eventually } from '../helpers/poll';
import { txHashOf } from '../helpers/tx-hash';

const sql = testSql();
test.after.always(() => sql.end());

const walletPath = (traderId: string) => `${ADMIN}/traders/${traderId}/wallet`;
const operatorWallet = async (traderId: string) => {
  const res = await asOperator('GET', walletPath(traderId));
  if (res.status !== 200) throw new Error(`${res.status} ${res.text}`);
  return res.body.wallet as Json;
};
const topUp = (traderId: string, amount: number) =>
  asOperator('POST', `${ADMIN}/traders/${traderId}/deposits`, { amount, tx_hash: txHashOf(`top-up-${randomUUID()}`) });

/** The trader's wallet passes the ledger check's rules: figures = entries, frozen = its holds, every move backed. */
async function ledgerClean(traderId: string) {
  const wallet = (await sql<{ id: string }[]>`select id from wallets where owner_type = 'trader' and owner_id = ${traderId}`)[0]!.id;
  const audit = await auditLedger(sql);
  const violations = (await auditInvariants(sql)).filter((v) => v.wallet_id === wallet);
  const unbacked = (await unbackedLiveMoney(sql)).filter((u) => u.wallet_id === wallet);
  return { mismatches: audit.walletMismatches.filter((m) => m.wallet_id === wallet), violations, unbacked };
}

/** A PayIn on the trader's own payment method: 200 when the trader takes it, else the refusal. */
const payinOn = async (keys: Awaited<ReturnType<typeof newMerchant>>['keys'], method: string) =>
  signed(keys, 'POST', PAYIN, payinBody({ amount: 92_500, payment_method_id: method }));

test('the security deposit is held from available, topped up from the next deposit, released and held again; the pool follows it', async (t) => {
  const { traderId, method } = await isolatedTrader({ liquidity: 1_000_000 });
  const { keys } = await newMerchant();
  const fresh = await operatorWallet(traderId);
  t.like(fresh, { available: '1000000', frozen: '0', in_pool: true, out_of_pool_reasons: [], min_working_balance: '0' });
  t.deepEqual(fresh.security_deposit, { required: '0', held: '0', released_at: '' });

  // Asked more than it has: all of available is held, and the trader is out of the pool.
  const set = await asOperator('PATCH', walletPath(traderId), { security_deposit: 1_500_000 });
  t.is(set.status, 200, set.text);
  t.like(set.body.wallet, { available: '0', frozen: '1000000', in_pool: false, out_of_pool_reasons: ['SECURITY_DEPOSIT_NOT_HELD'] });
  t.like(set.body.wallet.security_deposit, { required: '1500000', held: '1000000' });
  const refused = await payinOn(keys, method);
  t.is(refused.status, 400, refused.text);
  t.is(refused.body.title, 'FAILED_PRECONDITION');

  // The next deposit covers the rest: held in full, the remainder available, back in the pool.
  t.is((await topUp(traderId, 700_000)).status, 201);
  const covered = await operatorWallet(traderId);
  t.like(covered, { available: '200000', frozen: '1500000', in_pool: true, out_of_pool_reasons: [] });
  t.is(covered.security_deposit.held, '1500000');
  const taken = await payinOn(keys, method);
  t.is(taken.status, 200, taken.text);
  const withEscrow = await operatorWallet(traderId);
  t.like(withEscrow, { available: '199000', frozen: '1501000', escrow: '1000' });

  // Lowering it releases the difference; the operator's release returns the rest and takes it out of the pool.
  const lowered = await asOperator('PATCH', walletPath(traderId), { security_deposit: 1_000_000 });
  t.like(lowered.body.wallet, { available: '699000', frozen: '1001000' });
  const released = await asOperator('POST', `${ADMIN}/traders/${traderId}/security-deposit/release`, {});
  t.is(released.status, 200, released.text);
  t.like(released.body.wallet, { available: '1699000', frozen: '1000', in_pool: false, out_of_pool_reasons: ['SECURITY_DEPOSIT_NOT_HELD'] });
  t.truthy(Date.parse(released.body.wallet.security_deposit.released_at));
  t.is((await payinOn(keys, method)).status, 400, 'a released trader gets no deal');
  // A deposit does not hold a released security deposit again: only the operator does.
  t.is((await topUp(traderId, 1_000)).status, 201);
  t.is((await operatorWallet(traderId)).security_deposit.held, '0');
  const held = await asOperator('POST', `${ADMIN}/traders/${traderId}/security-deposit/hold`, {});
  t.is(held.status, 200, held.text);
  t.like(held.body.wallet, { available: '700000', frozen: '1001000', in_pool: true });
  t.is(held.body.wallet.security_deposit.released_at, '');
  t.is((await payinOn(keys, method)).status, 200);

  // Each move is one keyed posting inside the trader's wallet, audited.
  const moves = await sql<{ kind: string }[]>`
    select kind from ledger_transactions where ref_type = 'trader' and ref_id = ${traderId} order by created_at`;
  t.deepEqual(
    moves.map((m) => m.kind),
    ['security_hold', 'security_hold', 'security_release', 'security_release', 'security_hold'],
  );
  const actions = await sql<{ action: string }[]>`
    select action from audit_log where object_id = ${traderId} and action in ('trader.money_settings', 'trader.security_release', 'trader.security_hold')
    order by chain_seq`;
  t.deepEqual(
    actions.map((a) => a.action),
    ['trader.money_settings', 'trader.money_settings', 'trader.security_release', 'trader.security_hold'],
  );
  t.deepEqual(await ledgerClean(traderId), { mismatches: [], violations: [], unbacked: [] });
});

test('below its minimum working balance a trader leaves the pool, and comes back when it is lowered or covered', async (t) => {
  const { traderId, method } = await isolatedTrader({ liquidity: 50_000 });
  const { keys } = await newMerchant();
  const set = await asOperator('PATCH', walletPath(traderId), { min_working_balance: 60_000 });
  t.is(set.status, 200, set.text);
  t.like(set.body.wallet, { min_working_balance: '60000', in_pool: false, out_of_pool_reasons: ['BELOW_MIN_WORKING_BALANCE'] });
  t.is((await payinOn(keys, method)).status, 400);
  t.is((await topUp(traderId, 10_000)).status, 201);
  t.like(await operatorWallet(traderId), { available: '60000', in_pool: true });
  t.is((await payinOn(keys, method)).status, 200);
  // The escrow took it below the minimum again: out.
  t.like(await operatorWallet(traderId), { available: '59000', in_pool: false, out_of_pool_reasons: ['BELOW_MIN_WORKING_BALANCE'] });
  t.is((await payinOn(keys, method)).status, 400);
  t.like((await asOperator('PATCH', walletPath(traderId), { min_working_balance: 0 })).body.wallet, { in_pool: true });
  t.is((await payinOn(keys, method)).status, 200);
  t.deepEqual(await ledgerClean(traderId), { mismatches: [], violations: [], unbacked: [] });
});

test('the settings are checked at the edge and an unknown trader is 404', async (t) => {
  const { traderId } = await isolatedTrader({ liquidity: 0 });
  for (const body of [{}, { security_deposit: -1 }, { min_working_balance: 1.5 }, { security_deposit: 10, extra: 1 }, { security_deposit: '10' }]) {
    const res = await asOperator('PATCH', walletPath(traderId), body);
    t.is(res.status, 400, `${JSON.stringify(body)}: ${res.text}`);
  }
  t.is((await asOperator('GET', walletPath(randomUUID()))).status, 404);
  t.is((await asOperator('PATCH', walletPath(randomUUID()), { security_deposit: 1 })).status, 404);
  t.is((await asOperator('POST', `${ADMIN}/traders/${randomUUID()}/security-deposit/release`, {})).status, 404);
  t.like(await walletOf(sql, 'trader', traderId), { available: 0n, frozen: 0n });
});

/** Console accounts of the finance role, signed in (cheap scrypt cost: the stored hash carries it). */
async function financeAccounts(n: number) {
  const password = `pw-${randomBytes(12).toString('base64url')}`;
  const hash = await hashPassword(password, { logN: 10, r: 8, p: 1 });
  const made = Array.from({ length: n }, () => ({ id: randomUUID(), email: `trader-money-${randomUUID()}@example.test` }));
  await sql`insert into accounts ${sql(made.map((m) => ({ id: m.id, party: 'operator', email: m.email, password_hash: hash, role: 'finance', created_by: 'test' })))}`;
  return Promise.all(made.map(async (m) => ({ id: m.id, session: await signIn(m.email, password) })));
}
const withdrawalStatus = async (id: string) => (await sql<{ status: string }[]>`select status from withdrawals where id = ${id}`)[0]!.status;

test('a trader withdraws its available USDT through the operators: one approval, four-eyes above the amount, cancel; the security deposit is not available', async (t) => {
  const trader = await newTrader({ liquidity: 5_000_000 });
  const as = (method: string, path: string, body?: unknown) => asTrader(trader.session, method, `${TRADER}${path}`, body);
  t.is((await asOperator('PATCH', walletPath(trader.traderId), { security_deposit: 1_000_000 })).status, 200);
  const wallet = await as('GET', '/wallet');
  t.is(wallet.status, 200, wallet.text);
  t.like(wallet.body.wallet, { trader_id: trader.traderId, available: '4000000', frozen: '1000000', in_pool: true });

  const tooMuch = await as('POST', '/withdrawals', { address: randomTronAddress(), amount: 4_500_000 });
  t.is(tooMuch.status, 400, tooMuch.text);
  t.is(tooMuch.body.title, 'FAILED_PRECONDITION');
  t.is((await as('POST', '/withdrawals', { address: 'not-an-address', amount: 100_000 })).status, 400);

  // At or below the four-eyes amount: PENDING_MANUAL, one operator releases it.
  const address = randomTronAddress();
  const small = await as('POST', '/withdrawals', { address, amount: 900_000 });
  t.is(small.status, 200, small.text);
  t.like(small.body, { status: 'PENDING_MANUAL', processing: 'MANUAL', amount: '900000', address });
  const again = await as('POST', '/withdrawals', { address, amount: 900_000 });
  t.is(again.body.withdrawal_id, small.body.withdrawal_id, 'an identical request answers the same withdrawal');
  t.is(again.headers.get('idempotent-replayed'), 'true');
  t.like((await as('GET', '/wallet')).body.wallet, { available: '3100000', withdrawals_held: '900000', frozen: '1900000' });
  const queue = await asOperator('GET', `${ADMIN}/withdrawals?withdrawal_id=${small.body.withdrawal_id}`);
  t.like(queue.body.data[0], {
    owner_type: 'trader',
    owner_id: trader.traderId,
    trader_id: trader.traderId,
    merchant_id: '',
    approvals_required: 1,
  });
  t.truthy(queue.body.data[0].owner_name);
  const approved = await asOperator('POST', `${ADMIN}/withdrawals/${small.body.withdrawal_id}/approve`);
  t.is(approved.status, 200, approved.text);
  t.is(approved.body.status, 'COMPLETED');

  // Above it: two console accounts; the operator JWT cannot.
  const big = await as('POST', '/withdrawals', { address: randomTronAddress(), amount: 1_500_000 });
  t.is(big.body.status, 'PENDING_MANUAL', big.text);
  const bigId = big.body.withdrawal_id as string;
  t.is((await withBearer(await signJwt({ sub: 'alice', role: 'admin' }, JWT_SECRET), 'POST', `${ADMIN}/withdrawals/${bigId}/approve`)).status, 403);
  const [a, b] = await financeAccounts(2);
  const first = await asSession(a!.session, 'POST', `${ADMIN}/withdrawals/${bigId}/approve`, {});
  t.is(first.status, 202, first.text);
  t.is(await withdrawalStatus(bigId), 'PENDING_MANUAL');
  t.is((await asSession(a!.session, 'POST', `${ADMIN}/withdrawals/${bigId}/approve`, {})).status, 409, 'the same account twice');
  const second = await asSession(b!.session, 'POST', `${ADMIN}/withdrawals/${bigId}/approve`, {});
  t.is(second.status, 200, second.text);
  t.is(second.body.status, 'COMPLETED');

  // A cancelled one returns its hold.
  const third = await as('POST', '/withdrawals', { address: randomTronAddress(), amount: 200_000 });
  t.is((await asOperator('POST', `${ADMIN}/withdrawals/${third.body.withdrawal_id}/cancel`, { reason: 'wrong address' })).status, 200);
  t.like((await as('GET', '/wallet')).body.wallet, { available: '1600000', frozen: '1000000', withdrawals_held: '0' });
  const mine = await as('GET', '/withdrawals');
  t.deepEqual(
    mine.body.data.map((w: Json) => w.status),
    ['CANCELLED', 'COMPLETED', 'COMPLETED'],
  );
  t.is((await as('GET', `/withdrawals/${bigId}`)).body.status, 'COMPLETED');
  const kinds = (await as('GET', '/wallet/movements')).body.data.map((m: Json) => m.kind);
  t.deepEqual(kinds.slice(0, 2), ['withdrawal_release', 'withdrawal_hold']);
  t.true(kinds.includes('withdrawal_complete') && kinds.includes('security_hold') && kinds.includes('trader_deposit'));
  t.deepEqual(await ledgerClean(trader.traderId), { mismatches: [], violations: [], unbacked: [] });
});

test("a trader sees only its own money: another trader's or a merchant's withdrawal is 404; other doors are refused", async (t) => {
  const [one, two] = await Promise.all([newTrader({ liquidity: 1_000_000 }), newTrader({ liquidity: 1_000_000 })]);
  const w = await asTrader(one.session, 'POST', `${TRADER}/withdrawals`, { address: randomTronAddress(), amount: 100_000 });
  t.is(w.status, 200, w.text);
  t.is((await asTrader(two.session, 'GET', `${TRADER}/withdrawals/${w.body.withdrawal_id}`)).status, 404);
  t.deepEqual((await asTrader(two.session, 'GET', `${TRADER}/withdrawals`)).body.data, []);
  const { keys } = await walletMerchant(500_000, { auto_withdrawal_mode: 'MANUAL_ONLY' });
  const merchants = await withdraw(keys, { address: randomTronAddress(), amount: 200_000 });
  t.is((await asTrader(one.session, 'GET', `${TRADER}/withdrawals/${merchants.body.withdrawal_id}`)).status, 404);
  t.is((await asTrader(one.session, 'GET', `${TRADER}/withdrawals/${randomUUID()}`)).status, 404);
  t.is((await signed(keys, 'GET', `/api/v1/p2p/merchant/wallet/withdrawals/${w.body.withdrawal_id}`)).status, 404, 'nor the merchant a trader’s');
  t.is((await asOperator('GET', `${TRADER}/wallet`)).status, 403);
  t.is((await asTrader(one.session, 'POST', `${TRADER}/withdrawals`, { address: randomTronAddress(), amount: 100_000 }, { csrf: null })).status, 403);
  const addressOne = (await asTrader(one.session, 'GET', `${TRADER}/wallet/deposit-address`)).body;
  const addressTwo = (await asTrader(two.session, 'GET', `${TRADER}/wallet/deposit-address`)).body;
  t.not(addressOne.address, addressTwo.address);
  t.is((await asTrader(one.session, 'GET', `${TRADER}/wallet/deposit-address`)).body.address, addressOne.address, 'one address for good');
  for (const x of [merchants.body.withdrawal_id, w.body.withdrawal_id]) t.is((await asOperator('POST', `${ADMIN}/withdrawals/${x}/cancel`, {})).status, 200);
});

test('each deal shows what it did to the trader’s USDT (no reward in the fee model): a completed PayIn takes its escrow', async (t) => {
  const trader = await newTrader({ liquidity: 1_000_000 });
  const method = await isolatedMethod();
  const requisite = await asOperator('POST', `${ADMIN}/traders/${trader.traderId}/requisites`, {
    payment_method: method,
    requisite_type: 'BANK_CARD',
    card_number: '2200999988881111',
    holder_name: 'App Holder',
    bank_name: 'app-bank',
    min_amount: 100,
    max_amount: 100_000_000,
  });
  t.is(requisite.status, 201, requisite.text);
  const { keys } = await newMerchant();
  const deal = await createPayin(keys, { amount: 92_500, payment_method_id: method });
  t.is((await operatorDeal(deal.deal_id, 'confirm')).status, 200);
  await eventually(async () => (await dealRow(sql, deal.deal_id)).status === 'COMPLETED', 'the PayIn COMPLETED');
  const earnings = await asTrader(trader.session, 'GET', `${TRADER}/wallet/earnings`);
  t.is(earnings.status, 200, earnings.text);
  t.is(earnings.body.data.length, 1);
  t.like(earnings.body.data[0], {
    deal_id: deal.deal_id,
    deal_type: 'PAYIN',
    status: 'COMPLETED',
    amount: '92500',
    currency: 'RUB',
    fiat_change: '92500',
    usdt_change: '-1000',
    usdt_frozen: '0',
    reward_usdt: '0',
  });
  const moves = (await asTrader(trader.session, 'GET', `${TRADER}/wallet/movements`)).body.data.filter((m: Json) => m.ref_id === deal.deal_id);
  t.deepEqual(
    moves.map((m: Json) => [m.kind, m.available_change, m.frozen_change, m.deal_type]),
    [
      ['payin_complete', '0', '-1000', 'PAYIN'],
      ['escrow_lock', '-1000', '1000', 'PAYIN'],
    ],
  );
});

test.serial('a deposit to the trader’s address is credited by the chain watcher once it is final, and holds a short security deposit first', async (t) => {
  const HOT_KEY_HEX = '4f3edf983ac636a65a842ce7c78d9aa706d3b113bce9c46f30d7d21715b23b1d';
  const fake = await startFakeTronGrid({ confirmations: 2 });
  fake.chain.fund(tronAddressFromPrivateKey(parsePrivateKey(HOT_KEY_HEX)), { trxSun: 100_000_000n, usdtUnits: 1_000_000_000n });
  const stack = await startWalletStack({
    CHAIN_ADAPTER: 'trongrid',
    TRON_API_URL: fake.url,
    TRON_HOT_WALLET_KEY: HOT_KEY_HEX,
    TRON_CONFIRMATIONS: 2,
    TRON_POLL_INTERVAL_MS: 150,
    TRON_RECEIPT_POLL_MS: 150,
    TRON_REQUEST_TIMEOUT_MS: 3_000,
    TRON_BALANCE_REFRESH_SECONDS: 0,
  });
  const config = { ...loadConfig(process.env), TEMPORAL_TASK_QUEUE: stack.taskQueue };
  const connection = await NativeConnection.connect(temporalConnectionOptions(config));
  const client = new Client({ connection, namespace: config.TEMPORAL_NAMESPACE, dataConverter: temporalDataConverter(config) });
  t.teardown(async () => {
    await stack.close().catch(() => undefined);
    await client.workflow
      .getHandle(chainWatchWorkflowId(config))
      .terminate()
      .catch(() => undefined);
    await connection.close();
    await fake.close();
  });

  const trader = await newTrader({ liquidity: 0 });
  t.is((await asOperator('PATCH', walletPath(trader.traderId), { security_deposit: 500_000 })).status, 200);
  const address = await asTrader(trader.session, 'GET', `${TRADER}/wallet/deposit-address`);
  t.is(address.status, 200, address.text);
  t.like(address.body, { currency: 'USDT', network: 'TRC20' });
  const txHash = fake.chain.transferIn({ to: address.body.address, units: 12_345_678_900n }); // 12 345.6789 USDT
  fake.chain.mine(1);
  const pending = await eventually(async () => {
    const list = await asTrader(trader.session, 'GET', `${TRADER}/wallet/deposits`);
    return list.body.data.find((d: Json) => d.tx_hash === txHash && d.status === 'PENDING');
  }, 'the deposit PENDING');
  t.like(pending, { amount: '1234567', address: address.body.address });
  t.like(await walletOf(sql, 'trader', trader.traderId), { available: 0n, frozen: 0n }, 'nothing credited while PENDING');
  fake.chain.mine(3);
  await eventually(async () => {
    const list = await asTrader(trader.session, 'GET', `${TRADER}/wallet/deposits`);
    return list.body.data.find((d: Json) => d.tx_hash === txHash && d.status === 'CONFIRMED');
  }, 'the deposit CONFIRMED');
  const wallet = (await asTrader(trader.session, 'GET', `${TRADER}/wallet`)).body.wallet;
  t.like(wallet, { available: '734567', frozen: '500000', in_pool: true });
  t.is(wallet.security_deposit.held, '500000');
  // Credited once: one deposit posting, however many passes read it again.
  const watch = client.workflow.getHandle(chainWatchWorkflowId(config));
  const after = (await watch.query(chainWatchStatusQuery)).passes;
  fake.chain.mine(2);
  await eventually(async () => (await watch.query(chainWatchStatusQuery)).passes >= after + 3, 'three more passes');
  const [credits] = await sql<{ n: number }[]>`
    select count(*)::int as n from ledger_transactions where kind = 'deposit' and ref_id in (select id::text from deposits where trader_id = ${trader.traderId})`;
  t.is(credits!.n, 1);
  t.like(await walletOf(sql, 'trader', trader.traderId), { available: 734_567n, frozen: 500_000n });
  t.deepEqual(await ledgerClean(trader.traderId), { mismatches: [], violations: [], unbacked: [] });
});

test('concurrent first requests give a trader one deposit address; concurrent withdrawals take no more than available', async (t) => {
  const trader = await newTrader({ liquidity: 1_000_000 });
  const addresses = await Promise.all(Array.from({ length: 10 }, () => asTrader(trader.session, 'GET', `${TRADER}/wallet/deposit-address`)));
  t.deepEqual([...new Set(addresses.map((a) => `${a.status} ${a.body.address}`))].length, 1, addresses.map((a) => a.text).join('\n'));
  const [rows] = await sql<{ n: number }[]>`select count(*)::int as n from deposit_addresses where trader_id = ${trader.traderId}`;
  t.is(rows!.n, 1);

  const tries = await Promise.all(
    Array.from({ length: 10 }, () => asTrader(trader.session, 'POST', `${TRADER}/withdrawals`, { address: randomTronAddress(), amount: 300_000 })),
  );
  const made = tries.filter((r) => r.status === 200);
  t.is(made.length, 3, tries.map((r) => `${r.status} ${r.body.title ?? r.body.status}`).join(', '));
  t.true(tries.filter((r) => r.status !== 200).every((r) => r.status === 400 && r.body.title === 'FAILED_PRECONDITION'));
  t.like(await walletOf(sql, 'trader', trader.traderId), { available: 100_000n, frozen: 900_000n });
  for (const w of made) t.is((await asOperator('POST', `${ADMIN}/withdrawals/${w.body.withdrawal_id}/cancel`, {})).status, 200);
  t.deepEqual(await ledgerClean(trader.traderId), { mismatches: [], violations: [], unbacked: [] });
});

test('the ledger check finds trader money with no record behind it: a chain credit no deposit of the trader explains, a security move or a withdrawal of another', async (t) => {
  const [trader, other] = await Promise.all([isolatedTrader({ liquidity: 100_000 }), isolatedTrader({ liquidity: 100_000 })]);
  const walletOfTrader = async (id: string) => (await sql<{ id: string }[]>`select id from wallets where owner_type = 'trader' and owner_id = ${id}`)[0]!.id;
  const wallet = await walletOfTrader(trader.traderId);
  const chain = (await sql<{ id: string }[]>`select id from wallets where system_code = 'chain' and owner_id is null and currency = 'USDT'`)[0]!.id;
  const { keys } = await walletMerchant(500_000, { auto_withdrawal_mode: 'MANUAL_ONLY' });
  const merchants = await withdraw(keys, { address: randomTronAddress(), amount: 200_000 });
  const cases: [string, LedgerPosting][] = [
    [
      'a chain credit as a deposit with no deposit row of the trader',
      {
        key: `deposit:${randomUUID()}`,
        kind: 'deposit',
        refType: 'deposit',
        refId: randomUUID(),
        entries: [
          { walletId: chain, bucket: 'available', amount: -5n },
          { walletId: wallet, bucket: 'available', amount: 5n },
        ],
      },
    ],
    [
      "a security hold under another trader's name",
      {
        key: `trader:${other.traderId}:security:99`,
        kind: 'security_hold',
        refType: 'trader',
        refId: other.traderId,
        entries: [
          { walletId: wallet, bucket: 'available', amount: -5n },
          { walletId: wallet, bucket: 'frozen', amount: 5n },
        ],
      },
    ],
    [
      "a merchant's withdrawal moving the trader's wallet",
      {
        key: `withdrawal:${merchants.body.withdrawal_id}:test`,
        kind: 'withdrawal_hold',
        refType: 'withdrawal',
        refId: merchants.body.withdrawal_id,
        entries: [
          { walletId: wallet, bucket: 'available', amount: -5n },
          { walletId: wallet, bucket: 'frozen', amount: 5n },
        ],
      },
    ],
  ];
  for (const [what, posting] of cases) {
    const rollback = new Error('rollback');
    const seen = await sql
      .begin(async (tx) => {
        await postLedger(tx, posting);
        throw Object.assign(rollback, { unbacked: (await unbackedLiveMoney(tx)).filter((u) => u.wallet_id === wallet) });
      })
      .catch((error: unknown) => error as typeof rollback & { unbacked: Awaited<ReturnType<typeof unbackedLiveMoney>> });
    t.is(seen as Error, rollback, what);
    t.true(
      seen.unbacked.some((u) => u.key === posting.key),
      `${what}: found as unbacked`,
    );
  }
  t.deepEqual(await ledgerClean(trader.traderId), { mismatches: [], violations: [], unbacked: [] }, 'nothing of it stayed');
  t.is((await asOperator('POST', `${ADMIN}/withdrawals/${merchants.body.withdrawal_id}/cancel`, {})).status, 200);
});
