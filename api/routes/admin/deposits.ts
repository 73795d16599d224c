/** Merchant deposits recorded by the operator, standing in for the chain watcher. */
import { defineRoute, Reply } from '../../route';
import { depositBody, depositResponse } from '../../schemas/wallet';
import { recordMerchantDeposit } from '../../services/deposits';

const tags = ['Operator'];

export const depositRoutes = [
  defineRoute(
    {
      method: 'post',
      path: '/deposits',
      operationId: 'adminCreateDeposit',
      auth: 'operator',
      summary: 'Record a confirmed TRC-20 deposit and credit available (idempotent by tx_hash)',
      description: 'Stands in for the chain watcher. A repeat with the same tx_hash answers the first deposit with 200.',
      tags,
      body: depositBody,
      status: 201,
      replies: { 200: 'a repeat with the same tx_hash (same merchant and amount): the first deposit, nothing credited again' },
      response: depositResponse,
      errors: [404, 409],
      audit: { action: 'deposit.record', objectType: 'deposit', by: 'service' },
    },
    async ({ body, actor }, deps) => {
      const { deposit, created } = await recordMerchantDeposit(deps, body.merchant_id, body.amount, body.tx_hash, actor);
      return created ? { deposit } : new Reply(200, { deposit });
    },
  ),
];
