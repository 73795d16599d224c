/** V1 banks list: the V2 bank catalog, its currencies as ISO 4217 numeric codes, in skip/take pages. */
import { merchantOf } from '../auth/authenticate';
import type { RouteDef } from '../route';
import { listBanks, listCurrencies } from '../services/catalog';
import { listPage, ok } from './envelope';
import { DEFAULT_TAKE, defineV1Route } from './route';
import * as s from './schemas';

export const bankRoutes: RouteDef[] = [
  defineV1Route(
    {
      method: 'post',
      path: '/banks/list',
      operationId: 'v1ListBanks',
      summary: 'V1: banks of the tenant (5-field profile)',
      description:
        'Signed payload `{timestamp}`. Filters: country (ISO 3166-1 alpha-2), bankName (bank name or display name, any case), ' +
        'methodName (a RequisiteType such as BANK_CARD), skip, take (1–100, default 20). methodNames are the RequisiteTypes the bank ' +
        'serves; currencies their ISO 4217 numeric codes.',
      body: s.banksListBody,
      bodyOptional: true,
      response: s.banksListResponse,
      signs: () => ({}),
      family: 'read',
    },
    async ({ identity, body }, deps) => {
      const { tenantId } = merchantOf(identity);
      const q = body ?? {};
      const [banks, currencies] = await Promise.all([
        listBanks(deps, tenantId, { country: q.country, bankName: q.bankName, method: q.methodName }),
        listCurrencies(deps, tenantId),
      ]);
      const numeric = new Map(currencies.map((c) => [c.code, c.numeric_code]));
      const skip = q.skip ?? 0;
      const page = banks.slice(skip, skip + (q.take ?? DEFAULT_TAKE)).map((b) => ({
        id: b.id,
        country: b.country,
        bankName: b.display_name,
        methodNames: b.methods,
        currencies: b.currencies.map((c) => numeric.get(c)).filter((n): n is number => typeof n === 'number'),
      }));
      return ok(listPage(page, banks.length, skip));
    },
  ),
];
