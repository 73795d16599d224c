/** The merchant's USDT withdrawals: the fee quote, withdraw, the history. */
import { defineRoute, IDEMPOTENT_REPLAYED_HEADER, markReplayed } from '../../route';
import { merchantOf } from '../../auth/authenticate';
import {
  feeQuery,
  feeQuoteResponse,
  withdrawalListQuery,
  withdrawalListResponse,
  withdrawalParams,
  withdrawalSchema,
  withdrawBody,
} from '../../schemas/withdrawals';
import { createMerchantWithdrawal, getMerchantWithdrawal, listMerchantWithdrawals, quoteWithdrawal } from '../../services/withdrawals';
import { presentWithdrawal } from '../../../domain/records/withdrawal-info';
import { EXAMPLES } from '../../schemas/examples';

const tags = ['Wallet'];

export const withdrawalRoutes = [
  defineRoute(
    {
      method: 'get',
      path: '/wallet/withdraw-fee',
      operationId: 'getWithdrawFee',
      example: EXAMPLES.getWithdrawFee,
      auth: 'cabinet_or_hmac',
      summary: 'Quote a withdrawal: fee and net for an amount in USDT cents',
      description:
        'fee = WITHDRAWAL_FEE_USDT_CENTS + amount × WITHDRAWAL_FEE_BPS / 10000 (half-even), net = amount − fee. ' +
        'A missing, non-integer or non-positive amount is 400 INVALID_ARGUMENT; an amount that does not cover the fee is 400 FAILED_PRECONDITION.',
      tags,
      query: feeQuery,
      response: feeQuoteResponse,
    },
    ({ query }, deps) => {
      const { amount, fee_usdt_cents, net_usdt_cents } = quoteWithdrawal(deps, query.amount);
      return { amount, fee_usdt_cents, net_usdt_cents };
    },
  ),
  defineRoute(
    {
      method: 'post',
      path: '/wallet/withdraw',
      operationId: 'createWithdrawal',
      example: EXAMPLES.createWithdrawal,
      auth: 'cabinet_or_hmac',
      summary: 'Withdraw USDT to a TRON address: COMPLETED (auto-processed) or PENDING_MANUAL (operator queue)',
      description:
        'The amount (fee included) moves available → frozen at once. Amounts up to auto_withdrawal_effective_limit_usdt_cents are ' +
        'broadcast at once and answer COMPLETED with tx_hash (or PENDING if the chain has not answered within WITHDRAWAL_SYNC_WAIT_SECONDS); ' +
        'others answer PENDING_MANUAL. Server-side idempotency: an identical request (same address, amount and current fee) returns the same ' +
        'withdrawal while it is live or within WITHDRAWAL_IDEMPOTENCY_WINDOW_SECONDS of a completed one. An invalid address is 400 ' +
        'INVALID_ARGUMENT; amount above available or not above the fee is 400 FAILED_PRECONDITION. Idempotent-Replayed is `true` when ' +
        'the answer is such an earlier withdrawal.',
      tags,
      body: withdrawBody,
      response: withdrawalSchema,
      responseHeaders: IDEMPOTENT_REPLAYED_HEADER,
    },
    async ({ identity, body }, deps, ctx) => {
      const { row, replayed } = await createMerchantWithdrawal(deps, merchantOf(identity).merchantId, body);
      markReplayed(ctx, replayed);
      return presentWithdrawal(row);
    },
  ),
  defineRoute(
    {
      method: 'get',
      path: '/wallet/withdrawals',
      operationId: 'listWithdrawals',
      example: EXAMPLES.listWithdrawals,
      auth: 'cabinet_or_hmac',
      summary: 'Withdrawal history, newest first, one row per withdrawal (queue and sent ones alike)',
      tags,
      query: withdrawalListQuery,
      response: withdrawalListResponse,
    },
    ({ identity, query }, deps) => listMerchantWithdrawals(deps, merchantOf(identity).merchantId, query),
  ),
  defineRoute(
    {
      method: 'get',
      path: '/wallet/withdrawals/{withdrawal_id}',
      operationId: 'getWithdrawal',
      example: EXAMPLES.getWithdrawal,
      auth: 'cabinet_or_hmac',
      summary: 'One withdrawal of the caller (foreign or unknown ids are 404)',
      tags,
      params: withdrawalParams,
      response: withdrawalSchema,
      errors: [404],
    },
    async ({ identity, params }, deps) => presentWithdrawal(await getMerchantWithdrawal(deps, merchantOf(identity).merchantId, params.withdrawal_id)),
  ),
];
