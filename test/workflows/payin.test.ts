/**
 * PAYIN_TRANSITIONS (domain/state/payin.ts) on the PayIn workflow, with stub activities: from every
 * state the workflow lives in, each command is accepted exactly when the table lists the state as
 * a source, and refused otherwise — by the workflow, with the table's kind and message, before any
 * step runs; the payment timeout expires exactly the expirable states.
 */
import { randomUUID } from 'node:crypto';
import test from 'ava';
import type { WorkflowHandle } from '@temporalio/client';
import proto from '@temporalio/proto';
import { allowsFrom } from '../../domain/state/state-machine';
import { PAYIN_EXPIRABLE, PAYIN_STATUSES, PAYIN_TRANSITIONS, payinRefusal, type PayinMove, type PayinStatus } from '../../domain/state/payin';
import { APPEAL_HOLDS_DEAL, appealOpenRefusal } from '../../domain/state/appeals';
import type { Activities } from '../../activities';
import {
  cancelUpdate,
  changeAmountUpdate,
  completeUpdate,
  confirmPaymentUpdate,
  confirmReceivedUpdate,
  notifyPaymentUpdate,
  openAppealUpdate,
  payinWorkflowId,
  payinWorkflowType,
  reconciliationUpdate,
  reportNotReceivedUpdate,
  resolveAppealUpdate,
  type CancelChannel,
  type ChangeAmountInput,
  type CreatePayinInput,
  type PayinSnapshot,
  type PayinWorkflow,
  type ResolveAppealInput,
} from '../../workflows/contracts/payin';
import { statusQuery } from '../../workflows/contracts/deal-like';
import { inAnHour, outcomeOf, testActor, withWorker, workflowEnvironment } from '../helpers/workflow-env';
import { eventually } from '../helpers/poll';

const EventType = proto.temporal.api.enums.v1.EventType;

const env = await workflowEnvironment();
test.after.always(() => env.teardown());

/** A deal store behind stub activities: the create step makes the deal in the status the test chose. */
function stubs() {
  const deals = new Map<string, PayinSnapshot>();
  const calls: string[] = [];
  const move = (dealId: string, status: PayinStatus, changes: Partial<PayinSnapshot> = {}) => {
    const next = { ...deals.get(dealId)!, status, ...changes };
    deals.set(dealId, next);
    return next;
  };
  const record = (name: string, dealId: string) => calls.push(`${dealId} ${name}`);
  const activities: Partial<Activities> = {
    async createPayinDeal(input: CreatePayinInput) {
      return deals.get(input.dealId)!;
    },
    async abandonPayinCreate(dealId: string) {
      return deals.get(dealId) ?? null;
    },
    async markPaymentNotified(dealId: string) {
      record('markPaymentNotified', dealId);
      return move(dealId, 'PAYMENT_NOTIFIED');
    },
    async completePayin(dealId: string) {
      record('completePayin', dealId);
      return move(dealId, 'COMPLETED');
    },
    async confirmPayin(dealId: string) {
      record('confirmPayin', dealId);
      const match = deals.get(dealId)!.amountMatchStatus;
      return move(dealId, match === 'partial' || match === 'overpaid' ? 'PAYMENT_VERIFIED' : 'COMPLETED');
    },
    async reportPayinNotReceived(dealId: string) {
      record('reportPayinNotReceived', dealId);
      return move(dealId, deals.get(dealId)!.status);
    },
    async cancelPayin(dealId: string) {
      record('cancelPayin', dealId);
      return move(dealId, 'CANCELLED');
    },
    async expirePayin(dealId: string) {
      record('expirePayin', dealId);
      return move(dealId, 'EXPIRED');
    },
    async recordReconciliation(dealId: string, receivedAmount: string) {
      record('recordReconciliation', dealId);
      return move(dealId, deals.get(dealId)!.status, { receivedAmount, amountMatchStatus: 'partial' });
    },
    async distributePayinFee() {},
    async changePayinAmount(input) {
      record('changePayinAmount', input.dealId);
      const version = String(BigInt(deals.get(input.dealId)!.amountVersion) + 1n);
      return { snapshot: move(input.dealId, deals.get(input.dealId)!.status, { amount: input.newAmount, amountVersion: version }), replayed: false };
    },
    // The appeal of a deal in these tests has the deal's id (a resolution names only its appeal).
    async openAppeal(input) {
      record('openAppeal', input.dealId);
      const deal = deals.get(input.dealId)!;
      const held = APPEAL_HOLDS_DEAL.includes(deal.status) ? move(input.dealId, 'APPEALED') : deal;
      return { appealId: input.appealId, appealStatus: 'OPEN', deal: held };
    },
    async resolveAppeal(input) {
      record('resolveAppeal', input.appealId);
      const rejected = input.outcome === 'REJECTED';
      return {
        appealId: input.appealId,
        appealStatus: rejected ? 'RESOLVED_TRADER' : 'RESOLVED_MERCHANT',
        deal: move(input.appealId, rejected ? 'CANCELLED' : 'COMPLETED'),
      };
    },
  };
  return { deals, calls, activities };
}

/** The states a PayIn workflow stays open in: every live one, and COMPLETED during the fee delay. */
const OPEN_STATES = PAYIN_STATUSES.filter((s) => !['EXPIRED', 'CANCELLED', 'SPAM_REJECTED'].includes(s));

const dealIdOf = (h: WorkflowHandle<PayinWorkflow>) => h.workflowId.slice('payin:'.length);
const amountChange = (change: Partial<ChangeAmountInput> = {}): ChangeAmountInput => ({
  amountFiat: '900',
  reason: 'the payer sent less',
  idempotencyKey: randomUUID(),
  expectedAmountVersion: '0',
  operatorId: 'operator',
  actor: testActor(),
  ...change,
});
const resolution = (h: WorkflowHandle<PayinWorkflow>, outcome: ResolveAppealInput['outcome'], commandId: string = randomUUID()): ResolveAppealInput => ({
  appealId: dealIdOf(h),
  outcome,
  note: '',
  operatorId: 'arbiter',
  commandId,
  actor: testActor(),
});

type Command = { move: PayinMove; send: (h: WorkflowHandle<PayinWorkflow>) => Promise<PayinSnapshot>; channel?: CancelChannel };
const COMMANDS: Command[] = [
  { move: 'notify_payment', send: (h) => h.executeUpdate(notifyPaymentUpdate) },
  { move: 'confirm_payment', send: (h) => h.executeUpdate(confirmPaymentUpdate, { args: [testActor()] }) },
  { move: 'confirm_payment', send: (h) => h.executeUpdate(confirmReceivedUpdate, { args: ['1000', testActor()] }) },
  { move: 'report_not_received', send: (h) => h.executeUpdate(reportNotReceivedUpdate, { args: ['nothing arrived', testActor()] }) },
  { move: 'complete', send: (h) => h.executeUpdate(completeUpdate, { args: [testActor()] }) },
  { move: 'reconcile', send: (h) => h.executeUpdate(reconciliationUpdate, { args: ['100', testActor()] }) },
  { move: 'cancel', channel: 'merchant', send: (h) => h.executeUpdate(cancelUpdate, { args: ['merchant', 'test'] }) },
  { move: 'cancel', channel: 'checkout', send: (h) => h.executeUpdate(cancelUpdate, { args: ['checkout', 'test'] }) },
  { move: 'change_amount', send: async (h) => (await h.executeUpdate(changeAmountUpdate, { args: [amountChange()] })).snapshot },
  { move: 'appeal_rejected', send: async (h) => (await h.executeUpdate(resolveAppealUpdate, { args: [resolution(h, 'REJECTED')] })).deal },
  { move: 'appeal_satisfied', send: async (h) => (await h.executeUpdate(resolveAppealUpdate, { args: [resolution(h, 'SATISFIED')] })).deal },
];

/** The refusal the workflow answers: the table's, and for a resolution of a deal it does not hold in APPEALED, where the appeal is resolved. */
const expectedRefusal = (command: Command, status: PayinStatus) =>
  command.move === 'appeal_rejected' || command.move === 'appeal_satisfied'
    ? { kind: 'FAILED_PRECONDITION', message: `deal is ${status}; its appeal is resolved through the appeal's workflow` }
    : payinRefusal(command.move, status, command.channel)!;

async function startDeal(taskQueue: string, deals: Map<string, PayinSnapshot>, status: PayinStatus, paymentTimeoutAt = inAnHour()) {
  const dealId = randomUUID();
  deals.set(dealId, { status, amount: '1000', amountVersion: '1', receivedAmount: '0', amountMatchStatus: '', paymentTimeoutAt });
  const create = { dealId } as CreatePayinInput;
  return env.client.workflow.start<PayinWorkflow>(payinWorkflowType, {
    workflowId: payinWorkflowId(dealId),
    taskQueue,
    // COMPLETED waits out a long fee delay, so commands still reach it.
    args: [{ requestId: randomUUID(), create, feeDistributionDelaySeconds: 3600, timeouts: { stepMs: 2000, createMs: 2000 } }],
  });
}

test('every command from every open state: accepted exactly when PAYIN_TRANSITIONS allows it, else refused by the workflow with its kind and message', async (t) => {
  const { deals, calls, activities } = stubs();
  await withWorker(env, activities, async (taskQueue) => {
    const cases = OPEN_STATES.flatMap((status) => COMMANDS.map((command) => ({ status, command })));
    await Promise.all(
      cases.map(async ({ status, command }) => {
        const handle = await startDeal(taskQueue, deals, status);
        const outcome = await outcomeOf(command.send(handle));
        const label = `${command.move}${command.channel ? `/${command.channel}` : ''} from ${status}`;
        if (allowsFrom(PAYIN_TRANSITIONS[command.move], status)) {
          t.true(outcome.ok, label);
          const expected = command.move === 'confirm_payment' ? 'COMPLETED' : (PAYIN_TRANSITIONS[command.move].to ?? status);
          if (outcome.ok) t.is(outcome.value.status as string, expected as string, label);
        } else {
          const refusal = expectedRefusal(command, status);
          t.deepEqual(outcome, { ok: false, kind: refusal.kind, message: refusal.message }, label);
          t.false(
            calls.some((c) => c.startsWith(dealIdOf(handle))),
            `${label}: no activity ran`,
          );
        }
        await handle.terminate().catch(() => undefined); // a cancelled deal's run has ended
      }),
    );
  });
  // A few of the table's refusals, word for word (the API answers them).
  t.is(payinRefusal('notify_payment', 'PAYMENT_NOTIFIED')!.message, 'payment was already notified; do not retry');
  t.deepEqual(payinRefusal('cancel', 'COMPLETED', 'checkout'), { kind: 'CONFLICT', message: 'deal is COMPLETED; it can no longer be cancelled' });
  t.deepEqual(payinRefusal('cancel', 'PAYMENT_VERIFIED', 'checkout'), {
    kind: 'INVALID_ARGUMENT',
    message: 'deal is PAYMENT_VERIFIED; it can no longer be cancelled',
  });
  t.deepEqual(payinRefusal('confirm_payment', 'APPEALED'), { kind: 'FAILED_PRECONDITION', message: 'deal is APPEALED; receipt cannot be confirmed' });
});

test('at payment_timeout_at exactly the expirable states expire; the others (APPEALED …) wait for the arbiter', async (t) => {
  const { deals, calls, activities } = stubs();
  await withWorker(env, activities, async (taskQueue) => {
    const live = OPEN_STATES.filter((s) => s !== 'COMPLETED');
    await Promise.all(
      live.map(async (status) => {
        const handle = await startDeal(taskQueue, deals, status, new Date().toISOString());
        if (PAYIN_EXPIRABLE.includes(status)) {
          t.deepEqual(await handle.result(), { created: true, status: 'EXPIRED' }, status);
          return;
        }
        await timerHandled(handle);
        t.is((await handle.query(statusQuery))?.status, status, status);
        t.false(calls.includes(`${handle.workflowId.slice('payin:'.length)} expirePayin`), status);
        await handle.terminate();
      }),
    );
  });
});

/** The payment timer fired and the workflow task after it completed. */
async function timerHandled(handle: WorkflowHandle<PayinWorkflow>) {
  await eventually(async () => {
    const events = (await handle.fetchHistory()).events ?? [];
    const fired = events.some((e) => e.eventType === EventType.EVENT_TYPE_TIMER_FIRED);
    return fired && events[events.length - 1]?.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED;
  }, `the timer of ${handle.workflowId}`);
}

test('the confirm is one step, and DealStatus is written once, when the deal reaches a final status', async (t) => {
  const { deals, calls, activities } = stubs();
  await withWorker(env, activities, async (taskQueue) => {
    const handle = await startDeal(taskQueue, deals, 'PAYMENT_NOTIFIED', inAnHour());
    t.is((await handle.executeUpdate(confirmPaymentUpdate, { args: [testActor()] })).status, 'COMPLETED');
    const dealId = handle.workflowId.slice('payin:'.length);
    const steps = calls.filter((c) => c.startsWith(dealId)).map((c) => c.split(' ')[1]);
    const upserts = ((await handle.fetchHistory()).events ?? []).filter((e) => e.eventType === EventType.EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES).length;
    await handle.terminate();
    t.deepEqual({ steps, upserts }, { steps: ['confirmPayin'], upserts: 1 }, 'one step, DealStatus once at COMPLETED');
  });
});

test('amount changes are decided by the workflow: a repeat is answered whatever the status, another amount under its key and a stale version are 409, none of them runs a step', async (t) => {
  const { deals, calls, activities } = stubs();
  await withWorker(env, activities, async (taskQueue) => {
    const handle = await startDeal(taskQueue, deals, 'ESCROW_LOCKED');
    const dealId = dealIdOf(handle);
    const change = amountChange({ expectedAmountVersion: '1' });
    t.like(await handle.executeUpdate(changeAmountUpdate, { args: [change] }), { replayed: false, snapshot: { amount: '900', amountVersion: '2' } });
    // The deal moves on; the same change again is its answer, not a refusal and not a second change.
    await handle.executeUpdate(confirmPaymentUpdate, { args: [testActor()] });
    t.like(await handle.executeUpdate(changeAmountUpdate, { args: [{ ...change, actor: testActor() }] }), {
      replayed: true,
      snapshot: { status: 'COMPLETED' },
    });
    t.deepEqual(await outcomeOf(handle.executeUpdate(changeAmountUpdate, { args: [{ ...change, amountFiat: '800' }] })), {
      ok: false,
      kind: 'CONFLICT',
      message: 'idempotency_key was already used with another amount',
    });
    const live = await startDeal(taskQueue, deals, 'PAYMENT_NOTIFIED');
    t.deepEqual(await outcomeOf(live.executeUpdate(changeAmountUpdate, { args: [amountChange({ expectedAmountVersion: '7' })] })), {
      ok: false,
      kind: 'CONFLICT',
      message: 'stale expected_amount_version 7: the current amount_version is 1',
    });
    t.deepEqual(
      calls.filter((c) => c.endsWith('changePayinAmount')),
      [`${dealId} changePayinAmount`],
      'one step: the first change',
    );
    await Promise.all([handle.terminate(), live.terminate()]);
  });
});

test('appeals on the deal are decided by the workflow: one open holds the deal, a second is refused, the resolution ends it once; repeats are answered without a second step', async (t) => {
  const { deals, calls, activities } = stubs();
  await withWorker(env, activities, async (taskQueue) => {
    const handle = await startDeal(taskQueue, deals, 'PAYMENT_NOTIFIED');
    const dealId = dealIdOf(handle);
    const open = { appealId: dealId, dealId, merchantId: randomUUID(), tenantId: randomUUID(), reason: 'paid, not credited', fileIds: [] };
    t.like(await handle.executeUpdate(openAppealUpdate, { args: [open] }), { appealStatus: 'OPEN', deal: { status: 'APPEALED' } });
    t.like(await handle.executeUpdate(openAppealUpdate, { args: [open] }), { appealStatus: 'OPEN', deal: { status: 'APPEALED' } }, 'a repeat');
    t.deepEqual(await outcomeOf(handle.executeUpdate(openAppealUpdate, { args: [{ ...open, appealId: randomUUID() }] })), {
      ok: false,
      kind: 'FAILED_PRECONDITION',
      message: appealOpenRefusal('APPEALED', { id: dealId, status: 'OPEN' })!,
    });

    const commandId = randomUUID();
    t.like(await handle.executeUpdate(resolveAppealUpdate, { args: [resolution(handle, 'SATISFIED', commandId)] }), {
      appealStatus: 'RESOLVED_MERCHANT',
      deal: { status: 'COMPLETED' },
    });
    t.like(
      await handle.executeUpdate(resolveAppealUpdate, { args: [resolution(handle, 'SATISFIED', commandId)] }),
      { appealStatus: 'RESOLVED_MERCHANT' },
      'a repeat',
    );
    t.deepEqual(await outcomeOf(handle.executeUpdate(resolveAppealUpdate, { args: [resolution(handle, 'REJECTED')] })), {
      ok: false,
      kind: 'FAILED_PRECONDITION',
      message: 'appeal is RESOLVED_MERCHANT; it was already resolved (reopen it first)',
    });
    t.deepEqual(
      calls.filter((c) => c.startsWith(dealId)).map((c) => c.split(' ')[1]),
      ['openAppeal', 'resolveAppeal'],
      'one step each',
    );
    await handle.terminate();
  });
});
