/** The merchant's deal listing: keyset pages, the CSV export, the daily turnover. */
import { defineRoute } from '../../route';
import { EXAMPLES } from '../../schemas/examples';
import { merchantOf } from '../../auth/authenticate';
import { dealFilterQuery, listDealsQuery, listDealsResponse, turnoverQuery, turnoverResponse } from '../../schemas/listing';
import { exportMerchantDeals, listMerchantDeals, merchantTurnover } from '../../services/deal-listing';

const tags = ['Deals'];

const exportRoute = (path: string, operationId: string, deprecated: boolean) =>
  defineRoute(
    {
      method: 'get',
      path,
      operationId,
      auth: 'hmac',
      summary: `${deprecated ? '(Deprecated mirror) ' : ''}CSV export of the deals, with the listing's filters (Accept: text/csv)`,
      description:
        'Streamed in constant memory, newest first. Columns: deal_id, deal_type, status, amount, currency, counterparty ' +
        '(client_id for PAYIN, target_requisite for PAYOUT), received_amount, amount_match_status, payment_url, created_at, ' +
        'updated_at. RFC 4180 quoting; cells starting with =, +, -, @, tab or CR are prefixed with a single quote.',
      tags,
      query: dealFilterQuery,
      responseContentType: 'text/csv',
      ...(deprecated
        ? { responseHeaders: { Deprecation: { description: '`true`: a deprecated mirror of GET /merchant/deals/export', schema: { type: 'string' } } } }
        : {}),
    },
    async ({ identity, query }, deps, ctx) => {
      const csv = await exportMerchantDeals(deps, merchantOf(identity).merchantId, query);
      ctx.type = 'text/csv; charset=utf-8';
      ctx.set('Content-Disposition', 'attachment; filename="deals.csv"');
      if (deprecated) ctx.set('Deprecation', 'true');
      ctx.body = csv;
    },
  );

/** Registered before /deals/{deal_id}, whose UUID parameter would otherwise claim these paths. */
export const dealListingRoutes = [
  defineRoute(
    {
      method: 'get',
      path: '/deals',
      operationId: 'listDeals',
      example: EXAMPLES.listDeals,
      auth: 'hmac',
      summary: 'PayIn and PayOut deals, newest first, keyset-paginated',
      description: 'A malformed or tampered page_token is 400 `invalid page_token`. Unknown deal_type or statuses give an empty page.',
      tags,
      query: listDealsQuery,
      response: listDealsResponse,
    },
    ({ identity, query }, deps) => listMerchantDeals(deps, merchantOf(identity).merchantId, query),
  ),
  exportRoute('/deals/export', 'exportDeals', false),
  defineRoute(
    {
      method: 'get',
      path: '/deals/turnover',
      operationId: 'getTurnover',
      example: EXAMPLES.getTurnover,
      auth: 'cabinet_or_hmac',
      summary: 'Daily UTC turnover per deal type and currency; the window is at most 92 days',
      tags,
      query: turnoverQuery,
      response: turnoverResponse,
    },
    ({ identity, query }, deps) => merchantTurnover(deps, merchantOf(identity).merchantId, query),
  ),
];

/** The export's older path, directly under /api/v1/p2p (answers Deprecation: true). */
export const dealListingMirrors = [exportRoute('/deals/export', 'exportDealsLegacy', true)];
