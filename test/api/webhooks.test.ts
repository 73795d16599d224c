import test, { type ExecutionContext } from 'ava';
import { randomUUID } from 'node:crypto';
import Stripe from 'stripe';
import { Webhook } from 'standardwebhooks';
import { loadConfig, type Config } from '../../config';
import { createTemporalClient } from '../../temporal/client';
import { parseSignatureHeader, signatureMatches } from '../../domain/crypto/signature';
import { callbackIdFor } from '../../domain/ids';
import { asOperator, newMerchant, signed, type KeyPair } from '../helpers/api';
import { startApp, testSql } from '../helpers/app';
import { createPayin, operatorDeal } from '../helpers/deals';
import { eventually } from '../helpers/poll';
import { startReceiver, type Received } from '../helpers/receiver';
import { pollingBy, startWorker, startWorkerProcess } from '../helpers/worker';

const sql = testSql();
test.after.always(() => sql.end());
const stripe = new Stripe('sk_test_offline_only');

function verifyBoth(t: ExecutionContext, r: Received, secret: string) {
  const header = String(r.headers['x-signature']);
  t.is(String(r.headers['x-timestamp']), String(parseSignatureHeader(header)!.timestamp));
  t.true(signatureMatches(secret, parseSignatureHeader(header)!, r.body), 'our verifier');
  t.notThrows(() => stripe.webhooks.constructEvent(r.body, header, secret), "Stripe's verifier");
  // Standard Webhooks, checked by its own library with the secret exactly as issued.
  t.is(r.headers['webhook-id'], JSON.parse(r.body).event_id);
  t.is(r.headers['webhook-timestamp'], r.headers['x-timestamp']);
  t.notThrows(() => new Webhook(secret).verify(r.body, r.headers as Record<string, string>), 'the standardwebhooks library');
}

/**
 * The merchant's deliveries, but deal.expired: a PayIn a test leaves pending expires after
 * PAYIN_TIMEOUT_SECONDS (30 s in the suite) and sends it too, which a slow run reaches before its
 * checks; no test here is about that event.
 */
async function deliveries(merchantId: string) {
  return sql<{ id: string; status: string; attempts: number; event_type: string; http_status: number | null; response_body: string; last_error: string }[]>`
    select * from webhook_deliveries where merchant_id = ${merchantId} and event_type <> 'deal.expired' order by created_at, event_type`;
}

async function merchantWithReceiver(respond?: Parameters<typeof startReceiver>[0], extra: Record<string, unknown> = {}) {
  const receiver = await startReceiver(respond);
  const merchant = await newMerchant({ webhook_url: receiver.url, ...extra });
  return { receiver, ...merchant };
}

test('every event of a deal is delivered, signed (ours and Stripe verify), with int64 as strings and a stable event_id', async (t) => {
  const { receiver, merchantId, keys } = await merchantWithReceiver();
  t.teardown(() => receiver.close());
  const deal = await createPayin(keys, { amount: 92_500 });
  await operatorDeal(deal.deal_id, 'confirm');
  await eventually(async () => receiver.received.length >= 4 && receiver.received, 'four events');
  const bodies = receiver.received.map((r) => JSON.parse(r.body));
  t.deepEqual([...new Set(bodies.map((b) => b.type as string))].sort(), ['deal.completed', 'deal.created', 'deal.escrow_locked', 'deal.payment_verified']);
  const completed = bodies.find((b) => b.type === 'deal.completed');
  t.is(completed.deal.deal_id, deal.deal_id);
  t.is(completed.deal.amount, '92500');
  t.is(completed.deal.amount_version, '1');
  t.is(completed.deal.status, 'COMPLETED');
  t.truthy(Date.parse(completed.created_at));
  for (const r of receiver.received) {
    verifyBoth(t, r, keys.secret);
    t.is(r.headers['x-event-id'], JSON.parse(r.body).event_id);
    t.is(r.headers['content-type'], 'application/json');
  }
  const rows = await eventually(async () => {
    const r = await deliveries(merchantId);
    return r.length >= 4 && r.every((d) => d.status === 'SUCCESS') && r;
  }, 'recorded successes');
  t.true(rows.every((d) => d.attempts === 1));
});

test('a receiver that fails twice gets the same event three times; history and attempts are recorded', async (t) => {
  const seen = new Map<string, number>();
  const { receiver, merchantId, keys } = await merchantWithReceiver((_, res, request) => {
    const eventId = JSON.parse(request.body).event_id as string;
    seen.set(eventId, (seen.get(eventId) ?? 0) + 1);
    if (seen.get(eventId)! <= 2) res.writeHead(503).end('busy');
    else res.writeHead(200).end('ok');
  });
  t.teardown(() => receiver.close());
  const deal = await createPayin(keys);
  await eventually(async () => {
    const rows = await deliveries(merchantId);
    return rows.length === 2 && rows.every((d) => d.status === 'SUCCESS' && d.attempts >= 3);
  }, 'three attempts');
  t.true(
    [...seen.values()].every((n) => n >= 3),
    'each event_id came at least three times, always the same id',
  );
  const list = await signed(keys, 'GET', `/api/v1/p2p/merchant/callbacks?deal_id=${deal.deal_id}`);
  t.is(list.status, 200);
  const retried = list.body.data.find((d: { event_type: string }) => d.event_type === 'deal.created');
  t.like(retried, { deal_id: deal.deal_id, status: 'SUCCESS', http_status: 200, response_body: 'ok', url: receiver.url });
  t.deepEqual(Object.keys(retried).sort(), [
    'attempts',
    'callback_id',
    'created_at',
    'deal_id',
    'event_id',
    'event_type',
    'http_status',
    'response_body',
    'status',
    'updated_at',
    'url',
  ]);
  const attempts = await sql`select status, http_status from webhook_attempts where callback_id = ${retried.callback_id} order by attempt`;
  t.deepEqual(
    attempts.slice(0, 2).map((a) => [a.status, a.http_status]),
    [
      ['RETRY', 503],
      ['RETRY', 503],
    ],
  );
  t.deepEqual(attempts.map((a) => a.status).slice(-1), ['SUCCESS']);
  const alias = await signed(keys, 'GET', `/api/v1/p2p/callbacks?page_size=1`);
  t.is(alias.body.data.length, 1);
  t.truthy(alias.body.next_page_token);
  const page2 = await signed(keys, 'GET', `/api/v1/p2p/callbacks?page_size=1&page_token=${encodeURIComponent(alias.body.next_page_token)}`);
  t.not(page2.body.data[0].callback_id, alias.body.data[0].callback_id);
  t.is((await signed(keys, 'GET', '/api/v1/p2p/callbacks?page_token=forged')).status, 400);
});

test('3xx is success and is not followed; a huge body is stored cut to 2048 bytes', async (t) => {
  const { receiver, merchantId, keys } = await merchantWithReceiver((i, res) =>
    i === 0 ? res.writeHead(301, { Location: 'http://127.0.0.1:9/' }).end() : res.writeHead(200).end('y'.repeat(500_000)),
  );
  t.teardown(() => receiver.close());
  await createPayin(keys);
  const rows = await eventually(async () => {
    const r = await deliveries(merchantId);
    return r.length === 2 && r.every((d) => d.status === 'SUCCESS') && r;
  }, 'both events');
  t.deepEqual(
    rows.map((d) => d.attempts),
    [1, 1],
  );
  t.deepEqual(rows.map((d) => d.http_status).sort(), [200, 301]);
  t.is(rows.find((d) => d.http_status === 200)!.response_body.length, 2048);
});

test('a hanging receiver ends in ERROR after max_retries; manual retry works once and respects the cooldown', async (t) => {
  let healthy = false;
  const { receiver, merchantId, keys } = await merchantWithReceiver((_, res) => {
    if (healthy) res.writeHead(200).end('fine');
    // otherwise never answer: the test stack's WEBHOOK_TIMEOUT_MS fires
  });
  t.teardown(() => receiver.close());
  await sql`update merchants set webhook_max_retries = 2 where id = ${merchantId}`;
  await createPayin(keys);
  const failed = await eventually(
    async () => {
      const r = await deliveries(merchantId);
      return r.length === 2 && r.every((d) => d.status === 'ERROR') && r;
    },
    'ERROR after two attempts',
    300_000,
  );
  t.true(
    failed.every((d) => d.attempts === 2 && d.http_status === null && /timed out/.test(d.last_error)),
    JSON.stringify(failed),
  );

  const [first, second] = failed;
  const retry = (id: string) => signed(keys, 'POST', `/api/v1/p2p/merchant/callbacks/${id}/retry`);
  const errorAgain = await retry(first!.id);
  t.is(errorAgain.status, 200);
  const cooling = await retry(first!.id);
  t.is(cooling.status, 400);
  t.regex(JSON.parse(cooling.body.detail).message, /cooldown/);

  healthy = true;
  t.is((await retry(second!.id)).status, 200);
  await eventually(async () => (await deliveries(merchantId)).find((d) => d.id === second!.id)?.status === 'SUCCESS', 'manual retry success');
  const done = (await deliveries(merchantId)).find((d) => d.id === second!.id)!;
  t.is(done.attempts, 3);
  t.is((await retry(second!.id)).status, 400, 'SUCCESS is not retryable');
  t.is((await retry(randomUUID())).status, 404);
  const stranger = await newMerchant();
  t.is((await signed(stranger.keys, 'POST', `/api/v1/p2p/merchant/callbacks/${first!.id}/retry`)).status, 404);
});

test('a manual retry answers the delivery queued (RETRY); GET /callbacks/{id} follows it to ERROR or SUCCESS', async (t) => {
  let healthy = false;
  const { receiver, merchantId, keys } = await merchantWithReceiver((_, res) => res.writeHead(healthy ? 200 : 500).end(healthy ? 'ok' : 'down'));
  t.teardown(() => receiver.close());
  await sql`update merchants set webhook_max_retries = 1 where id = ${merchantId}`;
  await createPayin(keys);
  const failed = await eventually(
    async () => {
      const r = await deliveries(merchantId);
      return r.length === 2 && r.every((d) => d.status === 'ERROR') && r;
    },
    'both deliveries ERROR after their one attempt',
    60_000,
  );
  const [first, second] = failed;
  const one = (id: string) => signed(keys, 'GET', `/api/v1/p2p/merchant/callbacks/${id}`);
  const retry = (id: string) => signed(keys, 'POST', `/api/v1/p2p/merchant/callbacks/${id}/retry`);

  const before = await one(first!.id);
  t.is(before.status, 200, before.text);
  t.like(before.body, { callback_id: first!.id, status: 'ERROR', attempts: 1, http_status: 500, response_body: 'down' });

  // Still failing: the retry is accepted (RETRY), then its attempt fails and the delivery is ERROR again.
  const accepted = await retry(first!.id);
  t.is(accepted.status, 200, accepted.text);
  t.like(accepted.body, { callback_id: first!.id, status: 'RETRY', attempts: 1 });
  const listed = await signed(keys, 'GET', '/api/v1/p2p/merchant/callbacks');
  t.true(
    ['RETRY', 'ERROR'].includes(listed.body.data.find((d: { callback_id: string }) => d.callback_id === first!.id).status),
    'the listing shows the same statuses',
  );
  const again = await eventually(
    async () => {
      const res = await one(first!.id);
      return res.body.status === 'ERROR' && res.body.attempts === 2 && res.body;
    },
    'the failed manual attempt leaves ERROR',
    60_000,
  );
  t.like(again, { http_status: 500 });

  // Healthy now: the retry of the other delivery is accepted, then SUCCESS.
  healthy = true;
  const queued = await retry(second!.id);
  t.is(queued.status, 200, queued.text);
  t.is(queued.body.status, 'RETRY');
  const delivered = await eventually(
    async () => {
      const res = await one(second!.id);
      return res.body.status === 'SUCCESS' && res.body;
    },
    'the manual attempt delivered it',
    60_000,
  );
  t.like(delivered, { attempts: 2, http_status: 200, response_body: 'ok' });

  // One delivery, the caller's only.
  t.is((await one(randomUUID())).status, 404);
  const stranger = await newMerchant();
  const foreign = await signed(stranger.keys, 'GET', `/api/v1/p2p/merchant/callbacks/${first!.id}`);
  t.is(foreign.status, 404);
  t.is(foreign.headers.get('content-type')?.split(';')[0], 'application/problem+json');
  const bad = await one('not-a-uuid');
  t.is(bad.status, 400);
  t.is(bad.body.errors?.[0]?.field, 'callback_id');
});

test('after rotation deliveries are signed with the new secret at once, and with the old one too during its grace window; callback_url overrides the target', async (t) => {
  const { receiver, keys } = await merchantWithReceiver();
  t.teardown(() => receiver.close());
  const override = await startReceiver();
  t.teardown(() => override.close());
  await createPayin(keys);
  await eventually(async () => receiver.received.length >= 2, 'first deal events');
  for (const r of receiver.received) verifyBoth(t, r, keys.secret);
  const rotated = (await signed(keys, 'POST', '/api/v1/p2p/merchant/api-keys/rotate')).body as KeyPair;
  const before = receiver.received.length;
  await createPayin(rotated, { callback_url: override.url });
  await createPayin(rotated);
  await eventually(async () => override.received.length >= 2 && receiver.received.length >= before + 2, 'events after rotation');
  for (const r of [...override.received, ...receiver.received.slice(before)]) {
    verifyBoth(t, r, rotated.secret);
    // The grace window (MERCHANT_KEY_GRACE_PERIOD, 900 s here): the old secret signs second, so a
    // receiver switches secrets whenever it likes without losing an event.
    const parsed = parseSignatureHeader(String(r.headers['x-signature']))!;
    t.is(parsed.v1.length, 2);
    t.true(signatureMatches(rotated.secret, { ...parsed, v1: [parsed.v1[0]!] }, r.body), 'the new secret signs first');
    t.true(signatureMatches(keys.secret, { ...parsed, v1: [parsed.v1[1]!] }, r.body), 'the old one second');
    t.is(String(r.headers['webhook-signature']).split(' ').length, 2);
    verifyBoth(t, r, keys.secret);
  }
  t.true(override.received.every((r) => JSON.parse(r.body).deal.payment_url.includes('/pay/')));
});

test('deal.amount_changed is not delivered to V1 merchants', async (t) => {
  const { receiver, keys } = await merchantWithReceiver(undefined, { api_version: 'v1' });
  t.teardown(() => receiver.close());
  const deal = await createPayin(keys);
  // A lower amount: the change needs no more of the shared trader's liquidity, which other tests use at the same time.
  const changed = await asOperator('POST', `/api/v1/p2p/deals/${deal.deal_id}/amount`, { amount_fiat: 100_000, reason: 'fix', idempotency_key: randomUUID() });
  t.is(changed.status, 200, changed.text);
  await operatorDeal(deal.deal_id, 'confirm');
  // V1 merchants get the legacy envelope, which names the event in eventType.
  await eventually(async () => receiver.received.some((r) => JSON.parse(r.body).eventType === 'deal.completed'), 'completion event');
  t.false(receiver.received.some((r) => JSON.parse(r.body).eventType === 'deal.amount_changed'));
  const [dispatched] = await sql`select dispatched_at from outbox_events where deal_id = ${deal.deal_id} and event_type = 'deal.amount_changed'`;
  t.truthy(dispatched!.dispatched_at, 'the event is consumed, not left pending');
});

/** An event of its own, already marked dispatched (no relay takes it), and its delivery record, as the relay writes them. */
async function ownEvent(merchantId: string, url: string, type: string, dealId: string = randomUUID()) {
  const eventId = randomUUID();
  await sql`insert into outbox_events (id, merchant_id, deal_id, event_type, payload, dispatched_at)
    values (${eventId}, ${merchantId}, ${dealId}, ${type}, ${sql.json({ deal: { deal_id: dealId, amount: '1' } })}, now())`;
  const callbackId = callbackIdFor(eventId, url);
  await sql`insert into webhook_deliveries (id, merchant_id, deal_id, event_id, event_type, url)
    values (${callbackId}, ${merchantId}, ${dealId}, ${eventId}, ${type}, ${url})`;
  return { eventId, callbackId, eventType: type, maxAttempts: 5 };
}

/**
 * A deal's two events for a receiver that refuses the first attempt, and a worker process of its
 * own polling a fresh task queue: what the SIGKILL tests below share. `restart` kills the worker
 * and starts another.
 */
async function killScenario(t: ExecutionContext, prefix: string) {
  const receiver = await startReceiver((i, res) => res.writeHead(i === 0 ? 500 : 200).end());
  t.teardown(() => receiver.close());
  const { merchantId } = await newMerchant({ webhook_url: receiver.url });
  const dealId = randomUUID();
  const first = await ownEvent(merchantId, receiver.url, 'deal.created', dealId);
  const last = await ownEvent(merchantId, receiver.url, 'deal.completed', dealId);
  const taskQueue = `${prefix}-${randomUUID()}`;
  const env = { TEMPORAL_TASK_QUEUE: `${taskQueue}-deals`, WEBHOOK_TASK_QUEUE: taskQueue, OUTBOX_RELAY: 'false' };
  let worker = startWorkerProcess(env);
  t.teardown(() => void worker.kill('SIGKILL'));
  const client = await createTemporalClient(loadConfig(process.env));
  t.teardown(() => client.connection.close());
  await pollingBy(client, taskQueue, worker.pid);
  const restart = async (between?: () => void) => {
    worker.kill('SIGKILL'); // dies without any chance to clean up
    await new Promise((resolve) => worker.once('exit', resolve));
    between?.();
    worker = startWorkerProcess(env);
    await pollingBy(client, taskQueue, worker.pid);
  };
  return { receiver, merchantId, dealId, first, last, taskQueue, client, restart };
}

test("a deal's events reach the target in outbox order, one delivery each, even when an earlier one needs retries", async (t) => {
  // The first event of every deal is refused twice; the later ones must not overtake it.
  const firstSeen = new Map<string, number>();
  const { receiver, merchantId, keys } = await merchantWithReceiver((_, res, request) => {
    const body = JSON.parse(request.body);
    if (body.type !== 'deal.created') return res.writeHead(200).end();
    const n = (firstSeen.get(body.event_id) ?? 0) + 1;
    firstSeen.set(body.event_id, n);
    res.writeHead(n <= 2 ? 503 : 200).end();
  });
  t.teardown(() => receiver.close());
  const deal = await createPayin(keys);
  await operatorDeal(deal.deal_id, 'confirm');
  await eventually(async () => receiver.received.some((r) => JSON.parse(r.body).type === 'deal.completed'), 'the completion', 60_000);
  const types = receiver.received.map((r) => JSON.parse(r.body).type as string);
  t.deepEqual(types, ['deal.created', 'deal.created', 'deal.created', 'deal.escrow_locked', 'deal.payment_verified', 'deal.completed']);
  const [written] = await sql<{ types: string[] }[]>`select array_agg(event_type order by seq) as types from outbox_events where deal_id = ${deal.deal_id}`;
  t.deepEqual([...new Set(types)], written!.types, 'the outbox order');
  const rows = await deliveries(merchantId);
  t.is(rows.length, 4, 'one delivery record per event');
});

test('an event relayed again after a relay crash is delivered exactly once', async (t) => {
  const receiver = await startReceiver();
  t.teardown(() => receiver.close());
  const { merchantId } = await newMerchant({ webhook_url: receiver.url });
  const dealId = randomUUID();
  const client = await createTemporalClient(loadConfig(process.env));
  t.teardown(() => client.connection.close());
  const written = async (type: string) => {
    const id = randomUUID();
    await sql`insert into outbox_events (id, merchant_id, deal_id, event_type, payload)
      values (${id}, ${merchantId}, ${dealId}, ${type}, ${sql.json({ deal: { deal_id: dealId, amount: '7' } })})`;
    return id;
  };
  const delivered = (id: string) => eventually(async () => receiver.received.some((r) => JSON.parse(r.body).event_id === id), `delivery of ${id}`);
  const eventId = await written('deal.escrow_locked');
  await delivered(eventId);
  const [stream] = await eventually(async () => {
    const runs: { workflowId: string; runId: string }[] = [];
    for await (const wf of client.workflow.list({ query: `MerchantId = "${merchantId}" AND WorkflowType = "webhookEndpointWorkflow"` })) runs.push(wf);
    return runs.length > 0 && runs;
  }, 'the endpoint stream in visibility');
  // The relay "crashed" before marking the event: the running relay finds it again and signals it again.
  await sql`update outbox_events set dispatched_at = null where id = ${eventId}`;
  await eventually(
    async () => (await sql`select dispatched_at from outbox_events where id = ${eventId}`)[0]!.dispatched_at,
    'the relay to take the event again',
  );
  // A probe event after it: once it is delivered, a wrong second delivery had its chance.
  const probeId = await written('deal.completed');
  await delivered(probeId);
  const handle = client.workflow.getHandle(stream!.workflowId);
  t.is((await handle.describe()).runId, stream!.runId, 'one run took both');
  t.is(receiver.received.filter((r) => JSON.parse(r.body).event_id === eventId).length, 1, 'delivered exactly once');
  const [attempts] =
    await sql`select count(*)::int as n from webhook_attempts a join webhook_deliveries d on d.id = a.callback_id where d.event_id = ${eventId}`;
  t.is(attempts!.n, 1, 'one attempt recorded');
});

test("a deal's workflow is findable in Temporal by DealId and MerchantId; its deliveries go through the merchant endpoint's stream, listed by deal from Postgres", async (t) => {
  const { receiver, merchantId, keys } = await merchantWithReceiver();
  t.teardown(() => receiver.close());
  const deal = await createPayin(keys);
  const client = await createTemporalClient(loadConfig(process.env));
  t.teardown(() => client.connection.close());
  const found = await eventually(async () => {
    const runs: { workflowId: string; type: string }[] = [];
    for await (const wf of client.workflow.list({ query: `MerchantId = "${merchantId}"` })) runs.push(wf);
    return runs.some((r) => r.type === 'webhookEndpointWorkflow') && runs;
  }, 'the endpoint stream in visibility');
  t.true(
    found.some((r) => r.workflowId.startsWith(`webhooks:endpoint:${merchantId}:`)),
    'webhooks:endpoint:<merchant>:<target>',
  );
  t.true(found.some((r) => r.workflowId === `payin:${deal.deal_id}`));
  const byDeal: { workflowId: string }[] = [];
  for await (const wf of client.workflow.list({ query: `DealId = "${deal.deal_id}"` })) byDeal.push(wf);
  t.deepEqual(
    byDeal.map((w) => w.workflowId),
    [`payin:${deal.deal_id}`],
    'a deal is one workflow: its own',
  );
  const rows = await eventually(async () => {
    const listed = await signed(keys, 'GET', `/api/v1/p2p/merchant/callbacks?deal_id=${deal.deal_id}`);
    // Its deal.expired (the PayIn is left to time out) is not what this test is about.
    const data = listed.body.data.filter((d: { event_type: string }) => d.event_type !== 'deal.expired');
    return data.length === 2 && data.every((d: { status: string }) => d.status === 'SUCCESS') && data;
  }, 'both events delivered, listed by deal');
  t.deepEqual(rows.map((d: { event_type: string }) => d.event_type).sort(), ['deal.created', 'deal.escrow_locked']);
});

/** An endpoint stream of its own (one per test), handed events as the relay would. */
async function endpointStream(
  client: Awaited<ReturnType<typeof createTemporalClient>>,
  merchantId: string,
  url: string,
  overrides: Record<string, unknown> = {},
  taskQueue?: string,
) {
  const config = loadConfig(process.env);
  const workflowId = `webhooks:endpoint:${merchantId}:test-${randomUUID().slice(0, 8)}`;
  const input = { merchantId, url, delaysMs: [300], attemptTimeoutMs: 10_000, idleMs: 60_000, ...overrides };
  const send = (events: { lane: string; callbackId: string; eventId: string; eventType: string; maxAttempts: number }[]) =>
    client.workflow.signalWithStart('webhookEndpointWorkflow', {
      workflowId,
      taskQueue: taskQueue ?? config.WEBHOOK_TASK_QUEUE,
      args: [input],
      signal: 'endpoint-events',
      signalArgs: [events],
    });
  return { workflowId, send };
}

test('endpoint stream: a deal whose event is retrying holds up only its own lane; each lane stays in outbox order', async (t) => {
  const failures = new Map<string, number>();
  const ok: string[] = [];
  const receiver = await startReceiver((_, res, request) => {
    const id = JSON.parse(request.body).event_id as string;
    const n = (failures.get(id) ?? 0) + 1;
    failures.set(id, n);
    const status = request.body.includes('"deal.created"') && request.body.includes(slowDeal) && n <= 2 ? 503 : 200;
    if (status === 200) ok.push(id);
    res.writeHead(status).end();
  });
  t.teardown(() => receiver.close());
  const { merchantId } = await newMerchant({ webhook_url: receiver.url });
  const slowDeal = randomUUID();
  const fastDeal = randomUUID();
  const slow = [await ownEvent(merchantId, receiver.url, 'deal.created', slowDeal), await ownEvent(merchantId, receiver.url, 'deal.escrow_locked', slowDeal)];
  const fast = [await ownEvent(merchantId, receiver.url, 'deal.created', fastDeal), await ownEvent(merchantId, receiver.url, 'deal.escrow_locked', fastDeal)];
  const client = await createTemporalClient(loadConfig(process.env));
  t.teardown(() => client.connection.close());
  const stream = await endpointStream(client, merchantId, receiver.url, { delaysMs: [1500] });
  await stream.send([...slow.map((e) => ({ ...e, lane: slowDeal })), ...fast.map((e) => ({ ...e, lane: fastDeal }))]);
  await eventually(async () => ok.length === 4, 'all four delivered');
  const order = ok;
  t.true(order.indexOf(fast[1]!.eventId) < order.indexOf(slow[0]!.eventId), 'the fast deal finished while the slow one retried');
  t.true(order.indexOf(slow[0]!.eventId) < order.indexOf(slow[1]!.eventId), "the slow deal's events in order");
  t.true(order.indexOf(fast[0]!.eventId) < order.indexOf(fast[1]!.eventId));
  t.is(failures.get(slow[1]!.eventId), 1, 'the later event of the slow deal waited for the earlier one: sent once');
  const [attempts] = await sql`select count(*)::int as n from webhook_attempts where callback_id = ${slow[0]!.callbackId}`;
  t.is(attempts!.n, 3);
});

test('endpoint stream: continue-as-new carries the lanes, a head in the middle of its retries included — nothing lost, doubled or reordered', async (t) => {
  let failOnce = true;
  const ok: string[] = [];
  const receiver = await startReceiver((_, res, request) => {
    const retrying = request.body.includes('"deal.payment_verified"') && failOnce;
    if (retrying) failOnce = false;
    else ok.push(JSON.parse(request.body).event_id);
    res.writeHead(retrying ? 500 : 200).end();
  });
  t.teardown(() => receiver.close());
  const { merchantId } = await newMerchant({ webhook_url: receiver.url });
  const [a, b] = [randomUUID(), randomUUID()];
  const laneA = [
    await ownEvent(merchantId, receiver.url, 'deal.created', a),
    await ownEvent(merchantId, receiver.url, 'deal.payment_verified', a),
    await ownEvent(merchantId, receiver.url, 'deal.completed', a),
  ];
  const laneB = [await ownEvent(merchantId, receiver.url, 'deal.created', b)];
  const client = await createTemporalClient(loadConfig(process.env));
  t.teardown(() => client.connection.close());
  const stream = await endpointStream(client, merchantId, receiver.url, { continueAfter: 1, delaysMs: [2000], idleMs: 3000 });
  await stream.send([...laneA.map((e) => ({ ...e, lane: a })), ...laneB.map((e) => ({ ...e, lane: b })), { ...laneA[0]!, lane: a }]);
  await eventually(async () => ok.length === 4, 'every event delivered');
  const runs: string[] = [];
  await eventually(async () => {
    runs.length = 0;
    for await (const wf of client.workflow.list({ query: `WorkflowId = "${stream.workflowId}"` })) runs.push(wf.status.name);
    return runs.includes('CONTINUED_AS_NEW');
  }, 'a continue-as-new');
  const okA = ok.filter((id) => laneA.some((e) => e.eventId === id));
  t.deepEqual(
    okA,
    laneA.map((e) => e.eventId),
    'lane A in order, each once',
  );
  // An attempt is recorded once its POST has been answered: the receiver can see the last one first.
  const callbackIds = [...laneA, ...laneB].map((e) => e.callbackId);
  await eventually(async () => {
    const rows = await sql`select status from webhook_deliveries where id = any(${callbackIds})`;
    return rows.length === callbackIds.length && rows.every((r) => r.status === 'SUCCESS');
  }, 'every delivery recorded SUCCESS');
  const counts = await sql<{ callback_id: string; n: number }[]>`
    select callback_id, count(*)::int as n from webhook_attempts where callback_id = any(${[...laneA, ...laneB].map((e) => e.callbackId)}) group by callback_id`;
  t.deepEqual(
    Object.fromEntries(counts.map((c) => [c.callback_id, c.n])),
    { [laneA[0]!.callbackId]: 1, [laneA[1]!.callbackId]: 2, [laneA[2]!.callbackId]: 1, [laneB[0]!.callbackId]: 1 },
    'the retried head made its second attempt once, in whichever run',
  );
});

test('endpoint stream: an event that cannot be attempted at all is given up (ERROR) without holding up its lane or the others', async (t) => {
  const receiver = await startReceiver();
  t.teardown(() => receiver.close());
  const { merchantId } = await newMerchant({ webhook_url: receiver.url });
  const [a, b] = [randomUUID(), randomUUID()];
  // A callback without a delivery record: its attempt fails for good (not the receiver's answer).
  const poisoned = await ownEvent(merchantId, receiver.url, 'deal.created', a);
  await sql`delete from webhook_deliveries where id = ${poisoned.callbackId}`;
  const next = await ownEvent(merchantId, receiver.url, 'deal.completed', a);
  const other = await ownEvent(merchantId, receiver.url, 'deal.created', b);
  // Nor is an event with no outbox row behind it at all.
  const unknown = { callbackId: randomUUID(), eventId: randomUUID(), eventType: 'deal.created', maxAttempts: 5 };
  const client = await createTemporalClient(loadConfig(process.env));
  t.teardown(() => client.connection.close());
  const stream = await endpointStream(client, merchantId, receiver.url, { idleMs: 1000 });
  const handle = await stream.send([
    { ...poisoned, lane: a },
    { ...next, lane: a },
    { ...unknown, lane: b },
    { ...other, lane: b },
  ]);
  await eventually(async () => receiver.received.length === 2, 'the two deliverable events');
  t.deepEqual(receiver.received.map((r) => JSON.parse(r.body).event_id).sort(), [next.eventId, other.eventId].sort());
  t.is(await handle.result(), 4, 'the stream went past both and ended normally');
});

test('endpoint stream: a retry pause longer than the idle time costs no watchdog timers while it lasts', async (t) => {
  // Idle after 500 ms, the head's retry 4 s later: the watchdog must wait for the lane, not tick.
  const receiver = await startReceiver((i, res) => res.writeHead(i === 0 ? 500 : 200).end());
  t.teardown(() => receiver.close());
  const { merchantId } = await newMerchant({ webhook_url: receiver.url });
  const dealId = randomUUID();
  const event = await ownEvent(merchantId, receiver.url, 'deal.created', dealId);
  const client = await createTemporalClient(loadConfig(process.env));
  t.teardown(() => client.connection.close());
  const stream = await endpointStream(client, merchantId, receiver.url, { delaysMs: [4000], idleMs: 500 });
  const handle = await stream.send([{ ...event, lane: dealId }]);
  t.is(await handle.result(), 1, 'the event delivered, then the stream closed idle');
  t.is(receiver.received.length, 2);
  const history = await handle.fetchHistory();
  const timers = (history.events ?? []).filter((e) => e.timerStartedEventAttributes).length;
  // The retry pause (1) and one idle period after the lane ended (1); before the fix a 1 s timer
  // ticked through the 4 s pause once the 500 ms idle time had passed (3 to 4 more).
  t.true(timers <= 3, `${timers} timers`);
});

test('endpoint stream: a worker SIGKILLed during a retry pause is replaced and the lane finishes, in order', async (t) => {
  const { receiver, merchantId, dealId, first, last, taskQueue, client, restart } = await killScenario(t, 'kill-endpoint');
  const stream = await endpointStream(client, merchantId, receiver.url, { delaysMs: [3000], idleMs: 1000 }, taskQueue);
  const handle = await stream.send([
    { ...first, lane: dealId },
    { ...last, lane: dealId },
  ]);
  await eventually(
    async () => (await sql`select status from webhook_deliveries where id = ${first.callbackId}`)[0]?.status === 'RETRY',
    'the first (failing) attempt',
    60_000,
  );
  await restart(() => t.is(receiver.received.length, 1)); // inside the 3 s pause
  await eventually(async () => receiver.received.length === 3, 'the retry and the next event', 60_000);
  t.is(await handle.result(), 2, 'both events delivered, then the stream closed idle');
  t.deepEqual(
    receiver.received.map((r) => JSON.parse(r.body).event_id),
    [first.eventId, first.eventId, last.eventId],
    'the later event waited for the earlier one',
  );
});

test('endpoint stream: a long lane continues as new with its queue, a repeated signal included — nothing lost, nothing doubled, still in order', async (t) => {
  const receiver = await startReceiver();
  t.teardown(() => receiver.close());
  const { merchantId } = await newMerchant({ webhook_url: receiver.url });
  const dealId = randomUUID();
  const [first, ...rest] = [
    await ownEvent(merchantId, receiver.url, 'deal.created', dealId),
    await ownEvent(merchantId, receiver.url, 'deal.escrow_locked', dealId),
    await ownEvent(merchantId, receiver.url, 'deal.payment_verified', dealId),
    await ownEvent(merchantId, receiver.url, 'deal.completed', dealId),
  ];
  const client = await createTemporalClient(loadConfig(process.env));
  t.teardown(() => client.connection.close());
  const stream = await endpointStream(client, merchantId, receiver.url, { delaysMs: [200], continueAfter: 1 });
  const inLane = (events: (typeof first)[]) => events.map((e) => ({ ...e!, lane: dealId }));
  await stream.send(inLane([first]));
  await eventually(async () => receiver.received.length === 1, 'the first event');
  // The run has delivered one and continues as new: the next events (and a repeat of the first) reach a later run.
  await stream.send(inLane([first, ...rest]));
  await eventually(async () => receiver.received.length === 4, 'the later events');
  const runs: string[] = [];
  await eventually(async () => {
    runs.length = 0;
    for await (const wf of client.workflow.list({ query: `WorkflowId = "${stream.workflowId}"` })) runs.push(wf.status.name);
    return runs.includes('CONTINUED_AS_NEW');
  }, 'a continue-as-new in visibility');
  t.true(runs.includes('CONTINUED_AS_NEW'), JSON.stringify(runs));
  t.deepEqual(
    receiver.received.map((r) => JSON.parse(r.body).event_id),
    [first!, ...rest].map((e) => e.eventId),
  );
  const [attempts] = await sql`select count(*)::int as n from webhook_attempts where callback_id = any(${[first!, ...rest].map((e) => e.callbackId)})`;
  t.is(attempts!.n, 4);
});

const utf8Bytes = (s: string) => Buffer.byteLength(s, 'utf8');

test('a receiver answering with a NUL byte, invalid UTF-8 or long multi-byte text: every attempt is recorded, each body valid and at most 2048 bytes', async (t) => {
  const tries = new Map<string, number>();
  const { receiver, merchantId, keys } = await merchantWithReceiver((_, res, request) => {
    const body = JSON.parse(request.body);
    const n = (tries.get(body.event_id) ?? 0) + 1;
    tries.set(body.event_id, n);
    if (body.type !== 'deal.created') return res.writeHead(200).end(`a${'é'.repeat(2000)}`); // 4001 bytes: byte 2048 is inside an é
    if (n === 1) return res.writeHead(500).end(Buffer.from('refused\0by the receiver'));
    res.writeHead(200).end(Buffer.concat([Buffer.from('ok\0'), Buffer.from([0xff, 0xfe, 0xc3]), Buffer.from(' done')]));
  });
  t.teardown(() => receiver.close());
  const deal = await createPayin(keys);
  const rows = await eventually(
    async () => {
      const r = await deliveries(merchantId);
      return r.length === 2 && r.every((d) => d.status === 'SUCCESS') && r;
    },
    'both events delivered and recorded',
    120_000,
  );
  const created = rows.find((d) => d.event_type === 'deal.created')!;
  const locked = rows.find((d) => d.event_type === 'deal.escrow_locked')!;
  t.like(created, { attempts: 2, http_status: 200, response_body: 'ok\uFFFD\uFFFD\uFFFD\uFFFD done' });
  const attempts = await sql<{ status: string; http_status: number; response_body: string }[]>`
    select status, http_status, response_body from webhook_attempts where callback_id = ${created.id} order by attempt`;
  t.deepEqual(
    attempts.map((a) => ({ ...a })),
    [
      { status: 'RETRY', http_status: 500, response_body: 'refused\uFFFDby the receiver' },
      { status: 'SUCCESS', http_status: 200, response_body: 'ok\uFFFD\uFFFD\uFFFD\uFFFD done' },
    ],
  );
  // Cut on a character boundary: the last whole é that fits, never a U+FFFD for the half of one.
  t.like(locked, { attempts: 1, http_status: 200, response_body: `a${'é'.repeat(1023)}` });
  t.is(utf8Bytes(locked.response_body), 2047);
  const list = await signed(keys, 'GET', `/api/v1/p2p/merchant/callbacks?deal_id=${deal.deal_id}`);
  t.is(list.status, 200);
  t.is(list.body.data.length, 2);
  for (const item of list.body.data as { response_body: string }[]) {
    t.true(utf8Bytes(item.response_body) <= 2048);
    t.false(item.response_body.includes('\0'));
  }
});

test('a failure to record an attempt never gives the event up: the attempt is recorded without the body it could not store', async (t) => {
  // The database refuses this one answer (a data error, SQLSTATE class 22), as it refused a NUL.
  const fn = `refuse_${randomUUID().replace(/-/g, '')}`;
  await sql.unsafe(`create function ${fn}() returns trigger language plpgsql as $$
    begin
      if new.response_body like '%refused-by-the-database%' then raise exception 'cannot store this answer' using errcode = '22023'; end if;
      return new;
    end $$`);
  await sql.unsafe(`create trigger ${fn} before insert on webhook_attempts for each row execute function ${fn}()`);
  t.teardown(async () => {
    await sql.unsafe(`drop trigger if exists ${fn} on webhook_attempts`);
    await sql.unsafe(`drop function if exists ${fn}()`);
  });
  const { receiver, merchantId, keys } = await merchantWithReceiver((_, res) => res.writeHead(200).end('refused-by-the-database'));
  t.teardown(() => receiver.close());
  await createPayin(keys);
  const rows = await eventually(
    async () => {
      const r = await deliveries(merchantId);
      return r.length === 2 && r.every((d) => d.status === 'SUCCESS') && r;
    },
    'both events recorded',
    120_000,
  );
  for (const row of rows) {
    t.like(row, { attempts: 1, http_status: 200, response_body: '' });
    t.regex(row.last_error, /could not be stored/);
  }
});

test('an event given up after a permanent failure ends ERROR, is listed, and a manual retry delivers it', async (t) => {
  const receiver = await startReceiver();
  t.teardown(() => receiver.close());
  const { merchantId, keys } = await newMerchant({ webhook_url: receiver.url, api_version: 'v1' });
  // A withdrawal event whose stored record cannot be rendered in the V1 envelope (bad data: no amounts).
  const eventId = randomUUID();
  await sql`insert into outbox_events (id, merchant_id, deal_id, event_type, payload)
    values (${eventId}, ${merchantId}, null, 'p2p.finance.withdrawal_failed', ${sql.json({ withdrawal: { withdrawal_id: eventId } })})`;
  const callbackId = callbackIdFor(eventId, receiver.url);
  const row = async () =>
    (
      await sql<
        { status: string; attempts: number; last_error: string }[]
      >`select status, attempts, last_error from webhook_deliveries where id = ${callbackId}`
    )[0];
  const given = await eventually(async () => (await row())?.status === 'ERROR' && row(), 'the delivery given up in ERROR', 120_000);
  t.is(given!.attempts, 0, 'nothing was sent');
  t.regex(given!.last_error, /given up/);
  t.is(receiver.received.length, 0);
  const list = await signed(keys, 'GET', '/api/v1/p2p/merchant/callbacks');
  t.like(
    list.body.data.find((d: { callback_id: string }) => d.callback_id === callbackId),
    { status: 'ERROR', attempts: 0 },
  );

  // The data is repaired; the merchant retries by hand.
  const withdrawal = {
    withdrawal_id: eventId,
    status: 'CANCELLED',
    amount: '1500',
    fee_usdt_cents: '100',
    net_usdt_cents: '1400',
    address: 'TXYZ',
    tx_hash: '',
    idempotency_key: 'req-1',
    created_at: new Date().toISOString(),
    updated_at: new Date().toISOString(),
    completed_at: '',
  };
  await sql`update outbox_events set payload = ${sql.json({ withdrawal })} where id = ${eventId}`;
  const retry = await signed(keys, 'POST', `/api/v1/p2p/merchant/callbacks/${callbackId}/retry`);
  t.is(retry.status, 200, retry.text);
  await eventually(async () => (await row())?.status === 'SUCCESS', 'the manual retry delivered it');
  t.like(await row(), { attempts: 1 });
  t.is(receiver.received.length, 1);
  t.like(JSON.parse(receiver.received[0]!.body), { eventId, eventType: 'p2p.finance.withdrawal_failed', amount: '15.00' });
});

/** Timers a stream started: a wait (retry pause, parked or busy) shows as one. */
async function streamTimers(client: Awaited<ReturnType<typeof createTemporalClient>>, workflowId: string): Promise<number[]> {
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  return history
    .events!.filter((e) => e.timerStartedEventAttributes)
    .map((e) => {
      const d = e.timerStartedEventAttributes!.startToFireTimeout!;
      return Number(d.seconds ?? 0) * 1000 + Math.round((d.nanos ?? 0) / 1e6);
    });
}

/**
 * Two merchants whose endpoints share one host (one receiver, two paths), an endpoint stream per
 * event, and a worker of their own (its own gate, its own workflow-task slots: the first attempts
 * are local activities, and other tests' hanging receivers must not hold them up).
 */
async function sharedHost(
  answerA: (res: import('node:http').ServerResponse) => void,
  options: { worker?: Partial<Config>; attemptTimeoutMs?: number; onB?: () => void } = {},
) {
  const receiver = await startReceiver((_, res, request) => {
    if (request.path === '/a') return answerA(res);
    options.onB?.();
    res.writeHead(200).end('ok');
  });
  const base = receiver.url.replace(/\/hooks$/, '');
  const a = await newMerchant({ webhook_url: `${base}/a` });
  const b = await newMerchant({ webhook_url: `${base}/b` });
  const config = loadConfig(process.env);
  const client = await createTemporalClient(config);
  const taskQueue = `shared-host-${randomUUID()}`;
  const worker = await startWorker(taskQueue, options.worker);
  /** One event in a stream of its own (a deal of its own, closing once delivered), as the relay would hand it over. */
  const send = async (merchant: { merchantId: string }, url: string, maxAttempts: number, delaysMs: number[]) => {
    const dealId = randomUUID();
    const event = { ...(await ownEvent(merchant.merchantId, url, 'deal.completed', dealId)), maxAttempts };
    const stream = await endpointStream(
      client,
      merchant.merchantId,
      url,
      { delaysMs, idleMs: 0, ...(options.attemptTimeoutMs ? { attemptTimeoutMs: options.attemptTimeoutMs } : {}) },
      taskQueue,
    );
    await stream.send([{ ...event, lane: dealId }]);
    return { ...event, workflowId: stream.workflowId };
  };
  const close = async () => {
    await receiver.close();
    await worker.stop();
    await client.connection.close();
  };
  return { receiver, a: { ...a, url: `${base}/a` }, b: { ...b, url: `${base}/b` }, client, send, close };
}

test("merchants on one host: A's failing endpoint is parked, B's deliveries to the same host go at once, never parked", async (t) => {
  const { receiver, a, b, client, send, close } = await sharedHost((res) => res.writeHead(500).end('down'));
  t.teardown(close);
  const config = loadConfig(process.env);
  // Enough failing deliveries of A to open its circuit (WEBHOOK_BREAKER_FAILURES consecutive failures).
  const aEvents = await Promise.all(Array.from({ length: config.WEBHOOK_BREAKER_FAILURES + 4 }, () => send(a, a.url, 3, [200])));
  await eventually(
    async () => {
      const [n] = await sql`select count(*)::int as n from webhook_attempts where callback_id = any(${aEvents.map((e) => e.callbackId)})`;
      return n!.n >= config.WEBHOOK_BREAKER_FAILURES;
    },
    "A's failures",
    120_000,
  );
  const bEvents = await Promise.all(Array.from({ length: 5 }, () => send(b, b.url, 3, [200])));
  await eventually(
    async () => {
      const rows = await sql`select status, attempts from webhook_deliveries where id = any(${bEvents.map((e) => e.callbackId)})`;
      return rows.length === 5 && rows.every((r) => r.status === 'SUCCESS');
    },
    "B's deliveries",
    120_000,
  );
  const bRows = await sql`select attempts from webhook_deliveries where id = any(${bEvents.map((e) => e.callbackId)})`;
  t.true(bRows.every((r) => r.attempts === 1));
  for (const e of bEvents) t.deepEqual(await streamTimers(client, e.workflowId), [], "B's stream never waited");
  t.is(receiver.received.filter((r) => r.path === '/b').length, 5);
  // A's own circuit did open: some of its streams waited longer than its 200 ms retry pauses.
  const aTimers = await eventually(
    async () => {
      const all = (await Promise.all(aEvents.map((e) => streamTimers(client, e.workflowId)))).flat();
      return all.some((ms) => ms >= config.WEBHOOK_BREAKER_COOLDOWN_MS) && all;
    },
    "A's parked waits",
    120_000,
  );
  t.true(aTimers.length > 0);
});

test("merchants on one host: A's hanging endpoint holds at most its own in-flight cap, B's deliveries are never busy-delayed", async (t) => {
  // A never answers, for as long as the test runs (its sender's timeout is minutes here): count the
  // POSTs open at once, and how many of A's were open when each of B's arrived. B going while A
  // holds its whole cap is the property, seen on the connections, not on a clock.
  const hanging: import('node:http').ServerResponse[] = [];
  let open = 0;
  let mostOpen = 0;
  const openAtB: number[] = [];
  const { a, b, client, send, close } = await sharedHost(
    (res) => {
      hanging.push(res);
      open += 1;
      mostOpen = Math.max(mostOpen, open);
      res.on('close', () => (open -= 1));
    },
    { worker: { WEBHOOK_TIMEOUT_MS: 600_000 }, attemptTimeoutMs: 605_000, onB: () => openAtB.push(open) },
  );
  t.teardown(async () => {
    for (const res of hanging) res.destroy();
    await close();
  });
  const config = loadConfig(process.env);
  const aEvents = await Promise.all(Array.from({ length: config.WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT + 4 }, () => send(a, a.url, 1, [200])));
  await eventually(async () => open >= config.WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT, "A's endpoint full", 120_000);
  const bEvents = await Promise.all(Array.from({ length: 5 }, () => send(b, b.url, 3, [200])));
  await eventually(
    async () => {
      const rows = await sql`select status, attempts from webhook_deliveries where id = any(${bEvents.map((e) => e.callbackId)})`;
      return rows.length === 5 && rows.every((r) => r.status === 'SUCCESS' && r.attempts === 1);
    },
    "B's deliveries",
    120_000,
  );
  for (const e of bEvents) t.deepEqual(await streamTimers(client, e.workflowId), [], "B's stream never waited");
  t.true(mostOpen <= config.WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT, `A had ${mostOpen} POSTs in flight at once`);
  t.deepEqual(openAtB, Array(5).fill(config.WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT), "each of B's POSTs went while A held its whole cap");
  t.is(aEvents.length, config.WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT + 4);
});

test('with no grace window (MERCHANT_KEY_GRACE_PERIOD=0) only the new secret signs after a rotation', async (t) => {
  const api = await startApp({ MERCHANT_KEY_GRACE_PERIOD: 0 });
  t.teardown(() => api.close());
  const { receiver, keys } = await merchantWithReceiver();
  t.teardown(() => receiver.close());
  const rotated = (await signed(keys, 'POST', `${api.url}/api/v1/p2p/merchant/api-keys/rotate`)).body as KeyPair;
  t.truthy(rotated.secret);
  await createPayin(rotated);
  await eventually(async () => receiver.received.length >= 2, 'events after the rotation');
  for (const r of receiver.received) {
    verifyBoth(t, r, rotated.secret);
    t.is(parseSignatureHeader(String(r.headers['x-signature']))!.v1.length, 1);
    t.false(signatureMatches(keys.secret, parseSignatureHeader(String(r.headers['x-signature']))!, r.body));
    t.throws(() => new Webhook(keys.secret).verify(r.body, r.headers as Record<string, string>));
  }
});
