/**
 * Crash recovery: a create attempt that outlives its deadline can never commit (no
 * orphan escrow), and a deal step on a worker that is SIGKILLed is retried elsewhere after the
 * short step deadline, not after minutes.
 */
import { randomUUID } from 'node:crypto';
import test from 'ava';
import { newMerchant, signed, unsigned } from '../helpers/api';
import { startApp, testSql } from '../helpers/app';
import { hashOf, isolatedTrader, PAYIN, walletOf } from '../helpers/deals';
import { eventually } from '../helpers/poll';
import { pollingBy, startIsolatedStack, startWorkerProcess } from '../helpers/worker';
import { loadConfig } from '../../config';
import { createTemporalClient } from '../../temporal/client';
import type { Tx } from '../../db/sql';

const sql = testSql();
test.after.always(() => sql.end());

/** Holds a row lock from another connection until release() is called. */
async function holdLock(query: (tx: Tx) => Promise<unknown>) {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let locked!: () => void;
  const isLocked = new Promise<void>((resolve) => (locked = resolve));
  const done = sql.begin(async (tx) => {
    await query(tx);
    locked();
    await released;
  });
  await isLocked;
  return {
    release: async () => {
      release();
      await done;
    },
  };
}

test('a create step blocked past its deadline never commits later: no orphan deal or escrow, and a retry works', async (t) => {
  const stack = await startIsolatedStack({ DEAL_CREATE_TIMEOUT_MS: 1_000, DEAL_STEP_TIMEOUT_MS: 2_000 });
  t.teardown(() => stack.close());
  const { keys, merchantId } = await newMerchant();
  const { traderId, method } = await isolatedTrader({ liquidity: 100_000 });
  const lock = await holdLock((tx) => tx`select 1 from wallets where owner_type = 'trader' and owner_id = ${traderId} for update`);

  const key = `orphan-${randomUUID()}`;
  const started = Date.now();
  const refused = await signed(keys, 'POST', `${stack.url}${PAYIN}`, { idempotency_key: key, amount: 150_000, currency: 'RUB', payment_method_id: method });
  t.true(refused.status >= 500, `the create gave up: ${refused.status} ${refused.text}`);
  t.true(Date.now() - started < 20_000, 'and did not hang');
  // Keep the lock well past the give-up, then let go: an attempt still waiting would commit now.
  await new Promise((r) => setTimeout(r, 1_500));
  await lock.release();
  await new Promise((r) => setTimeout(r, 1_500));
  t.is((await sql`select count(*)::int as n from deals where merchant_id = ${merchantId}`)[0]!.n, 0, 'no deal row');
  t.is((await walletOf(sql, 'trader', traderId)).frozen, 0n, 'no escrow locked');

  const retried = await signed(keys, 'POST', `${stack.url}${PAYIN}`, { idempotency_key: key, amount: 150_000, currency: 'RUB', payment_method_id: method });
  t.is(retried.status, 200, retried.text);
  t.is((await walletOf(sql, 'trader', traderId)).frozen, 1622n);
});

test('a deal step on a worker killed mid-step is retried by another worker after the step deadline', async (t) => {
  const queue = `crash-${randomUUID()}`;
  // A long payment timeout: on a loaded machine this test may take longer than the suite's 30 s.
  const env = { TEMPORAL_TASK_QUEUE: queue, WEBHOOK_TASK_QUEUE: `${queue}-webhooks`, OUTBOX_RELAY: 'false', PAYIN_TIMEOUT_SECONDS: '600' };
  let worker = startWorkerProcess(env);
  t.teardown(() => void worker.kill('SIGKILL'));
  const app = await startApp({ TEMPORAL_TASK_QUEUE: queue, WEBHOOK_TASK_QUEUE: `${queue}-webhooks`, DEAL_STEP_TIMEOUT_MS: 3_000 });
  t.teardown(() => app.close());
  const { keys } = await newMerchant();
  const { method } = await isolatedTrader({ liquidity: 100_000 });
  const created = await signed(keys, 'POST', `${app.url}${PAYIN}`, {
    idempotency_key: randomUUID(),
    amount: 150_000,
    currency: 'RUB',
    payment_method_id: method,
  });
  t.is(created.status, 200, created.text);
  const deal = created.body.deal;

  // The payer presses "I paid" while the step cannot finish (its row is locked), then the worker dies.
  const lock = await holdLock((tx) => tx`select 1 from deals where id = ${deal.deal_id} for update`);
  const notify = unsigned('POST', `${app.url}/api/v1/p2p/checkout/${hashOf(deal.payment_url)}/notify-payment`);
  await eventually(
    async () => {
      const [row] = await sql`select count(*)::int as n from pg_stat_activity where wait_event_type = 'Lock' and query like '%from deals%for no key update%'`;
      return row!.n > 0;
    },
    'the step to wait on the row',
    120_000,
  );
  worker.kill('SIGKILL');
  await new Promise((resolve) => worker.once('exit', resolve));
  const killedAt = Date.now();
  worker = startWorkerProcess(env);
  await lock.release();
  // The replacement needs a while to bundle and poll (longer on a loaded machine): count from when
  // it polls the activity queue, or from the kill if that is later.
  const temporal = await createTemporalClient(loadConfig(process.env));
  t.teardown(() => temporal.connection.close());
  const readyAt = await pollingBy(temporal, queue, worker.pid, 2);

  const answered = await notify;
  t.is(answered.status, 200, answered.text);
  const tookMs = Date.now() - Math.max(killedAt, readyAt);
  t.true(tookMs < 15_000, `the step resumed ${tookMs} ms after the kill (or the replacement's first poll); step deadline 3 s, was 30 s`);
  const got = await signed(keys, 'GET', `${app.url}/api/v1/p2p/merchant/deals/${deal.deal_id}`);
  t.is(got.body.deal.status, 'PAYMENT_NOTIFIED');
});

test('without the deadline a create waiting on a lock would succeed once the lock goes (control)', async (t) => {
  // The same stack as the first test, but the lock is released within the deadline budget:
  // the create waits, then succeeds — the refusal above is the deadline, not a broken matcher.
  const stack = await startIsolatedStack({ DEAL_CREATE_TIMEOUT_MS: 4_000 });
  t.teardown(() => stack.close());
  const { keys } = await newMerchant();
  const { traderId, method } = await isolatedTrader({ liquidity: 100_000 });
  const lock = await holdLock((tx) => tx`select 1 from wallets where owner_type = 'trader' and owner_id = ${traderId} for update`);
  const pending = signed(keys, 'POST', `${stack.url}${PAYIN}`, { idempotency_key: randomUUID(), amount: 150_000, currency: 'RUB', payment_method_id: method });
  await new Promise((r) => setTimeout(r, 1_000));
  await lock.release();
  const res = await pending;
  t.is(res.status, 200, res.text);
});
