/**
 * The sandbox trader (docs/sandbox.md): one short run per sandbox deal that waits a few seconds
 * and then does what the amount's last two digits say (domain/sandbox.ts) — through the deal
 * workflow's own updates, sent by an activity as the operator routes send them; it never writes a
 * deal. A move the deal no longer allows (the merchant cancelled, the payer paid late) ends the
 * run: the deal's own rules decide, as for a real trader. A run on an appeal of a sandbox deal
 * plays the arbiter's part instead: review, a message in the thread, then the decision the
 * appeal's text asks for.
 */
import { proxyActivities, sleep } from '@temporalio/workflow';
import type { Activities } from '../activities';
import { sandboxArbiterMessage, sandboxPayinScenario, sandboxPayoutScenario, sandboxReceivedAmount } from '../domain/sandbox';
import { steps } from './activity-proxies';
import type { SandboxMove, SandboxTraderInput, SandboxTraderOutcome } from './contracts/sandbox-trader';

/**
 * The bank credit's move waits for the notification's own workflow (the match and the deal's
 * confirmation) to answer: longer than a one-transaction step may take on a loaded worker.
 */
const bankDevice = proxyActivities<Activities>({
  startToCloseTimeout: '60 seconds',
  retry: { initialInterval: '200 milliseconds', backoffCoefficient: 2, maximumInterval: '5 seconds' },
});

export async function sandboxTraderWorkflow(input: SandboxTraderInput): Promise<SandboxTraderOutcome> {
  const moves: SandboxTraderOutcome['moves'] = [];
  /** Each move in turn (a function: the move made when its turn comes); the first refused one ends the script. */
  const play = async (script: (SandboxMove | (() => SandboxMove))[]) => {
    if (script.length === 0) return;
    await sleep(input.delaySeconds * 1000);
    for (const next of script) {
      const move = typeof next === 'function' ? next() : next;
      const result = await (move.kind === 'payin_bank_credit' ? bankDevice : steps).sandboxTraderMove(input.dealId, input.dealType, move);
      moves.push({ kind: move.kind, result });
      if (result === 'refused') return;
    }
  };

  if (input.appeal) {
    const { appealId, outcome } = input.appeal;
    const decision: SandboxMove = outcome === 'CLOSED' ? { kind: 'appeal_close', appealId } : { kind: 'appeal_resolve', appealId, outcome };
    await play([{ kind: 'appeal_review', appealId }, { kind: 'appeal_message', appealId, body: sandboxArbiterMessage(outcome) }, decision]);
    return { moves };
  }
  const amount = BigInt(input.amount);
  // Workflow time (deterministic): when the virtual device "received" the bank's push.
  const bankCredit = (): SandboxMove => ({ kind: 'payin_bank_credit', receivedAt: new Date().toISOString() });
  if (input.dealType === 'PAYIN') {
    switch (sandboxPayinScenario(amount)) {
      case 'complete':
        // The payer's "I paid" (deal.payment_notified), then the bank's credit through the virtual device confirms it.
        await play([{ kind: 'payin_notify' }, bankCredit]);
        break;
      case 'reject':
        await play([{ kind: 'payin_reject' }]);
        break;
      case 'change_amount':
        // The credit is of the changed amount (the amount to pay after the change).
        await play([{ kind: 'payin_notify' }, { kind: 'payin_change_amount', amount: sandboxReceivedAmount(amount).toString() }, bankCredit]);
        break;
      default:
        // …33 (nobody pays) and unlisted endings: the trader does nothing; the deal's timer decides.
        break;
    }
  } else {
    switch (sandboxPayoutScenario(amount)) {
      case 'complete':
        await play([{ kind: 'payout_start' }, { kind: 'payout_complete' }]);
        break;
      case 'reject':
        await play([{ kind: 'payout_start' }, { kind: 'payout_reject' }]);
        break;
      default:
        break;
    }
  }
  return { moves };
}
