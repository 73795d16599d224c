/**
 * PAYOUT_TRANSITIONS (domain/state/payout.ts) on the PayOut workflow, with stub activities: the
 * operator's commands from every state the workflow lives in (accepted exactly where the table
 * allows them, else `payout is <status>`), and the timed moves (re-match, assignment SLA,
 * transfer SLA).
 */
import { randomUUID } from 'node:crypto';
import test from 'ava';
import type { WorkflowHandle } from '@temporalio/client';
import type { Activities } from '../../activities';
import { PAYOUT_STATUSES, PAYOUT_TRANSITIONS, isPayoutTerminal, payoutRefusal, type PayoutMove, type PayoutStatus } from '../../domain/state/payout';
import { allowsFrom } from '../../domain/state/state-machine';
import {
  assignPayoutUpdate,
  completePayoutUpdate,
  payoutWorkflowId,
  payoutWorkflowType,
  rejectPayoutUpdate,
  startPayoutUpdate,
  takePayoutUpdate,
  type CreatePayoutInput,
  type PayoutSnapshot,
  type PayoutWorkflow,
} from '../../workflows/contracts/payout';
import { statusQuery } from '../../workflows/contracts/deal-like';
import { eventually } from '../helpers/poll';
import { inAnHour, outcomeOf, testActor, withWorker, workflowEnvironment } from '../helpers/workflow-env';

const env = await workflowEnvironment();
test.after.always(() => env.teardown());

function stubs() {
  const deals = new Map<string, PayoutSnapshot>();
  const calls: string[] = [];
  const move = (name: string, dealId: string, status: PayoutStatus, changes: Partial<PayoutSnapshot> = {}) => {
    calls.push(`${dealId} ${name}`);
    const next = { ...deals.get(dealId)!, status, ...changes };
    deals.set(dealId, next);
    return next;
  };
  const activities: Partial<Activities> = {
    createPayoutDeal: async (input: CreatePayoutInput) => deals.get(input.dealId)!,
    abandonPayoutCreate: async (dealId: string) => deals.get(dealId) ?? null,
    assignPayout: async (dealId: string) => move('assignPayout', dealId, 'MATCHED', { transferDeadlineAt: inAnHour() }),
    takePayout: async (dealId: string) => move('takePayout', dealId, 'MATCHED', { transferDeadlineAt: inAnHour() }),
    matchPayout: async (dealId: string) => move('matchPayout', dealId, 'MATCHED', { transferDeadlineAt: inAnHour() }),
    startPayout: async (dealId: string) => move('startPayout', dealId, 'PROCESSING'),
    completePayout: async (dealId: string) => move('completePayout', dealId, 'COMPLETED'),
    failPayout: async (dealId: string) => move('failPayout', dealId, 'FAILED'),
    expirePayout: async (dealId: string) => move('expirePayout', dealId, 'EXPIRED'),
    expireMatchedPayout: async (dealId: string) => move('expireMatchedPayout', dealId, 'EXPIRED'),
    flagOverduePayout: async () => {},
  };
  return { deals, calls, activities };
}

function startDeal(taskQueue: string, deals: Map<string, PayoutSnapshot>, snapshot: PayoutSnapshot, retryMatchSeconds = 3600) {
  const dealId = randomUUID();
  deals.set(dealId, snapshot);
  return env.client.workflow.start<PayoutWorkflow>(payoutWorkflowType, {
    workflowId: payoutWorkflowId(dealId),
    taskQueue,
    args: [{ requestId: randomUUID(), create: { dealId } as CreatePayoutInput, retryMatchSeconds, timeouts: { stepMs: 2000, createMs: 2000 } }],
  });
}

const COMMANDS: { move: PayoutMove; send: (h: WorkflowHandle<PayoutWorkflow>) => Promise<PayoutSnapshot> }[] = [
  { move: 'assign', send: (h) => h.executeUpdate(assignPayoutUpdate, { args: [randomUUID(), testActor()] }) },
  { move: 'take', send: (h) => h.executeUpdate(takePayoutUpdate, { args: [randomUUID(), testActor()] }) },
  { move: 'start', send: (h) => h.executeUpdate(startPayoutUpdate, { args: [testActor()] }) },
  { move: 'complete', send: (h) => h.executeUpdate(completePayoutUpdate, { args: [testActor()] }) },
  { move: 'fail', send: (h) => h.executeUpdate(rejectPayoutUpdate, { args: ['wrong requisites', testActor()] }) },
];

test('every operator or trader command from every open state: accepted exactly when PAYOUT_TRANSITIONS allows it, else refused', async (t) => {
  const { deals, calls, activities } = stubs();
  await withWorker(env, activities, async (taskQueue) => {
    const open = PAYOUT_STATUSES.filter((s) => !isPayoutTerminal(s));
    await Promise.all(
      open.flatMap((status) =>
        COMMANDS.map(async ({ move, send }) => {
          const handle = await startDeal(taskQueue, deals, {
            status,
            assignDeadlineAt: inAnHour(),
            transferDeadlineAt: status === 'MATCHED' ? inAnHour() : '',
          });
          const outcome = await outcomeOf(send(handle));
          const label = `${move} from ${status}`;
          if (allowsFrom(PAYOUT_TRANSITIONS[move], status)) {
            t.true(outcome.ok && outcome.value.status === PAYOUT_TRANSITIONS[move].to, label);
          } else {
            t.deepEqual(outcome, { ok: false, kind: 'FAILED_PRECONDITION', message: `payout is ${status}` }, label);
            t.deepEqual(outcome, { ok: false, ...payoutRefusal(move, status)! }, label);
            t.false(
              calls.some((c) => c.startsWith(handle.workflowId.slice('payout:'.length))),
              `${label}: no activity ran`,
            );
          }
          await handle.terminate().catch(() => undefined); // completed and failed payouts have ended
        }),
      ),
    );
  });
});

test('timed moves: UNASSIGNED re-matches, and expires at the assignment SLA; MATCHED expires at the transfer SLA', async (t) => {
  const { deals, calls, activities } = stubs();
  await withWorker(env, activities, async (taskQueue) => {
    const past = new Date(Date.now() - 1000).toISOString();
    const unassignedLate = await startDeal(taskQueue, deals, { status: 'UNASSIGNED', assignDeadlineAt: past, transferDeadlineAt: '' });
    const matchedLate = await startDeal(taskQueue, deals, { status: 'MATCHED', assignDeadlineAt: inAnHour(), transferDeadlineAt: past });
    const rematched = await startDeal(taskQueue, deals, { status: 'UNASSIGNED', assignDeadlineAt: inAnHour(), transferDeadlineAt: '' }, 0.2);
    t.deepEqual(await unassignedLate.result(), { created: true, status: 'EXPIRED' });
    t.deepEqual(await matchedLate.result(), { created: true, status: 'EXPIRED' });
    t.true(calls.includes(`${unassignedLate.workflowId.slice('payout:'.length)} expirePayout`));
    t.true(calls.includes(`${matchedLate.workflowId.slice('payout:'.length)} expireMatchedPayout`));
    // Re-matched: MATCHED with a transfer window; the trader starts and completes it.
    const rematchedId = rematched.workflowId.slice('payout:'.length);
    await eventually(async () => calls.includes(`${rematchedId} matchPayout`), 'the re-match');
    t.is((await rematched.executeUpdate(startPayoutUpdate, { args: [testActor()] })).status, 'PROCESSING');
    t.is((await rematched.executeUpdate(completePayoutUpdate, { args: [testActor()] })).status, 'COMPLETED');
    // Asked as every deal-like workflow is asked (contracts/deal-like.ts).
    t.like(await rematched.query(statusQuery), { status: 'COMPLETED' });
    t.deepEqual(await rematched.result(), { created: true, status: 'COMPLETED' });
  });
});
