/**
 * APPEAL_TRANSITIONS (domain/appeals.ts) through the appeal workflow, with stub activities that
 * keep the appeal in memory and check each move against the table as the real step does: from
 * every status, every arbiter move is accepted exactly when the table allows it, and a refusal
 * reaches the caller of the update with its kind and message. Commands arrive by
 * Update-With-Start, as the API sends them.
 */
import { randomUUID } from 'node:crypto';
import test from 'ava';
import { WithStartWorkflowOperation } from '@temporalio/client';
import type { Activities } from '../../activities';
import { APPEAL_STATUSES, APPEAL_TRANSITIONS, appealMove, resolveMove, type AppealMoveKind, type AppealStatus } from '../../domain/appeals';
import { allowsFrom } from '../../domain/state-machine';
import { appealCommandUpdate, appealWorkflowId, appealWorkflowType, type AppealCommand, type AppealWorkflow } from '../../workflows/contracts/appeal';
import type { AppealMoveResult, PayinSnapshot } from '../../workflows/contracts/payin';
import { outcomeOf, refusedByActivity, withWorker, workflowEnvironment } from '../helpers/workflow-env';

const env = await workflowEnvironment();
test.after.always(() => env.teardown());

const DEAL: PayinSnapshot = { status: 'EXPIRED', amount: '1000', amountVersion: '1', receivedAmount: '0', amountMatchStatus: '', paymentTimeoutAt: '' };

function stubs() {
  const appeals = new Map<string, AppealStatus>();
  const step = (appealId: string, kind: AppealMoveKind): AppealMoveResult => {
    const move = appealMove(appeals.get(appealId)!, kind);
    if ('refused' in move) throw refusedByActivity('FAILED_PRECONDITION', move.refused);
    appeals.set(appealId, move.to);
    return { appealId, appealStatus: move.to, deal: DEAL };
  };
  const activities: Partial<Activities> = {
    openAppeal: async (input) => {
      appeals.set(input.appealId, APPEAL_TRANSITIONS.open.to!);
      return { appealId: input.appealId, appealStatus: 'OPEN', deal: DEAL };
    },
    resolveAppeal: async (input) => step(input.appealId, resolveMove(input.outcome)),
    moveAppeal: async (input) => step(input.appealId, input.kind),
  };
  return { appeals, activities };
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
  const ids = { operatorId: 'operator', commandId: randomUUID() };
  if (kind === 'resolve_merchant' || kind === 'resolve_trader') {
    return { kind: 'resolve', input: { appealId, outcome: kind === 'resolve_merchant' ? 'SATISFIED' : 'REJECTED', note: '', ...ids } };
  }
  return { kind, appealId, ...ids };
};

const MOVES: AppealMoveKind[] = ['review', 'resolve_merchant', 'resolve_trader', 'close', 'reopen'];

test('every arbiter move from every status: accepted exactly when APPEAL_TRANSITIONS allows it, else refused with its message', async (t) => {
  const { appeals, activities } = stubs();
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
