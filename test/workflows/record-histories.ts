/**
 * Records the histories that test/workflows/*-replay.test.ts replay: the withdrawal workflow and
 * the endpoint stream of the current code, on stub activities, through each of their paths. Run
 * it after a change to one of them that is meant to change its commands (and so ships under the
 * rule of docs/operations.md, "Changing workflow code"), then commit the new files:
 *
 *   TEMPORAL_CLI=.tools/bin/temporal node --import tsx test/workflows/record-histories.ts [withdrawal|endpoint]
 *
 * Each file is `{ workflowId, history }`, the history as the proto message's JSON.
 */
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import type { WorkflowHandle } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { ApplicationFailure } from '@temporalio/common';
import proto from '@temporalio/proto';
import type { Activities } from '../../activities';
import type { TransferStatus } from '../../activities/chain';
import type { WithdrawalStatus } from '../../domain/withdrawals';
import type { AttemptInput, AttemptOutcome } from '../../workflows/contracts/webhook-attempts';
import {
  endpointEventsSignal,
  webhookEndpointWorkflowType,
  type EndpointEvent,
  type EndpointInput,
  type WebhookEndpointWorkflow,
} from '../../workflows/contracts/webhook-endpoint';
import {
  approveWithdrawalUpdate,
  withdrawalWorkflowId,
  withdrawalWorkflowType,
  type CreateWithdrawalInput,
  type WithdrawalSnapshot,
  type WithdrawalWorkflow,
} from '../../workflows/contracts/withdrawal';
import { eventually } from '../helpers/poll';
import { withWorker, workflowEnvironment } from '../helpers/workflow-env';

const EventType = proto.temporal.api.enums.v1.EventType;
const dir = new URL('./histories/', import.meta.url);

async function save(name: string, handle: WorkflowHandle) {
  const history = proto.temporal.api.history.v1.History.fromObject(await handle.fetchHistory());
  writeFileSync(new URL(`${name}.json`, dir), `${JSON.stringify({ workflowId: handle.workflowId, history: history.toJSON() }, null, 1)}\n`);
  console.log(`${name}.json: ${history.events.length} events`);
}

// ---- The withdrawal workflow ----

/** How the stub chain answers one withdrawal: its broadcasts, then its receipt checks, in order. */
interface Script {
  status: WithdrawalStatus;
  broadcasts: Array<{ txHash: string; checkInMs?: number } | Error | 'hang'>;
  checks?: TransferStatus[];
}

const scripts = new Map<string, Script>();
/** Lets the hanging broadcast go once its history is recorded (the worker's shutdown waits for it). */
let releaseHung = () => {};
const rows = new Map<string, WithdrawalSnapshot>();
const move = (id: string, status: WithdrawalStatus, txHash = '') => {
  rows.set(id, { status, txHash });
  return rows.get(id)!;
};
const withdrawalActivities: Partial<Activities> = {
  createWithdrawal: async (input: CreateWithdrawalInput) => move(input.withdrawalId, scripts.get(input.withdrawalId)!.status),
  findWithdrawalSnapshot: async (id: string) => rows.get(id) ?? null,
  approveWithdrawal: async (id: string) => move(id, 'APPROVED'),
  cancelWithdrawal: async (id: string) => move(id, 'CANCELLED'),
  completeWithdrawal: async (id: string, txHash: string) => move(id, 'COMPLETED', txHash),
  failWithdrawal: async (id: string) => move(id, 'CANCELLED'),
  broadcastWithdrawal: async (id: string) => {
    const next = scripts.get(id)!.broadcasts.shift()!;
    if (next === 'hang') return new Promise<{ txHash: string }>((resolve) => (releaseHung = () => resolve({ txHash: 'tx-late' })));
    if (next instanceof Error) throw next;
    return next;
  },
  checkWithdrawalTransfer: async (id: string) => scripts.get(id)!.checks!.shift()!,
};

async function recordWithdrawals(env: TestWorkflowEnvironment) {
  await withWorker(env, withdrawalActivities, async (taskQueue) => {
    const start = (script: Script) => {
      const withdrawalId = randomUUID();
      scripts.set(withdrawalId, script);
      return env.client.workflow.start<WithdrawalWorkflow>(withdrawalWorkflowType, {
        workflowId: withdrawalWorkflowId(withdrawalId),
        taskQueue,
        args: [
          {
            create: { withdrawalId } as CreateWithdrawalInput,
            syncWaitMs: 0,
            timeouts: { stepMs: 2000, createMs: 2000 },
            broadcast: { timeoutSeconds: 60, heartbeatSeconds: 60, maxBackoffSeconds: 1 },
          },
        ],
      });
    };

    const auto = await start({ status: 'PENDING', broadcasts: [{ txHash: 'tx-auto' }] });
    await auto.result();
    await save('withdrawal-auto-completed', auto);

    const manual = await start({ status: 'PENDING_MANUAL', broadcasts: [{ txHash: 'tx-manual' }] });
    await manual.executeUpdate(approveWithdrawalUpdate, { args: ['operator'] });
    await manual.result();
    await save('withdrawal-manual-approved-completed', manual);

    const refused = await start({
      status: 'PENDING',
      broadcasts: [ApplicationFailure.nonRetryable('the network refused the transfer', 'FAILED_PRECONDITION')],
    });
    await refused.result();
    await save('withdrawal-refused-cancelled', refused);

    const inFlight = await start({ status: 'PENDING', broadcasts: ['hang'] });
    await eventually(async () => {
      const events = (await inFlight.fetchHistory()).events ?? [];
      return (
        events.some((e) => e.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED) &&
        events.at(-1)?.eventType !== EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED
      );
    }, 'the broadcast in flight');
    await save('withdrawal-broadcast-in-flight', inFlight);
    await inFlight.terminate('recorded');
    releaseHung();

    const tron = await start({
      status: 'PENDING',
      broadcasts: [
        { txHash: 'tx-tron-1', checkInMs: 10 },
        { txHash: 'tx-tron-2', checkInMs: 10 },
      ],
      checks: [
        { state: 'pending', txHash: 'tx-tron-1', checkInMs: 10 },
        { state: 'resubmit', afterMs: 20, reason: 'failed on chain: OUT_OF_ENERGY' },
        { state: 'pending', txHash: 'tx-tron-2', checkInMs: 10 },
        { state: 'confirmed', txHash: 'tx-tron-2' },
      ],
    });
    await tron.result();
    await save('withdrawal-tron-confirmed', tron);
  });
}

// ---- The endpoint stream ----

/** What each attempt of a callback answers, in order (then success); 'poison' fails for good. */
const answers = new Map<string, Array<AttemptOutcome | 'poison'>>();
const success: AttemptOutcome = { ok: true, permanent: false, status: 'SUCCESS', httpStatus: 200 };
const attempt = (item: AttemptInput): AttemptOutcome => {
  const next = answers.get(item.callbackId)?.shift() ?? success;
  if (next === 'poison') throw ApplicationFailure.nonRetryable(`delivery ${item.callbackId} not found`, 'NOT_FOUND');
  return next.ok || next.retryInMs !== undefined ? next : { ...next, status: item.final ? 'ERROR' : 'RETRY' };
};
const endpointActivities: Partial<Activities> = {
  // As activities/webhooks.ts: a group stops at its first failure; a poisoned one is given up (ERROR).
  deliverWebhookGroups: async (groups: AttemptInput[][]) =>
    groups.map((group) => {
      const outcomes: AttemptOutcome[] = [];
      for (const item of group) {
        let outcome: AttemptOutcome;
        try {
          outcome = attempt(item);
        } catch {
          outcome = { ok: false, permanent: true, status: 'ERROR', httpStatus: 0 };
        }
        outcomes.push(outcome);
        if (!outcome.ok) break;
      }
      return outcomes;
    }),
  deliverWebhook: async (item: AttemptInput) => attempt(item),
  giveUpDelivery: async () => {},
};

async function recordEndpoint(env: TestWorkflowEnvironment) {
  const failed: AttemptOutcome = { ok: false, permanent: false, status: 'RETRY', httpStatus: 503 };
  const parked: AttemptOutcome = { ok: false, permanent: false, status: 'RETRY', httpStatus: 0, retryInMs: 40, waitReason: 'parked' };
  const event = (lane: string, n: number, script: Array<AttemptOutcome | 'poison'> = [], maxAttempts = 3): EndpointEvent => {
    const callbackId = randomUUID();
    answers.set(callbackId, script);
    return { lane, callbackId, eventId: randomUUID(), eventType: `deal.event-${n}`, maxAttempts };
  };
  await withWorker(env, endpointActivities, async (taskQueue) => {
    const start = (input: Partial<EndpointInput>, events: EndpointEvent[]) =>
      env.client.workflow.signalWithStart<WebhookEndpointWorkflow, [EndpointEvent[]]>(webhookEndpointWorkflowType, {
        workflowId: `webhooks:endpoint:recorded:${randomUUID().slice(0, 8)}`,
        taskQueue,
        args: [{ merchantId: 'recorded', url: 'https://example.test/hooks', delaysMs: [60, 120], attemptTimeoutMs: 10_000, idleMs: 400, ...input }],
        signal: endpointEventsSignal,
        signalArgs: [events],
      });

    // Lanes side by side: a head that fails and retries, one whose endpoint is parked at first, a
    // poisoned event given up, one whose only attempt fails, a repeated callback, a second signal
    // while lanes still run; then the stream closes idle.
    const repeated = event('b', 1);
    const lanes = await start({}, [
      event('a', 1, [failed]),
      event('a', 2),
      repeated,
      event('b', 2),
      event('c', 1, [parked, parked]),
      event('d', 1, ['poison']),
      event('d', 2, [failed], 1),
      repeated,
    ]);
    await new Promise((r) => setTimeout(r, 30));
    await env.client.workflow.getHandle(lanes.workflowId).signal(endpointEventsSignal, [event('a', 3), event('e', 1, [failed, failed]), repeated]);
    await lanes.result();
    await save('endpoint-lanes-idle', lanes);

    // Continue-as-new after two deliveries, a head in the middle of its schedule carried over:
    // the first run's history.
    const carried = await start({ continueAfter: 2, delaysMs: [300] }, [event('a', 1), event('b', 1, [failed]), event('c', 1)]);
    await eventually(async () => (await carried.describe()).runId !== carried.signaledRunId, 'the continue-as-new');
    await save('endpoint-continue-as-new', env.client.workflow.getHandle(carried.workflowId, carried.signaledRunId));
    await carried.terminate('recorded');
  });
}

const env = await workflowEnvironment();
try {
  const which = process.argv[2];
  if (!which || which === 'withdrawal') await recordWithdrawals(env);
  if (!which || which === 'endpoint') await recordEndpoint(env);
} finally {
  await env.teardown();
}
