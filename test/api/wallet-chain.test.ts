/**
 * The broadcast step against the simulated chain in its other modes (refuse, flaky, hang) and its
 * crash safety: a real worker process SIGKILLed after recording the intent and after sending.
 * Serial: each test brings its own worker (the kill test two processes that bundle the workflows),
 * and the 2-core machine is shared with the rest of the suite.
 */
import test from 'ava';
import { randomUUID } from 'node:crypto';
import { auditLedger } from '../../db/queries/ledger';
import { asOperator, signed, type Json } from '../helpers/api';
import { startApp, testSql } from '../helpers/app';
import { walletOf } from '../helpers/deals';
import { eventually } from '../helpers/poll';
import { startWorkerProcess } from '../helpers/worker';
import { ADMIN, randomTronAddress, startWalletStack, startWalletWorker, WALLET, walletMerchant } from '../helpers/wallet';

const sql = testSql();
// The arithmetic audit holds at any moment; the business invariants are checked after the whole suite.
test.after.always(async () => {
  const report = await auditLedger(sql);
  await sql.end();
  if (report.walletMismatches.length || report.unbalancedTransactions.length) throw new Error(`ledger audit failed: ${JSON.stringify(report)}`);
});

const row = async (id: string) => (await sql`select * from withdrawals where id = ${id}`)[0]!;
const transfers = (id: string) =>
  sql<{ tx_hash: string; send_calls: number }[]>`select tx_hash, send_calls from simulated_chain_transfers where withdrawal_id = ${id}`;

test.serial('a transfer the chain refuses for good is CANCELLED with the hold returned and p2p.finance.withdrawal_failed (auto and approved)', async (t) => {
  const stack = await startWalletStack({ CHAIN_SIMULATOR: 'fail' });
  t.teardown(() => stack.close());
  const { merchantId, keys } = await walletMerchant(10_000, { auto_withdrawal_limit_usdt_cents: 5_000 });
  const auto = await signed(keys, 'POST', `${stack.url}${WALLET}/withdraw`, { address: randomTronAddress(), amount: 4_000 });
  t.is(auto.status, 200, auto.text);
  t.like(auto.body, { status: 'CANCELLED', tx_hash: '', completed_at: '' });
  t.regex(auto.body.cancel_reason, /refused/);
  const manual = await signed(keys, 'POST', `${stack.url}${WALLET}/withdraw`, { address: randomTronAddress(), amount: 6_000 });
  t.is(manual.body.status, 'PENDING_MANUAL');
  const approved = await asOperator('POST', `${stack.url}${ADMIN}/withdrawals/${manual.body.withdrawal_id}/approve`);
  t.is(approved.status, 200, approved.text);
  t.like(approved.body, { status: 'CANCELLED', cancelled_by: 'chain', broadcast_attempts: 1 });
  t.regex(approved.body.last_broadcast_error, /refused/);
  t.deepEqual(await walletOf(sql, 'merchant', merchantId).then((w) => [w.available, w.frozen]), [10_000n, 0n]);
  const events = await sql<{ event_type: string; payload: Json }[]>`
    select event_type, payload from outbox_events where merchant_id = ${merchantId} and deal_id is null order by created_at`;
  t.deepEqual(
    events.map((e) => [e.event_type, e.payload.withdrawal.status]),
    [
      ['p2p.finance.withdrawal_failed', 'CANCELLED'],
      ['p2p.finance.withdrawal_failed', 'CANCELLED'],
    ],
  );
  t.is((await transfers(auto.body.withdrawal_id)).length, 0);
});

test.serial('transient chain failures are retried with backoff and the transfer goes out once', async (t) => {
  const stack = await startWalletStack({ CHAIN_SIMULATOR: 'flaky', WITHDRAWAL_SYNC_WAIT_SECONDS: 20 });
  t.teardown(() => stack.close());
  const { merchantId, keys } = await walletMerchant(10_000);
  const res = await signed(keys, 'POST', `${stack.url}${WALLET}/withdraw`, { address: randomTronAddress(), amount: 2_500 });
  t.is(res.status, 200, res.text);
  const done = await eventually(async () => {
    const r = await row(res.body.withdrawal_id);
    return r.status === 'COMPLETED' && r;
  }, 'completion after retries');
  t.is(done.broadcast_attempts, 3);
  t.is(done.last_broadcast_error, '');
  t.deepEqual(
    (await transfers(done.id)).map((x) => [x.tx_hash, x.send_calls]),
    [[done.tx_hash, 1]],
  );
  t.deepEqual(await walletOf(sql, 'merchant', merchantId).then((w) => [w.available, w.frozen]), [7_500n, 0n]);
});

test.serial(
  'a hanging chain: the merchant gets PENDING, attempts are abandoned at the timeout and retried; the hold waits; a healthy worker finishes it',
  async (t) => {
    const overrides = {
      WITHDRAWAL_SYNC_WAIT_SECONDS: 1,
      WITHDRAWAL_BROADCAST_TIMEOUT_SECONDS: 2,
      WITHDRAWAL_BROADCAST_HEARTBEAT_SECONDS: 2,
      WITHDRAWAL_BROADCAST_MAX_BACKOFF_SECONDS: 1,
    };
    const stack = await startWalletStack({ ...overrides, CHAIN_SIMULATOR: 'hang' });
    let stopped = false;
    t.teardown(async () => {
      if (!stopped) await stack.close();
    });
    const { merchantId, keys } = await walletMerchant(10_000);
    const res = await signed(keys, 'POST', `${stack.url}${WALLET}/withdraw`, { address: randomTronAddress(), amount: 3_000 });
    t.is(res.status, 200, res.text);
    t.like(res.body, { status: 'PENDING', tx_hash: '' });
    const id = res.body.withdrawal_id;
    await eventually(async () => (await row(id)).broadcast_attempts >= 2, 'a second attempt after the timeout', 90_000);
    t.is((await row(id)).status, 'PENDING');
    t.deepEqual(await walletOf(sql, 'merchant', merchantId).then((w) => [w.available, w.frozen]), [7_000n, 3_000n]);
    t.is((await transfers(id)).length, 0);
    const queue = await asOperator('GET', `${ADMIN}/withdrawals?merchant_id=${merchantId}`);
    t.like(queue.body.data[0], { withdrawal_id: id, status: 'PENDING' });
    t.true(queue.body.data[0].broadcast_attempts >= 2);
    t.truthy(Date.parse(queue.body.data[0].broadcast_started_at));

    await stack.close();
    stopped = true;
    const healthy = await startWalletWorker(stack.taskQueue, { ...overrides, CHAIN_SIMULATOR: 'ok' });
    t.teardown(() => healthy.stop());
    const done = await eventually(
      async () => {
        const r = await row(id);
        return r.status === 'COMPLETED' && r;
      },
      'completion by the healthy worker',
      90_000,
    );
    t.deepEqual(
      (await transfers(id)).map((x) => [x.tx_hash, x.send_calls]),
      [[done.tx_hash, 1]],
    );
    t.deepEqual(await walletOf(sql, 'merchant', merchantId).then((w) => [w.available, w.frozen]), [7_000n, 0n]);
  },
);

test.serial('a worker process SIGKILLed after recording the intent, or after sending, never sends twice', async (t) => {
  // Worker starts and the simulator's pauses: minutes on a loaded machine; this bounds the test as a whole.
  t.timeout(15 * 60_000);
  const taskQueue = `wallet-kill-${randomUUID()}`;
  const env = (latencyMs: number) => ({
    TEMPORAL_TASK_QUEUE: taskQueue,
    WEBHOOK_TASK_QUEUE: `${taskQueue}-webhooks`,
    OUTBOX_RELAY: 'false',
    CHAIN_SIMULATOR_LATENCY_MS: String(latencyMs),
  });
  const app = await startApp({ TEMPORAL_TASK_QUEUE: taskQueue, WITHDRAWAL_SYNC_WAIT_SECONDS: 0, WITHDRAWAL_BROADCAST_HEARTBEAT_SECONDS: 3 });
  t.teardown(() => app.close());
  // The simulated network waits 45 s before and 45 s after accepting a transfer: room to kill in either gap,
  // however slowly the machine then creates B and records its intent (A waits in its second gap meanwhile).
  let worker = startWorkerProcess(env(45_000));
  t.teardown(() => void worker.kill('SIGKILL'));
  const { merchantId, keys } = await walletMerchant(20_000);

  // A: sent, not recorded — the chain accepted the transfer; COMPLETED is not written yet.
  const sent = await signed(keys, 'POST', `${app.url}${WALLET}/withdraw`, { address: randomTronAddress(), amount: 5_000 });
  t.is(sent.status, 200, sent.text);
  t.is(sent.body.status, 'PENDING');
  await eventually(
    async () => {
      if (worker.exitCode !== null) throw new Error(`the worker process exited with ${worker.exitCode}`);
      return (await transfers(sent.body.withdrawal_id)).length === 1;
    },
    'the transfer on chain',
    300_000,
  );
  // B: intent recorded, not sent — its attempt is waiting before the chain call.
  const intent = await signed(keys, 'POST', `${app.url}${WALLET}/withdraw`, { address: randomTronAddress(), amount: 3_000 });
  t.is(intent.status, 200, intent.text);
  await eventually(async () => (await row(intent.body.withdrawal_id)).broadcast_attempts >= 1, 'the recorded intent', 40_000);
  worker.kill('SIGKILL'); // no chance to clean up or to record anything
  await new Promise((resolve) => worker.once('exit', resolve));
  t.is((await row(sent.body.withdrawal_id)).status, 'PENDING', 'A: killed between send and record');
  t.is((await transfers(intent.body.withdrawal_id)).length, 0, 'B: killed between record and send');
  t.is((await row(intent.body.withdrawal_id)).status, 'PENDING');

  // A healthy worker finishes both, each with exactly one transfer.
  worker = startWorkerProcess(env(0));
  for (const id of [sent.body.withdrawal_id, intent.body.withdrawal_id]) {
    const done = await eventually(
      async () => {
        const r = await row(id);
        return r.status === 'COMPLETED' && r;
      },
      `completion of ${id}`,
      300_000,
    );
    const onChain = await transfers(id);
    t.is(onChain.length, 1);
    t.is(onChain[0]!.tx_hash, done.tx_hash);
    t.is(done.broadcast_attempts, 2);
  }
  t.is((await transfers(sent.body.withdrawal_id))[0]!.send_calls, 2, 'A: the retry asked the chain again and got the same transfer back');
  t.is((await transfers(intent.body.withdrawal_id))[0]!.send_calls, 1, 'B: sent once, by the retry');
  t.deepEqual(await walletOf(sql, 'merchant', merchantId).then((w) => [w.available, w.frozen]), [12_000n, 0n]);
});
