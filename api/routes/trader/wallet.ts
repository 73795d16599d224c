/**
 * The trader's money in the trader app: its wallet (balances, security deposit, minimum working
 * balance, in the pool or why not), its TRC-20 deposit address and deposits, its wallet's
 * movements and each deal's money, and withdrawals of its available USDT (operator approval).
 */
import { defineRoute, IDEMPOTENT_REPLAYED_HEADER, markReplayed } from '../../route';
import { traderOf } from '../../auth/authenticate';
import { depositListResponse, pageQuery } from '../../schemas/wallet';
import { feeQuery, feeQuoteResponse, withdrawalListResponse, withdrawalParams, withdrawalSchema } from '../../schemas/withdrawals';
import { traderDealMoneyList, traderDepositAddressSchema, traderMovementList, traderWalletResponse, traderWithdrawBody } from '../../schemas/trader-wallet';
import { getTraderDepositAddress, getTraderWallet, listTraderDepositsPage, listTraderEarningsPage, listTraderMovementsPage } from '../../services/trader-money';
import { createTraderWithdrawal, getTraderWithdrawal, listTraderWithdrawals, quoteWithdrawal } from '../../services/withdrawals';
import { presentWithdrawal } from '../../../domain/records/withdrawal-info';

const tags = ['Trader: wallet'];

export const traderWalletRoutes = [
  defineRoute(
    {
      method: 'get',
      path: '/wallet',
      operationId: 'traderGetWallet',
      auth: 'trader',
      summary: 'My USDT: available, frozen (escrow, security deposit, withdrawals), the minimum working balance, and whether I get deals (and why not)',
      tags,
      response: traderWalletResponse,
    },
    async ({ identity }, deps) => ({ wallet: await getTraderWallet(deps, traderOf(identity).traderId) }),
  ),
  defineRoute(
    {
      method: 'get',
      path: '/wallet/deposit-address',
      operationId: 'traderGetDepositAddress',
      auth: 'trader',
      summary: 'My TRC-20 USDT deposit address (made at the first request, then always the same)',
      description:
        'USDT (TRC-20) sent to it is credited to available once the transfer is final on chain (GET /wallet/deposits shows it PENDING ' +
        'before), and a security deposit still short is held from it first.',
      tags,
      response: traderDepositAddressSchema,
      errors: [403],
    },
    ({ identity }, deps) => getTraderDepositAddress(deps, traderOf(identity).traderId),
  ),
  defineRoute(
    {
      method: 'get',
      path: '/wallet/deposits',
      operationId: 'traderListDeposits',
      auth: 'trader',
      summary: 'My chain deposits, newest first: PENDING (seen, not final), CONFIRMED (credited once), DROPPED (gone from the chain)',
      tags,
      query: pageQuery,
      response: depositListResponse,
    },
    ({ identity, query }, deps) => listTraderDepositsPage(deps, traderOf(identity).traderId, query),
  ),
  defineRoute(
    {
      method: 'get',
      path: '/wallet/movements',
      operationId: 'traderListMovements',
      auth: 'trader',
      summary: 'Every move of my USDT, newest first: top-ups, deposits, escrow, deals, withdrawals, security deposit',
      tags,
      query: pageQuery,
      response: traderMovementList,
    },
    ({ identity, query }, deps) => listTraderMovementsPage(deps, traderOf(identity).traderId, query),
  ),
  defineRoute(
    {
      method: 'get',
      path: '/wallet/earnings',
      operationId: 'traderListEarnings',
      auth: 'trader',
      summary: 'Per deal, what it did to my USDT and my fiat, newest first',
      description:
        'The gateway pays traders no reward per deal (reward_usdt is 0): a completed PayIn takes its escrow (the trader got the fiat ' +
        'amount from the payer), a completed PayOut pays the trader amount_usdt (it sent the fiat amount). The trader earns on the ' +
        'rate: the fiat it gets or sends against the USDT it gives or gets.',
      tags,
      query: pageQuery,
      response: traderDealMoneyList,
    },
    ({ identity, query }, deps) => listTraderEarningsPage(deps, traderOf(identity).traderId, query),
  ),
  defineRoute(
    {
      method: 'get',
      path: '/withdrawals/fee',
      operationId: 'traderGetWithdrawFee',
      auth: 'trader',
      summary: 'Quote a withdrawal: fee and net for an amount in USDT cents (the merchants’ fee rule)',
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
      path: '/withdrawals',
      operationId: 'traderCreateWithdrawal',
      auth: 'trader',
      summary: 'Withdraw available USDT to a TRON address: PENDING_MANUAL until an operator approves it (two operators above the four-eyes amount)',
      description:
        'The amount (fee included) moves available → frozen at once; the security deposit and the escrow are not available. An ' +
        'identical request (same address, amount and current fee) answers the same withdrawal while it is live (Idempotent-Replayed: ' +
        'true). An amount above available or not above the fee is 400 FAILED_PRECONDITION. Below the minimum working balance the ' +
        'trader gets no deals until it is covered again.',
      tags,
      body: traderWithdrawBody,
      response: withdrawalSchema,
      responseHeaders: IDEMPOTENT_REPLAYED_HEADER,
      errors: [403],
    },
    async ({ identity, body }, deps, ctx) => {
      const { row, replayed } = await createTraderWithdrawal(deps, traderOf(identity).traderId, body);
      markReplayed(ctx, replayed);
      return presentWithdrawal(row);
    },
  ),
  defineRoute(
    {
      method: 'get',
      path: '/withdrawals',
      operationId: 'traderListWithdrawals',
      auth: 'trader',
      summary: 'My withdrawals, newest first',
      tags,
      query: pageQuery,
      response: withdrawalListResponse,
    },
    ({ identity, query }, deps) => listTraderWithdrawals(deps, traderOf(identity).traderId, query),
  ),
  defineRoute(
    {
      method: 'get',
      path: '/withdrawals/{withdrawal_id}',
      operationId: 'traderGetWithdrawal',
      auth: 'trader',
      summary: 'One of my withdrawals (another’s is 404)',
      tags,
      params: withdrawalParams,
      response: withdrawalSchema,
      errors: [404],
    },
    async ({ identity, params }, deps) => presentWithdrawal(await getTraderWithdrawal(deps, traderOf(identity).traderId, params.withdrawal_id)),
  ),
];
