/**
 * Records the histories that test/workflows/replay.test.ts replays: each workflow of the current
 * code on stub activities, through its paths — the PayIn deal, the PayOut, the appeal, the
 * withdrawal, the endpoint stream, the sandbox trader and the desk hook's delivery. Run it after a change to one of them
 * that is meant to change its commands (and so ships under the rule of docs/operations.md,
 * "Changing workflow code"), then commit the new files:
 *
 *   TEMPORAL_CLI=.tools/bin/temporal node --import tsx test/workflows/record-histories.ts [payin|payout|appeal|withdrawal|endpoint|sandbox-trader|desk-notification]
 *
 * Each file is `{ workflowId, history }`, the history as the proto message's JSON.
 */
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { WithStartWorkflowOperation, type WorkflowHandle } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { ApplicationFailure } from '@temporalio/common';
import proto from '@temporalio/proto';
import type { Activities } from '../../activities';
import type { TransferStatus } from '../../activities/chain';
import { APPEAL_TRANSITIONS, resolveMove, type AppealMoveKind, type AppealStatus } from '../../domain/state/appeals';
import type { AuditActor } from '../../domain/audit';
import type { PayinStatus } from '../../domain/state/payin';
import type { PayoutStatus } from '../../domain/state/payout';
import type { WithdrawalStatus } from '../../domain/state/withdrawals';
import { appealCommandUpdate, appealWorkflowId, appealWorkflowType, type AppealCommand, type AppealWorkflow } from '../../workflows/contracts/appeal';
import { awaitCreationUpdate, statusQuery } from '../../workflows/contracts/deal-like';
import {
  cancelUpdate,
  changeAmountUpdate,
  confirmPaymentUpdate,
  notifyPaymentUpdate,
  openAppealUpdate,
  payinWorkflowId,
  payinWorkflowType,
  reconciliationUpdate,
  resolveAppealUpdate,
  type AppealMoveResult,
  type CreatePayinInput,
  type PayinSnapshot,
  type PayinWorkflow,
} from '../../workflows/contracts/payin';
import {
  completePayoutUpdate,
  payoutWorkflowId,
  payoutWorkflowType,
  rejectPayoutUpdate,
  startPayoutUpdate,
  type CreatePayoutInput,
  type PayoutSnapshot,
  type PayoutWorkflow,
} from '../../workflows/contracts/payout';
import {
  advanceTimerUpdate,
  sandboxTraderAppealWorkflowId,
  sandboxTraderWorkflowId,
  sandboxTraderWorkflowType,
  type SandboxTraderInput,
  type SandboxTraderWorkflow,
} from '../../workflows/contracts/sandbox-trader';
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
import { deskNotificationWorkflowId, deskNotificationWorkflowType, type DeskNotificationWorkflow } from '../../workflows/contracts/desk-notification';
import { eventually } from '../helpers/poll';
import { withWorker, workflowEnvironment } from '../helpers/workflow-env';

const EventType = proto.temporal.api.enums.v1.EventType;
const dir = new URL('./histories/', import.meta.url);

async function save(name: string, handle: WorkflowHandle) {
  const history = proto.temporal.api.history.v1.History.fromObject(await handle.fetchHistory());
  writeFileSync(new URL(`${name}.json`, dir), `${JSON.stringify({ workflowId: handle.workflowId, history: history.toJSON() }, null, 1)}\n`);
  console.log(`${name}.json: ${history.events.length} events`);
}

const actor: AuditActor = { kind: 'operator_account', id: 'recorded-operator', role: 'admin', requestId: 'recorded', requestKey: 'recorded' };
const timeouts = { stepMs: 2000, createMs: 2000 };
const inAnHour = () => new Date(Date.now() + 3_600_000).toISOString();
const refused = (message: string) => ApplicationFailure.nonRetryable(message, 'FAILED_PRECONDITION');

// ---- The PayIn workflow ----

const payins = new Map<string, PayinSnapshot>();
const payinMove = (dealId: string, status: PayinStatus, changes: Partial<PayinSnapshot> = {}) => {
  payins.set(dealId, { ...payins.get(dealId)!, status, ...changes });
  return payins.get(dealId)!;
};
/** Deals whose create step refuses (nothing made) or fails for an infrastructure reason (the row adopted). */
const payinCreate = new Map<string, 'refuse' | 'lost'>();
const payinActivities: Partial<Activities> = {
  createPayinDeal: async (input: CreatePayinInput) => {
    if (payinCreate.get(input.dealId) === 'refuse') throw refused('no trader is available for this payment method and amount right now');
    if (payinCreate.get(input.dealId) === 'lost') throw new Error('connection terminated unexpectedly');
    return payins.get(input.dealId)!;
  },
  abandonPayinCreate: async (dealId: string) => payins.get(dealId) ?? null,
  startSandboxTrader: async () => {},
  markPaymentNotified: async (dealId: string) => payinMove(dealId, 'PAYMENT_NOTIFIED'),
  confirmPayin: async (dealId: string) =>
    payinMove(dealId, ['partial', 'overpaid'].includes(payins.get(dealId)!.amountMatchStatus) ? 'PAYMENT_VERIFIED' : 'COMPLETED'),
  completePayin: async (dealId: string) => payinMove(dealId, 'COMPLETED'),
  cancelPayin: async (dealId: string) => payinMove(dealId, 'CANCELLED'),
  expirePayin: async (dealId: string) => payinMove(dealId, 'EXPIRED'),
  recordReconciliation: async (dealId: string, receivedAmount: string) =>
    payinMove(dealId, payins.get(dealId)!.status, { receivedAmount, amountMatchStatus: receivedAmount === payins.get(dealId)!.amount ? 'full' : 'partial' }),
  changePayinAmount: async (input) => ({
    snapshot: payinMove(input.dealId, payins.get(input.dealId)!.status, { amount: input.newAmount, amountVersion: '2' }),
    replayed: false,
  }),
  distributePayinFee: async () => {},
  // The appeal of a recorded deal has the deal's id.
  openAppeal: async (input) => ({ appealId: input.appealId, appealStatus: 'OPEN', deal: payinMove(input.dealId, 'APPEALED') }),
  resolveAppeal: async (input) => ({
    appealId: input.appealId,
    appealStatus: input.outcome === 'REJECTED' ? 'RESOLVED_TRADER' : 'RESOLVED_MERCHANT',
    deal: payinMove(input.appealId, input.outcome === 'REJECTED' ? 'CANCELLED' : 'COMPLETED'),
  }),
};

async function recordPayins(env: TestWorkflowEnvironment) {
  await withWorker(env, payinActivities, async (taskQueue) => {
    /** Starts a deal as the API does: Update-With-Start of its creation update. */
    const create = async (snapshot: Partial<PayinSnapshot>, options: { create?: 'refuse' | 'lost'; feeDelaySeconds?: number } = {}) => {
      const dealId = randomUUID();
      payins.set(dealId, {
        status: 'ESCROW_LOCKED',
        amount: '1000',
        amountVersion: '1',
        receivedAmount: '0',
        amountMatchStatus: '',
        paymentTimeoutAt: inAnHour(),
        ...snapshot,
      });
      if (options.create) payinCreate.set(dealId, options.create);
      const requestId = randomUUID();
      const startWorkflowOperation = new WithStartWorkflowOperation<PayinWorkflow>(payinWorkflowType, {
        workflowId: payinWorkflowId(dealId),
        taskQueue,
        workflowIdConflictPolicy: 'USE_EXISTING',
        args: [{ requestId, create: { dealId } as CreatePayinInput, feeDistributionDelaySeconds: options.feeDelaySeconds ?? 0.05, timeouts }],
      });
      await env.client.workflow.executeUpdateWithStart(awaitCreationUpdate, { args: [requestId], startWorkflowOperation }).catch(() => undefined);
      return env.client.workflow.getHandle<PayinWorkflow>(payinWorkflowId(dealId));
    };

    const confirmed = await create({});
    await confirmed.executeUpdate(notifyPaymentUpdate);
    await confirmed.executeUpdate(confirmPaymentUpdate, { args: [actor] });
    await confirmed.result();
    await save('payin-notified-confirmed-fee-distributed', confirmed);

    const reconciled = await create({});
    await reconciled.executeUpdate(reconciliationUpdate, { args: ['900', actor] });
    await reconciled.executeUpdate(confirmPaymentUpdate, { args: [actor] });
    await reconciled.executeUpdate(reconciliationUpdate, { args: ['1000', actor] });
    await reconciled.result();
    await save('payin-partial-confirmed-reconciled-completed', reconciled);

    const changed = await create({});
    const change = { amountFiat: '900', reason: 'recorded', idempotencyKey: 'recorded', expectedAmountVersion: '1', operatorId: 'operator', actor };
    await changed.executeUpdate(changeAmountUpdate, { args: [change] });
    await changed.executeUpdate(changeAmountUpdate, { args: [change] });
    await changed.executeUpdate(cancelUpdate, { args: ['merchant', 'recorded'] });
    await changed.result();
    await save('payin-amount-changed-cancelled', changed);

    const expired = await create({ paymentTimeoutAt: new Date(Date.now() + 200).toISOString() });
    await expired.result();
    await save('payin-expired', expired);

    const appealed = await create({});
    const dealId = appealed.workflowId.slice('payin:'.length);
    await appealed.executeUpdate(openAppealUpdate, {
      args: [{ appealId: dealId, dealId, merchantId: 'recorded', tenantId: 'recorded', reason: 'paid, not credited', fileIds: [] }],
    });
    const resolution = { appealId: dealId, outcome: 'REJECTED' as const, note: '', operatorId: 'arbiter', commandId: randomUUID(), actor };
    await appealed.executeUpdate(resolveAppealUpdate, { args: [resolution] });
    await appealed.result();
    await save('payin-appealed-rejected', appealed);

    const sandbox = await create({ sandbox: true });
    await sandbox.executeUpdate(advanceTimerUpdate);
    await sandbox.result();
    await save('payin-sandbox-advanced-expired', sandbox);

    const refusedCreate = await create({}, { create: 'refuse' });
    await refusedCreate.result();
    await save('payin-create-refused', refusedCreate);

    const adopted = await create({}, { create: 'lost' });
    await adopted.executeUpdate(cancelUpdate, { args: ['merchant', 'recorded'] });
    await adopted.result();
    await save('payin-create-adopted-cancelled', adopted);
  });
}

// ---- The PayOut workflow ----

const payouts = new Map<string, PayoutSnapshot>();
const payoutMove = (dealId: string, status: PayoutStatus, changes: Partial<PayoutSnapshot> = {}) => {
  payouts.set(dealId, { ...payouts.get(dealId)!, status, ...changes });
  return payouts.get(dealId)!;
};
/** Payouts whose re-match finds a trader on its second look. */
const rematching = new Map<string, number>();
const payoutActivities: Partial<Activities> = {
  createPayoutDeal: async (input: CreatePayoutInput) => payouts.get(input.dealId)!,
  abandonPayoutCreate: async (dealId: string) => payouts.get(dealId) ?? null,
  startSandboxTrader: async () => {},
  assignPayout: async (dealId: string) => payoutMove(dealId, 'MATCHED', { transferDeadlineAt: inAnHour() }),
  matchPayout: async (dealId: string) => {
    const looks = (rematching.get(dealId) ?? 0) + 1;
    rematching.set(dealId, looks);
    return looks >= 2 ? payoutMove(dealId, 'MATCHED', { transferDeadlineAt: inAnHour() }) : payouts.get(dealId)!;
  },
  startPayout: async (dealId: string) => payoutMove(dealId, 'PROCESSING'),
  completePayout: async (dealId: string) => payoutMove(dealId, 'COMPLETED'),
  failPayout: async (dealId: string) => payoutMove(dealId, 'FAILED'),
  expirePayout: async (dealId: string) => payoutMove(dealId, 'EXPIRED'),
  expireMatchedPayout: async (dealId: string) => payoutMove(dealId, 'EXPIRED'),
  flagOverduePayout: async () => {},
};

async function recordPayouts(env: TestWorkflowEnvironment) {
  await withWorker(env, payoutActivities, async (taskQueue) => {
    const create = async (snapshot: PayoutSnapshot, options: { retryMatchSeconds?: number; processingAlertSeconds?: number; rematch?: boolean } = {}) => {
      const dealId = randomUUID();
      payouts.set(dealId, snapshot);
      if (options.rematch) rematching.set(dealId, 0);
      const requestId = randomUUID();
      const startWorkflowOperation = new WithStartWorkflowOperation<PayoutWorkflow>(payoutWorkflowType, {
        workflowId: payoutWorkflowId(dealId),
        taskQueue,
        workflowIdConflictPolicy: 'USE_EXISTING',
        args: [
          {
            requestId,
            create: { dealId } as CreatePayoutInput,
            retryMatchSeconds: options.retryMatchSeconds ?? 3600,
            processingAlertSeconds: options.processingAlertSeconds ?? 0,
            timeouts,
          },
        ],
      });
      await env.client.workflow.executeUpdateWithStart(awaitCreationUpdate, { args: [requestId], startWorkflowOperation });
      return env.client.workflow.getHandle<PayoutWorkflow>(payoutWorkflowId(dealId));
    };
    const soon = () => new Date(Date.now() + 300).toISOString();

    const completed = await create({ status: 'MATCHED', assignDeadlineAt: inAnHour(), transferDeadlineAt: inAnHour() });
    await completed.executeUpdate(startPayoutUpdate, { args: [actor] });
    await completed.executeUpdate(completePayoutUpdate, { args: [actor] });
    await completed.result();
    await save('payout-matched-started-completed', completed);

    const alerted = await create({ status: 'MATCHED', assignDeadlineAt: inAnHour(), transferDeadlineAt: inAnHour() }, { processingAlertSeconds: 0.1 });
    await alerted.executeUpdate(startPayoutUpdate, { args: [actor] });
    await new Promise((r) => setTimeout(r, 500));
    await alerted.executeUpdate(rejectPayoutUpdate, { args: ['wrong requisites', actor] });
    await alerted.result();
    await save('payout-processing-alerted-rejected', alerted);

    const rematched = await create({ status: 'UNASSIGNED', assignDeadlineAt: inAnHour(), transferDeadlineAt: '' }, { retryMatchSeconds: 0.1, rematch: true });
    await eventually(async () => (await rematched.query(statusQuery))?.status === 'MATCHED', 'the re-match');
    await rematched.executeUpdate(startPayoutUpdate, { args: [actor] });
    await rematched.executeUpdate(completePayoutUpdate, { args: [actor] });
    await rematched.result();
    await save('payout-unassigned-rematched-completed', rematched);

    const unassigned = await create({ status: 'UNASSIGNED', assignDeadlineAt: soon(), transferDeadlineAt: '' }, { retryMatchSeconds: 0.1 });
    await unassigned.result();
    await save('payout-unassigned-expired', unassigned);

    const matched = await create({ status: 'MATCHED', assignDeadlineAt: inAnHour(), transferDeadlineAt: soon() });
    await matched.result();
    await save('payout-matched-expired', matched);

    const sandbox = await create({ status: 'MATCHED', assignDeadlineAt: inAnHour(), transferDeadlineAt: inAnHour(), sandbox: true });
    await sandbox.executeUpdate(advanceTimerUpdate);
    await sandbox.result();
    await save('payout-sandbox-advanced-expired', sandbox);
  });
}

// ---- The appeal workflow ----

const appeals = new Map<string, AppealStatus>();
const EXPIRED_DEAL: PayinSnapshot = { status: 'EXPIRED', amount: '1000', amountVersion: '1', receivedAmount: '0', amountMatchStatus: '', paymentTimeoutAt: '' };
const appealStep = (appealId: string, kind: AppealMoveKind): AppealMoveResult => {
  const to = APPEAL_TRANSITIONS[kind].to!;
  appeals.set(appealId, to);
  return { appealId, appealStatus: to, deal: EXPIRED_DEAL };
};
const appealActivities: Partial<Activities> = {
  readAppealState: async (appealId: string) => {
    const status = appeals.get(appealId);
    return { dealStatus: 'EXPIRED', ...(status ? { appeal: { id: appealId, status, outcome: null, lastCommandId: null, settled: false } } : {}) };
  },
  openAppeal: async (input) => {
    appeals.set(input.appealId, 'OPEN');
    return { appealId: input.appealId, appealStatus: 'OPEN', deal: EXPIRED_DEAL };
  },
  resolveAppeal: async (input) => appealStep(input.appealId, resolveMove(input.outcome)),
  moveAppeal: async (input) => appealStep(input.appealId, input.kind),
};

async function recordAppeals(env: TestWorkflowEnvironment) {
  await withWorker(env, appealActivities, async (taskQueue) => {
    const appealId = randomUUID();
    const send = (command: AppealCommand) =>
      env.client.workflow
        .executeUpdateWithStart(appealCommandUpdate, {
          args: [command],
          startWorkflowOperation: new WithStartWorkflowOperation<AppealWorkflow>(appealWorkflowType, {
            workflowId: appealWorkflowId(appealId),
            taskQueue,
            workflowIdConflictPolicy: 'USE_EXISTING',
            args: [{ appealId, idleSeconds: 0.5 }],
          }),
        })
        .catch(() => undefined);
    const ids = () => ({ appealId, operatorId: 'arbiter', commandId: randomUUID(), actor });
    await send({ kind: 'open', input: { appealId, dealId: randomUUID(), merchantId: 'recorded', tenantId: 'recorded', reason: 'never arrived', fileIds: [] } });
    await send({ kind: 'review', ...ids() });
    // Refused by the workflow: an appeal in review cannot be reopened.
    await send({ kind: 'reopen', ...ids() });
    await send({ kind: 'resolve', input: { ...ids(), outcome: 'REJECTED', note: 'recorded' } });
    await send({ kind: 'close', ...ids() });
    const handle = env.client.workflow.getHandle<AppealWorkflow>(appealWorkflowId(appealId));
    const first = (await handle.describe()).runId;
    await env.client.workflow.getHandle(appealWorkflowId(appealId), first).result();
    await save('appeal-open-review-refused-resolved-closed', env.client.workflow.getHandle(appealWorkflowId(appealId), first));
  });
}

// ---- The sandbox trader ----

const sandboxTraderActivities: Partial<Activities> = {
  sandboxTraderMove: async (_dealId, _dealType, move) => {
    // The deal refuses the payout's completion (e.g. the merchant's operator rejected it first).
    return move.kind === 'payout_complete' ? 'refused' : 'done';
  },
};

async function recordSandboxTrader(env: TestWorkflowEnvironment) {
  await withWorker(env, sandboxTraderActivities, async (taskQueue) => {
    const start = (workflowId: string, input: SandboxTraderInput) =>
      env.client.workflow.start<SandboxTraderWorkflow>(sandboxTraderWorkflowType, { workflowId, taskQueue, args: [input] });
    const payin = await start(sandboxTraderWorkflowId(randomUUID()), { dealId: randomUUID(), dealType: 'PAYIN', amount: '150000', delaySeconds: 0.05 });
    await payin.result();
    await save('sandbox-trader-payin-completed', payin);
    const payout = await start(sandboxTraderWorkflowId(randomUUID()), { dealId: randomUUID(), dealType: 'PAYOUT', amount: '150000', delaySeconds: 0.05 });
    await payout.result();
    await save('sandbox-trader-payout-refused', payout);
    const appeal = await start(sandboxTraderAppealWorkflowId(randomUUID()), {
      dealId: randomUUID(),
      dealType: 'PAYIN',
      amount: '150000',
      delaySeconds: 0.05,
      appeal: { appealId: randomUUID(), outcome: 'SATISFIED' },
    });
    await appeal.result();
    await save('sandbox-trader-appeal-resolved', appeal);
  });
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
  abandonWithdrawalCreate: async (id: string) => rows.get(id) ?? null,
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
            requestId: randomUUID(),
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
    await manual.executeUpdate(approveWithdrawalUpdate, { args: ['operator', actor] });
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

// ---- The desk hook's delivery ----

/** The hook refuses the first attempt of an event (a retry on the policy's timer), then takes it. */
const deskAttempts = new Map<string, number>();
const deskActivities: Partial<Activities> = {
  deliverDeskEvent: async (eventId: string) => {
    const n = (deskAttempts.get(eventId) ?? 0) + 1;
    deskAttempts.set(eventId, n);
    if (n === 1) throw new Error('the desk hook answered 503');
    return { status: 200 };
  },
};

async function recordDeskNotification(env: TestWorkflowEnvironment) {
  await withWorker(env, deskActivities, async (taskQueue) => {
    const handle = await env.client.workflow.start<DeskNotificationWorkflow>(deskNotificationWorkflowType, {
      workflowId: deskNotificationWorkflowId('1'),
      taskQueue,
      args: [{ eventId: '1', maxAttempts: 30, attemptTimeoutMs: 15_000 }],
    });
    await handle.result();
    await save('desk-notification-retried-delivered', handle);
  });
}

const recorders: Record<string, (env: TestWorkflowEnvironment) => Promise<void>> = {
  'desk-notification': recordDeskNotification,
  payin: recordPayins,
  payout: recordPayouts,
  appeal: recordAppeals,
  withdrawal: recordWithdrawals,
  endpoint: recordEndpoint,
  'sandbox-trader': recordSandboxTrader,
};
const env = await workflowEnvironment();
try {
  const which = process.argv[2];
  for (const [name, record] of Object.entries(recorders)) if (!which || which === name) await record(env);
} finally {
  await env.teardown();
}
