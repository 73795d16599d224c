/**
 * APPEAL_TRANSITIONS (domain/state/appeals.ts) through the appeal workflow, with stub activities that
 * keep the appeal and its deal in memory and move them without checking anything: the workflow
 * decides each command on the appeal and deal as readAppealState reads them. From every status,
 * every arbiter move is accepted exactly when the table allows it, else refused with its kind and
 * message before any step runs; so are the moves a live deal forbids here. Commands arrive by
 * Update-With-Start, as the API sends them.
 */
import { randomUUID } from 'node:crypto';
import test from 'ava';
import { WithStartWorkflowOperation } from '@temporalio/client';
import type { Activities } from '../../activities';
import {
  APPEAL_STATUSES,
  APPEAL_TRANSITIONS,
  appealMove,
  liveDealRefusal,
  resolveMove,
  terminalResolutionProblem,
  type AppealMoveKind,
  type AppealStatus,
} from '../../domain/state/appeals';
import { allowsFrom } from '../../domain/state/state-machine';
import { appealCommandUpdate, appealWorkflowId, appealWorkflowType, type AppealCommand, type AppealWorkflow } from '../../workflows/contracts/appeal';
import type { AppealMoveResult, PayinSnapshot } from '../../workflows/contracts/payin';
import { outcomeOf, testActor, withWorker, workflowEnvironment } from '../helpers/workflow-env';

const env = await workflowEnvironment();
test.after.always(() => env.teardown());

const DEAL: PayinSnapshot = { status: 'EXPIRED', amount: '1000', amountVersion: '1', receivedAmount: '0', amountMatchStatus: '', paymentTimeoutAt: '' };

/** Appeals and their deals' statuses in memory; the appeal's id is its deal's id in these tests. */
function stubs() {
  const appeals = new Map<string, AppealStatus>();
  const dealStatus = new Map<string, string>();
  const calls: string[] = [];
  const step = (appealId: string, kind: AppealMoveKind): AppealMoveResult => {
    calls.push(`${appealId} ${kind}`);
    const to = APPEAL_TRANSITIONS[kind].to!;
    appeals.set(appealId, to);
    return { appealId, appealStatus: to, deal: DEAL };
  };
  const activities: Partial<Activities> = {
    readAppealState: async (appealId, dealId) => {
      const id = dealId ?? appealId;
      const status = appeals.get(id);
      return {
        dealStatus: dealStatus.get(id) ?? 'COMPLETED',
        ...(status ? { appeal: { id, status, outcome: null, lastCommandId: null, settled: false } } : {}),
      };
    },
    openAppeal: async (input) => {
      calls.push(`${input.appealId} open`);
      appeals.set(input.appealId, APPEAL_TRANSITIONS.open.to!);
      return { appealId: input.appealId, appealStatus: 'OPEN', deal: DEAL };
    },
    resolveAppeal: async (input) => step(input.appealId, resolveMove(input.outcome)),
    moveAppeal: async (input) => step(input.appealId, input.kind),
  };
  return { appeals, dealStatus, calls, activities };
}

function send(taskQueue: string, appealId: string, command: AppealCommand) {
  const startWorkflowOperation = new WithStartWorkflowOperation<AppealWorkflow>(appealWorkflowType, {
    workflowId: appealWorkflowId(appealId),
    taskQueue,
    workflowIdConflictPolicy: 'USE_EXISTING',
    args: [{ appealId, idleSeconds: 1 }],
  });
  return env.client.workflow.executeUpdateWithStart(appealCommandUpdate, { args: [command], startWorkflowOperation });
}

const command = (appealId: string, kind: AppealMoveKind): AppealCommand => {
  const ids = { operatorId: 'operator', commandId: randomUUID(), actor: testActor() };
  if (kind === 'resolve_merchant' || kind === 'resolve_trader') {
    return { kind: 'resolve', input: { appealId, outcome: kind === 'resolve_merchant' ? 'SATISFIED' : 'REJECTED', note: '', ...ids } };
  }
  return { kind, appealId, ...ids };
};

const MOVES: AppealMoveKind[] = ['review', 'resolve_merchant', 'resolve_trader', 'close', 'reopen'];

test('every arbiter move from every status: accepted exactly when APPEAL_TRANSITIONS allows it, else refused by the workflow with its message', async (t) => {
  const { appeals, calls, activities } = stubs();
  await withWorker(env, activities, async (taskQueue) => {
    await Promise.all(
      APPEAL_STATUSES.flatMap((status) =>
        MOVES.map(async (kind) => {
          const appealId = randomUUID();
          appeals.set(appealId, status);
          const outcome = await outcomeOf(send(taskQueue, appealId, command(appealId, kind)));
          const label = `${kind} from ${status}`;
          if (allowsFrom(APPEAL_TRANSITIONS[kind], status)) {
            t.true(outcome.ok && outcome.value.appealStatus === APPEAL_TRANSITIONS[kind].to, label);
          } else {
            t.deepEqual(outcome, { ok: false, kind: 'FAILED_PRECONDITION', message: (appealMove(status, kind) as { refused: string }).refused }, label);
            t.is(appeals.get(appealId), status, label);
            t.false(
              calls.some((c) => c.startsWith(appealId)),
              `${label}: no step ran`,
            );
          }
        }),
      ),
    );
  });
});

test('an appeal opened through its workflow takes its moves one after another', async (t) => {
  const { appeals, activities } = stubs();
  await withWorker(env, activities, async (taskQueue) => {
    const appealId = randomUUID();
    const open: AppealCommand = {
      kind: 'open',
      input: { appealId, dealId: randomUUID(), merchantId: randomUUID(), tenantId: randomUUID(), reason: 'never arrived', fileIds: [] },
    };
    t.is((await send(taskQueue, appealId, open)).appealStatus, 'OPEN');
    const statuses: string[] = [];
    for (const kind of ['review', 'resolve_trader', 'reopen', 'close'] as AppealMoveKind[]) {
      statuses.push((await send(taskQueue, appealId, command(appealId, kind))).appealStatus);
    }
    t.deepEqual(statuses, ['IN_REVIEW', 'RESOLVED_TRADER', 'REOPENED', 'CLOSED']);
    t.is(appeals.get(appealId), 'CLOSED');
  });
});

test('what a live deal forbids the appeal workflow is refused before any step: an open or a resolution of an APPEALED deal, its close; a SATISFIED on an EXPIRED deal waits for its settlement', async (t) => {
  const { appeals, dealStatus, calls, activities } = stubs();
  await withWorker(env, activities, async (taskQueue) => {
    const cases: { deal: string; appeal?: AppealStatus; kind: AppealMoveKind | 'open'; message: string }[] = [
      { deal: 'PAYMENT_NOTIFIED', kind: 'open', message: liveDealRefusal('open', 'PAYMENT_NOTIFIED')! },
      { deal: 'APPEALED', appeal: 'IN_REVIEW', kind: 'resolve_trader', message: liveDealRefusal('resolve_trader', 'APPEALED')! },
      { deal: 'APPEALED', appeal: 'OPEN', kind: 'close', message: liveDealRefusal('close', 'APPEALED')! },
      {
        deal: 'EXPIRED',
        appeal: 'OPEN',
        kind: 'resolve_merchant',
        message: terminalResolutionProblem({ dealStatus: 'EXPIRED', outcome: 'SATISFIED', settled: false, previousOutcome: null })!,
      },
    ];
    for (const c of cases) {
      const appealId = randomUUID();
      dealStatus.set(appealId, c.deal);
      if (c.appeal) appeals.set(appealId, c.appeal);
      const sent: AppealCommand =
        c.kind === 'open'
          ? { kind: 'open', input: { appealId, dealId: appealId, merchantId: randomUUID(), tenantId: randomUUID(), reason: 'never arrived', fileIds: [] } }
          : command(appealId, c.kind);
      t.deepEqual(
        await outcomeOf(send(taskQueue, appealId, sent)),
        { ok: false, kind: 'FAILED_PRECONDITION', message: c.message },
        `${c.kind} on a ${c.deal} deal`,
      );
    }
    t.deepEqual(calls, [], 'no step ran');
  });
});
