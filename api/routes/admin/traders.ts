/** Traders: create, top up their USDT liquidity, add requisites. */
import { z } from 'zod';
import { defineRoute, Reply } from '../../route';
import { int64String, pageSize, pageToken, timestamp } from '../../schemas/common';
import {
  createRequisiteBody,
  createTraderBody,
  createTraderResponse,
  requisiteFields,
  requisiteResponse,
  traderLiquidityBody,
  traderParams,
  traderResponse,
} from '../../schemas/traders';
import { addRequisite, createTrader, fundTrader, listTradersForOperator } from '../../services/traders';
import { pendingRequisiteList, rejectRequisiteBody, requisiteIdParams, traderRequisiteResponse } from '../../schemas/trader-requisites';
import { approveRequisite, listPendingRequisites, rejectRequisite } from '../../services/trader-requisites';
import { REQUISITE_TRANSITIONS } from '../../../domain/state/requisites';
import { traderMoneySettingsBody, traderWalletResponse } from '../../schemas/trader-wallet';
import { getTraderWallet, holdTraderSecurityDeposit, releaseTraderSecurityDeposit, setTraderMoney } from '../../services/trader-money';
import { approveTrader, inviteTraderAccount } from '../../services/trader-accounts';
import { traderInvitationBody, traderInviteResponse, traderStanding } from '../../schemas/trader-accounts';
import { operatorActor } from '../../services/deal-workflows';

const tags = ['Operator'];

/** The console's reads of this aggregate keep the console's tag in the API document. */
const consoleTags = ['Operator: console'];

export const traderRoutes = [
  defineRoute(
    {
      method: 'get',
      path: '/traders',
      operationId: 'adminListTraders',
      auth: 'operator',
      summary: 'Traders, newest first, each with its USDT balance and requisites',
      tags: consoleTags,
      query: z.object({ page_size: pageSize(200, 50), page_token: pageToken }),
      response: z
        .object({
          data: z.array(
            z.object({
              trader_id: z.string(),
              name: z.string(),
              status: z.string(),
              balance_usdt: int64String,
              frozen_usdt: int64String,
              presence: z.enum(['managed', 'online', 'offline', 'paused_silent']).openapi({
                description:
                  'managed: no account, operators act for it (always present); online or offline: its own switch in the trader app; paused_silent: paused because its app fell silent (no heartbeat)',
              }),
              heartbeat_at: z.string().openapi({ description: "RFC 3339 of the trader app's last heartbeat; '' for none" }),
              created_at: timestamp,
              requisites: z.array(
                z.object({
                  requisite_id: z.string(),
                  payment_method: z.string(),
                  ...requisiteFields,
                  daily_limit: z.string(),
                  status: z.string(),
                }),
              ),
            }),
          ),
          next_page_token: z.string(),
        })
        .openapi('ConsoleTraderList'),
    },
    ({ query }, deps) => listTradersForOperator(deps, query),
  ),
  defineRoute(
    {
      method: 'post',
      path: '/traders',
      operationId: 'adminCreateTrader',
      auth: 'operator',
      summary: 'Create a trader with a USDT liquidity wallet',
      description:
        "With email the trader's own account is invited in the same transaction: the answer's account_invitation has the " +
        'invitation and its link (shown this once; the e-mail is appended to the development mailbox TRADER_MAILBOX_FILE), and the ' +
        'trader is PENDING_APPROVAL until an operator approves it (POST /traders/{trader_id}/approve). Without email an operator ' +
        'manages the trader and it is ACTIVE at once. 409 when an account has the email. Audited (trader.create, trader_account.invite).',
      tags,
      body: createTraderBody,
      status: 201,
      response: createTraderResponse,
      errors: [409],
      audit: { action: 'trader.create', objectType: 'trader', by: 'service' },
    },
    ({ body, actor }, deps) => createTrader(deps, body.name, actor, body.email),
  ),
  defineRoute(
    {
      method: 'post',
      path: '/traders/{trader_id}/invitations',
      operationId: 'adminInviteTrader',
      auth: 'operator',
      summary: "Invite an account for a trader: the trader's first (one an operator managed so far) or a new one (the old lost its access)",
      description:
        'The link is answered this once and written to the development mailbox TRADER_MAILBOX_FILE; it works once, for ' +
        'OPERATOR_INVITE_TTL_SECONDS, and a new invitation of the same email withdraws the earlier. 409 when an account has the ' +
        'email. Audited (trader_account.invite).',
      tags,
      params: traderParams,
      body: traderInvitationBody,
      status: 201,
      response: traderInviteResponse,
      errors: [404, 409],
      audit: { action: 'trader_account.invite', objectType: 'trader_invitation', by: 'service' },
    },
    ({ params, body, actor }, deps) => inviteTraderAccount(deps, params.trader_id, body.email, operatorActor(actor)),
  ),
  defineRoute(
    {
      method: 'post',
      path: '/traders/{trader_id}/approve',
      operationId: 'adminApproveTrader',
      auth: 'operator',
      summary: 'Approve an invited trader: the matcher may give it deals from now on (its requisites and presence permitting)',
      description:
        'Only once one of its accounts has accepted the invitation and set up its authenticator (400 before). Approving an ' +
        'approved trader changes nothing. Audited (trader.approve).',
      tags,
      params: traderParams,
      response: z.object({ trader: traderStanding }).openapi('TraderApproval'),
      errors: [404],
      audit: { action: 'trader.approve', objectType: 'trader', by: 'service' },
    },
    async ({ params, actor }, deps) => ({ trader: await approveTrader(deps, params.trader_id, operatorActor(actor)) }),
  ),
  defineRoute(
    {
      method: 'post',
      path: '/traders/{trader_id}/deposits',
      operationId: 'adminCreateTraderDeposit',
      auth: 'operator',
      summary: "Top up a trader's USDT liquidity (idempotent by tx_hash)",
      description:
        'tx_hash shares one namespace with merchant deposits: a chain transaction credits one wallet once. 201 for a new ' +
        'credit, 200 for a repeat with the same trader and amount, 409 for a tx_hash already credited otherwise.',
      tags,
      params: traderParams,
      body: traderLiquidityBody,
      status: 201,
      replies: { 200: 'a repeat with the same trader, amount and tx_hash: nothing credited again' },
      response: traderResponse,
      errors: [404, 409],
      audit: { action: 'trader.deposit', objectType: 'trader', by: 'service' },
    },
    async ({ params, body, actor }, deps) => {
      const { trader, created } = await fundTrader(deps, params.trader_id, body.amount, body.tx_hash, actor);
      return created ? { trader } : new Reply(200, { trader });
    },
  ),
  defineRoute(
    {
      method: 'post',
      path: '/traders/{trader_id}/requisites',
      operationId: 'adminCreateRequisite',
      auth: 'operator',
      summary: 'Add a requisite (card, phone or IBAN) to a trader',
      tags,
      params: traderParams,
      body: createRequisiteBody,
      status: 201,
      response: requisiteResponse,
      errors: [404],
      audit: { action: 'trader.requisite_add', objectType: 'requisite', by: 'service' },
    },
    async ({ params, body, actor }, deps) => ({ requisite: await addRequisite(deps, params.trader_id, body, actor) }),
  ),
  defineRoute(
    {
      method: 'get',
      path: '/traders/{trader_id}/wallet',
      operationId: 'adminGetTraderWallet',
      auth: 'operator',
      summary: "A trader's money: balances, security deposit, minimum working balance, whether it is in the matching pool and why not",
      tags,
      params: traderParams,
      response: traderWalletResponse,
      errors: [404],
    },
    async ({ params }, deps) => ({ wallet: await getTraderWallet(deps, params.trader_id) }),
  ),
  defineRoute(
    {
      method: 'patch',
      path: '/traders/{trader_id}/wallet',
      operationId: 'adminSetTraderMoney',
      auth: 'operator',
      summary: "Set a trader's security deposit and minimum working balance",
      description:
        'The security deposit is held (frozen on the trader’s USDT) at once, as far as its available balance allows; the rest is held ' +
        'from its next deposits. Until it is held in full, or while available is below min_working_balance, the matcher gives the ' +
        'trader no deal. Lowering the security deposit releases the difference. A released security deposit stays released until ' +
        'POST …/security-deposit/hold.',
      tags,
      params: traderParams,
      body: traderMoneySettingsBody,
      response: traderWalletResponse,
      errors: [404],
      audit: { action: 'trader.money_settings', objectType: 'trader', by: 'service' },
    },
    async ({ params, body, actor }, deps) => ({ wallet: await setTraderMoney(deps, params.trader_id, body, actor) }),
  ),
  defineRoute(
    {
      method: 'post',
      path: '/traders/{trader_id}/security-deposit/hold',
      operationId: 'adminHoldTraderSecurityDeposit',
      auth: 'operator',
      summary: "Hold a trader's security deposit again (back to work after a release), as far as its available balance allows",
      tags,
      params: traderParams,
      response: traderWalletResponse,
      errors: [404],
      audit: { action: 'trader.security_hold', objectType: 'trader', by: 'service' },
    },
    async ({ params, actor }, deps) => ({ wallet: await holdTraderSecurityDeposit(deps, params.trader_id, actor) }),
  ),
  defineRoute(
    {
      method: 'post',
      path: '/traders/{trader_id}/security-deposit/release',
      operationId: 'adminReleaseTraderSecurityDeposit',
      auth: 'operator',
      summary: "Release a trader's security deposit (it stops working): back to available; out of the pool until held again",
      tags,
      params: traderParams,
      response: traderWalletResponse,
      errors: [404],
      audit: { action: 'trader.security_release', objectType: 'trader', by: 'service' },
    },
    async ({ params, actor }, deps) => ({ wallet: await releaseTraderSecurityDeposit(deps, params.trader_id, actor) }),
  ),
  defineRoute(
    {
      method: 'get',
      path: '/requisites/pending',
      operationId: 'adminListPendingRequisites',
      auth: 'operator',
      summary: 'Requisites traders added or changed that wait for approval, oldest first',
      tags: consoleTags,
      response: pendingRequisiteList,
    },
    (_input, deps) => listPendingRequisites(deps),
  ),
  defineRoute(
    {
      method: 'post',
      path: '/requisites/{requisite_id}/approve',
      operationId: 'adminApproveRequisite',
      auth: 'operator',
      summary: 'Approve a requisite waiting for approval',
      description: REQUISITE_TRANSITIONS.approve.effect,
      tags,
      params: requisiteIdParams,
      response: traderRequisiteResponse,
      errors: [404],
      audit: { action: 'requisite.approve', objectType: 'requisite', by: 'service' },
    },
    async ({ params, actor }, deps) => ({ requisite: await approveRequisite(deps, params.requisite_id, operatorActor(actor)) }),
  ),
  defineRoute(
    {
      method: 'post',
      path: '/requisites/{requisite_id}/reject',
      operationId: 'adminRejectRequisite',
      auth: 'operator',
      summary: 'Reject a requisite waiting for approval, with a reason the trader reads',
      description: REQUISITE_TRANSITIONS.reject.effect,
      tags,
      params: requisiteIdParams,
      body: rejectRequisiteBody,
      response: traderRequisiteResponse,
      errors: [404],
      audit: { action: 'requisite.reject', objectType: 'requisite', by: 'service' },
    },
    async ({ params, body, actor }, deps) => ({ requisite: await rejectRequisite(deps, params.requisite_id, body.reason, operatorActor(actor)) }),
  ),
];
