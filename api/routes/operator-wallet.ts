import { z } from 'zod';
import { defineRoute } from '../route';
import { uuid } from '../schemas/common';
import { merchantSchema } from '../schemas/merchant';
import {
  cancelWithdrawalBody,
  merchantSettingsBody,
  operatorWithdrawalListQuery,
  operatorWithdrawalListResponse,
  operatorWithdrawalSchema,
  withdrawalParams,
} from '../schemas/wallet';
import { patchMerchantSettings, presentMerchantForOperator } from '../services/merchant-settings';
import { approveWithdrawal, cancelWithdrawal, listOperatorWithdrawals, presentOperatorWithdrawal } from '../services/withdrawals';
import { int64String } from '../schemas/common';

const ADMIN = '/api/v1/p2p/admin';
const tags = ['Operator: withdrawals'];
const operatorId = (identity: { kind: string; operatorId?: string }) => (identity.kind === 'operator' ? identity.operatorId ?? '' : '');

const operatorMerchantResponse = z
  .object({
    merchant: merchantSchema.extend({
      auto_withdrawal_mode: z.enum(['AUTO_UP_TO_LIMIT', 'MANUAL_ONLY']),
      auto_withdrawal_limit_usdt_cents: int64String,
      auto_withdrawal_effective_limit_usdt_cents: int64String,
      rate_limit_per_minute: z.number().int().nullable(),
      payin_fee_bps: z.number().int(),
      payout_fee_bps: z.number().int(),
      webhook_max_retries: z.number().int(),
    }),
  })
  .openapi('OperatorMerchant');

export const operatorWalletRoutes = [
  defineRoute(
    {
      method: 'get',
      path: `${ADMIN}/withdrawals`,
      auth: 'operator',
      summary: 'The withdrawal queue: all withdrawals newest first, filtered by status (e.g. PENDING_MANUAL) and merchant_id',
      tags,
      query: operatorWithdrawalListQuery,
      response: operatorWithdrawalListResponse,
    },
    ({ query }, deps) => listOperatorWithdrawals(deps, query),
  ),
  defineRoute(
    {
      method: 'post',
      path: `${ADMIN}/withdrawals/{withdrawal_id}/approve`,
      auth: 'operator',
      summary: 'Approve a PENDING_MANUAL withdrawal: APPROVED, broadcast, COMPLETED',
      description:
        'Answers the withdrawal once broadcast (COMPLETED, or still APPROVED if the chain has not answered within WITHDRAWAL_SYNC_WAIT_SECONDS). ' +
        'Any other status is 400 FAILED_PRECONDITION (of two concurrent approvals exactly one wins); unknown ids 404.',
      tags,
      params: withdrawalParams,
      response: operatorWithdrawalSchema,
      errors: [404],
    },
    async ({ params, identity }, deps) => presentOperatorWithdrawal(await approveWithdrawal(deps, params.withdrawal_id, operatorId(identity))),
  ),
  defineRoute(
    {
      method: 'post',
      path: `${ADMIN}/withdrawals/{withdrawal_id}/cancel`,
      auth: 'operator',
      summary: 'Cancel a PENDING_MANUAL withdrawal: CANCELLED, hold returned, event p2p.finance.withdrawal_failed',
      description: 'Optional body { reason }. Once approved a withdrawal can no longer be cancelled (400 FAILED_PRECONDITION); unknown ids 404.',
      tags,
      params: withdrawalParams,
      body: cancelWithdrawalBody,
      bodyOptional: true,
      response: operatorWithdrawalSchema,
      errors: [404],
    },
    async ({ params, body, identity }, deps) =>
      presentOperatorWithdrawal(await cancelWithdrawal(deps, params.withdrawal_id, body?.reason ?? '', operatorId(identity))),
  ),
  defineRoute(
    {
      method: 'patch',
      path: `${ADMIN}/merchants/{merchant_id}`,
      auth: 'operator',
      summary: 'Operator-only merchant settings: auto-withdrawal mode and limit, rate limit, fees, webhook retries (contract 3)',
      description: 'The merchant reads auto_withdrawal_mode and auto_withdrawal_effective_limit_usdt_cents in its profile but cannot change them.',
      tags: ['Operator'],
      params: z.object({ merchant_id: uuid('merchant_id') }),
      body: merchantSettingsBody,
      response: operatorMerchantResponse,
      errors: [404],
    },
    async ({ params, body }, deps) => ({ merchant: presentMerchantForOperator(await patchMerchantSettings(deps, params.merchant_id, body)) }),
  ),
];
