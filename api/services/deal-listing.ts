import { Readable } from 'node:stream';
import type { AppDeps } from '../deps';
import { InvalidArgument } from '../../domain/errors';
import { csvRow } from '../../domain/csv';
import { merchantDealInfo, type MerchantDealInfo } from '../../domain/records/deal-info';
import { cardDataRing, withTarget } from '../../db/queries/requisite-secrets';
import { PAYIN_STATUSES } from '../../domain/state/payin';
import { PAYOUT_STATUSES } from '../../domain/state/payout';
import {
  dealTotals,
  listDeals,
  pageDeals,
  streamDeals,
  turnover,
  type DealFilter,
  type DealTotalsRow,
  type StatusSelector,
} from '../../db/queries/deal-listing';
import type { DealRow } from '../../db/queries/deals';
import { clampPageSize, cursorOf, keysetPage } from './page-token';

const PAGE_SIZE_DEFAULT = 50;
const PAGE_SIZE_MAX = 250;
const TURNOVER_MAX_DAYS = 92;
const KNOWN_STATUSES = new Set<string>([...PAYIN_STATUSES, ...PAYOUT_STATUSES]);

export interface FilterInput {
  deal_type?: string;
  statuses?: string[];
  created_after?: Date;
  created_before?: Date;
  /** The cabinet's search: one deal by id, or the deals of one payer (client_id). */
  deal_id?: string;
  client_id?: string;
}

/** The listing's edge rules: unknown deal_type or only unknown statuses select nothing (200, empty). */
function toFilter(merchantId: string, q: FilterInput): DealFilter | undefined {
  if (q.deal_type !== undefined && q.deal_type !== 'PAYIN' && q.deal_type !== 'PAYOUT') return undefined;
  const statuses = q.statuses?.filter((s) => KNOWN_STATUSES.has(s));
  if (q.statuses && q.statuses.length > 0 && statuses!.length === 0) return undefined;
  return {
    merchantId,
    dealType: q.deal_type as DealFilter['dealType'],
    statuses,
    id: q.deal_id,
    clientId: q.client_id,
    createdAfter: q.created_after,
    createdBefore: q.created_before,
  };
}

export async function listMerchantDeals(
  deps: AppDeps,
  merchantId: string,
  q: FilterInput & { page_size?: number; page_token?: string },
): Promise<{ data: MerchantDealInfo[]; next_page_token: string }> {
  const after = cursorOf(deps, merchantId, q.page_token);
  const filter = toFilter(merchantId, q);
  if (!filter) return { data: [], next_page_token: '' };
  const size = clampPageSize(q.page_size, PAGE_SIZE_DEFAULT, PAGE_SIZE_MAX);
  const page = keysetPage(deps, merchantId, await listDeals(deps.sql, filter, size + 1, after), size);
  const ring = cardDataRing(deps.config);
  return { data: page.rows.map((r) => merchantDealInfo(withTarget(ring, r), deps.config.CHECKOUT_BASE_URL)), next_page_token: page.next_page_token };
}

/** What an offset page may select beyond the merchant (the V1 lists): one deal type, narrowed statuses, one id, a creation window. */
export interface DealPageFilter {
  dealType: 'PAYIN' | 'PAYOUT';
  /** undefined: any status; []: nothing. */
  selectors?: StatusSelector[];
  id?: string;
  createdAfter?: Date;
  createdBefore?: Date;
}

/** The merchant's deals in offset pages, newest first: `skip` rows, then at most `take`; `count` is every match. */
export async function pageMerchantDeals(deps: AppDeps, merchantId: string, f: DealPageFilter, skip: number, take: number) {
  return pageDeals(deps.sql, { merchantId, ...f }, skip, take);
}

/** The merchant's deals of one type per payment method, currency and status, over a creation window (inclusive, open when absent). */
export async function merchantDealTotals(
  deps: AppDeps,
  merchantId: string,
  f: { dealType: 'PAYIN' | 'PAYOUT'; createdAfter?: Date; createdBefore?: Date },
): Promise<DealTotalsRow[]> {
  return dealTotals(deps.sql, { merchantId, ...f });
}

export type { DealTotalsRow, StatusSelector };

const CSV_HEADER = [
  'deal_id',
  'deal_type',
  'status',
  'amount',
  'currency',
  'counterparty',
  'received_amount',
  'amount_match_status',
  'payment_url',
  'created_at',
  'updated_at',
];

/**
 * A CSV stream of every matching deal, read in batches: constant memory whatever the size. The
 * first batch is read before the answer starts, so a query that fails fails as a problem+json
 * answer, not as a 200 cut off mid-body.
 */
export async function exportMerchantDeals(deps: AppDeps, merchantId: string, q: FilterInput): Promise<Readable> {
  const filter = toFilter(merchantId, q);
  const batches = filter ? streamDeals(deps.sql, filter)[Symbol.asyncIterator]() : undefined;
  const first = batches ? await batches.next() : undefined;
  const ring = cardDataRing(deps.config);
  const toCsv = (batch: DealRow[]) => {
    let chunk = '';
    for (const sealed of batch) {
      const row = withTarget(ring, sealed);
      const d = merchantDealInfo(row, deps.config.CHECKOUT_BASE_URL);
      const counterparty = row.deal_type === 'PAYIN' ? row.client_id : row.target_requisite;
      chunk += csvRow([
        d.deal_id,
        d.deal_type,
        d.status,
        d.amount,
        d.currency,
        counterparty,
        d.received_amount,
        d.amount_match_status,
        d.payment_url,
        d.created_at,
        d.updated_at,
      ]);
    }
    return chunk;
  };
  async function* lines() {
    try {
      yield csvRow(CSV_HEADER);
      if (!batches || !first || first.done) return;
      yield toCsv(first.value);
      for (let next = await batches.next(); !next.done; next = await batches.next()) yield toCsv(next.value);
    } finally {
      await batches?.return?.(); // a client that went away releases the cursor's connection
    }
  }
  return Readable.from(lines());
}

export async function merchantTurnover(deps: AppDeps, merchantId: string, q: { created_after?: Date; created_before?: Date }) {
  const to = q.created_before ?? new Date(deps.now());
  const from = q.created_after ?? new Date(to.getTime() - 30 * 86_400_000);
  if (from > to) throw new InvalidArgument('created_after must not be later than created_before');
  if (to.getTime() - from.getTime() > TURNOVER_MAX_DAYS * 86_400_000) {
    throw new InvalidArgument(`the turnover window is at most ${TURNOVER_MAX_DAYS} days`);
  }
  const rows = await turnover(deps.sql, merchantId, from, to);
  return {
    data: rows.map((r) => ({ date: r.date, deal_type: r.deal_type as 'PAYIN' | 'PAYOUT', currency: r.currency, count: r.count, amount: r.amount.toString() })),
    next_page_token: '',
  };
}
