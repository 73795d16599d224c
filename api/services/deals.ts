/**
 * Deals as the operator reads them: the search across merchants and a deal's timeline (its events,
 * every webhook attempt, its workflow in the Temporal UI, the moves its state allows).
 */
import type { AppDeps } from '../deps';
import { NotFound } from '../../domain/errors';
import { merchantDealInfo } from '../../domain/records/deal-info';
import { cardDataRing, openEventPayload, withTarget } from '../../db/queries/requisite-secrets';
import { operatorMoveOutcomes, operatorMovesFor } from '../../domain/state/operator-deal-moves';
import { exportFileName } from '../../domain/csv';
import type { IdPrefix } from '../../domain/ids';
import {
  findOperatorDeal,
  listOperatorDeals,
  streamOperatorDeals,
  type OperatorDealFilter,
  type OperatorDealRow,
  type OperatorDealSort,
  type SortCursor,
} from '../../db/queries/deals';
import { CURSOR_TS_PATTERN } from '../../db/queries/keyset';
import { csvExport } from './csv-export';
import { dealEvents } from '../../db/queries/outbox';
import { dealWebhookAttempts } from '../../db/queries/webhooks';
import { payinWorkflowId } from '../../workflows/contracts/payin';
import { payoutWorkflowId } from '../../workflows/contracts/payout';
import { clampPageSize, decodePageToken, encodePageToken } from './page-token';
import { payerProofView } from './payer-proof';
import { dealBankNotification } from './bank-notifications';
import { findRoutingDecision, type RoutingDecisionView } from '../../db/queries/routing';
import { reasonInWords, SCORE_PRIOR } from '../../domain/routing';

export { OPERATOR_DEAL_SORTS } from '../../db/queries/deals';

export interface OperatorDealQuery {
  deal_id?: IdPrefix;
  merchant_id?: IdPrefix;
  status?: string[];
  deal_type?: 'PAYIN' | 'PAYOUT';
  created_after?: Date;
  created_before?: Date;
  sort?: OperatorDealSort;
}

const filterOf = (q: OperatorDealQuery): OperatorDealFilter => ({
  dealId: q.deal_id,
  merchantId: q.merchant_id,
  statuses: q.status,
  dealType: q.deal_type,
  createdAfter: q.created_after,
  createdBefore: q.created_before,
});

/** The filters and order as text: the page token's scope and the export's file name (the default order unsaid). */
const filterText = (q: OperatorDealQuery) => ({
  deal: q.deal_id?.prefix,
  merchant: q.merchant_id?.prefix,
  status: q.status?.join(','),
  type: q.deal_type,
  from: q.created_after?.toISOString(),
  to: q.created_before?.toISOString(),
  sort: q.sort === '-created_at' || !q.sort ? undefined : q.sort.startsWith('-') ? `${q.sort.slice(1)}-desc` : q.sort,
});

const isSortCursor = (value: unknown): value is SortCursor =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as SortCursor).value === 'string' &&
  (/^-?\d{1,19}$/.test((value as SortCursor).value) || CURSOR_TS_PATTERN.test((value as SortCursor).value)) &&
  /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test((value as SortCursor).id);

/** "BANK_CARD ·· 1234, Ivan P., Sber": the trader's requisite without its whole number. */
const requisiteSummary = (row: OperatorDealRow) => {
  if (!row.requisite_type) return '';
  const tail = row.requisite_card_tail ?? row.requisite_phone_tail;
  return [`${row.requisite_type}${tail ? ` ·· ${tail}` : ''}`, row.requisite_holder, row.requisite_bank].filter(Boolean).join(', ');
};

const presentDeal = (deps: AppDeps, row: OperatorDealRow) => ({
  ...merchantDealInfo(withTarget(cardDataRing(deps.config), row), deps.config.CHECKOUT_BASE_URL),
  merchant_id: row.merchant_id,
  merchant_name: row.merchant_name,
  trader_id: row.trader_id ?? '',
  trader_name: row.trader_name ?? '',
  requisite_id: row.requisite_id ?? '',
  requisite_summary: requisiteSummary(row),
  appeal_id: row.appeal_id ?? '',
  target_name: row.deal_type === 'PAYOUT' ? row.target_name : '',
  target_bank: row.deal_type === 'PAYOUT' ? row.target_bank : '',
});

export async function searchDeals(deps: AppDeps, q: OperatorDealQuery & { page_size?: number; page_token?: string }) {
  const sort = q.sort ?? '-created_at';
  // A page token serves the filter and order it was made for (signed for them), no other.
  const scope = `console:deals:${JSON.stringify(filterText({ ...q, sort }))}`;
  const size = clampPageSize(q.page_size, 50, 200);
  const after = q.page_token ? decodePageToken(deps, q.page_token, scope, isSortCursor) : undefined;
  const rows = await listOperatorDeals(deps.sql, filterOf(q), size + 1, sort, after);
  const page = rows.slice(0, size);
  const last = page[page.length - 1];
  const next = rows.length > size && last ? encodePageToken(deps, { value: last.sort_value, id: last.id } satisfies SortCursor, scope) : '';
  return { data: page.map((row) => presentDeal(deps, row)), next_page_token: next };
}

const DEAL_CSV = [
  'deal_id',
  'deal_type',
  'status',
  'amount',
  'currency',
  'merchant_id',
  'merchant_name',
  'trader_id',
  'trader_name',
  'client_id',
  'target_requisite',
  'received_amount',
  'amount_match_status',
  'appeal_id',
  'parent_deal_id',
  'created_at',
  'updated_at',
] as const;

/** Every deal the list's filters select, as CSV (amounts in minor units, as the API answers them). */
export async function exportDeals(deps: AppDeps, q: OperatorDealQuery) {
  const sort = q.sort ?? '-created_at';
  return csvExport(exportFileName('deals', filterText({ ...q, sort })), DEAL_CSV, streamOperatorDeals(deps.sql, filterOf(q), sort), (batch) =>
    batch.map((row) => {
      const d = presentDeal(deps, row);
      return DEAL_CSV.map((column) => String(d[column as keyof typeof d] ?? ''));
    }),
  );
}

/** A deal with its timeline: the events it emitted and every webhook attempt, and its workflow in the Temporal UI. */
/** The deal's routing decision for an operator: names and scores, the reason in words (domain/routing.ts). */
function routingView(deps: AppDeps, d: RoutingDecisionView) {
  const chosen = d.candidates.find((c) => c.requisite_id === d.chosen_requisite_id);
  return {
    chosen: {
      requisite_id: d.chosen_requisite_id,
      requisite_summary: d.chosen_requisite_summary,
      trader_id: d.chosen_trader_id,
      trader_name: d.chosen_trader_name,
      score: chosen?.score ?? SCORE_PRIOR,
    },
    reason: d.reason,
    reason_text: reasonInWords(d.reason, { ...d, explorationPermille: deps.config.ROUTING_EXPLORATION_PERMILLE }),
    explored: d.explored,
    candidates: d.candidates.map((c) => ({ ...c, chosen: c.requisite_id === d.chosen_requisite_id })),
    decided_at: d.created_at.toISOString(),
  };
}

export async function dealTimeline(deps: AppDeps, dealId: string) {
  const row = await findOperatorDeal(deps.sql, dealId);
  if (!row) throw new NotFound('deal not found');
  const [events, attempts, payerProof, routing] = await Promise.all([
    dealEvents(deps.sql, dealId),
    dealWebhookAttempts(deps.sql, dealId),
    payerProofView(deps, row),
    findRoutingDecision(deps.sql, dealId),
  ]);
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
    routing: routing ? routingView(deps, routing) : null,
    events: events.map((e) => ({
      event_id: e.id,
      event_type: e.event_type,
      created_at: e.created_at.toISOString(),
      dispatched_at: e.dispatched_at?.toISOString() ?? '',
      payload: openEventPayload(cardDataRing(deps.config), e.payload),
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
    bank_notification: await dealBankNotification(deps, dealId),
  };
}
