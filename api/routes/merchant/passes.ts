/** Whitelist passes: create, list, one pass. */
import { defineRoute } from '../../route';
import { EXAMPLES } from '../../schemas/examples';
import { merchantOf } from '../../auth/authenticate';
import { createPassBody, listPassesQuery, passListResponse, passResponse } from '../../schemas/passes';
import { createPass, listMerchantPasses, presentPass } from '../../services/passes';

const tags = ['Passes'];

export const passRoutes = [
  defineRoute(
    {
      method: 'post',
      path: '/passes',
      operationId: 'createPass',
      example: EXAMPLES.createPass,
      auth: 'cabinet_or_hmac',
      summary: 'Create a whitelist pass: status ACTIVE until expires_at (PASS_TTL_SECONDS), single use',
      singleUse: 'route',
      description:
        'amount is required; currency_id, requisite_type, payment_method_id (UUID only: a slug is 400) and provider_id ' +
        '(a trader) are optional filters, empty meaning any. Unknown ids, a method of another currency or a requisite type ' +
        "the method lacks are 400. The next PayIn of the merchant whose amount, currency, method (and the method's " +
        'requisite type) match an ACTIVE pass reserves it (USED, used_deal_id) inside its create and is routed to a ' +
        "requisite of the pass's provider and requisite type, bypassing the cascade. When that provider cannot take the " +
        'deal (no fitting requisite, liquidity or daily limit) the pass stays ACTIVE and the deal goes through the normal ' +
        'cascade. A PayIn create that reserves no pass while a pass matching it was reserved by another deal after the ' +
        'create request arrived (a concurrent create) gets 409 `pass was concurrently reserved` (ABORTED) and no deal; ' +
        'retrying its key routes it through the cascade. A pass used before the request arrived does not matter. At ' +
        'expires_at an ACTIVE pass becomes EXPIRED.',
      tags,
      body: createPassBody,
      status: 201,
      response: passResponse,
    },
    async ({ identity, body }, deps) => ({ pass: presentPass(await createPass(deps, merchantOf(identity), body), deps.now()) }),
  ),
  defineRoute(
    {
      method: 'get',
      path: '/passes',
      operationId: 'listPasses',
      example: EXAMPLES.listPasses,
      auth: 'cabinet_or_hmac',
      summary: "The caller's passes, newest first, keyset-paginated; optional status filter",
      tags,
      query: listPassesQuery,
      response: passListResponse,
    },
    ({ identity, query }, deps) => listMerchantPasses(deps, merchantOf(identity).merchantId, query),
  ),
];
