/**
 * Records the histories that test/workflows/withdrawal-replay.test.ts replays: the withdrawal
 * workflow of the current code, on stub activities, through each of its paths. Run it after a
 * change to the withdrawal workflow that is meant to change its commands (and so ships under the
 * rule of docs/operations.md, "Changing workflow code"), then commit the new files:
 *
 *   TEMPORAL_CLI=.tools/bin/temporal node --import tsx test/workflows/record-histories.ts
 *
 * Each file is `{ workflowId, history }`, the history as the proto message's JSON.
 */
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import type { WorkflowHandle } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import proto from '@temporalio/proto';
import type { Activities } from '../../activities';
import type { TransferStatus } from '../../activities/chain';
import type { WithdrawalStatus } from '../../domain/withdrawals';
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
const activities: Partial<Activities> = {
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

const env = await workflowEnvironment();
try {
  await withWorker(env, activities, async (taskQueue) => {
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
    const save = async (name: string, handle: WorkflowHandle<WithdrawalWorkflow>) => {
      const history = proto.temporal.api.history.v1.History.fromObject(await handle.fetchHistory());
      writeFileSync(new URL(`withdrawal-${name}.json`, dir), `${JSON.stringify({ workflowId: handle.workflowId, history: history.toJSON() }, null, 1)}\n`);
      console.log(`withdrawal-${name}.json: ${history.events.length} events`);
    };

    const auto = await start({ status: 'PENDING', broadcasts: [{ txHash: 'tx-auto' }] });
    await auto.result();
    await save('auto-completed', auto);

    const manual = await start({ status: 'PENDING_MANUAL', broadcasts: [{ txHash: 'tx-manual' }] });
    await manual.executeUpdate(approveWithdrawalUpdate, { args: ['operator'] });
    await manual.result();
    await save('manual-approved-completed', manual);

    const refused = await start({ status: 'PENDING', broadcasts: [ApplicationFailure.nonRetryable('the network refused the transfer', 'FAILED_PRECONDITION')] });
    await refused.result();
    await save('refused-cancelled', refused);

    const inFlight = await start({ status: 'PENDING', broadcasts: ['hang'] });
    await eventually(async () => {
      const events = (await inFlight.fetchHistory()).events ?? [];
      return events.some((e) => e.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED) && events.at(-1)?.eventType !== EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED;
    }, 'the broadcast in flight');
    await save('broadcast-in-flight', inFlight);
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
    await save('tron-confirmed', tron);
  });
} finally {
  await env.teardown();
}
