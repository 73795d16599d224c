/**
 * Settlement of an expired deal, id `settlement:<appeal_id>`. The create step
 * (Update-With-Start) makes the settlement deal — escrow hold on the parent's trader, verified,
 * COMPLETED — in one transaction; the run then waits FEE_DISTRIBUTION_DELAY_SECONDS and moves the
 * merchant's pending credit to available like any completed PayIn. Later requests are answered
 * by the same step (same idempotency_key: the same deal; another key: 409).
 */
import { allHandlersFinished, condition, setHandler, sleep, upsertSearchAttributes } from '@temporalio/workflow';
import { creation, steps } from './activity-proxies';
import { createSettlementUpdate, settlementQuery, type SettlementResult, type SettlementWorkflowInput } from './contracts/settlement';
import { DealStatusKey } from './contracts/search-attributes';
import { businessFailure } from './failures';
import { serialQueue } from './serial';

export async function settlementWorkflow(input: SettlementWorkflowInput): Promise<{ created: boolean }> {
  const serial = serialQueue();
  let settled: SettlementResult | undefined;
  let requests = 0;

  setHandler(settlementQuery, () => settled);
  setHandler(createSettlementUpdate, (request) => {
    requests += 1;
    return serial(async () => {
      try {
        const result = await creation.createSettlementDeal({ ...request, appealId: input.appealId, dealId: input.dealId });
        if (!settled) upsertSearchAttributes([{ key: DealStatusKey, value: result.status }]);
        settled ??= { ...result, replayed: false };
        return result;
      } catch (error) {
        throw businessFailure(error);
      }
    });
  });

  // Refused requests leave no deal: the run ends once they are answered (a later request starts a new run).
  await condition(() => settled !== undefined || (requests > 0 && allHandlersFinished()));
  if (!settled) return { created: false };
  await sleep(input.feeDistributionDelaySeconds * 1000);
  await steps.distributePayinFee(settled.dealId);
  await condition(allHandlersFinished);
  return { created: true };
}
