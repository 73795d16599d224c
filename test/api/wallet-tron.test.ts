/**
 * The wallet on a TRON network (CHAIN_ADAPTER=trongrid) on the real stack: an API and a worker of
 * their own (their own task queue, so their own chain-watch workflow) against the fake TronGrid
 * (test/helpers/fake-trongrid.ts, a real HTTP server over an in-memory chain), the suite's
 * Postgres and Temporal. Deposits seen PENDING, CONFIRMED, credited once across a worker restart,
 * DROPPED; counterfeit and other tokens ignored; withdrawals built, checked, signed by the hot
 * wallet, stored, broadcast once across a SIGKILL, confirmed on the receipt; a tampered build
 * refused; a failed receipt shown and retried; a lying node (head ahead, {} for a mined
 * transaction, a failed receipt the solidified node contradicts or has not got) never gets a
 * replacement built; balances in the profile; the whole way round.
 * Serial: each test brings its own worker (and the kill test a worker process), on 2 shared cores.
 */
import test, { type ExecutionContext } from 'ava';
import { randomUUID } from 'node:crypto';
import { Client } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { loadConfig, type Config } from '../../config';
import { auditLedger } from '../../db/queries/ledger';
import { decodeTransferCall, fromHex, parsePrivateKey, recoverTronSigner, USDT_MAINNET_CONTRACT } from '../../domain/tron/transaction';
import { tronAddressFromPrivateKey } from '../../domain/tron/address';
import { temporalConnectionOptions } from '../../temporal/connection';
import { temporalDataConverter } from '../../temporal/payload-codec';
import { chainWatchStatusQuery, chainWatchWorkflowId } from '../../workflows/contracts/chain-watch';
import { asOperator, signed, type KeyPair, type Json } from '../helpers/api';
import { startApp, testSql } from '../helpers/app';
import { walletOf } from '../helpers/deals';
import { addressFor, FAKE_USDT, startFakeTronGrid, type FakeTronGrid, type Token } from '../helpers/fake-trongrid';
import { eventually } from '../helpers/poll';
import { startReceiver } from '../helpers/receiver';
import { WORKER_COLD_START_MS, startWorkerProcess } from '../helpers/worker';
import { ADMIN, randomTronAddress, startWalletStack, startWalletWorker, WALLET, walletMerchant } from '../helpers/wallet';

const sql = testSql();
test.after.always(async () => {
  const report = await auditLedger(sql);
  await sql.end();
  if (report.walletMismatches.length || report.unbalancedTransactions.length) throw new Error(`ledger audit failed: ${JSON.stringify(report)}`);
});

const HOT_KEY_HEX = '4f3edf983ac636a65a842ce7c78d9aa706d3b113bce9c46f30d7d21715b23b1d';
const HOT = tronAddressFromPrivateKey(parsePrivateKey(HOT_KEY_HEX));
const OTHER_TOKEN: Token = { address: addressFor('some-other-token'), symbol: 'BTT', name: 'Other', decimals: 6 };

/** Short durations: a pass every 150 ms, receipts every 150 ms, 2 confirmations. */
const tronSettings = (fake: FakeTronGrid, extra: Partial<Config> = {}): Partial<Config> => ({
  CHAIN_ADAPTER: 'trongrid',
  TRON_API_URL: fake.url,
  TRON_HOT_WALLET_KEY: HOT_KEY_HEX,
  TRON_CONFIRMATIONS: fake.chain.confirmations,
  TRON_POLL_INTERVAL_MS: 150,
  TRON_RECEIPT_POLL_MS: 150,
  TRON_REBROADCAST_MS: 60_000,
  TRON_REQUEST_TIMEOUT_MS: 3_000,
  TRON_DEPOSIT_DROP_AFTER_MS: 300,
  TRON_FAILED_RETRY_MS: 300,
  TRON_BALANCE_REFRESH_SECONDS: 0,
  TRON_HOT_WALLET_MIN_TRX_SUN: 20_000_000n,
  WITHDRAWAL_SYNC_WAIT_SECONDS: 0,
  WITHDRAWAL_BROADCAST_HEARTBEAT_SECONDS: 3,
  WITHDRAWAL_BROADCAST_MAX_BACKOFF_SECONDS: 1,
  ...extra,
});

/** A fake node (hot wallet funded: 100 TRX, 1 000 USDT) and an API + worker pointed at it. */
async function tronStack(t: ExecutionContext, options: { blockIntervalMs?: number; settings?: Partial<Config> } = {}) {
  const fake = await startFakeTronGrid({
    confirmations: 2,
    ...(options.blockIntervalMs ? { blockIntervalMs: options.blockIntervalMs } : {}),
    tokens: [OTHER_TOKEN],
  });
  fake.chain.fund(HOT, { trxSun: 100_000_000n, usdtUnits: 1_000_000_000n });
  const settings = tronSettings(fake, options.settings);
  const stack = await startWalletStack(settings);
  let worker = stack.worker;
  const config = { ...loadConfig(process.env), TEMPORAL_TASK_QUEUE: stack.taskQueue };
  const connection = await NativeConnection.connect(temporalConnectionOptions(config));
  const client = new Client({ connection, namespace: config.TEMPORAL_NAMESPACE, dataConverter: temporalDataConverter(config) });
  const watch = client.workflow.getHandle(chainWatchWorkflowId(config));
  t.teardown(async () => {
    await stack.close().catch(() => undefined);
    if (worker !== stack.worker) await worker.stop().catch(() => undefined);
    await watch.terminate().catch(() => undefined);
    await connection.close();
    await fake.close();
  });
  return {
    fake,
    url: stack.url,
    settings,
    watch,
    /** Passes the watcher has finished so far. */
    passes: async () => (await watch.query(chainWatchStatusQuery)).passes,
    async stopWorker() {
      await worker.stop();
    },
    async startWorker() {
      worker = await startWalletWorker(stack.taskQueue, settings);
    },
  };
}

type Stack = Awaited<ReturnType<typeof tronStack>>;

/** A merchant with a deposit address (and, optionally, USDT credited by an operator). */
async function merchantWithAddress(stack: Stack, usdtCents = 0, overrides: Record<string, unknown> = {}) {
  const m = await walletMerchant(usdtCents, {}, overrides);
  const res = await signed(m.keys, 'POST', `${stack.url}${WALLET}/deposit-address`);
  if (res.status !== 201) throw new Error(`deposit address: ${res.status} ${res.text}`);
  return { ...m, address: res.body.address as string };
}

const depositsOf = async (stack: Stack, keys: KeyPair) => (await signed(keys, 'GET', `${stack.url}${WALLET}/deposits`)).body.data as Record<string, Json>[];
const depositRow = async (txHash: string) => (await sql`select * from deposits where tx_hash = ${txHash}`)[0];
const creditsOf = async (merchantId: string) =>
  (
    await sql`select count(*)::int as n from ledger_transactions where kind = 'deposit' and ref_id in (select id::text from deposits where merchant_id = ${merchantId})`
  )[0]!.n as number;
const depositEvents = async (merchantId: string) =>
  (await sql<{ payload: Json }[]>`select payload from outbox_events where merchant_id = ${merchantId} and event_type = 'p2p.finance.deposit_confirmed'`).map(
    (e) => e.payload.deposit,
  );
const withdrawalRow = async (id: string) => (await sql`select * from withdrawals where id = ${id}`)[0]!;
const transactionsOf = (id: string) => sql`select * from withdrawal_transactions where withdrawal_id = ${id} order by attempt`;
const alertsOf = (subject: string) =>
  sql<
    { kind: string; message: string; resolved_at: Date | null }[]
  >`select kind, message, resolved_at from operator_alerts where subject = ${subject} order by created_at`;
const completed = (id: string, what = 'the withdrawal COMPLETED', mine?: FakeTronGrid) =>
  eventually(async () => {
    mine?.chain.mine(1);
    const row = await withdrawalRow(id);
    return row.status === 'COMPLETED' && row;
  }, what);
/** The transfers the fake chain holds for a recipient: [txid, units, signer]. */
const broadcastsTo = (fake: FakeTronGrid, to: string) =>
  fake.requests
    .filter((r) => r.path.startsWith('/wallet/broadcasttransaction'))
    .map((r) => JSON.parse(r.body))
    .map((b) => ({
      txid: b.txID as string,
      call: decodeTransferCall(fromHex(b.raw_data.contract[0].parameter.value.data)),
      signer: recoverTronSigner(b.txID, b.signature[0]),
    }))
    .filter((b) => !('problem' in b.call) && b.call.to === to);

test.serial(
  'a deposit is seen PENDING, then CONFIRMED on its receipt and credited exactly once across a worker restart; the merchant gets p2p.finance.deposit_confirmed',
  async (t) => {
    const stack = await tronStack(t);
    const { fake } = stack;
    const m = await merchantWithAddress(stack);
    const txHash = fake.chain.transferIn({ to: m.address, units: 12_345_678n }); // 12.345678 USDT: 1 234 cents and 5 678 units
    fake.chain.mine(1); // in a block, below the 2 confirmations
    const pending = await eventually(
      async () => (await depositsOf(stack, m.keys)).find((d) => d.tx_hash === txHash && d.status === 'PENDING'),
      'the deposit PENDING',
    );
    t.like(pending, { amount: '1234', address: m.address, confirmed_at: '' });
    t.deepEqual(await walletOf(sql, 'merchant', m.merchantId).then((w) => w.available), 0n, 'nothing credited while PENDING');

    // The worker goes away; the transfer confirms meanwhile; a new worker (the same watcher workflow) takes it in.
    await stack.stopWorker();
    fake.chain.mine(3);
    await stack.startWorker();
    const confirmed = await eventually(
      async () => (await depositsOf(stack, m.keys)).find((d) => d.tx_hash === txHash && d.status === 'CONFIRMED'),
      'the deposit CONFIRMED',
    );
    t.like(confirmed, { amount: '1234', deposit_id: pending.deposit_id });
    t.truthy(Date.parse(confirmed.confirmed_at));
    t.is((await depositRow(txHash))!.chain_units, 12_345_678n, 'the exact on-chain amount is kept (the 5 678 units below a cent are not credited)');

    // More passes (the overlap reads the transfer again) and one more restart credit nothing more.
    const after = await stack.passes();
    await stack.stopWorker();
    await stack.startWorker();
    await eventually(async () => (await stack.passes()) >= after + 3, 'three more passes');
    t.is(await walletOf(sql, 'merchant', m.merchantId).then((w) => w.available), 1_234n);
    t.is(await creditsOf(m.merchantId), 1, 'one ledger credit');
    const events = await depositEvents(m.merchantId);
    t.is(events.length, 1, 'one deposit event');
    t.like(events[0], { deposit_id: pending.deposit_id, status: 'CONFIRMED', amount: '1234', tx_hash: txHash, address: m.address, currency: 'USDT' });
    const unconfirmedQueries = fake.requests.filter(
      (r) => r.path.includes(`/v1/accounts/${m.address}/transactions/trc20`) && r.path.includes('only_unconfirmed=true'),
    );
    t.true(
      unconfirmedQueries.every((r) => r.path.includes('only_to=true') && r.path.includes(`contract_address=${USDT_MAINNET_CONTRACT}`)),
      'only transfers to the address, of the USDT contract',
    );
    t.true(
      fake.requests.some((r) => r.path.includes(`/v1/accounts/${m.address}/transactions/trc20`) && r.path.includes('min_timestamp=')),
      'confirmed transfers since the cursor',
    );
  },
);

test.serial('a transfer that vanishes before it is confirmed is DROPPED and never credited; other tokens and a counterfeit USDT are ignored', async (t) => {
  const stack = await tronStack(t);
  const { fake } = stack;
  // A V1 merchant: V1 has no deposit event, so none is delivered (the relay skips it).
  const m = await merchantWithAddress(stack, 0, { api_version: 'v1', webhook_url: 'http://127.0.0.1:9/v1-hooks' });
  const vanishing = fake.chain.transferIn({ to: m.address, units: 7_000_000n });
  fake.chain.mine(1);
  await eventually(async () => (await depositRow(vanishing))?.status === 'PENDING', 'the deposit PENDING');
  fake.chain.drop(vanishing); // a fork: the block that held it is gone, and so is the transfer
  const dropped = await eventually(async () => {
    fake.chain.mine(1); // the node's head moves on past the drop delay
    const row = await depositRow(vanishing);
    return row?.status === 'DROPPED' && row;
  }, 'the deposit DROPPED');
  t.truthy(dropped.dropped_at);
  t.is(dropped.confirmed_at, null);
  t.like(
    (await depositsOf(stack, m.keys)).find((d) => d.tx_hash === vanishing),
    { status: 'DROPPED', confirmed_at: '' },
  );

  const counterfeit = fake.chain.transferIn({ to: m.address, units: 50_000_000n, token: FAKE_USDT });
  const other = fake.chain.transferIn({ to: m.address, units: 60_000_000n, token: OTHER_TOKEN });
  const dust = fake.chain.transferIn({ to: m.address, units: 9_999n }); // below one cent: address-poisoning dust
  const real = fake.chain.transferIn({ to: m.address, units: 1_000_000n });
  fake.chain.mine(4);
  await eventually(async () => (await depositRow(real))?.status === 'CONFIRMED', 'the real USDT deposit CONFIRMED');
  const start = await stack.passes();
  await eventually(async () => (await stack.passes()) >= start + 2, 'two more passes');
  for (const ignored of [counterfeit, other, dust, vanishing]) t.not((await depositRow(ignored))?.status, 'CONFIRMED', ignored);
  t.is(await depositRow(counterfeit), undefined, 'a counterfeit "USDT" (same symbol, another contract) is not a deposit');
  t.is(await depositRow(other), undefined);
  t.is(await depositRow(dust), undefined);
  t.is(await walletOf(sql, 'merchant', m.merchantId).then((w) => w.available), 100n, 'only the real 1 USDT');
  t.is(await creditsOf(m.merchantId), 1);
  const [event] = await eventually(async () => {
    const rows = await sql`select id, dispatched_at from outbox_events where merchant_id = ${m.merchantId} and event_type = 'p2p.finance.deposit_confirmed'`;
    return rows.length === 1 && rows[0]!.dispatched_at && rows;
  }, 'the event relayed');
  t.is((await sql`select count(*)::int as n from webhook_deliveries where event_id = ${event!.id}`)[0]!.n, 0, 'no V1 delivery of a deposit event');
});

test.serial(
  'a withdrawal is built by the node, checked, signed by the hot wallet for the recipient and net, stored before its broadcast and COMPLETED on receipt SUCCESS',
  async (t) => {
    // The sync wait is long so that "answered once broadcast, not after it" holds on a loaded machine too.
    const stack = await tronStack(t, { settings: { WITHDRAWAL_SYNC_WAIT_SECONDS: 90 } }); // blocks mined by the test
    const { fake } = stack;
    const m = await merchantWithAddress(stack, 10_000);
    const to = randomTronAddress();
    const started = Date.now();
    const res = await signed(m.keys, 'POST', `${stack.url}${WALLET}/withdraw`, { address: to, amount: 5_000 });
    t.is(res.status, 200, res.text);
    t.is(res.body.status, 'PENDING', 'sent, not yet final');
    t.true(Date.now() - started < 60_000, 'answered once broadcast, not after the whole sync wait');
    const [stored] = await transactionsOf(res.body.withdrawal_id);
    t.like(stored, { status: 'BROADCAST', broadcasts: 1 });
    t.like(fake.chain.transaction(stored!.txid), { pooled: true });
    const done = await completed(res.body.withdrawal_id, 'the withdrawal COMPLETED', fake);
    const [tx, ...more] = await transactionsOf(done.id);
    t.is(more.length, 0, 'one transaction');
    t.like(tx, { txid: done.tx_hash, status: 'CONFIRMED', receipt_result: 'SUCCESS', attempt: 1 });
    t.truthy(tx!.last_broadcast_at);
    t.is(recoverTronSigner(tx!.txid, tx!.signature), HOT, 'signed by the hot wallet');
    const sent = broadcastsTo(fake, to);
    t.is(sent.length, 1, 'broadcast once');
    t.like(sent[0], { txid: done.tx_hash, signer: HOT });
    t.deepEqual(sent[0]!.call, { to, units: 49_000_000n }, 'the net (5 000 − 100 fee = 4 900 cents) to the recipient');
    t.is(fake.chain.balances(to).usdtUnits, 49_000_000n);
    t.like(fake.chain.transaction(done.tx_hash), { receipt: 'SUCCESS' });
    t.deepEqual(await walletOf(sql, 'merchant', m.merchantId).then((w) => [w.available, w.frozen]), [5_000n, 0n]);
    const trigger = fake.requests.find((r) => r.path === '/wallet/triggersmartcontract');
    t.like(JSON.parse(trigger!.body), { function_selector: 'transfer(address,uint256)', fee_limit: 50_000_000, call_value: 0 });
  },
);

test.serial(
  'a node that builds something else is refused before signing: nothing signed or broadcast, the error and an alert shown, the hold kept; an honest build then completes',
  async (t) => {
    const stack = await tronStack(t, { blockIntervalMs: 200 });
    const { fake } = stack;
    const m = await merchantWithAddress(stack, 10_000);
    const to = randomTronAddress();
    const tamper = setInterval(() => fake.faults.tamperNextBuild('recipient'), 20); // every build says "pay the attacker"
    t.teardown(() => clearInterval(tamper));
    fake.faults.tamperNextBuild('recipient');
    const res = await signed(m.keys, 'POST', `${stack.url}${WALLET}/withdraw`, { address: to, amount: 4_000 });
    t.is(res.status, 200, res.text);
    const id = res.body.withdrawal_id;
    const refused = await eventually(async () => {
      const row = await withdrawalRow(id);
      return /refused to sign: recipient is/.test(row.last_broadcast_error) && row;
    }, 'the refusal shown on the withdrawal');
    t.is(refused.status, 'PENDING');
    t.true(refused.broadcast_attempts >= 1);
    const alerts = await alertsOf(id);
    t.like(alerts[0], { kind: 'tron_build_refused', resolved_at: null });
    t.regex(alerts[0]!.message, /nothing was signed/);
    const listed = await asOperator('GET', `${stack.url}${ADMIN}/alerts`);
    t.true(listed.body.data.some((a: { kind: string; message: string }) => a.kind === 'tron_build_refused' && a.message.includes(id)));
    t.is((await transactionsOf(id)).length, 0, 'nothing signed or stored');
    t.is(fake.requests.filter((r) => r.path === '/wallet/broadcasttransaction').length, 0, 'nothing broadcast');
    t.deepEqual(await walletOf(sql, 'merchant', m.merchantId).then((w) => [w.available, w.frozen]), [6_000n, 4_000n], 'the hold is kept');

    clearInterval(tamper);
    fake.faults.clear();
    const done = await completed(id);
    t.deepEqual(
      broadcastsTo(fake, to).map((b) => b.call),
      [{ to, units: 39_000_000n }],
    );
    t.is(fake.requests.filter((r) => r.path === '/wallet/broadcasttransaction').length, 1, 'only the honest transaction was ever broadcast');
    t.is(done.last_broadcast_error, '');
    t.truthy((await alertsOf(id))[0]!.resolved_at, 'the alert closes with the withdrawal');
  },
);

test.serial(
  'a failed receipt (OUT_OF_ENERGY) is shown and alerted, a new transaction follows and completes; too many failures cancel the withdrawal and return the hold',
  async (t) => {
    const stack = await tronStack(t, { blockIntervalMs: 200, settings: { TRON_WITHDRAWAL_MAX_ATTEMPTS: 2, TRON_FAILED_RETRY_MS: 1_500 } });
    const { fake } = stack;
    const m = await merchantWithAddress(stack, 20_000);

    fake.faults.failNextReceipt('OUT_OF_ENERGY');
    const to = randomTronAddress();
    const res = await signed(m.keys, 'POST', `${stack.url}${WALLET}/withdraw`, { address: to, amount: 3_000 });
    const id = res.body.withdrawal_id;
    const shown = await eventually(async () => {
      const row = await withdrawalRow(id);
      return /failed on chain: OUT_OF_ENERGY/.test(row.last_broadcast_error) && row;
    }, 'the failed receipt shown on the withdrawal');
    t.is(shown.status, 'PENDING', 'no USDT moved: the withdrawal waits (hold kept) and tries again');
    t.like((await alertsOf(id))[0], { kind: 'withdrawal_failed_on_chain', resolved_at: null });
    const done = await completed(id);
    const txs = await transactionsOf(id);
    t.deepEqual(
      txs.map((x) => [x.attempt, x.status, x.receipt_result]),
      [
        [1, 'FAILED', 'OUT_OF_ENERGY'],
        [2, 'CONFIRMED', 'SUCCESS'],
      ],
    );
    t.is(done.tx_hash, txs[1]!.txid);
    t.is(fake.chain.balances(to).usdtUnits, 29_000_000n, 'paid once');
    t.truthy((await alertsOf(id))[0]!.resolved_at);

    // Twice in a row (TRON_WITHDRAWAL_MAX_ATTEMPTS = 2): CANCELLED by the chain, hold returned, event.
    fake.faults.failNextReceipt('OUT_OF_ENERGY');
    const again = await signed(m.keys, 'POST', `${stack.url}${WALLET}/withdraw`, { address: randomTronAddress(), amount: 2_000 });
    const second = again.body.withdrawal_id;
    await eventually(async () => (await transactionsOf(second)).some((x) => x.status === 'FAILED'), 'the first transaction failed');
    fake.faults.failNextReceipt('REVERT');
    const cancelled = await eventually(async () => {
      const row = await withdrawalRow(second);
      return row.status === 'CANCELLED' && row;
    }, 'the withdrawal CANCELLED');
    t.like(cancelled, { cancelled_by: 'chain', tx_hash: '' });
    t.regex(cancelled.cancel_reason, /2 transactions of this withdrawal failed or expired/);
    t.deepEqual(
      (await transactionsOf(second)).map((x) => x.status),
      ['FAILED', 'FAILED'],
    );
    t.deepEqual(await walletOf(sql, 'merchant', m.merchantId).then((w) => [w.available, w.frozen]), [17_000n, 0n]);
    const events = await sql`select payload from outbox_events where merchant_id = ${m.merchantId} and event_type = 'p2p.finance.withdrawal_failed'`;
    t.deepEqual(
      events.map((e) => [e.payload.withdrawal.withdrawal_id, e.payload.withdrawal.status]),
      [[second, 'CANCELLED']],
    );
  },
);

test.serial(
  'a node that lies (its head an hour ahead, {} for the mined transaction) gets no replacement built: the withdrawal completes once with its first transaction',
  async (t) => {
    const stack = await tronStack(t); // blocks mined by the test
    const { fake } = stack;
    const m = await merchantWithAddress(stack, 10_000);
    const to = randomTronAddress();
    const res = await signed(m.keys, 'POST', `${stack.url}${WALLET}/withdraw`, { address: to, amount: 3_000 });
    t.is(res.status, 200, res.text);
    const id = res.body.withdrawal_id;
    const [tx] = await eventually(async () => {
      const rows = await transactionsOf(id);
      return rows.length === 1 && rows[0]!.status === 'BROADCAST' && rows;
    }, 'the transaction broadcast');
    fake.chain.mine(1); // mined for real: the recipient is paid
    t.is(fake.chain.balances(to).usdtUnits, 29_000_000n);
    fake.faults.hide(tx!.txid);
    fake.faults.headAhead(3_600_000);
    const asked = () => fake.requests.filter((r) => r.path === '/wallet/gettransactioninfobyid').length;
    const before = asked();
    // Eight more receipt checks against the lying node (or the withdrawal settled on its word: the bug).
    await eventually(async () => asked() >= before + 8 || (await withdrawalRow(id)).status !== 'PENDING', 'eight more receipt checks');
    t.is((await withdrawalRow(id)).status, 'PENDING', 'neither cancelled and refunded nor completed on a lie');
    t.deepEqual(
      (await transactionsOf(id)).map((x) => [x.txid, x.status]),
      [[tx!.txid, 'BROADCAST']],
      'still live, nothing settled',
    );
    t.is(fake.requests.filter((r) => r.path === '/wallet/triggersmartcontract').length, 1, 'no second transaction built');
    t.is(broadcastsTo(fake, to).length, 1, 'nor signed and sent');

    fake.faults.clear(); // the node tells the truth again
    const done = await completed(id, 'the withdrawal COMPLETED', fake);
    t.is(done.tx_hash, tx!.txid, 'with the first transaction');
    t.is((await transactionsOf(id)).length, 1);
    t.is(fake.chain.balances(to).usdtUnits, 29_000_000n, 'paid once');
  },
);

test.serial(
  'a failed receipt the solidified node does not confirm builds nothing new: a lie (it succeeded) completes once; a real failure is taken once the solidified node confirms it',
  async (t) => {
    const stack = await tronStack(t, { settings: { TRON_FAILED_RETRY_MS: 300 } }); // blocks mined by the test
    const { fake } = stack;
    const m = await merchantWithAddress(stack, 20_000);
    const builds = () => fake.requests.filter((r) => r.path === '/wallet/triggersmartcontract').length;
    const asked = () => fake.requests.filter((r) => r.path === '/wallet/gettransactioninfobyid').length;
    const broadcast = (id: string) =>
      eventually(async () => {
        const rows = await transactionsOf(id);
        return rows.length === 1 && rows[0]!.status === 'BROADCAST' && rows[0]!;
      }, 'the transaction broadcast');

    // The lie: the full node reports OUT_OF_ENERGY for a transfer that succeeded; the solidified node says SUCCESS.
    const to = randomTronAddress();
    const res = await signed(m.keys, 'POST', `${stack.url}${WALLET}/withdraw`, { address: to, amount: 3_000 });
    const id = res.body.withdrawal_id;
    const tx = await broadcast(id);
    fake.faults.reportFailed(tx.txid, 'OUT_OF_ENERGY');
    fake.chain.mine(3); // mined, at depth and solidified
    const before = asked();
    await eventually(async () => asked() >= before + 5, 'five more receipt checks');
    t.deepEqual(
      (await transactionsOf(id)).map((x) => x.status),
      ['BROADCAST'],
      'not settled as FAILED',
    );
    t.is(builds(), 1, 'no second transaction built');
    t.true(
      (await alertsOf(id)).some((a) => a.kind === 'withdrawal_chain_problem' && !a.resolved_at),
      'the disagreement alerted',
    );
    fake.faults.clear();
    const done = await completed(id, 'the withdrawal COMPLETED', fake);
    t.is(done.tx_hash, tx.txid);
    t.is(fake.chain.balances(to).usdtUnits, 29_000_000n, 'paid once');

    // A real failure while the solidified node lags: nothing is built until it confirms the receipt.
    fake.faults.failNextReceipt('OUT_OF_ENERGY');
    fake.faults.stallSolidity();
    const again = await signed(m.keys, 'POST', `${stack.url}${WALLET}/withdraw`, { address: randomTronAddress(), amount: 2_000 });
    const second = again.body.withdrawal_id;
    const failed = await broadcast(second);
    fake.chain.mine(3); // in a block at depth on the full node, with its failed receipt
    t.is(fake.chain.transaction(failed.txid)?.receipt, 'OUT_OF_ENERGY');
    const seen = asked();
    await eventually(async () => asked() >= seen + 5, 'five more receipt checks');
    t.deepEqual(
      (await transactionsOf(second)).map((x) => x.status),
      ['BROADCAST'],
      'still live',
    );
    t.is(builds(), 2, 'no replacement built while the solidified node has not confirmed the failure');
    t.regex((await withdrawalRow(second)).last_broadcast_error, /not confirmed by the solidified node/, 'the unconfirmed failure shown');
    fake.faults.resumeSolidity();
    const replaced = await completed(second, 'the replacement COMPLETED', fake);
    const txs = await transactionsOf(second);
    t.deepEqual(
      txs.map((x) => [x.attempt, x.status, x.receipt_result]),
      [
        [1, 'FAILED', 'OUT_OF_ENERGY'],
        [2, 'CONFIRMED', 'SUCCESS'],
      ],
    );
    t.is(replaced.tx_hash, txs[1]!.txid);
    t.true((await alertsOf(second)).some((a) => a.kind === 'withdrawal_failed_on_chain'));
  },
);

test.serial(
  'balances: the deposit address’s USDT and TRX in the profile, with their age; the hot wallet’s TRX running low raises the operator alert',
  async (t) => {
    const stack = await tronStack(t);
    const { fake } = stack;
    const m = await merchantWithAddress(stack);
    fake.chain.fund(m.address, { trxSun: 2_500_000n, usdtUnits: 77_123_456n });
    const profile = await eventually(async () => {
      const res = await signed(m.keys, 'GET', `${stack.url}/api/v1/p2p/my-merchant`);
      return res.body.merchant.trc20_usdt_balance === '7712' && res.body.merchant;
    }, 'the balances in the profile');
    t.is(profile.trc20_trx_balance, '2500000', 'TRX in sun');
    t.true(Date.now() - Date.parse(profile.trc20_balances_at) < 60_000, 'with the time they were read');

    fake.chain.fund(HOT, { trxSun: 5_000_000n }); // 5 TRX, below TRON_HOT_WALLET_MIN_TRX_SUN (20 TRX)
    const [low] = await eventually(async () => {
      const open = (await alertsOf(HOT)).filter((a) => a.kind === 'hot_wallet_low_trx' && !a.resolved_at);
      return open.length > 0 && open;
    }, 'the low-TRX alert');
    t.regex(low!.message, /holds 5\.000000 TRX/);
    fake.chain.fund(HOT, { trxSun: 500_000_000n });
    await eventually(async () => (await alertsOf(HOT)).every((a) => a.kind !== 'hot_wallet_low_trx' || a.resolved_at), 'the alert resolved after a top-up');
    t.pass();
  },
);

test.serial('the whole way round on TRON: a deposit credited, a withdrawal of it signed, broadcast and confirmed', async (t) => {
  const stack = await tronStack(t, { blockIntervalMs: 200 });
  const { fake } = stack;
  const receiver = await startReceiver();
  t.teardown(() => receiver.close());
  const m = await merchantWithAddress(stack, 0, { webhook_url: receiver.url });
  const deposit = fake.chain.transferIn({ to: m.address, units: 50_000_000n });
  await eventually(async () => (await depositRow(deposit))?.status === 'CONFIRMED', 'the deposit credited');
  t.is(await walletOf(sql, 'merchant', m.merchantId).then((w) => w.available), 5_000n);
  // The merchant hears of it (the suite's outbox relay and webhook worker deliver it).
  const hook = await eventually(
    async () => receiver.received.map((r) => JSON.parse(r.body)).find((b) => b.type === 'p2p.finance.deposit_confirmed'),
    'the deposit webhook',
  );
  t.like(hook.deposit, { status: 'CONFIRMED', amount: '5000', tx_hash: deposit, address: m.address });
  const to = randomTronAddress();
  const res = await signed(m.keys, 'POST', `${stack.url}${WALLET}/withdraw`, { address: to, amount: 5_000 });
  t.is(res.status, 200, res.text);
  const done = await completed(res.body.withdrawal_id);
  t.is(fake.chain.balances(to).usdtUnits, 49_000_000n);
  t.is(fake.chain.balances(HOT).usdtUnits, 1_000_000_000n - 49_000_000n);
  t.like(fake.chain.transaction(done.tx_hash), { receipt: 'SUCCESS' });
  t.deepEqual(await walletOf(sql, 'merchant', m.merchantId).then((w) => [w.available, w.frozen]), [0n, 0n]);
  const view = await signed(m.keys, 'GET', `${stack.url}${WALLET}/withdrawals/${done.id}`);
  t.like(view.body, { status: 'COMPLETED', tx_hash: done.tx_hash, net_usdt_cents: '4900' });
});

test.serial('a worker process SIGKILLed after storing a transaction, or after broadcasting it, never sends a second one', async (t) => {
  // Two worker starts and two chain round trips: minutes on a loaded machine. Every wait below is
  // on a condition, with a deadline far above what it takes; this bounds the test as a whole.
  t.timeout(15 * 60_000);
  // A transaction outlives the test's slowest restart: a worker back after its transaction expired
  // rightly builds a new one, and the question here is whether it reuses one that can still land.
  const fake = await startFakeTronGrid({ confirmations: 2, lifetimeMs: 20 * 60_000 });
  t.teardown(() => fake.close());
  fake.chain.fund(HOT, { trxSun: 100_000_000n, usdtUnits: 1_000_000_000n });
  const taskQueue = `wallet-tron-kill-${randomUUID()}`;
  const settings = tronSettings(fake, { WITHDRAWAL_BROADCAST_HEARTBEAT_SECONDS: 2 });
  const env = Object.fromEntries(
    Object.entries({ ...settings, TEMPORAL_TASK_QUEUE: taskQueue, WEBHOOK_TASK_QUEUE: `${taskQueue}-webhooks`, OUTBOX_RELAY: 'false' }).map(([k, v]) => [
      k,
      String(v),
    ]),
  );
  const app = await startApp({ ...settings, TEMPORAL_TASK_QUEUE: taskQueue });
  t.teardown(() => app.close());
  let worker = startWorkerProcess(env);
  t.teardown(() => void worker.kill('SIGKILL'));
  const config = { ...loadConfig(process.env), TEMPORAL_TASK_QUEUE: taskQueue };
  const connection = await NativeConnection.connect(temporalConnectionOptions(config));
  t.teardown(async () => {
    await new Client({ connection, namespace: config.TEMPORAL_NAMESPACE }).workflow
      .getHandle(chainWatchWorkflowId(config))
      .terminate()
      .catch(() => undefined);
    await connection.close();
  });
  const m = await walletMerchant(20_000);

  // A: broadcast and in the node's pool (no block is mined yet) when the worker dies.
  const toA = randomTronAddress();
  const a = await signed(m.keys, 'POST', `${app.url}${WALLET}/withdraw`, { address: toA, amount: 5_000 });
  t.is(a.status, 200, a.text);
  const [txA] = await eventually(
    async () => {
      if (worker.exitCode !== null) throw new Error(`the worker process exited with ${worker.exitCode}`);
      const rows = await transactionsOf(a.body.withdrawal_id);
      return rows.length === 1 && fake.chain.transaction(rows[0]!.txid)?.pooled && rows;
    },
    'A broadcast',
    // Includes the new worker process's cold start (bundling its workflows): minutes under a CPU burner.
    WORKER_COLD_START_MS,
  );
  // B: stored, its broadcast on the wire when the worker dies (the node holds it: never answered, never applied).
  fake.faults.hold(1, '/wallet/broadcasttransaction');
  const toB = randomTronAddress();
  const b = await signed(m.keys, 'POST', `${app.url}${WALLET}/withdraw`, { address: toB, amount: 3_000 });
  t.is(b.status, 200, b.text);
  const [txB] = await eventually(
    async () => {
      const rows = await transactionsOf(b.body.withdrawal_id);
      return rows.length === 1 && broadcastsTo(fake, toB).length === 1 && rows;
    },
    'B stored and on the wire',
    240_000,
  );
  worker.kill('SIGKILL');
  await new Promise((resolve) => worker.once('exit', resolve));
  t.is(fake.chain.transaction(txB!.txid), undefined, 'B never reached the node');
  t.is(txB!.status, 'SIGNED');

  worker = startWorkerProcess(env);
  for (const [id, tx, to, units] of [
    [a.body.withdrawal_id, txA!, toA, 49_000_000n],
    [b.body.withdrawal_id, txB!, toB, 29_000_000n],
  ] as const) {
    const done = await eventually(
      async () => {
        fake.chain.mine(1);
        const row = await withdrawalRow(id);
        return row.status === 'COMPLETED' && row;
      },
      `completion of ${id}`,
      300_000,
    );
    t.is(done.tx_hash, tx.txid, 'the stored transaction, not a new one');
    t.is((await transactionsOf(id)).length, 1);
    t.is(fake.chain.balances(to).usdtUnits, units, 'paid once');
  }
  t.is(fake.chain.broadcasts.get(txA!.txid), 1, 'A: broadcast once; the new worker only read its receipt');
  t.is(fake.chain.broadcasts.get(txB!.txid), 1, 'B: its bytes broadcast once, by the retry');
  t.deepEqual(await walletOf(sql, 'merchant', m.merchantId).then((w) => [w.available, w.frozen]), [12_000n, 0n]);
});
