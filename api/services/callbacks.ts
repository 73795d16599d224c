/** Webhook deliveries as the merchant sees them: the history, the manual retry. */
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import type { AppDeps } from '../deps';
import { FailedPrecondition, NotFound } from '../../domain/errors';
import { attemptTimeoutMs } from '../../workflows/contracts/webhook-attempts';
import {
  manualRetryWorkflowId,
  webhookManualRetryTaskQueue,
  webhookManualRetryWorkflowType,
  type ManualRetryInput,
  type WebhookManualRetryWorkflow,
} from '../../workflows/contracts/webhook-manual-retry';
import { claimManualRetry, findMerchantDelivery, listDeliveries, manualRetryState, unqueueManualRetry, type DeliveryRow } from '../../db/queries/webhooks';
import { clampPageSize, cursorOf, keysetPage } from './page-token';

const present = (r: DeliveryRow) => ({
  callback_id: r.id,
  deal_id: r.deal_id ?? '',
  event_id: r.event_id,
  event_type: r.event_type,
  url: r.url,
  status: r.status,
  attempts: r.attempts,
  http_status: r.http_status ?? 0,
  response_body: r.response_body,
  created_at: r.created_at.toISOString(),
  updated_at: r.updated_at.toISOString(),
});

/** Delivery history, newest first, keyset-paginated like the deal listing. */
export async function listCallbacks(deps: AppDeps, merchantId: string, q: { deal_id?: string; page_size?: number; page_token?: string }) {
  const scope = `callbacks:${merchantId}`;
  const after = cursorOf(deps, scope, q.page_token);
  const size = clampPageSize(q.page_size);
  const page = keysetPage(deps, scope, await listDeliveries(deps.sql, merchantId, { dealId: q.deal_id, after, limit: size + 1 }), size);
  return { data: page.rows.map(present), next_page_token: page.next_page_token };
}

/**
 * Manual retry: only ERROR or RETRY deliveries, at most once per cooldown. Each one is
 * a run of its own (webhook:<id>:manual:<n>) making one attempt now; an automatic run still
 * pausing finds the delivery SUCCESS afterwards and sends nothing more.
 */
export async function retryCallback(deps: AppDeps, merchantId: string, callbackId: string) {
  const cooldown = deps.config.CALLBACK_RETRY_COOLDOWN_SECONDS;
  const claimed = await claimManualRetry(deps.sql, merchantId, callbackId, cooldown);
  if (!claimed) {
    const row = await manualRetryState(deps.sql, merchantId, callbackId, cooldown);
    if (!row) throw new NotFound('callback not found');
    if (row.status !== 'ERROR' && row.status !== 'RETRY')
      throw new FailedPrecondition(`only ERROR or RETRY deliveries can be retried; this one is ${row.status}`);
    throw new FailedPrecondition(`manual retry cooldown: try again in ${Math.max(1, row.wait)} s`);
  }
  const n = claimed.manual_retries;
  const input: ManualRetryInput = {
    callbackId,
    eventId: claimed.event_id,
    url: claimed.url,
    delaysMs: deps.config.WEBHOOK_RETRY_DELAYS,
    attemptTimeoutMs: attemptTimeoutMs(deps.config),
    manualRetry: n,
    afterError: claimed.previous_status === 'ERROR',
  };
  try {
    await deps.temporal.workflow.start<WebhookManualRetryWorkflow>(webhookManualRetryWorkflowType, {
      workflowId: manualRetryWorkflowId(callbackId, n),
      taskQueue: webhookManualRetryTaskQueue(deps.config),
      args: [input],
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
    });
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) {
      if (input.afterError) await unqueueManualRetry(deps.sql, callbackId);
      throw error;
    }
  }
  // The delivery as it is now: queued (RETRY) for the retry's attempt; GET /callbacks/{id} shows its outcome.
  return present(claimed);
}

/** One delivery of the merchant, e.g. to follow a manual retry; foreign and unknown ids are 404. */
export async function getCallback(deps: AppDeps, merchantId: string, callbackId: string) {
  const row = await findMerchantDelivery(deps.sql, merchantId, callbackId);
  if (!row) throw new NotFound('callback not found');
  return present(row);
}
