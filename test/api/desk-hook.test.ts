/**
 * The desk hook: each desk event is POSTed to DESK_HOOK_URL as signed JSON (Standard Webhooks,
 * DESK_HOOK_SECRET) by its own delivery workflow, retried on the policy's durable timers until a
 * 2xx; the relay hands every new event on once. A worker of this file, on a task queue of its
 * own, has the hook configured (the shared stack's has none: its relay stamps events unsent).
 */
import test from 'ava';
import type { Json } from '../helpers/api';
import { randomBytes, randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { loadConfig } from '../../config';
import { createTemporalClient } from '../../temporal/client';
import { deskNotificationWorkflowType, type DeskNotificationWorkflow } from '../../workflows/contracts/desk-notification';
import { appEnv, testSql } from '../helpers/app';
import { eventually } from '../helpers/poll';
import { startReceiver } from '../helpers/receiver';
import { startWorker } from '../helpers/worker';

const sql = testSql();
test.after.always(() => sql.end());

const SECRET = `whsec_${randomBytes(24).toString('base64')}`;

test('a desk event reaches the hook signed, once taken; a refused attempt is tried again on the timer; the relay hands each new event on', async (t) => {
  // The hook refuses the first POST, then takes them.
  const receiver = await startReceiver((i, res) => res.writeHead(i === 0 ? 503 : 204).end());
  t.teardown(() => receiver.close());
  const queue = `desk-hook-${process.pid}-${Date.now()}`;
  const worker = await startWorker(queue, {
    DESK_HOOK_URL: receiver.url,
    DESK_HOOK_SECRET: SECRET,
    WEBHOOK_TASK_QUEUE: queue,
    CONSOLE_BASE_URL: 'https://desk.example',
  });
  t.teardown(() => worker.stop());

  // An alert raised: the trigger writes its desk event in the same transaction.
  const alertId = randomUUID();
  await sql`insert into operator_alerts (id, kind, subject, message) values (${alertId}, 'hot_wallet_low', ${`wallet-${alertId}`}, 'The hot wallet is low on TRX')`;
  const [event] = await sql<{ id: bigint }[]>`select id from desk_events where object_id = ${alertId}`;
  t.truthy(event, 'the alert made a desk event');
  // The stack's relay (no hook there) stamps it handed on, sending nothing.
  await eventually(
    async () => (await sql`select 1 from desk_events where id = ${event!.id} and dispatched_at is not null`).length === 1,
    'the relay to take it',
  );

  const client = await createTemporalClient(loadConfig(appEnv()));
  t.teardown(() => client.connection.close());
  const run = await client.workflow.start<DeskNotificationWorkflow>(deskNotificationWorkflowType, {
    workflowId: `desk-hook-test:${event!.id}`,
    taskQueue: queue,
    args: [{ eventId: event!.id.toString(), maxAttempts: 5, attemptTimeoutMs: 15_000 }],
  });
  t.is(await run.result(), 'DELIVERED');
  t.is(receiver.received.length, 2, 'refused once, taken the second time');

  const [refused, taken] = receiver.received;
  t.is(taken!.body, refused!.body, 'the same body each attempt');
  t.true(taken!.at - refused!.at >= 4_500, 'the retry waited for its timer');
  const payload = new Webhook(SECRET).verify(taken!.body, {
    'webhook-id': String(taken!.headers['webhook-id']),
    'webhook-timestamp': String(taken!.headers['webhook-timestamp']),
    'webhook-signature': String(taken!.headers['webhook-signature']),
  }) as Record<string, Json>;
  t.is(taken!.headers['webhook-id'], `desk_${event!.id}`);
  t.like(payload, {
    id: `desk_${event!.id}`,
    type: 'alert.raised',
    object: { type: 'alert', id: alertId, url: 'https://desk.example/console/alerts' },
    merchant_id: null,
    summary: { alert_kind: 'hot_wallet_low', message: 'The hot wallet is low on TRX' },
    text: 'Alert hot_wallet_low: The hot wallet is low on TRX',
  });
  const [row] = await sql<{ attempts: number; last_status: number; delivered_at: Date | null }[]>`
    select attempts, last_status, delivered_at from desk_events where id = ${event!.id}`;
  t.like(row, { attempts: 2, last_status: 204 });
  t.truthy(row!.delivered_at);
  // A run for a delivered event sends nothing again.
  const repeat = await client.workflow.start<DeskNotificationWorkflow>(deskNotificationWorkflowType, {
    workflowId: `desk-hook-test-again:${event!.id}`,
    taskQueue: queue,
    args: [{ eventId: event!.id.toString(), maxAttempts: 5, attemptTimeoutMs: 15_000 }],
  });
  await repeat.result();
  t.is(receiver.received.length, 2);
});
