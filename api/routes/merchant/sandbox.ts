/** Sandbox merchants (docs/sandbox.md): time without waiting, and play money. Signed like every call; sandbox merchants only. */
import { z } from 'zod';
import { defineRoute, Reply } from '../../route';
import { merchantOf } from '../../auth/authenticate';
import { creditAmount, line } from '../../schemas/common';
import { dealParams, dealSchema } from '../../schemas/deals';
import { depositResponse } from '../../schemas/wallet';
import { advanceSandboxDeal, sandboxDeposit } from '../../services/sandbox';
import { present } from '../../services/payins';
import { sandboxTableMarkdown } from '../../../domain/sandbox';

const tags = ['Sandbox'];

const SANDBOX_DESCRIPTION =
  "A sandbox merchant's deals go to the built-in sandbox trader, which acts after a few seconds as the last two digits of " +
  'the amount in minor units say:\n\n' +
  sandboxTableMarkdown() +
  '\n\nAny other ending: the trader does nothing. Withdrawals complete on the sandbox chain; an amount ending in 05 fails on ' +
  'chain and is refunded. Appeals whose reason says `winning_evidence` (resolved SATISFIED), `losing_evidence` (REJECTED) or ' +
  '`closing_evidence` (closed; an appeal on a terminal deal) are taken into review, written to and decided by the sandbox ' +
  'arbiter within seconds; a merchant message saying `reopen_please` on a CLOSED sandbox appeal has it reopened first; ' +
  'anything else waits for a human. A sandbox deposit is announced with p2p.finance.deposit_confirmed. Deals, webhook envelopes and the profile of a ' +
  'sandbox merchant carry `sandbox: true`. A live merchant gets 403 on these routes and its amounts mean nothing.';

const advanceResponse = z
  .object({
    deal: dealSchema,
    timer: z.enum(['payment_timeout', 'fee_distribution', 'assign_sla', 'transfer_sla', 'processing_alert']).openapi({
      description:
        'the timer that fired: a PayIn’s payment timeout (→ EXPIRED) or fee distribution; a PayOut’s assignment SLA (UNASSIGNED → EXPIRED), transfer SLA (MATCHED → EXPIRED) or processing alert',
    }),
  })
  .openapi('SandboxAdvanceResponse');

const sandboxDepositBody = z
  .object({
    amount: creditAmount('amount'),
    idempotency_key: line('idempotency_key', 255)
      .optional()
      .openapi({ description: 'a repeat with the same key answers the first deposit (200); absent: every call credits' }),
  })
  .openapi('SandboxDepositRequest');

export const sandboxRoutes = [
  defineRoute(
    {
      method: 'post',
      path: '/sandbox/deals/{deal_id}/advance',
      operationId: 'sandboxAdvanceDeal',
      auth: 'hmac',
      summary: "Sandbox: fire the deal's next timer now (payment timeout, SLA, fee distribution)",
      description:
        "The deal's workflow stops waiting and does what the timer's end does — a PayIn expires (deal.expired), a PayOut " +
        'waiting for a trader or for the transfer expires, the fee is distributed — then answers with the deal as it is. ' +
        'No timer running (a terminal or APPEALED deal): 400 FAILED_PRECONDITION. A live merchant: 403.\n\n' +
        SANDBOX_DESCRIPTION,
      tags,
      params: dealParams,
      response: advanceResponse,
      errors: [403, 404],
      example: {
        response: {
          deal: {
            deal_id: '5b0c7a52-3d1e-5f4a-9b8c-2e6d1f0a7c43',
            status: 'EXPIRED',
            amount: '150033',
            currency: 'RUB',
            created_at: '2026-11-25T10:00:00.000Z',
            client_id: 'payer-1',
            deal_type: 'PAYIN',
            updated_at: '2026-11-25T10:00:02.000Z',
            payment_url: `https://pay.example/pay/${'a'.repeat(64)}`,
            target_requisite: '',
            received_amount: '0',
            amount_match_status: '',
            sandbox: true,
          },
          timer: 'payment_timeout',
        },
      },
    },
    async ({ identity, params }, deps) => {
      const { row, timer } = await advanceSandboxDeal(deps, merchantOf(identity).merchantId, params.deal_id);
      return { deal: present(deps, row), timer };
    },
  ),
  defineRoute(
    {
      method: 'post',
      path: '/sandbox/deposits',
      operationId: 'sandboxDeposit',
      auth: 'cabinet_or_hmac',
      summary: "Sandbox: credit play USDT to the wallet (the deposit path, from the merchant's play-money account)",
      description:
        "Credits `amount` USDT cents to the sandbox merchant's available balance through the same deposit path a confirmed " +
        'chain deposit takes (a deposit row, listed by GET /wallet/deposits), announced with the webhook ' +
        'p2p.finance.deposit_confirmed as a chain deposit is. 201 new; 200 a repeat with the same idempotency_key. ' +
        'A live merchant (also one switched to live while the deposit ran): 403, nothing credited. Play deposits are capped per ' +
        'merchant, per UTC day and in all (10,000,000 and 100,000,000 USDT by default): a deposit past a cap is ' +
        '400 FAILED_PRECONDITION `sandbox deposit limit exceeded: …`, nothing credited.',
      tags,
      body: sandboxDepositBody,
      status: 201,
      replies: { 200: 'a repeat with the same idempotency_key: the first deposit, nothing credited again' },
      response: depositResponse,
      errors: [403, 409],
      example: {
        request: { amount: 1000000, idempotency_key: 'top-up-1' },
        response: {
          deposit: {
            deposit_id: '0e7d1f3a-4b2c-4d5e-8f6a-7b8c9d0e1f2a',
            merchant_id: '6a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d',
            wallet_id: '7b2c3d4e-5f6a-4b7c-9d8e-0f1a2b3c4d5e',
            amount: '1000000',
            currency: 'USDT',
            tx_hash: 'b'.repeat(64),
            status: 'CONFIRMED',
            created_at: '2026-11-25T10:00:00.000Z',
          },
        },
      },
    },
    async ({ identity, body }, deps) => {
      const { deposit, created } = await sandboxDeposit(deps, merchantOf(identity).merchantId, body.amount, body.idempotency_key ?? crypto.randomUUID());
      return created ? { deposit } : new Reply(200, { deposit });
    },
  ),
];
