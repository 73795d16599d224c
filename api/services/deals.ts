/**
 * Deals as the operator reads them: the search across merchants and a deal's timeline (its events,
 * every webhook attempt, its workflow in the Temporal UI, the moves its state allows).
 */
import type { AppDeps } from '../deps';
import { NotFound } from '../../domain/errors';
import { merchantDealInfo } from '../../domain/records/deal-info';
import { operatorMoveOutcomes, operatorMovesFor } from '../../domain/state/operator-deal-moves';
import { findDeal, listOperatorDeals } from '../../db/queries/deals';
import { dealEvents } from '../../db/queries/outbox';
import { dealWebhookAttempts } from '../../db/queries/webhooks';
import { payinWorkflowId } from '../../workflows/contracts/payin';
import { payoutWorkflowId } from '../../workflows/contracts/payout';
import { clampPageSize, cursorOf, keysetPage } from './page-token';
import { payerProofView } from './payer-proof';

export interface OperatorDealQuery {
  deal_id?: string;
  merchant_id?: string;
  status?: string;
  created_after?: Date;
  created_before?: Date;
  page_size?: number;
  page_token?: string;
}

const presentDeal = (
  deps: AppDeps,
  row: Parameters<typeof merchantDealInfo>[0] & { merchant_id: string; trader_id: string | null; requisite_id: string | null },
) => ({
  ...merchantDealInfo(row, deps.config.CHECKOUT_BASE_URL),
  merchant_id: row.merchant_id,
  trader_id: row.trader_id ?? '',
  requisite_id: row.requisite_id ?? '',
});

export async function searchDeals(deps: AppDeps, q: OperatorDealQuery) {
  const scope = `console:deals:${[q.deal_id, q.merchant_id, q.status, q.created_after?.toISOString(), q.created_before?.toISOString()].join('|')}`;
  const size = clampPageSize(q.page_size, 50, 200);
  const rows = await listOperatorDeals(
    deps.sql,
    { dealId: q.deal_id, merchantId: q.merchant_id, status: q.status, createdAfter: q.created_after, createdBefore: q.created_before },
    size + 1,
    cursorOf(deps, scope, q.page_token),
  );
  const page = keysetPage(deps, scope, rows, size);
  return { data: page.rows.map((row) => presentDeal(deps, row)), next_page_token: page.next_page_token };
}

/** A deal with its timeline: the events it emitted and every webhook attempt, and its workflow in the Temporal UI. */
export async function dealTimeline(deps: AppDeps, dealId: string) {
  const row = await findDeal(deps.sql, dealId);
  if (!row) throw new NotFound('deal not found');
  const [events, attempts, payerProof] = await Promise.all([dealEvents(deps.sql, dealId), dealWebhookAttempts(deps.sql, dealId), payerProofView(deps, row)]);
  const workflowId = row.deal_type === 'PAYIN' ? payinWorkflowId(dealId) : payoutWorkflowId(dealId);
  const ui = deps.config.TEMPORAL_UI_URL.replace(/\/+$/, '');
  return {
    deal: presentDeal(deps, row),
    workflow: {
      workflow_id: workflowId,
      namespace: deps.config.TEMPORAL_NAMESPACE,
      ui_url: ui ? `${ui}/namespaces/${encodeURIComponent(deps.config.TEMPORAL_NAMESPACE)}/workflows/${encodeURIComponent(workflowId)}` : '',
    },
    operator_moves: operatorMovesFor(row.deal_type, row.status),
    move_outcomes: operatorMoveOutcomes(row),
    payer_proof: payerProof,
    events: events.map((e) => ({
      event_id: e.id,
      event_type: e.event_type,
      created_at: e.created_at.toISOString(),
      dispatched_at: e.dispatched_at?.toISOString() ?? '',
      payload: e.payload,
    })),
    webhook_attempts: attempts.map((a) => ({
      callback_id: a.callback_id,
      event_id: a.event_id,
      event_type: a.event_type,
      url: a.url,
      delivery_status: a.delivery_status,
      attempt: a.attempt ?? 0,
      status: a.status ?? '',
      http_status: a.http_status ?? 0,
      duration_ms: a.duration_ms ?? 0,
      error: a.error ?? '',
      at: a.at.toISOString(),
    })),
  };
}
