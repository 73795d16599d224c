import test from 'ava';
import { execFile } from 'node:child_process';
import { createHash, randomInt, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import proto from '@temporalio/proto';
import { loadConfig } from '../../config';
import { createTemporalClient } from '../../temporal/client';
import { payloadCodec } from '../../temporal/payload-codec';
import { temporalConnectionOptions } from '../../temporal/connection';
import { statusQuery } from '../../workflows/contracts/deal-like';
import { payinWorkflowId } from '../../workflows/contracts/payin';
import { payoutWorkflowId } from '../../workflows/contracts/payout';
import { approveWithdrawalUpdate, withdrawalWorkflowId } from '../../workflows/contracts/withdrawal';
import {
  endpointEventsSignal,
  endpointWorkflowId,
  webhookEndpointTaskQueue,
  webhookEndpointWorkflowType,
  type EndpointEvent,
  type WebhookEndpointWorkflow,
} from '../../workflows/contracts/webhook-endpoint';
import { testSql } from '../helpers/app';
import { eventually } from '../helpers/poll';
import { randomTronAddress, walletMerchant, withdraw, withdrawalAction } from '../helpers/wallet';
import { API_URL, cabinetToken, newMerchant, operatorToken, signed } from '../helpers/api';
import { startApp } from '../helpers/app';
import { createPayin, fundedMerchant, isolatedTrader, PAYOUT } from '../helpers/deals';
import { ROOT } from '../../scripts/stack';

const config = loadConfig(process.env);
const History = proto.temporal.api.history.v1.History;
const UI_ORIGIN = 'http://127.0.0.1:8233';

/** A client with no codec: what Temporal's own storage and an un-keyed UI see. */
async function rawClient() {
  const connection = await Connection.connect(temporalConnectionOptions(config));
  return new Client({ connection, namespace: config.TEMPORAL_NAMESPACE });
}

const asJson = (p: Payload) => ({
  metadata: Object.fromEntries(Object.entries(p.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v).toString('base64')])),
  data: Buffer.from(p.data ?? []).toString('base64'),
});
const jsonText = (p: { data: string }) => Buffer.from(p.data, 'base64').toString('utf8');

function codecCall(path: string, init: { method?: string; headers?: Record<string, string>; body?: unknown; base?: string }) {
  return fetch(`${init.base ?? API_URL}${path}`, {
    method: init.method ?? 'POST',
    headers: { ...(init.body !== undefined ? { 'Content-Type': 'application/json' } : {}), ...init.headers },
    ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
  });
}

/** Merchant inputs that must be unreadable in Temporal: each test makes its own markers. */
function markers() {
  const tag = randomUUID().slice(0, 8);
  return {
    card: `2200${String(randomInt(1e11, 1e12 - 1))}`.padEnd(16, '7'),
    holder: `Holder ${tag}`,
    clientId: `payer-${tag}`,
    description: `order ${tag} for a payer`,
    payerBank: `bank-${tag}`,
  };
}

test('PayIn and PayOut histories hold no merchant input or card number in clear; the keyed client reads them', async (t) => {
  const m = markers();
  const trader = await isolatedTrader({ liquidity: 1_000_000 });
  const { keys } = await newMerchant();
  const payin = await createPayin(keys, { payment_method_id: trader.method, client_id: m.clientId, description: m.description, payer_bank: m.payerBank });
  const merchant = await fundedMerchant(10_000);
  const payout = await signed(merchant.keys, 'POST', PAYOUT, merchant.payoutBody({ target_requisite: m.card, target_name: m.holder }));
  t.is(payout.status, 200, payout.text);

  const raw = await rawClient();
  const keyed = await createTemporalClient(config);
  t.teardown(async () => {
    await raw.connection.close();
    await keyed.connection.close();
  });
  const secrets = [m.card, m.holder, m.clientId, m.description, m.payerBank];
  for (const [workflowId, dealId, expected] of [
    [payinWorkflowId(payin.deal_id), payin.deal_id, [m.clientId, m.description, m.payerBank]],
    [payoutWorkflowId(payout.body.deal.deal_id), payout.body.deal.deal_id as string, [m.card, m.holder]],
  ] as const) {
    const history = await raw.workflow.getHandle(workflowId).fetchHistory();
    const bytes = Buffer.from(History.encode(history).finish());
    t.true(bytes.includes(dealId), 'the search works: the deal id is in the (unencrypted) search attributes');
    t.true((history.events ?? []).length >= 4, 'the create step and its update are in the history');
    for (const secret of secrets) t.false(bytes.includes(secret), `${secret} is in clear in ${workflowId}`);

    // Every payload of the history is sealed, and the keyed codec opens the workflow input.
    const started = history.events![0]!.workflowExecutionStartedEventAttributes!;
    const input = started.input!.payloads! as Payload[];
    t.is(Buffer.from(input[0]!.metadata!.encoding!).toString(), 'binary/encrypted');
    const [opened] = await payloadCodec(config).decode(input);
    const text = JSON.stringify(defaultPayloadConverter.fromPayload(opened!));
    for (const secret of expected) t.true(text.includes(secret), `${secret} decodes from ${workflowId}`);
  }

  // Through the SDK: the keyed client decodes a query's answer, the raw one cannot.
  const snapshot = await keyed.workflow.getHandle(payinWorkflowId(payin.deal_id)).query(statusQuery);
  t.is(snapshot?.status, 'ESCROW_LOCKED');
  await t.throwsAsync(raw.workflow.getHandle(payinWorkflowId(payin.deal_id)).query(statusQuery), { message: /encrypted/ });
});

test('the codec endpoint decodes for operators only, answers the UI origin with CORS, and refuses tampering', async (t) => {
  const m = markers();
  const merchant = await fundedMerchant(10_000);
  const payout = await signed(merchant.keys, 'POST', PAYOUT, merchant.payoutBody({ target_requisite: m.card, target_name: m.holder }));
  t.is(payout.status, 200, payout.text);
  const raw = await rawClient();
  t.teardown(() => raw.connection.close());
  const history = await raw.workflow.getHandle(payoutWorkflowId(payout.body.deal.deal_id)).fetchHistory();
  const payloads = (history.events![0]!.workflowExecutionStartedEventAttributes!.input!.payloads! as Payload[]).map(asJson);
  const body = { payloads };

  const anonymous = await codecCall('/codec/decode', { body, headers: { 'X-Namespace': 'default', Origin: UI_ORIGIN } });
  t.is(anonymous.status, 401, 'loopback is not exempt outside development');
  t.is(anonymous.headers.get('access-control-allow-origin'), UI_ORIGIN, 'the UI can read the refusal');
  t.false((await anonymous.text()).includes(m.card));
  const cabinet = await codecCall('/codec/decode', { body, headers: { Authorization: `Bearer ${await cabinetToken(merchant.merchantId)}` } });
  t.is(cabinet.status, 403);
  const operator = { Authorization: `Bearer ${await operatorToken()}`, 'X-Namespace': 'default' };
  const wrongNamespace = await codecCall('/codec/decode', { body, headers: { ...operator, 'X-Namespace': 'other' } });
  t.is(wrongNamespace.status, 404);

  const decoded = await codecCall('/codec/decode', { body, headers: { ...operator, Origin: UI_ORIGIN } });
  t.is(decoded.status, 200);
  t.is(decoded.headers.get('access-control-allow-origin'), UI_ORIGIN);
  const result = (await decoded.json()) as { payloads: { metadata: Record<string, string>; data: string }[] };
  t.is(Buffer.from(result.payloads[0]!.metadata.encoding!, 'base64').toString(), 'json/plain');
  t.true(jsonText(result.payloads[0]!).includes(m.card));
  t.true(jsonText(result.payloads[0]!).includes(m.holder));

  // encode → decode through the endpoint; one flipped byte is refused.
  const plain = asJson(defaultPayloadConverter.toPayload({ note: m.holder }));
  const encoded = (await (await codecCall('/codec/encode', { body: { payloads: [plain] }, headers: operator })).json()) as typeof result;
  t.false(jsonText(encoded.payloads[0]!).includes(m.holder));
  const back = (await (await codecCall('/codec/decode', { body: encoded, headers: operator })).json()) as typeof result;
  t.deepEqual(back.payloads[0], plain);
  const data = Buffer.from(encoded.payloads[0]!.data, 'base64');
  data[data.length - 1] = data[data.length - 1]! ^ 1;
  const tampered = await codecCall('/codec/decode', { body: { payloads: [{ ...encoded.payloads[0], data: data.toString('base64') }] }, headers: operator });
  t.is(tampered.status, 400);
  t.is((await codecCall('/codec/encode', { body: { payloads: [plain] } })).status, 401);
  t.is((await codecCall('/codec/decode', { body: { payloads: 'x' }, headers: operator })).status, 400);
  const empty = await codecCall('/codec/decode', { body: {}, headers: { ...operator, 'X-Namespace': '' } }); // proto3 JSON of no payloads
  t.deepEqual([empty.status, await empty.json()], [200, { payloads: [] }]);

  // Preflight: the UI's origin gets the headers it needs, any other origin gets none.
  const preflight = await codecCall('/codec/decode', {
    method: 'OPTIONS',
    headers: { Origin: UI_ORIGIN, 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'authorization,content-type,x-namespace' },
  });
  t.is(preflight.status, 204);
  t.is(preflight.headers.get('access-control-allow-origin'), UI_ORIGIN);
  t.is(preflight.headers.get('access-control-allow-credentials'), 'true');
  t.regex(preflight.headers.get('access-control-allow-headers') ?? '', /Authorization.*Content-Type.*X-Namespace/);
  const foreign = await codecCall('/codec/decode', { method: 'OPTIONS', headers: { Origin: 'http://evil.example', 'Access-Control-Request-Method': 'POST' } });
  t.is(foreign.headers.get('access-control-allow-origin'), null);
});

test('with CODEC_LOOPBACK_WITHOUT_AUTH (development) a loopback caller decodes without a token, a proxied one does not', async (t) => {
  const app = await startApp({ CODEC_LOOPBACK_WITHOUT_AUTH: true });
  t.teardown(() => app.close());
  const plain = asJson(defaultPayloadConverter.toPayload({ card_number: '2200111122223333' }));
  const encoded = await codecCall('/codec/encode', { base: app.url, body: { payloads: [plain] } });
  t.is(encoded.status, 200);
  const sealed = (await encoded.json()) as { payloads: { data: string }[] };
  t.false(jsonText(sealed.payloads[0]!).includes('2200111122223333'));
  const decoded = await codecCall('/codec/decode', { base: app.url, body: sealed });
  t.is(decoded.status, 200);
  t.deepEqual(((await decoded.json()) as { payloads: unknown[] }).payloads[0], plain);
  const proxied = await codecCall('/codec/decode', { base: app.url, body: sealed, headers: { 'X-Forwarded-For': '203.0.113.9' } });
  t.is(proxied.status, 401);
});

test('the Temporal CLI decodes a history through the codec endpoint with an operator token', async (t) => {
  const m = markers();
  const merchant = await fundedMerchant(10_000);
  const payout = await signed(merchant.keys, 'POST', PAYOUT, merchant.payoutBody({ target_requisite: m.card, target_name: m.holder }));
  t.is(payout.status, 200, payout.text);
  const cli = process.env.TEMPORAL_CLI ?? join(ROOT, '.tools', 'bin', 'temporal');
  const show = (...extra: string[]) =>
    promisify(execFile)(cli, [
      'workflow',
      'show',
      '-w',
      payoutWorkflowId(payout.body.deal.deal_id),
      '--address',
      config.TEMPORAL_ADDRESS,
      '-o',
      'json',
      '--codec-endpoint',
      `${API_URL}/codec`,
      ...extra,
    ]);
  const decoded = await show('--codec-auth', `Bearer ${await operatorToken()}`);
  const texts = payloadTexts(JSON.parse(decoded.stdout));
  t.true(
    texts.some((text) => text.includes(m.card) && text.includes(m.holder)),
    'the CLI shows the decoded input',
  );
  const refused = await show('--command-timeout', '3s').then(
    (r) => r.stdout,
    (error: { stdout?: string; stderr?: string }) => `${error.stdout ?? ''}${error.stderr ?? ''}`,
  );
  t.false(refused.includes(m.card));
  t.false(/^\s*\{/.test(refused) && payloadTexts(JSON.parse(refused)).some((text) => text.includes(m.card)), 'without a token nothing decodes');
});

test('a worker with a key refuses a plain-JSON update: an approval with a forged actor sent to the frontend approves nothing', async (t) => {
  t.timeout(180_000);
  const sql = testSql();
  const { merchantId, keys } = await walletMerchant(20_000, { auto_withdrawal_mode: 'MANUAL_ONLY' });
  const created = await withdraw(keys, { address: randomTronAddress(), amount: 1_500 });
  t.is(created.body.status, 'PENDING_MANUAL', created.text);
  const id = created.body.withdrawal_id as string;
  const raw = await rawClient();
  t.teardown(async () => {
    await raw.connection.close().catch(() => {});
    await sql.end();
  });

  // Whoever reaches the Temporal frontend without the key: the update's arguments as plain JSON.
  const forged = { kind: 'operator_account', id: randomUUID(), role: 'admin', requestId: 'forged', requestKey: randomUUID() };
  const handle = raw.workflow.getHandle(withdrawalWorkflowId(id));
  const updateId = `forged-${randomUUID()}`;
  const outcome = await Promise.race([
    handle.executeUpdate(approveWithdrawalUpdate, { args: ['forged-operator', forged as never], updateId }).then(
      (snapshot) => `approved: ${JSON.stringify(snapshot)}`,
      (error: Error) => `refused: ${error.message}`,
    ),
    new Promise<string>((resolve) => setTimeout(() => resolve('no answer within 20 s'), 20_000)),
  ]);
  t.false(outcome.startsWith('approved'), outcome);

  // The worker refused to decode it: its workflow task failed on the plain payload.
  const history = await eventually(
    async () => {
      const h = await raw.workflow.getHandle(withdrawalWorkflowId(id)).fetchHistory();
      const failed = (h.events ?? []).filter((e) => e.workflowTaskFailedEventAttributes);
      return failed.some((e) => /not encrypted/.test(e.workflowTaskFailedEventAttributes!.failure?.message ?? '')) ? h : undefined;
    },
    'a workflow task failed on the plain payload',
    60_000,
  ).catch(() => undefined);
  const events = history?.events ?? (await raw.workflow.getHandle(withdrawalWorkflowId(id)).fetchHistory()).events ?? [];
  t.truthy(history, 'a workflow task failed on the plain payload');
  const accepted = events.filter((e) => e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.meta?.updateId === updateId);
  t.deepEqual(accepted, [], 'the forged update was never accepted');

  // Nothing moved: no approval, no audit row, the hold still frozen, the withdrawal still waiting.
  t.is((await sql`select count(*)::int as n from withdrawal_approvals where withdrawal_id = ${id}`)[0]!.n, 0);
  t.is((await sql`select count(*)::int as n from audit_log where object_id = ${id}`)[0]!.n, 0);
  const [row] = await sql<{ status: string; approved_by: string }[]>`select status, approved_by from withdrawals where id = ${id}`;
  t.deepEqual({ ...row }, { status: 'PENDING_MANUAL', approved_by: '' });
  const [wallet] = await sql<{ frozen: bigint }[]>`select frozen from wallets where owner_type = 'merchant' and owner_id = ${merchantId}`;
  t.is(wallet!.frozen, 1_500n);

  // Once the forger's request ends, the operator's own approval (the API, the keyed client) goes
  // through: the refused update never entered the history. (While it is pending, the workflow's
  // other updates are refused: its workflow task is in a failed state.)
  await raw.connection.close();
  const approved = await eventually(
    async () => {
      const res = await withdrawalAction(id, 'approve');
      return res.status === 200 ? res : undefined;
    },
    'the operator approval after the forged update',
    60_000,
  );
  t.is(approved.body.status, 'COMPLETED');
  t.is(approved.body.approved_by, 'test-operator');
});

test('a worker with a key refuses a plain-JSON signal: forged events signalled to a webhook stream never reach it', async (t) => {
  t.timeout(180_000);
  const keyed = await createTemporalClient(config);
  const raw = await rawClient();
  const workflowId = endpointWorkflowId(randomUUID(), createHash('sha256').update(`http://127.0.0.1:9/${randomUUID()}`).digest('hex'));
  t.teardown(async () => {
    await keyed.workflow
      .getHandle(workflowId)
      .terminate('test: the stream the forged signal was sent to')
      .catch(() => {});
    await keyed.connection.close();
    await raw.connection.close();
  });
  // A stream started as the relay starts one (sealed input, no events yet)…
  await keyed.workflow.signalWithStart<WebhookEndpointWorkflow, [EndpointEvent[]]>(webhookEndpointWorkflowType, {
    workflowId,
    taskQueue: webhookEndpointTaskQueue(config),
    args: [{ merchantId: randomUUID(), url: 'http://127.0.0.1:9/hook', delaysMs: [1000], attemptTimeoutMs: 1000, idleMs: 120_000 }],
    signal: endpointEventsSignal,
    signalArgs: [[]],
  });
  const handle = raw.workflow.getHandle(workflowId);
  const taskCompleted = async () => (await handle.fetchHistory()).events?.some((e) => e.workflowTaskCompletedEventAttributes) ?? false;
  await eventually(taskCompleted, 'the stream took its first task');
  // …then events as plain JSON from a client without the key.
  const forged: EndpointEvent = { callbackId: randomUUID(), eventId: randomUUID(), eventType: 'deal.completed', maxAttempts: 1, lane: randomUUID() };
  await handle.signal(endpointEventsSignal, [forged]);
  const events = await eventually(
    async () => {
      const h = (await handle.fetchHistory()).events ?? [];
      return h.some((e) => /not encrypted/.test(e.workflowTaskFailedEventAttributes?.failure?.message ?? '')) ? h : undefined;
    },
    'a workflow task failed on the plain signal',
    60_000,
  );
  t.is(events.filter((e) => e.workflowExecutionSignaledEventAttributes).length, 2, "the relay's signal and the forged one are in the history");
  // Nothing the workflow did came after it: no completed task, no activity scheduled.
  const after = events.slice(events.findLastIndex((e) => e.workflowExecutionSignaledEventAttributes) + 1);
  t.false(
    after.some((e) => e.workflowTaskCompletedEventAttributes || e.activityTaskScheduledEventAttributes),
    'the workflow never ran on it',
  );
  t.is((await keyed.workflow.getHandle(workflowId).describe()).status.name, 'RUNNING');
});

/** The text of every payload in a protobuf-JSON document (the CLI's -o json). */
function payloadTexts(node: unknown, out: string[] = []): string[] {
  if (Array.isArray(node)) for (const item of node) payloadTexts(item, out);
  else if (node && typeof node === 'object') {
    const record = node as Record<string, unknown>;
    if (typeof record.data === 'string' && record.metadata && typeof record.metadata === 'object')
      out.push(Buffer.from(record.data, 'base64').toString('utf8'));
    for (const value of Object.values(record)) payloadTexts(value, out);
  }
  return out;
}
