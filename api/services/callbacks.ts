import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import type { AppDeps } from '../deps';
import { FailedPrecondition, NotFound } from '../../domain/errors';
import { attemptTimeoutMs } from '../../workflows/contracts/webhook-delivery';
import {
  manualRetryWorkflowId,
  webhookManualRetryTaskQueue,
  webhookManualRetryWorkflowType,
  type ManualRetryInput,
  type WebhookManualRetryWorkflow,
} from '../../workflows/contracts/webhook-manual-retry';
import { PageTokens } from './page-token';

interface DeliveryRow {
  id: string;
  deal_id: string | null;
  event_id: string;
  event_type: string;
  url: string;
  status: string;
  attempts: number;
  http_status: number | null;
  response_body: string;
  created_at: Date;
  updated_at: Date;
  cursor_ts: string;
}

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

const isCursor = (v: unknown): v is { createdAt: string; id: string } =>
  typeof v === 'object' && v !== null && typeof (v as { createdAt?: unknown }).createdAt === 'string' && typeof (v as { id?: unknown }).id === 'string';

/** Delivery history, newest first, keyset-paginated like the deal listing. */
export async function listCallbacks(deps: AppDeps, merchantId: string, q: { deal_id?: string; page_size?: number; page_token?: string }) {
  const tokens = new PageTokens(deps.config.SECRETS_ENCRYPTION_KEY);
  const scope = `callbacks:${merchantId}`;
  const after = q.page_token ? tokens.decode(q.page_token, scope, isCursor) : undefined;
  const size = Math.min(250, q.page_size || 50);
  const sql = deps.sql;
  // The cursor goes as text: typed timestamptz, postgres.js would round it to milliseconds and
  // skip rows created in the same millisecond (the relay creates a batch's rows in one statement).
  const rows = await sql<DeliveryRow[]>`
    select *, to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as cursor_ts
    from webhook_deliveries
    where merchant_id = ${merchantId}
      ${q.deal_id ? sql`and deal_id = ${q.deal_id}` : sql``}
      ${after ? sql`and (created_at, id) < (${after.createdAt}::text::timestamptz, ${after.id}::uuid)` : sql``}
    order by created_at desc, id desc
    limit ${size + 1}`;
  const page = rows.slice(0, size);
  const last = page[page.length - 1];
  return {
    data: page.map(present),
    next_page_token: rows.length > size && last ? tokens.encode({ createdAt: last.cursor_ts, id: last.id }, scope) : '',
  };
}

/**
 * Manual retry (spec 4.7): only ERROR or RETRY deliveries, at most once per cooldown. Each one is
 * a run of its own (webhook:<id>:manual:<n>) making one attempt now; an automatic run still
 * pausing finds the delivery SUCCESS afterwards and sends nothing more.
 */
export async function retryCallback(deps: AppDeps, merchantId: string, callbackId: string) {
  const [claimed] = await deps.sql<DeliveryRow[]>`
    update webhook_deliveries set last_manual_retry_at = now(), manual_retries = manual_retries + 1
    where id = ${callbackId} and merchant_id = ${merchantId} and status in ('ERROR', 'RETRY')
      and (last_manual_retry_at is null or last_manual_retry_at <= now() - make_interval(secs => ${deps.config.CALLBACK_RETRY_COOLDOWN_SECONDS}))
    returning *, '' as cursor_ts, manual_retries`;
  if (!claimed) {
    const [row] = await deps.sql<{ status: string; wait: number }[]>`
      select status, ceil(extract(epoch from (last_manual_retry_at + make_interval(secs => ${deps.config.CALLBACK_RETRY_COOLDOWN_SECONDS}) - now())))::int as wait
      from webhook_deliveries where id = ${callbackId} and merchant_id = ${merchantId}`;
    if (!row) throw new NotFound('callback not found');
    if (row.status !== 'ERROR' && row.status !== 'RETRY') throw new FailedPrecondition(`only ERROR or RETRY deliveries can be retried; this one is ${row.status}`);
    throw new FailedPrecondition(`manual retry cooldown: try again in ${Math.max(1, row.wait)} s`);
  }
  const n = (claimed as DeliveryRow & { manual_retries: number }).manual_retries;
  const input: ManualRetryInput = {
    callbackId,
    eventId: claimed.event_id,
    url: claimed.url,
    delaysMs: deps.config.WEBHOOK_RETRY_DELAYS,
    attemptTimeoutMs: attemptTimeoutMs(deps.config),
    manualRetry: n,
  };
  try {
    await deps.temporal.workflow.start<WebhookManualRetryWorkflow>(webhookManualRetryWorkflowType, {
      workflowId: manualRetryWorkflowId(callbackId, n),
      taskQueue: webhookManualRetryTaskQueue(deps.config),
      args: [input],
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
    });
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
  }
  return present(claimed);
}
