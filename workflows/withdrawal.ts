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
import { allHandlersFinished, ApplicationFailure, condition, proxyActivities, setHandler, upsertSearchAttributes } from '@temporalio/workflow';
import type { Activities } from '../activities';
import { canMove, WITHDRAWAL_BROADCASTING, type WithdrawalMove, type WithdrawalStatus } from '../domain/withdrawals';
import { createSteps, dealSteps } from './activity-proxies';
import {
  approveWithdrawalUpdate,
  awaitWithdrawalCreationUpdate,
  cancelWithdrawalUpdate,
  withdrawalStatusQuery,
  type WithdrawalSnapshot,
  type WithdrawalWorkflowInput,
} from './contracts/withdrawal';
import { DealStatusKey } from './contracts/search-attributes';
import { businessFailure, rejected } from './failures';
import { serialQueue } from './serial';

export type WithdrawalOutcome = { created: false; reason: string } | { created: true; status: WithdrawalStatus };

export async function withdrawalWorkflow(input: WithdrawalWorkflowInput): Promise<WithdrawalOutcome> {
  const id = input.create.withdrawalId;
  const serial = serialQueue();
  const steps = dealSteps(input.timeouts);
  const local = createSteps(input.timeouts);
  let withdrawal: WithdrawalSnapshot | undefined;
  let creationFailure: unknown;

  const chain = proxyActivities<Activities>({
    startToCloseTimeout: `${input.broadcast.timeoutSeconds} seconds`,
    heartbeatTimeout: `${input.broadcast.heartbeatSeconds} seconds`,
    retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: `${input.broadcast.maxBackoffSeconds} seconds` },
  });

  const apply = (next: WithdrawalSnapshot) => {
    if (next.status !== withdrawal?.status) upsertSearchAttributes([{ key: DealStatusKey, value: next.status }]);
    withdrawal = next;
    return next;
  };
  const created = () => withdrawal !== undefined || creationFailure !== undefined;
  /** Waits (up to syncWaitMs) until no broadcast is under way, then answers the current state. */
  const settledOrCurrent = async () => {
    if (input.syncWaitMs > 0) await condition(() => !WITHDRAWAL_BROADCASTING.includes(withdrawal!.status), input.syncWaitMs);
    return withdrawal!;
  };
  /** An operator move of the table in domain/withdrawals.ts; any other source state is refused. */
  const command = (move: WithdrawalMove, step: () => Promise<WithdrawalSnapshot>) =>
    serial(async () => {
      await condition(created);
      if (!withdrawal) throw rejected('NOT_FOUND', 'withdrawal not found');
      if (!canMove(withdrawal.status, move)) throw rejected('FAILED_PRECONDITION', `withdrawal is ${withdrawal.status}`);
      try {
        return apply(await step());
      } catch (error) {
        throw businessFailure(error);
      }
    });

  setHandler(withdrawalStatusQuery, () => withdrawal);
  setHandler(awaitWithdrawalCreationUpdate, async () => {
    await condition(created);
    if (creationFailure) throw creationFailure;
    return settledOrCurrent();
  });
  setHandler(approveWithdrawalUpdate, async (operatorId) => {
    await command('approve', () => steps.approveWithdrawal(id, operatorId));
    return settledOrCurrent();
  });
  setHandler(cancelWithdrawalUpdate, (reason, operatorId) => command('cancel', () => steps.cancelWithdrawal(id, reason, operatorId)));

  try {
    apply(await local.createWithdrawal(input.create));
  } catch (error) {
    creationFailure = businessFailure(error);
    await condition(allHandlersFinished);
    return { created: false, reason: error instanceof Error ? error.message : 'creation failed' };
  }

  // The operator queue: wait for approve (→ APPROVED) or cancel (→ CANCELLED).
  await condition(() => withdrawal!.status !== 'PENDING_MANUAL');

  if (WITHDRAWAL_BROADCASTING.includes(withdrawal!.status)) {
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

  await condition(allHandlersFinished);
  return { created: true, status: withdrawal!.status };
}
