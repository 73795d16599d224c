/** The withdrawal queue (contract 4, 7): list, approve, cancel. */
import { defineRoute } from '../../route';
import { cancelWithdrawalBody, operatorWithdrawalListQuery, operatorWithdrawalListResponse, operatorWithdrawalSchema, withdrawalParams } from '../../schemas/withdrawals';
import { approveWithdrawal, cancelWithdrawal, listOperatorWithdrawals, presentOperatorWithdrawal } from '../../services/withdrawals';

const tags = ['Operator: withdrawals'];
const operatorId = (identity: { kind: string; operatorId?: string }) => (identity.kind === 'operator' ? identity.operatorId ?? '' : '');

export const withdrawalRoutes = [
  defineRoute(
    {
      method: 'get',
      path: '/withdrawals',
      operationId: 'adminListWithdrawals',
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
      path: '/withdrawals/{withdrawal_id}/approve',
      operationId: 'adminApproveWithdrawal',
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
    },
    async ({ params, body, identity }, deps) =>
      presentOperatorWithdrawal(await cancelWithdrawal(deps, params.withdrawal_id, body?.reason ?? '', operatorId(identity))),
  ),
];
