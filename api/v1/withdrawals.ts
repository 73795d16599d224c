/**
 * V1 withdrawals: withdraw, list and get as translation only — the V2 withdrawal
 * service (its fee, hold, auto/manual rule and workflow), keyed by the V1 requestId.
 */
import { InvalidArgument } from '../../domain/errors';
import { withdrawalStatusesForCode } from './codes';
import { v1Withdrawal } from './records';
import { presentWithdrawal } from '../../domain/records/withdrawal-info';
import { merchantOf } from '../auth/authenticate';
import type { RouteDef } from '../route';
import { createMerchantWithdrawal, getMerchantWithdrawal, pageMerchantWithdrawals } from '../services/withdrawals';
import { listPage, ok } from './envelope';
import { creationWindow, DEFAULT_TAKE, defineV1Route, type V1ListQuery } from './route';
import * as s from './schemas';
import { toMinor, unknownStatus } from './translate';

export const withdrawalRoutes: RouteDef[] = [
  defineV1Route(
    {
      method: 'post',
      path: '/merchant/withdraw',
      operationId: 'v1CreateWithdrawal',
      summary: 'V1: withdraw USDT (TRC-20) to a TRON address',
      description:
        'Signed payload `{timestamp};{requestId};{wallet};{salt}` (wallet = the body field wallet, or address when only the alias is ' +
        'sent). Keyed by requestId: a repeat with the same amount and wallet answers the withdrawal made under it (in its current ' +
        'state); the same requestId with another amount or wallet is 409; a new requestId is a new withdrawal, even to the same ' +
        'wallet for the same amount. amount is USDT with the fee included (at most 2 decimals); an invalid mainnet TRON address is ' +
        '400. Then the service of POST /wallet/withdraw (same fee, hold, auto/manual rule, workflow).',
      body: s.withdrawCreateBody,
      response: s.withdrawalResponse,
      errors: [409],
      signs: ({ body }) => ({ requestId: body.requestId, wallet: body.wallet ?? body.address, salt: body.salt }),
      family: 'withdraw',
    },
    async ({ identity, body }, deps) => {
      const { merchantId } = merchantOf(identity);
      if (body.isBalanceCommission === true) {
        throw new InvalidArgument('isBalanceCommission true is not supported: the fee is always taken from the amount', [
          { field: 'isBalanceCommission', message: 'only false is supported', code: 'unsupported' },
        ]);
      }
      const amount = toMinor(body.amount, { code: 'USDT', exponent: 2 });
      const { row } = await createMerchantWithdrawal(
        deps,
        merchantId,
        { address: body.wallet ?? body.address, amount, idempotency_key: body.requestId },
        { value: body.requestId, field: 'requestId' },
      );
      return ok(v1Withdrawal(presentWithdrawal(row), merchantId, { comment: body.comment, callbackUrl: body.callbackUrl }));
    },
  ),
  defineV1Route(
    {
      method: 'post',
      path: '/merchant/withdraw/list',
      operationId: 'v1ListWithdrawals',
      summary: 'V1: withdrawals, newest first, skip/take',
      description: 'Signed payload `{timestamp}`. Filters: status (V1 code 1–4; unknown → 400), skip, take (1–100, default 20), startDate, endDate.',
      body: s.withdrawListBody,
      bodyOptional: true,
      response: s.withdrawalListResponse,
      signs: () => ({}),
      family: 'read',
    },
    async ({ identity, body }, deps) => {
      const { merchantId } = merchantOf(identity);
      const q: V1ListQuery = body ?? {};
      const statuses = q.status === undefined ? undefined : (withdrawalStatusesForCode(q.status) ?? unknownStatus(q.status));
      const skip = q.skip ?? 0;
      const { rows, count } = await pageMerchantWithdrawals(
        deps,
        merchantId,
        { statuses, ...creationWindow(q.startDate, q.endDate) },
        skip,
        q.take ?? DEFAULT_TAKE,
      );
      return ok(
        listPage(
          rows.map((r) => v1Withdrawal(presentWithdrawal(r), merchantId)),
          count,
          skip,
        ),
      );
    },
  ),
  defineV1Route(
    {
      method: 'get',
      path: '/merchant/withdraw/{id}',
      operationId: 'v1GetWithdrawal',
      summary: 'V1: one withdrawal (19-field profile)',
      description: "Signed payload `{timestamp};{id}`. Another merchant's or unknown id: 404.",
      params: s.idParams,
      response: s.withdrawalResponse,
      errors: [404],
      signs: ({ params }) => ({ id: params.id }),
      family: 'read',
    },
    async ({ identity, params }, deps) => {
      const { merchantId } = merchantOf(identity);
      return ok(v1Withdrawal(presentWithdrawal(await getMerchantWithdrawal(deps, merchantId, params.id)), merchantId));
    },
  ),
];
