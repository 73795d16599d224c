import { defineRoute } from '../route';
import { merchantOf } from '../auth/authenticate';
import {
  depositAddressResponse,
  depositListResponse,
  feeQuery,
  feeQuoteResponse,
  pageQuery,
  withdrawalListQuery,
  withdrawalListResponse,
  withdrawalParams,
  withdrawalSchema,
  withdrawBody,
} from '../schemas/wallet';
import { getDepositAddress, listDeposits, rotateDepositAddress } from '../services/wallet';
import { createWithdrawal, getMerchantWithdrawal, listMerchantWithdrawals, quoteWithdrawal } from '../services/withdrawals';
import { presentWithdrawal } from '../../domain/withdrawal-info';

const WALLET = '/api/v1/p2p/merchant/wallet';
const tags = ['Wallet'];

export const walletRoutes = [
  defineRoute(
    {
      method: 'get',
      path: `${WALLET}/deposit-address`,
      auth: 'hmac',
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
      path: `${WALLET}/deposit-address`,
      auth: 'hmac',
      summary: 'Generate (first call) or rotate the TRC-20 deposit address',
      description:
        "Each call derives a new mainnet address at m/44'/195'/0'/0/<next index> and makes it current (also the profile's " +
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
      path: `${WALLET}/deposits`,
      auth: 'hmac',
      summary: 'TRC-20 deposits, newest first, keyset-paginated (PENDING: seen, not credited; CONFIRMED: credited)',
      tags,
      query: pageQuery,
      response: depositListResponse,
    },
    ({ identity, query }, deps) => listDeposits(deps, merchantOf(identity).merchantId, query),
  ),
  defineRoute(
    {
      method: 'get',
      path: `${WALLET}/withdraw-fee`,
      auth: 'hmac',
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
      path: `${WALLET}/withdraw`,
      auth: 'hmac',
      summary: 'Withdraw USDT to a TRON address: COMPLETED (auto-processed) or PENDING_MANUAL (operator queue)',
      description:
        'The amount (fee included) moves available → frozen at once. Amounts up to auto_withdrawal_effective_limit_usdt_cents are ' +
        'broadcast at once and answer COMPLETED with tx_hash (or PENDING if the chain has not answered within WITHDRAWAL_SYNC_WAIT_SECONDS); ' +
        'others answer PENDING_MANUAL. Server-side idempotency: an identical request (same address, amount and current fee) returns the same ' +
        'withdrawal while it is live or within WITHDRAWAL_IDEMPOTENCY_WINDOW_SECONDS of a completed one. An invalid address is 400 ' +
        'INVALID_ARGUMENT; amount above available or not above the fee is 400 FAILED_PRECONDITION.',
      tags,
      body: withdrawBody,
      response: withdrawalSchema,
    },
    async ({ identity, body }, deps) => presentWithdrawal(await createWithdrawal(deps, merchantOf(identity).merchantId, body)),
  ),
  defineRoute(
    {
      method: 'get',
      path: `${WALLET}/withdrawals`,
      auth: 'hmac',
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
      path: `${WALLET}/withdrawals/{withdrawal_id}`,
      auth: 'hmac',
      summary: 'One withdrawal of the caller (foreign or unknown ids are 404) — addition to spec 4.2',
      tags,
      params: withdrawalParams,
      response: withdrawalSchema,
      errors: [404],
    },
    async ({ identity, params }, deps) => presentWithdrawal(await getMerchantWithdrawal(deps, merchantOf(identity).merchantId, params.withdrawal_id)),
  ),
];
