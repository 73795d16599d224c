/**
 * Isolation: `npm start` runs deal work and webhook deliveries as two worker processes
 * (WORKER_ROLE), the delivery one at a lower OS priority (WORKER_NICE). Each polls only its own
 * task queue, and together they serve a deal and its deliveries.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import test from 'ava';
import { newMerchant, signed } from '../helpers/api';
import { startApp, testSql } from '../helpers/app';
import { isolatedTrader, PAYIN } from '../helpers/deals';
import { eventually } from '../helpers/poll';
import { startReceiver } from '../helpers/receiver';
import { pollingBy, startWorkerProcess } from '../helpers/worker';
import { loadConfig } from '../../config';
import { callbackIdFor } from '../../domain/ids';
import { createTemporalClient } from '../../temporal/client';

const sql = testSql();
test.after.always(() => sql.end());

/** The nice value of a process (field 19 of /proc/<pid>/stat). */
const niceOf = (pid: number) => Number(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[16]);

test('a deals worker and a niced webhooks worker each poll only their queue, and together serve a deal and its deliveries', async (t) => {
  const queue = `roles-${randomUUID()}`;
  const base = { TEMPORAL_TASK_QUEUE: queue, WEBHOOK_TASK_QUEUE: `${queue}-webhooks`, OUTBOX_RELAY: 'false' };
  const deals = startWorkerProcess({ ...base, WORKER_ROLE: 'deals' });
  const webhooks = startWorkerProcess({ ...base, WORKER_ROLE: 'webhooks', WORKER_NICE: '10' });
  t.teardown(() => void deals.kill('SIGKILL'));
  t.teardown(() => void webhooks.kill('SIGKILL'));
  const temporal = await createTemporalClient(loadConfig(process.env));
  t.teardown(() => temporal.connection.close());
  const pollers = async (name: string) => {
    const { pollers: found } = await temporal.workflowService.describeTaskQueue({ namespace: 'default', taskQueue: { name }, taskQueueType: 1 });
    return (found ?? []).map((p) => Number(p.identity?.split('@')[0]));
  };
  await Promise.all([pollingBy(temporal, queue, deals.pid), pollingBy(temporal, `${queue}-webhooks`, webhooks.pid)]);
  t.deepEqual([...new Set(await pollers(queue))], [deals.pid], 'the deal queue is polled by the deals worker only');
  t.deepEqual([...new Set(await pollers(`${queue}-webhooks`))], [webhooks.pid], 'the webhook queue by the webhooks worker only');
  t.is(niceOf(webhooks.pid!), 10, 'the delivery worker yields the CPU');
  t.is(niceOf(deals.pid!), niceOf(process.pid), 'the deal worker keeps the default priority');

  // A PayIn on the deal queue is created by the deals worker ...
  const app = await startApp({ TEMPORAL_TASK_QUEUE: queue, WEBHOOK_TASK_QUEUE: `${queue}-webhooks` });
  t.teardown(() => app.close());
  const receiver = await startReceiver();
  t.teardown(() => receiver.close());
  // The merchant's own webhook_url is the suite's sink (the shared stack's relay may deliver there);
  // this receiver only hears from the stream below.
  const { keys, merchantId } = await newMerchant();
  const { method } = await isolatedTrader({ liquidity: 100_000 });
  const created = await signed(keys, 'POST', `${app.url}${PAYIN}`, {
    idempotency_key: randomUUID(),
    amount: 150_000,
    currency: 'RUB',
    payment_method_id: method,
  });
  t.is(created.status, 200, created.text);
  const dealId = created.body.deal.deal_id as string;
  // ... and its events, handed to a stream on the webhook queue (as a relay would), are delivered by the webhooks worker.
  const events = await sql<{ id: string; event_type: string }[]>`select id, event_type from outbox_events where deal_id = ${dealId} order by seq`;
  t.deepEqual(
    events.map((e) => e.event_type),
    ['deal.created', 'deal.escrow_locked'],
  );
  const items = events.map((e) => ({ callbackId: callbackIdFor(e.id, receiver.url), eventId: e.id, eventType: e.event_type, maxAttempts: 5 }));
  for (const item of items) {
    await sql`insert into webhook_deliveries (id, merchant_id, deal_id, event_id, event_type, url)
      values (${item.callbackId}, ${merchantId}, ${dealId}, ${item.eventId}, ${item.eventType}, ${receiver.url}) on conflict do nothing`;
  }
  await temporal.workflow.signalWithStart('webhookEndpointWorkflow', {
    workflowId: `webhooks:endpoint:${merchantId}:roles-test`,
    taskQueue: `${queue}-webhooks`,
    args: [{ merchantId, url: receiver.url, delaysMs: [200], attemptTimeoutMs: 10_000, idleMs: 0 }],
    signal: 'endpoint-events',
    signalArgs: [items.map((item) => ({ ...item, lane: dealId }))],
  });
  await eventually(async () => receiver.received.length >= 2, 'both events delivered', 120_000);
  t.deepEqual(
    receiver.received.map((r) => JSON.parse(r.body).type),
    ['deal.created', 'deal.escrow_locked'],
  );
});
