/** The console's search box: one query across deals, appeals, withdrawals, merchants, traders and operators. */
import { z } from 'zod';
import { operatorOf } from '../../auth/authenticate';
import { defineRoute } from '../../route';
import { int64String, line, timestamp } from '../../schemas/common';
import { searchConsole } from '../../services/search';
import { SEARCH_KINDS } from '../../../domain/roles';

const matched = z.array(z.string()).openapi({
  description:
    'why it was found: id, deal id, its deal, trader card or phone tail, recipient tail, payer card tail, amount, client id, name, email, address, transaction id, requisite tail',
});

const searchResponse = z
  .object({
    q: z.string(),
    kinds: z.array(z.enum(Object.keys(SEARCH_KINDS) as [keyof typeof SEARCH_KINDS])).openapi({
      description: "the kinds looked into: those the operator's role may list (operators: admin only)",
    }),
    deals: z.array(
      z.object({
        deal_id: z.string().uuid(),
        deal_type: z.string(),
        status: z.string(),
        amount: int64String,
        currency: z.string(),
        client_id: z.string(),
        merchant_id: z.string().uuid(),
        merchant_name: z.string(),
        sandbox: z.boolean(),
        created_at: timestamp,
        matched,
      }),
    ),
    appeals: z.array(
      z.object({
        appeal_id: z.string().uuid(),
        deal_id: z.string().uuid(),
        status: z.string(),
        merchant_id: z.string().uuid(),
        merchant_name: z.string(),
        created_at: timestamp,
        matched,
      }),
    ),
    withdrawals: z.array(
      z.object({
        withdrawal_id: z.string().uuid(),
        status: z.string(),
        amount: int64String.openapi({ description: 'USDT cents' }),
        address: z.string(),
        tx_hash: z.string(),
        merchant_id: z.string().uuid(),
        merchant_name: z.string(),
        created_at: timestamp,
        matched,
      }),
    ),
    merchants: z.array(z.object({ merchant_id: z.string().uuid(), name: z.string(), email: z.string(), status: z.string(), sandbox: z.boolean(), matched })),
    traders: z.array(z.object({ trader_id: z.string().uuid(), name: z.string(), status: z.string(), matched })),
    operators: z.array(z.object({ operator_id: z.string().uuid(), email: z.string(), role: z.string(), disabled: z.boolean(), matched })),
  })
  .openapi('ConsoleSearchResult');

export const searchRoutes = [
  defineRoute(
    {
      method: 'get',
      path: '/search',
      operationId: 'adminSearch',
      auth: 'operator',
      summary:
        "The console's search box: deals, appeals, withdrawals, merchants, traders and operators by any id or its start, name, email, client id, amount, card or phone tail",
      description:
        'q is read as every term it can be: the start of an id (at least 4 hex digits; the console shows 8), four digits as the end ' +
        "of a card or phone number (the trader's requisite, a PayOut's recipient, the card the payer named; *1234 too), a decimal " +
        "amount in major units (each deal in its currency's exponent, withdrawals in USDT), the start of a name or email " +
        '(case-insensitive), a whole client id, a TRON address or transaction id. Each kind is looked into only when the role may ' +
        'list it (kinds says which), newest first, at most limit (default 10, at most 25) per kind; matched says why each was found. ' +
        'Every lookup reads an index; card and phone numbers are looked up by their stored last four digits only.',
      tags: ['Operator: console'],
      query: z.object({
        q: line('q', 200).min(1, 'q is required').openapi({ example: '3fa85f64' }),
        limit: z.coerce.number().int().min(1).max(25).optional().openapi({ type: 'integer', description: 'per kind; default 10, at most 25' }),
      }),
      response: searchResponse,
    },
    ({ identity, query }, deps) => searchConsole(deps, operatorOf(identity).role, query),
  ),
];
