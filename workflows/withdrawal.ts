/**
 * One workflow per withdrawal (`withdrawal:<id>`), reading like the table in domain/withdrawals.ts:
 *
 *   create  → PENDING (amount ≤ the merchant's effective auto limit) or PENDING_MANUAL (queue)
 *   PENDING_MANUAL → approve → APPROVED          PENDING_MANUAL → cancel → CANCELLED (refund, event)
 *   PENDING | APPROVED → broadcast sent → COMPLETED;  refused for good → CANCELLED (refund, event)
 *
 * The broadcast is an activity against the chain adapter: it records its intent before each send
 * and the adapter is idempotent by withdrawal id, so retries (transient failures, a hanging call
 * past its timeout, a worker that died) never transfer twice. Transient failures retry with
 * exponential backoff and no attempt limit: the hold stays frozen until the chain answers.
 */
import { ApplicationFailure, condition, proxyActivities, setHandler } from '@temporalio/workflow';
import type { Activities } from '../activities';
import { WITHDRAWAL_BROADCASTING, withdrawalRefusal } from '../domain/withdrawals';
import { createSteps, dealSteps } from './activity-proxies';
import {
  approveWithdrawalUpdate,
  awaitWithdrawalCreationUpdate,
  cancelWithdrawalUpdate,
  withdrawalStatusQuery,
  type WithdrawalOutcome,
  type WithdrawalSnapshot,
  type WithdrawalWorkflowInput,
} from './contracts/withdrawal';
import { createOnce, dealLifecycle } from './deal-lifecycle';
import { businessFailure } from './failures';

export async function withdrawalWorkflow(input: WithdrawalWorkflowInput): Promise<WithdrawalOutcome> {
  const id = input.create.withdrawalId;
  const steps = dealSteps(input.timeouts);
  const local = createSteps(input.timeouts);

  const chain = proxyActivities<Activities>({
    startToCloseTimeout: `${input.broadcast.timeoutSeconds} seconds`,
    heartbeatTimeout: `${input.broadcast.heartbeatSeconds} seconds`,
    retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: `${input.broadcast.maxBackoffSeconds} seconds` },
  });

  /** Waits (up to syncWaitMs) until no broadcast is under way, then answers the current state. */
  const settledOrCurrent = async (): Promise<WithdrawalSnapshot> => {
    if (input.syncWaitMs > 0) await condition(() => !WITHDRAWAL_BROADCASTING.includes(withdrawal.current().status), input.syncWaitMs);
    return withdrawal.current();
  };
  const withdrawal = dealLifecycle({
    statusQuery: withdrawalStatusQuery,
    creationUpdate: awaitWithdrawalCreationUpdate,
    notFound: 'withdrawal not found',
    creationAnswer: settledOrCurrent,
  });
  const { apply, current, serial } = withdrawal;

  // The operator's moves of the table in domain/withdrawals.ts; any other source state is refused.
  setHandler(approveWithdrawalUpdate, async (operatorId) => {
    await withdrawal.command(
      (w) => withdrawalRefusal('approve', w.status),
      async () => apply(await steps.approveWithdrawal(id, operatorId)),
    );
    return settledOrCurrent();
  });
  setHandler(cancelWithdrawalUpdate, (reason, operatorId) =>
    withdrawal.command(
      (w) => withdrawalRefusal('cancel', w.status),
      async () => apply(await steps.cancelWithdrawal(id, reason, operatorId)),
    ),
  );

  const refused = await withdrawal.create(() => createOnce(() => local.createWithdrawal(input.create)));
  if (refused) return refused;

  // The operator queue: wait for approve (→ APPROVED) or cancel (→ CANCELLED).
  await condition(() => current().status !== 'PENDING_MANUAL');

  if (WITHDRAWAL_BROADCASTING.includes(current().status)) {
    let outcome: { txHash: string } | { refused: string };
    try {
      outcome = await chain.broadcastWithdrawal(id);
    } catch (error) {
      const failure = businessFailure(error);
      if (!(failure instanceof ApplicationFailure && failure.nonRetryable)) throw error;
      outcome = { refused: failure.message };
    }
    await serial(async () => {
      apply('txHash' in outcome ? await steps.completeWithdrawal(id, outcome.txHash) : await steps.failWithdrawal(id, outcome.refused));
    });
  }

  return withdrawal.finish();
}
