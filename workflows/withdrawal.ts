/**
 * One workflow per withdrawal (`withdrawal:<id>`), reading like the table in domain/state/withdrawals.ts:
 *
 *   create  → PENDING (amount ≤ the merchant's effective auto limit) or PENDING_MANUAL (queue)
 *   PENDING_MANUAL → approve → APPROVED          PENDING_MANUAL → cancel → CANCELLED (refund, event)
 *   PENDING | APPROVED → broadcast sent → COMPLETED;  refused for good → CANCELLED (refund, event)
 *
 * The broadcast is an activity against the chain adapter: it records its intent before each send
 * and the adapter is idempotent by withdrawal id, so retries (transient failures, a hanging call
 * past its timeout, a worker that died) never transfer twice. Transient failures retry with
 * exponential backoff and no attempt limit: the hold stays frozen until the chain answers.
 *
 * On a real network (CHAIN_ADAPTER=trongrid) the broadcast only submits: the workflow then waits
 * on durable timers and asks checkWithdrawalTransfer (a short activity) until the receipt is final
 * — COMPLETED on SUCCESS at depth; a transaction that died (failed receipt, expired off chain) is
 * submitted anew by the next broadcastWithdrawal after the pause the check names; too many dead
 * ones refuse the withdrawal (CANCELLED, hold returned). A chain whose send is final at once
 * (the simulated one) answers no checkInMs: the loop ends after the first broadcast.
 */
import { ApplicationFailure, condition, proxyActivities, setHandler, sleep } from '@temporalio/workflow';
import type { Activities } from '../activities';
import { WITHDRAWAL_BROADCASTING, WITHDRAWAL_TERMINAL, withdrawalRefusal } from '../domain/state/withdrawals';
import { creationActivities, localStepActivities } from './activity-proxies';
import {
  approveWithdrawalUpdate,
  cancelWithdrawalUpdate,
  type WithdrawalOutcome,
  type WithdrawalSnapshot,
  type WithdrawalWorkflowInput,
} from './contracts/withdrawal';
import { createOrAdopt, dealLifecycle } from './deal-lifecycle';
import { businessFailure } from './failures';

export async function withdrawalWorkflow(input: WithdrawalWorkflowInput): Promise<WithdrawalOutcome> {
  const id = input.create.withdrawalId;
  const localSteps = localStepActivities(input.timeouts);
  const creation = creationActivities(input.timeouts);

  const chain = proxyActivities<Activities>({
    startToCloseTimeout: `${input.broadcast.timeoutSeconds} seconds`,
    heartbeatTimeout: `${input.broadcast.heartbeatSeconds} seconds`,
    retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: `${input.broadcast.maxBackoffSeconds} seconds` },
  });

  /** Set once a transfer that is final only on its receipt (TRON) went out: callers need not wait for the confirmation. */
  let submitted = false;
  /** Waits (up to syncWaitMs) until no broadcast is under way (or it was submitted), then answers the current state. */
  const settledOrCurrent = async (): Promise<WithdrawalSnapshot> => {
    if (input.syncWaitMs > 0) await condition(() => submitted || !WITHDRAWAL_BROADCASTING.includes(withdrawal.current().status), input.syncWaitMs);
    return withdrawal.current();
  };
  const withdrawal = dealLifecycle<WithdrawalSnapshot>({
    requestId: input.requestId,
    notFound: 'withdrawal not found',
    terminal: WITHDRAWAL_TERMINAL,
    creationAnswer: settledOrCurrent,
  });
  const { apply, current, serial } = withdrawal;

  // The operator's moves of the table in domain/state/withdrawals.ts; any other source state is refused.
  // An approval may leave it PENDING_MANUAL (four-eyes: the step recorded the first of two).
  setHandler(approveWithdrawalUpdate, async (operatorId, actor) => {
    await withdrawal.command(
      (w) => withdrawalRefusal('approve', w.status),
      async () => apply(await localSteps.approveWithdrawal(id, operatorId, actor)),
    );
    return settledOrCurrent();
  });
  setHandler(cancelWithdrawalUpdate, (reason, operatorId, actor) =>
    withdrawal.command(
      (w) => withdrawalRefusal('cancel', w.status),
      async () => apply(await localSteps.cancelWithdrawal(id, reason, operatorId, actor)),
    ),
  );

  // A create that failed for an infrastructure reason is given up through the create fence and a
  // row an attempt committed is adopted.
  const refused = await withdrawal.create(() =>
    createOrAdopt(
      () => creation.createWithdrawal(input.create),
      () => localSteps.abandonWithdrawalCreate(id),
    ),
  );
  if (refused) return refused;

  // The operator queue: wait for approve (→ APPROVED) or cancel (→ CANCELLED).
  await condition(() => current().status !== 'PENDING_MANUAL');

  /** An activity's answer, or the business refusal it raised (anything else is rethrown). */
  const orRefusal = async <T>(step: () => Promise<T>): Promise<T | { refused: string }> => {
    try {
      return await step();
    } catch (error) {
      const failure = businessFailure(error);
      if (!(failure instanceof ApplicationFailure && failure.nonRetryable)) throw error;
      return { refused: failure.message };
    }
  };

  /** Submit, then wait for the receipt on timers; a dead transaction is submitted anew. */
  const sendAndConfirm = async (): Promise<{ txHash: string } | { refused: string }> => {
    for (;;) {
      const sent = await orRefusal(() => chain.broadcastWithdrawal(id));
      if ('refused' in sent) return sent;
      if (sent.checkInMs === undefined) return { txHash: sent.txHash };
      submitted = true;
      let wait = sent.checkInMs;
      for (;;) {
        if (wait > 0) await sleep(wait);
        const status = await orRefusal(() => chain.checkWithdrawalTransfer(id));
        if ('refused' in status) return status;
        if (status.state === 'confirmed') return { txHash: status.txHash };
        if (status.state === 'refused') return { refused: status.reason };
        if (status.state === 'pending') {
          wait = status.checkInMs;
          continue;
        }
        if (status.afterMs > 0) await sleep(status.afterMs);
        break; // resubmit: the next broadcastWithdrawal builds a new transaction
      }
    }
  };

  if (WITHDRAWAL_BROADCASTING.includes(current().status)) {
    const outcome = await sendAndConfirm();
    await serial(async () => {
      apply('txHash' in outcome ? await localSteps.completeWithdrawal(id, outcome.txHash) : await localSteps.failWithdrawal(id, outcome.refused));
    });
  }

  return withdrawal.finish();
}
