/**
 * WITHDRAWAL_TRANSITIONS (domain/state/withdrawals.ts) on the withdrawal workflow, with stub
 * activities: approve and cancel from every state the workflow lives in (accepted exactly where
 * the table allows them, else `withdrawal is <status>`), then the broadcast's two ends.
 */
import { randomUUID } from 'node:crypto';
import test from 'ava';
import type { WorkflowHandle } from '@temporalio/client';
import type { Activities } from '../../activities';
import type { TransferStatus } from '../../activities/chain';
import { allowsFrom } from '../../domain/state/state-machine';
import { canMove, WITHDRAWAL_TRANSITIONS, withdrawalRefusal, type WithdrawalMove, type WithdrawalStatus } from '../../domain/state/withdrawals';
import {
  approveWithdrawalUpdate,
  cancelWithdrawalUpdate,
  withdrawalWorkflowId,
  withdrawalWorkflowType,
  type CreateWithdrawalInput,
  type WithdrawalSnapshot,
  type WithdrawalWorkflow,
} from '../../workflows/contracts/withdrawal';
import { statusQuery } from '../../workflows/contracts/deal-like';
import { eventually } from '../helpers/poll';
import { outcomeOf, refusedByActivity, testActor, withWorker, workflowEnvironment } from '../helpers/workflow-env';

const env = await workflowEnvironment();
test.after.always(() => env.teardown());

/** The broadcast waits until the test lets it go: a PENDING or APPROVED withdrawal stays there meanwhile. */
function stubs() {
  const rows = new Map<string, WithdrawalSnapshot>();
  const calls: string[] = [];
  const chain = new Map<string, { release: (result: { txHash: string } | Error) => void; sent: Promise<{ txHash: string }> }>();
  const gate = (id: string) => {
    if (!chain.has(id)) {
      let release!: (result: { txHash: string } | Error) => void;
      const sent = new Promise<{ txHash: string }>((resolve, reject) => {
        release = (result) => (result instanceof Error ? reject(result) : resolve(result));
      });
      chain.set(id, { release, sent });
    }
    return chain.get(id)!;
  };
  const move = (name: string, id: string, status: WithdrawalStatus, txHash = '') => {
    calls.push(`${id} ${name}`);
    rows.set(id, { status, txHash });
    return rows.get(id)!;
  };
  const activities: Partial<Activities> = {
    createWithdrawal: async (input: CreateWithdrawalInput) => rows.get(input.withdrawalId)!,
    approveWithdrawal: async (id: string) => move('approveWithdrawal', id, 'APPROVED'),
    cancelWithdrawal: async (id: string) => move('cancelWithdrawal', id, 'CANCELLED'),
    broadcastWithdrawal: async (id: string) => gate(id).sent,
    completeWithdrawal: async (id: string, txHash: string) => move('completeWithdrawal', id, 'COMPLETED', txHash),
    failWithdrawal: async (id: string) => move('failWithdrawal', id, 'CANCELLED'),
  };
  return { rows, calls, gate, activities };
}

function startWithdrawal(taskQueue: string, rows: Map<string, WithdrawalSnapshot>, status: WithdrawalStatus) {
  const withdrawalId = randomUUID();
  rows.set(withdrawalId, { status, txHash: '' });
  return env.client.workflow.start<WithdrawalWorkflow>(withdrawalWorkflowType, {
    workflowId: withdrawalWorkflowId(withdrawalId),
    taskQueue,
    args: [
      {
        requestId: randomUUID(),
        create: { withdrawalId } as CreateWithdrawalInput,
        syncWaitMs: 0,
        timeouts: { stepMs: 2000, createMs: 2000 },
        broadcast: { timeoutSeconds: 60, heartbeatSeconds: 60, maxBackoffSeconds: 1 },
      },
    ],
  });
}

const COMMANDS: { move: WithdrawalMove; send: (h: WorkflowHandle<WithdrawalWorkflow>) => Promise<WithdrawalSnapshot> }[] = [
  { move: 'approve', send: (h) => h.executeUpdate(approveWithdrawalUpdate, { args: ['operator', testActor()] }) },
  { move: 'cancel', send: (h) => h.executeUpdate(cancelWithdrawalUpdate, { args: ['no', 'operator', testActor()] }) },
];

test('approve and cancel from every open state: accepted exactly when WITHDRAWAL_TRANSITIONS allows them, else refused', async (t) => {
  const { rows, calls, gate, activities } = stubs();
  await withWorker(env, activities, async (taskQueue) => {
    const open: WithdrawalStatus[] = ['PENDING', 'PENDING_MANUAL', 'APPROVED'];
    await Promise.all(
      open.flatMap((status) =>
        COMMANDS.map(async ({ move, send }) => {
          const handle = await startWithdrawal(taskQueue, rows, status);
          const id = handle.workflowId.slice('withdrawal:'.length);
          const outcome = await outcomeOf(send(handle));
          const label = `${move} from ${status}`;
          t.is(allowsFrom(WITHDRAWAL_TRANSITIONS[move], status), canMove(status, move), label);
          if (canMove(status, move)) {
            t.true(outcome.ok && outcome.value.status === WITHDRAWAL_TRANSITIONS[move].to, label);
          } else {
            t.deepEqual(outcome, { ok: false, kind: 'FAILED_PRECONDITION', message: `withdrawal is ${status}` }, label);
            t.deepEqual(outcome, { ok: false, ...withdrawalRefusal(move, status)! }, label);
            t.false(
              calls.some((c) => c.startsWith(`${id} `)),
              `${label}: no activity ran`,
            );
          }
          // Whatever broadcasts goes out now; the run ends COMPLETED (or CANCELLED after a cancel).
          gate(id).release({ txHash: `tx-${id}` });
          const result = await handle.result();
          t.true(result.created && ['COMPLETED', 'CANCELLED'].includes(result.status), label);
        }),
      ),
    );
  });
});

test('the broadcast: sent → COMPLETED with its hash; refused for good → CANCELLED', async (t) => {
  const { rows, gate, activities } = stubs();
  await withWorker(env, activities, async (taskQueue) => {
    const sent = await startWithdrawal(taskQueue, rows, 'PENDING');
    const refused = await startWithdrawal(taskQueue, rows, 'PENDING');
    const sentId = sent.workflowId.slice('withdrawal:'.length);
    const refusedId = refused.workflowId.slice('withdrawal:'.length);
    gate(sentId).release({ txHash: 'abc' });
    gate(refusedId).release(refusedByActivity('FAILED_PRECONDITION', 'the network refused the transfer'));
    t.deepEqual(await sent.result(), { created: true, status: 'COMPLETED' });
    t.deepEqual(await refused.result(), { created: true, status: 'CANCELLED' });
    await eventually(async () => rows.get(sentId)?.txHash === 'abc', 'the hash');
    t.deepEqual(await sent.query(statusQuery), { status: 'COMPLETED', txHash: 'abc' });
  });
});

test('a submitted transfer (checkInMs) is confirmed on timers: pending → dead → resubmitted → confirmed; too many dead → CANCELLED', async (t) => {
  const { rows, calls, activities } = stubs();
  // The chain as a script per withdrawal: what each check answers, in order.
  const scripts = new Map<string, TransferStatus[]>();
  const sends = new Map<string, number>();
  const chainActivities: Partial<Activities> = {
    ...activities,
    broadcastWithdrawal: async (id: string) => {
      sends.set(id, (sends.get(id) ?? 0) + 1);
      calls.push(`${id} broadcastWithdrawal`);
      return { txHash: `tx-${id}-${sends.get(id)}`, checkInMs: 10 };
    },
    checkWithdrawalTransfer: async (id: string) => {
      calls.push(`${id} checkWithdrawalTransfer`);
      return scripts.get(id)!.shift()!;
    },
  };
  await withWorker(env, chainActivities, async (taskQueue) => {
    const ok = await startWithdrawal(taskQueue, rows, 'PENDING');
    const okId = ok.workflowId.slice('withdrawal:'.length);
    scripts.set(okId, [
      { state: 'pending', txHash: `tx-${okId}-1`, checkInMs: 10 },
      { state: 'resubmit', afterMs: 20, reason: 'failed on chain: OUT_OF_ENERGY' },
      { state: 'pending', txHash: `tx-${okId}-2`, checkInMs: 10 },
      { state: 'confirmed', txHash: `tx-${okId}-2` },
    ]);
    const dead = await startWithdrawal(taskQueue, rows, 'PENDING');
    const deadId = dead.workflowId.slice('withdrawal:'.length);
    scripts.set(deadId, [{ state: 'refused', reason: '3 transactions failed' }]);
    t.deepEqual(await ok.result(), { created: true, status: 'COMPLETED' });
    t.deepEqual(await dead.result(), { created: true, status: 'CANCELLED' });
    t.deepEqual(rows.get(okId), { status: 'COMPLETED', txHash: `tx-${okId}-2` });
    t.deepEqual(
      calls.filter((c) => c.startsWith(okId)).map((c) => c.split(' ')[1]),
      [
        'broadcastWithdrawal',
        'checkWithdrawalTransfer',
        'checkWithdrawalTransfer',
        'broadcastWithdrawal',
        'checkWithdrawalTransfer',
        'checkWithdrawalTransfer',
        'completeWithdrawal',
      ],
    );
    t.deepEqual(
      calls.filter((c) => c.startsWith(deadId)).map((c) => c.split(' ')[1]),
      ['broadcastWithdrawal', 'checkWithdrawalTransfer', 'failWithdrawal'],
    );
  });
});

test('a create step that fails for an infrastructure reason is given up through the create fence; a row an attempt committed is adopted', async (t) => {
  const { rows, calls, gate, activities } = stubs();
  const fenced: Partial<Activities> = {
    ...activities,
    // Every attempt's answer is lost (e.g. it timed out on a starved worker), though one committed.
    createWithdrawal: async () => {
      throw new Error('connection terminated unexpectedly');
    },
    abandonWithdrawalCreate: async (id: string) => {
      calls.push(`${id} abandonWithdrawalCreate`);
      return rows.get(id) ?? null;
    },
  };
  await withWorker(env, fenced, async (taskQueue) => {
    const adopted = await startWithdrawal(taskQueue, rows, 'PENDING');
    const adoptedId = adopted.workflowId.slice('withdrawal:'.length);
    const none = await startWithdrawal(taskQueue, rows, 'PENDING');
    const noneId = none.workflowId.slice('withdrawal:'.length);
    rows.delete(noneId); // no attempt committed
    gate(adoptedId).release({ txHash: 'adopted' });
    t.deepEqual(await adopted.result(), { created: true, status: 'COMPLETED' }, 'the committed withdrawal is adopted and carried on');
    t.like(await none.result(), { created: false });
    t.true(calls.includes(`${adoptedId} abandonWithdrawalCreate`) && calls.includes(`${noneId} abandonWithdrawalCreate`));
  });
});
