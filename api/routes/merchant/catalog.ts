/** The tenant's catalogs as the merchant sees them: payment methods, banks, currencies. */
import { z } from 'zod';
import { defineRoute } from '../../route';
import { EXAMPLES } from '../../schemas/examples';
import { merchantOf } from '../../auth/authenticate';
import { listBanks, listCurrencies, listPaymentMethods } from '../../services/catalog';

const tags = ['Catalogs'];

const methodSchema = z
  .object({
    id: z.string().uuid(),
    slug: z.string(),
    name: z.string(),
    requisite_types: z.array(z.string()),
    currency_code: z.string(),
    status: z.string(),
  })
  .openapi('PaymentMethod');
const bankSchema = z.object({ bank_name: z.string(), display_name: z.string(), country: z.string(), methods: z.array(z.string()) }).openapi('Bank');
const currencySchema = z
  .object({
    id: z.string().uuid(),
    code: z.string(),
    name: z.string(),
    exponent: z
      .number()
      .int()
      .openapi({ description: 'digits after the point: minor units per major unit are 10^exponent (the cabinet types amounts in major units)' }),
  })
  .openapi('Currency', { description: 'id (UUID), ISO 4217 alphabetic code, display name and exponent' });

export const catalogRoutes = [
  defineRoute(
    {
      method: 'get',
      path: '/payment-methods',
      operationId: 'listPaymentMethods',
      example: EXAMPLES.listPaymentMethods,
      auth: 'cabinet_or_hmac',
      summary: 'ACTIVE payment methods of the tenant; id or slug is accepted by PayIn and PayOut create',
      tags,
      response: z.object({ data: z.array(methodSchema) }),
    },
    async ({ identity }, deps) => {
      const rows = await listPaymentMethods(deps, merchantOf(identity).tenantId, 'ACTIVE');
      return {
        data: rows.map((m) => ({ id: m.id, slug: m.slug, name: m.name, requisite_types: m.requisite_types, currency_code: m.currency_code, status: m.status })),
      };
    },
  ),
  defineRoute(
    {
      method: 'get',
      path: '/banks',
      operationId: 'listBanks',
      example: EXAMPLES.listBanks,
      auth: 'cabinet_or_hmac',
      summary: 'ACTIVE banks, optionally by country (ISO 3166-1 alpha-2) and currency (ISO 4217)',
      tags,
      query: z.object({
        country: z
          .string()
          .regex(/^[A-Za-z]{2}$/, 'country must be an ISO 3166-1 alpha-2 code')
          .optional(),
        currency: z
          .string()
          .regex(/^[A-Za-z]{3,5}$/, 'currency must be an ISO 4217 code')
          .optional(),
      }),
      response: z.object({ data: z.array(bankSchema) }),
    },
    async ({ identity, query }, deps) => {
      const { tenantId } = merchantOf(identity);
      const rows = await listBanks(deps, tenantId, { country: query.country, currency: query.currency });
      return { data: rows.map((b) => ({ bank_name: b.bank_name, display_name: b.display_name, country: b.country, methods: b.methods })) };
    },
  ),
  defineRoute(
    {
      method: 'get',
      path: '/currencies',
      operationId: 'listCurrencies',
      example: EXAMPLES.listCurrencies,
      auth: 'cabinet_or_hmac',
      summary: 'ACTIVE currencies of the tenant',
      tags,
      response: z.object({ data: z.array(currencySchema) }),
    },
    async ({ identity }, deps) => {
      const rows = await listCurrencies(deps, merchantOf(identity).tenantId, 'ACTIVE');
      return { data: rows.map((c) => ({ id: c.id, code: c.code, name: c.name, exponent: c.exponent })) };
    },
  ),
];
