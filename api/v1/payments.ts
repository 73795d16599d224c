/**
 * V1 payments: PayIns ("incoming") and PayOuts ("outgoing") — create, get, list and
 * statistics — as translation only: the V1 request becomes the call the V2 route makes
 * (createPayin, createPayout, getMerchantDeal, the deal listing), its answer the V1 envelope.
 */
import { FailedPrecondition, NotFound } from '../../domain/errors';
import { merchantOf, type Identity } from '../auth/authenticate';
import type { AppDeps } from '../deps';
import type { RouteDef } from '../route';
import type { DealRow } from '../../db/queries/deals';
import { listCurrencies, listPaymentMethods } from '../services/catalog';
import { merchantDealTotals, pageMerchantDeals } from '../services/deal-listing';
import { createPayin, getMerchantDeal, present } from '../services/payins';
import { createPayout } from '../services/payouts';
import { merchantWallets } from '../services/wallet';
import { listPage, ok } from './envelope';
import { creationWindow, DEFAULT_TAKE, defineV1Route } from './route';
import * as s from './schemas';
import {
  currencyFromNumeric,
  dealRecord,
  fiat,
  inStatuses,
  percent,
  selectorsFor,
  statisticsLines,
  toMinor,
  usdt,
  v1Catalog,
  type V1Catalog,
} from './translate';

/** The tenant's catalog, every method and currency whatever their status: read before translating (./translate.ts is pure). */
async function catalogOf(deps: AppDeps, tenantId: string): Promise<V1Catalog> {
  const [methods, currencies] = await Promise.all([listPaymentMethods(deps, tenantId), listCurrencies(deps, tenantId)]);
  return v1Catalog(methods, currencies);
}

/** A deal's V1 record: its row, the catalog, and what V2 presents of it (the payment URL). */
const recordOf = (deps: AppDeps, catalog: V1Catalog, row: DealRow) => dealRecord(catalog, row, present(deps, row));

const createIncoming = (path: string, operationId: string, summary: string) =>
  defineV1Route(
    {
      method: 'post',
      path,
      operationId,
      summary,
      description:
        'Signed payload `{timestamp};{payInId};{salt}`. payInId → idempotency_key (a repeat answers the same payment), method → ' +
        'payment_method_id, amount (decimal string) → minor units by the currency exponent, currency (ISO 4217 numeric) → alphabetic, ' +
        'clientId → client_id; successUrl and failUrl are ignored. Then exactly POST /deals/payin.',
      body: s.incomingCreateBody,
      response: s.incomingResponse,
      errors: [409],
      signs: ({ body }) => ({ payInId: body.payInId, salt: body.salt }),
      family: 'payin',
    },
    async ({ identity, body }, deps) => {
      const scope = merchantOf(identity);
      const catalog = await catalogOf(deps, scope.tenantId);
      const currency = currencyFromNumeric(catalog, body.currency);
      const { row } = await createPayin(deps, scope, {
        idempotency_key: body.payInId,
        amount: toMinor(body.amount, currency),
        currency: currency.code,
        payment_method_id: body.method,
        client_id: body.clientId,
      });
      return ok(recordOf(deps, catalog, row));
    },
  );

const getDeal = (dealType: 'PAYIN' | 'PAYOUT', path: string) =>
  defineV1Route(
    {
      method: 'get',
      path,
      operationId: dealType === 'PAYIN' ? 'v1GetIncoming' : 'v1GetOutgoing',
      summary: dealType === 'PAYIN' ? 'V1: one PayIn with its numeric V1 status' : 'V1: one PayOut with its numeric V1 status',
      description: "Signed payload `{timestamp};{id}`. Another merchant's or unknown id, or a deal of the other type: 404.",
      params: s.idParams,
      response: dealType === 'PAYIN' ? s.incomingResponse : s.outgoingResponse,
      errors: [404],
      signs: ({ params }) => ({ id: params.id }),
      family: 'read',
    },
    async ({ identity, params }, deps) => {
      const row = await getMerchantDeal(deps, merchantOf(identity), params.id);
      if (row.deal_type !== dealType) throw new NotFound('deal not found');
      return ok(recordOf(deps, await catalogOf(deps, row.tenant_id), row));
    },
  );

const listDeals = (dealType: 'PAYIN' | 'PAYOUT', path: string) =>
  defineV1Route(
    {
      method: 'post',
      path,
      operationId: dealType === 'PAYIN' ? 'v1ListIncoming' : 'v1ListOutgoing',
      summary: dealType === 'PAYIN' ? 'V1: PayIns, newest first, skip/take' : 'V1: PayOuts, newest first, skip/take',
      description:
        'Signed payload `{timestamp}`. Filters: status (numeric V1 code; unknown → 400), skip, take (1–100, default 20), startDate and ' +
        'endDate (RFC 3339, inclusive, by creation)' +
        (dealType === 'PAYIN' ? ', id (UUID)' : '') +
        '. count is every match; next_page_token is the next skip, empty on the last page.',
      body: dealType === 'PAYIN' ? s.incomingListBody : s.outgoingListBody,
      bodyOptional: true,
      response: dealType === 'PAYIN' ? s.incomingListResponse : s.outgoingListResponse,
      signs: () => ({}),
      family: 'read',
    },
    async ({ identity, body }, deps) => {
      const scope = merchantOf(identity);
      const q = (body ?? {}) as { status?: number; skip?: number; take?: number; startDate?: Date; endDate?: Date; id?: string };
      const skip = q.skip ?? 0;
      const filter = { dealType, selectors: selectorsFor(dealType, q.status), id: q.id, ...creationWindow(q.startDate, q.endDate) };
      const [{ rows, count }, catalog] = await Promise.all([
        pageMerchantDeals(deps, scope.merchantId, filter, skip, q.take ?? DEFAULT_TAKE),
        catalogOf(deps, scope.tenantId),
      ]);
      return ok(
        listPage(
          rows.map((r) => recordOf(deps, catalog, r)),
          count,
          skip,
        ),
      );
    },
  );

/** The deals of one type per payment method and currency over the request's window, as V1 statistics lines. */
async function statistics(deps: AppDeps, identity: Identity, dealType: 'PAYIN' | 'PAYOUT', body?: { startDate?: Date; endDate?: Date }) {
  const scope = merchantOf(identity);
  const window = creationWindow(body?.startDate, body?.endDate);
  const [totals, catalog] = await Promise.all([merchantDealTotals(deps, scope.merchantId, { dealType, ...window }), catalogOf(deps, scope.tenantId)]);
  return statisticsLines(totals, catalog);
}

export const paymentRoutes: RouteDef[] = [
  createIncoming('/payments/incoming', 'v1CreateIncoming', 'V1: create a PayIn'),
  createIncoming('/payments/incoming/idempotency', 'v1CreateIncomingIdempotency', 'V1: create a PayIn (legacy mirror of /v1/payments/incoming)'),
  createIncoming('/payments/incoming/nochannel', 'v1CreateIncomingNoChannel', 'V1: create a PayIn (legacy mirror of /v1/payments/incoming)'),
  getDeal('PAYIN', '/payments/incoming/{id}'),
  listDeals('PAYIN', '/payments/incoming/list'),
  defineV1Route(
    {
      method: 'post',
      path: '/payments/incoming/statistics',
      operationId: 'v1IncomingStatistics',
      summary: 'V1: PayIn statistics per payment method (14 fields)',
      description:
        'Signed payload `{timestamp}`. Over startDate..endDate (inclusive, by creation; open when absent). Paid = COMPLETED, ' +
        'timeout = EXPIRED, cancelled = CANCELLED + SPAM_REJECTED, returned = REFUND_PENDING, disput = APPEALED + SOFT_DISPUTED; ' +
        'conversionPercent = paid / all × 100 (two decimals); fiat sums in the method currency, balance sums in USDT: what ' +
        'completed PayIns credited the merchant and their fee.',
      body: s.statisticsBody,
      bodyOptional: true,
      response: s.incomingStatisticsResponse,
      signs: () => ({}),
      family: 'read',
    },
    async ({ identity, body }, deps) => {
      const lines = await statistics(deps, identity, 'PAYIN', body);
      return ok({
        statistics: lines.map((line) => {
          const paid = inStatuses(line, ['COMPLETED']);
          return {
            method: line.method,
            conversionPercent: percent(paid.count, line.count),
            paymentsCount: line.count,
            paymentsPaidCount: paid.count,
            paymentsTimeoutCount: inStatuses(line, ['EXPIRED']).count,
            paymentsCancelledCount: inStatuses(line, ['CANCELLED', 'SPAM_REJECTED']).count,
            paymentsReturnedCount: inStatuses(line, ['REFUND_PENDING']).count,
            paymentsDisputCount: inStatuses(line, ['APPEALED', 'SOFT_DISPUTED']).count,
            paymentsCurrency: line.currency.numeric_code,
            paymentsAmount: fiat(line.amount, line.currency.exponent),
            paymentsPaidAmount: fiat(paid.amount, line.currency.exponent),
            balanceCurrency: 'USDT',
            // What completed PayIns credited the merchant: escrow − fee (the ledger's payin_complete posting).
            paymentsToBalanceAmount: usdt(paid.escrowUsdt - paid.feeUsdt),
            paymentsCommissionAmount: usdt(paid.feeUsdt),
          };
        }),
      });
    },
  ),
  defineV1Route(
    {
      method: 'post',
      path: '/payments/outgoing',
      operationId: 'v1CreateOutgoing',
      summary: 'V1: create a PayOut',
      description:
        'Signed payload `{timestamp};{payOutId};{salt}`. payOutId → idempotency_key, paymentMethod → payment_method, cardNumber → ' +
        "target_requisite, fullName → target_name, amount and currency as for PayIn; the hold is taken from the merchant's USDT " +
        'wallet. Then exactly POST /deals/payout.',
      body: s.outgoingCreateBody,
      response: s.outgoingResponse,
      errors: [409],
      signs: ({ body }) => ({ payOutId: body.payOutId, salt: body.salt }),
      family: 'payout',
    },
    async ({ identity, body }, deps) => {
      const scope = merchantOf(identity);
      const catalog = await catalogOf(deps, scope.tenantId);
      const currency = currencyFromNumeric(catalog, body.currency);
      const amount = toMinor(body.amount, currency);
      const wallet = (await merchantWallets(deps, scope.merchantId)).find((w) => w.currency === 'USDT');
      if (!wallet) throw new FailedPrecondition('the merchant has no USDT wallet');
      const { row } = await createPayout(deps, scope, {
        idempotency_key: body.payOutId,
        amount,
        currency: currency.code,
        wallet_id: wallet.id,
        target_requisite: body.cardNumber,
        target_name: body.fullName,
        payment_method: body.paymentMethod,
      });
      return ok(recordOf(deps, catalog, row));
    },
  ),
  getDeal('PAYOUT', '/payments/outgoing/{id}'),
  listDeals('PAYOUT', '/payments/outgoing/list'),
  defineV1Route(
    {
      method: 'post',
      path: '/payments/outgoing/statistics',
      operationId: 'v1OutgoingStatistics',
      summary: 'V1: PayOut statistics per payment method (12 fields)',
      description:
        'Signed payload `{timestamp}`. Sent = COMPLETED, cancelled = FAILED + EXPIRED, disput = 0 (a PayOut has no dispute state); ' +
        'conversionPercent = sent / all × 100; paymentsFromBalanceAmount is what completed PayOuts debited in USDT (amount at the ' +
        'SELL rate + fee), paymentsCommissionAmount their fee.',
      body: s.statisticsBody,
      bodyOptional: true,
      response: s.outgoingStatisticsResponse,
      signs: () => ({}),
      family: 'read',
    },
    async ({ identity, body }, deps) => {
      const lines = await statistics(deps, identity, 'PAYOUT', body);
      return ok({
        statistics: lines.map((line) => {
          const sent = inStatuses(line, ['COMPLETED']);
          return {
            method: line.method,
            conversionPercent: percent(sent.count, line.count),
            paymentsCount: line.count,
            paymentsSentCount: sent.count,
            paymentsCancelledCount: inStatuses(line, ['FAILED', 'EXPIRED']).count,
            paymentsDisputCount: 0,
            paymentsCurrency: line.currency.numeric_code,
            paymentsAmount: fiat(line.amount, line.currency.exponent),
            paymentsSentAmount: fiat(sent.amount, line.currency.exponent),
            balanceCurrency: 'USDT',
            // What completed PayOuts debited: the hold (amount at the SELL rate + fee).
            paymentsFromBalanceAmount: usdt(sent.escrowUsdt),
            paymentsCommissionAmount: usdt(sent.feeUsdt),
          };
        }),
      });
    },
  ),
];
