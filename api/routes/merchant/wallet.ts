/** The merchant's USDT wallet: the balance, the TRC-20 deposit address and the deposits to it. */
import { defineRoute } from '../../route';
import { EXAMPLES } from '../../schemas/examples';
import { merchantOf } from '../../auth/authenticate';
import { balanceResponse, depositAddressResponse, depositListResponse, pageQuery } from '../../schemas/wallet';
import { getDepositAddress, listDeposits, merchantWallets, rotateDepositAddress } from '../../services/wallet';

const tags = ['Wallet'];

export const walletRoutes = [
  defineRoute(
    {
      method: 'get',
      path: '/balance',
      operationId: 'getBalance',
      example: EXAMPLES.getBalance,
      auth: 'cabinet_or_hmac',
      summary: 'Provisioned wallets with available, frozen, total (available + frozen) and pending_credits',
      tags: ['Balance'],
      response: balanceResponse,
    },
    async ({ identity }, deps) => {
      const wallets = await merchantWallets(deps, merchantOf(identity).merchantId);
      return {
        wallets: wallets.map((w) => ({
          wallet_id: w.id,
          currency: w.currency,
          available: w.available.toString(),
          frozen: w.frozen.toString(),
          total: (w.available + w.frozen).toString(),
          pending_credits: w.pending_credits.toString(),
        })),
      };
    },
  ),
  defineRoute(
    {
      method: 'get',
      path: '/wallet/deposit-address',
      operationId: 'getDepositAddress',
      example: EXAMPLES.getDepositAddress,
      auth: 'cabinet_or_hmac',
      summary: 'The current TRC-20 deposit address (404 until one was generated)',
      tags,
      response: depositAddressResponse,
      errors: [404],
    },
    ({ identity }, deps) => getDepositAddress(deps, merchantOf(identity).merchantId),
  ),
  defineRoute(
    {
      method: 'post',
      path: '/wallet/deposit-address',
      operationId: 'rotateDepositAddress',
      example: EXAMPLES.rotateDepositAddress,
      auth: 'cabinet_or_hmac',
      summary: 'Generate (first call) or rotate the TRC-20 deposit address',
      description:
        "Each call derives a new mainnet address at `m/44'/195'/0'/0/<next index>` and makes it current (also the profile's " +
        'trc20_address). Earlier addresses stay attributed to the merchant, so late deposits to them are still credited. ' +
        'Single-use signatures: a repeat rotates again, so an HMAC signature is accepted once on this route.',
      tags,
      singleUse: 'route',
      status: 201,
      response: depositAddressResponse,
    },
    ({ identity }, deps) => rotateDepositAddress(deps, merchantOf(identity).merchantId),
  ),
  defineRoute(
    {
      method: 'get',
      path: '/wallet/deposits',
      operationId: 'listDeposits',
      example: EXAMPLES.listDeposits,
      auth: 'hmac',
      summary: 'TRC-20 deposits, newest first, keyset-paginated (PENDING: seen, not credited; CONFIRMED: credited)',
      tags,
      query: pageQuery,
      response: depositListResponse,
    },
    ({ identity, query }, deps) => listDeposits(deps, merchantOf(identity).merchantId, query),
  ),
];
