/** The withdrawal queue: list, approve, cancel. */
import { operatorOf } from '../../auth/authenticate';
import { defineRoute, Reply, sendCsv } from '../../route';
import {
  bulkApproveBody,
  bulkApproveResponse,
  bulkCancelBody,
  bulkCancelResponse,
  cancelWithdrawalBody,
  operatorWithdrawalFilters,
  operatorWithdrawalListQuery,
  operatorWithdrawalListResponse,
  operatorWithdrawalSchema,
  withdrawalParams,
} from '../../schemas/withdrawals';
import { approveWithdrawal, cancelWithdrawal, exportOperatorWithdrawals, listOperatorWithdrawals, operatorWithdrawalView } from '../../services/withdrawals';
import { eachOf } from '../../services/bulk';

const tags = ['Operator: withdrawals'];

export const withdrawalRoutes = [
  defineRoute(
    {
      method: 'get',
      path: '/withdrawals',
      operationId: 'adminListWithdrawals',
      auth: 'operator',
      summary:
        'The withdrawal queue: all withdrawals newest first, filtered by status (e.g. PENDING_MANUAL), merchant_id and withdrawal_id (each id whole or its start)',
      tags,
      query: operatorWithdrawalListQuery,
      response: operatorWithdrawalListResponse,
    },
    ({ query }, deps) => listOperatorWithdrawals(deps, query),
  ),
  defineRoute(
    {
      method: 'get',
      path: '/withdrawals/export',
      operationId: 'adminExportWithdrawals',
      auth: 'operator',
      summary: "CSV of every withdrawal the queue's filters select, newest first; the file is named for the filters",
      description:
        'The filters of GET /withdrawals (status, merchant_id and withdrawal_id or their starts), no paging, streamed in constant ' +
        'memory. Columns: withdrawal_id, status, amount, fee_usdt_cents, net_usdt_cents, currency, address, tx_hash, merchant_id, ' +
        'merchant_name, processing, approvals ("email (role)" joined by "; "), approved_by, cancelled_by, cancel_reason, ' +
        'created_at, approved_at, completed_at, cancelled_at (USDT cents). RFC 4180; a cell starting with =, +, -, @, tab or CR is ' +
        'prefixed with a single quote.',
      tags,
      query: operatorWithdrawalFilters,
      responseContentType: 'text/csv',
    },
    async ({ query }, deps, ctx) => sendCsv(ctx, await exportOperatorWithdrawals(deps, query)),
  ),
  defineRoute(
    {
      method: 'post',
      path: '/withdrawals/{withdrawal_id}/approve',
      operationId: 'adminApproveWithdrawal',
      auth: 'operator',
      summary: 'Approve a PENDING_MANUAL withdrawal: APPROVED, broadcast, COMPLETED (four-eyes above WITHDRAWAL_FOUR_EYES_ABOVE_USDT_CENTS)',
      description:
        'Answers the withdrawal once broadcast (COMPLETED, or still APPROVED if the chain has not answered within WITHDRAWAL_SYNC_WAIT_SECONDS). ' +
        'Any other status is 400 FAILED_PRECONDITION (of two concurrent approvals exactly one wins); unknown ids 404. ' +
        'Four-eyes: a withdrawal of more than WITHDRAWAL_FOUR_EYES_ABOVE_USDT_CENTS (approvals_required 2) needs two distinct console ' +
        'accounts of a role that may approve (finance, admin): the first approval is recorded and answered 202 (still PENDING_MANUAL ' +
        'for the merchant; approvals lists it), the same account again is 409, another account’s approval releases it (200). ' +
        'Whether the approvals count is judged again when the release is decided: an approver disabled or demoted since no longer ' +
        'counts (approvals[].counts), and the withdrawal waits for another. The operator JWT cannot approve such a withdrawal ' +
        '(403; at or below the amount it approves alone, as before). Concurrent approvals release it once.',
      tags,
      params: withdrawalParams,
      response: operatorWithdrawalSchema,
      replies: { 202: 'four-eyes: the approval is recorded; the withdrawal waits for another console account (status PENDING_MANUAL)' },
      errors: [403, 404, 409],
      audit: { action: 'withdrawal.approve', objectType: 'withdrawal', by: 'service' },
    },
    async ({ params, identity, actor }, deps) => {
      const { row, released } = await approveWithdrawal(deps, params.withdrawal_id, operatorOf(identity).operatorId, actor);
      const view = await operatorWithdrawalView(deps, row);
      return released ? view : new Reply(202, view);
    },
  ),
  defineRoute(
    {
      method: 'post',
      path: '/withdrawals/{withdrawal_id}/cancel',
      operationId: 'adminCancelWithdrawal',
      auth: 'operator',
      summary: 'Cancel a PENDING_MANUAL withdrawal: CANCELLED, hold returned, event p2p.finance.withdrawal_failed',
      description: 'Optional body { reason }. Once approved a withdrawal can no longer be cancelled (400 FAILED_PRECONDITION); unknown ids 404.',
      tags,
      params: withdrawalParams,
      body: cancelWithdrawalBody,
      bodyOptional: true,
      response: operatorWithdrawalSchema,
      errors: [404],
      audit: { action: 'withdrawal.cancel', objectType: 'withdrawal', by: 'service' },
    },
    async ({ params, body, identity, actor }, deps) =>
      operatorWithdrawalView(deps, await cancelWithdrawal(deps, params.withdrawal_id, body?.reason ?? '', operatorOf(identity).operatorId, actor)),
  ),
  defineRoute(
    {
      method: 'post',
      path: '/withdrawals/bulk-approve',
      operationId: 'adminBulkApproveWithdrawals',
      auth: 'operator',
      summary: 'Approve several withdrawals: the approve action once per withdrawal, each with its own answer and audit row',
      description:
        'Each id goes through exactly what POST /withdrawals/{id}/approve does, as the same operator: the four-eyes rule holds per ' +
        'withdrawal, so above the amount this records only this operator’s approval (approval_recorded, 202) and a second console ' +
        'account must approve it too; the same account again is 409, the operator JWT 403, any other status 400. One result per ' +
        'id (at most 100); the request is 200 whatever each answered.',
      tags,
      body: bulkApproveBody,
      response: bulkApproveResponse,
      audit: { action: 'withdrawal.approve', objectType: 'withdrawal', by: 'service' },
    },
    async ({ body, identity, actor }, deps) => ({
      results: await eachOf(deps.log, body.withdrawal_ids, async (id) => {
        const { released } = await approveWithdrawal(deps, id, operatorOf(identity).operatorId, actor);
        return released ? { status: 200, outcome: 'released' as const } : { status: 202, outcome: 'approval_recorded' as const };
      }),
    }),
  ),
  defineRoute(
    {
      method: 'post',
      path: '/withdrawals/bulk-cancel',
      operationId: 'adminBulkCancelWithdrawals',
      auth: 'operator',
      summary: 'Cancel several PENDING_MANUAL withdrawals (one reason for all): the cancel action once per withdrawal, each audited',
      description: 'Each id goes through exactly what POST /withdrawals/{id}/cancel does. One result per id (at most 100); the request is 200.',
      tags,
      body: bulkCancelBody,
      response: bulkCancelResponse,
      audit: { action: 'withdrawal.cancel', objectType: 'withdrawal', by: 'service' },
    },
    async ({ body, identity, actor }, deps) => ({
      results: await eachOf(deps.log, body.withdrawal_ids, async (id) => {
        await cancelWithdrawal(deps, id, body.reason ?? '', operatorOf(identity).operatorId, actor);
        return { status: 200, outcome: 'cancelled' as const };
      }),
    }),
  ),
];
