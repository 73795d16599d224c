import { z } from 'zod';
import { defineRoute, Reply } from '../route';
import { emptyObject, uuid } from '../schemas/common';
import {
  createMerchantBody,
  depositBody,
  depositResponse,
  disableBody,
  killSwitchResponse,
  merchantSchema,
  presentMerchant,
} from '../schemas/merchant';
import {
  createRequisiteBody,
  createTraderBody,
  rateBody,
  rateParams,
  rateResponse,
  requisiteResponse,
  traderLiquidityBody,
  traderParams,
  alertsResponse,
  traderResponse,
} from '../schemas/operator';
import { createMerchant, setKillSwitch, toggleKillSwitch } from '../services/merchants';
import { addRequisite, createTrader, fundTrader, listAlerts, recordMerchantDeposit, setRate } from '../services/operator';

const ADMIN = '/api/v1/p2p/admin';
const merchantParams = z.object({ merchant_id: uuid('merchant_id') });
const tags = ['Operator'];

const killSwitch = (path: string, summary: string) =>
  defineRoute(
    { method: 'post', path, auth: 'operator', summary, tags, params: merchantParams, response: killSwitchResponse, errors: [404] },
    ({ params }, deps) => toggleKillSwitch(deps, params.merchant_id),
  );

export const operatorRoutes = [
  defineRoute(
    {
      method: 'post',
      path: `${ADMIN}/merchants`,
      auth: 'operator',
      summary: 'Create a merchant with a provisioned USDT wallet (contract 3)',
      tags,
      body: createMerchantBody,
      status: 201,
      response: z.object({ merchant: merchantSchema }),
    },
    async ({ body }, deps) => {
      const row = await createMerchant(deps, {
        name: body.name,
        email: body.email,
        webhook_url: body.webhook_url ?? '',
        api_version: body.api_version ?? 'v2',
        rate_limit_per_minute: body.rate_limit_per_minute ?? null,
        payin_fee_bps: body.payin_fee_bps ?? 0,
        payout_fee_bps: body.payout_fee_bps ?? 0,
      });
      return { merchant: presentMerchant(row) };
    },
  ),
  killSwitch('/api/v1/p2p/merchants/{merchant_id}/kill-switch', 'Toggle the kill-switch of a merchant'),
  killSwitch(`${ADMIN}/merchants/{merchant_id}/kill-switch`, 'Toggle the kill-switch of a merchant (admin alias)'),
  defineRoute(
    {
      method: 'post',
      path: '/api/v1/p2p/merchant/{merchant_id}/enable',
      auth: 'operator',
      summary: 'Clear the kill-switch (nullifies disabled_at)',
      tags,
      params: merchantParams,
      body: emptyObject.passthrough(),
      bodyOptional: true,
      response: emptyObject,
      errors: [404],
    },
    async ({ params }, deps) => {
      await setKillSwitch(deps, params.merchant_id, false);
      return {};
    },
  ),
  ...(['disable', 'activate'] as const).map((action) =>
    defineRoute(
      {
        method: 'post',
        path: `/api/v1/p2p/merchant/{merchant_id}/${action}`,
        auth: 'operator',
        summary: `Turn the kill-switch on (${action}): sets disabled_at; later merchant requests get 403`,
        description: 'Not shown by the spec; answers the kill-switch result. Optional body { reason } is shown as kill_switch_reason.',
        tags,
        params: merchantParams,
        body: disableBody,
        bodyOptional: true,
        response: killSwitchResponse,
        errors: [404],
      },
      ({ params, body }, deps) => setKillSwitch(deps, params.merchant_id, true, body?.reason ?? ''),
    ),
  ),
  defineRoute(
    {
      method: 'post',
      path: `${ADMIN}/deposits`,
      auth: 'operator',
      summary: 'Record a confirmed TRC-20 deposit and credit available (idempotent by tx_hash)',
      description: 'Stands in for the chain watcher. A repeat with the same tx_hash answers the first deposit with 200.',
      tags,
      body: depositBody,
      status: 201,
      replies: { 200: 'a repeat with the same tx_hash (same merchant and amount): the first deposit, nothing credited again' },
      response: depositResponse,
      errors: [404, 409],
    },
    async ({ body }, deps) => {
      const { deposit, created } = await recordMerchantDeposit(deps, body.merchant_id, body.amount, body.tx_hash);
      return created ? { deposit } : new Reply(200, { deposit });
    },
  ),
  defineRoute(
    {
      method: 'put',
      path: `${ADMIN}/rates/{currency}`,
      auth: 'operator',
      summary: 'Set the BUY and SELL rate of a fiat currency (micro-units of fiat per 1 USDT)',
      tags,
      params: rateParams,
      body: rateBody,
      response: rateResponse,
      errors: [404],
    },
    async ({ params, body }, deps) => ({ rate: await setRate(deps, params.currency, body.buy_rate_micro, body.sell_rate_micro) }),
  ),
  defineRoute(
    {
      method: 'post',
      path: `${ADMIN}/traders`,
      auth: 'operator',
      summary: 'Create a trader with a USDT liquidity wallet',
      tags,
      body: createTraderBody,
      status: 201,
      response: traderResponse,
    },
    async ({ body }, deps) => ({ trader: await createTrader(deps, body.name) }),
  ),
  defineRoute(
    {
      method: 'post',
      path: `${ADMIN}/traders/{trader_id}/deposits`,
      auth: 'operator',
      summary: "Top up a trader's USDT liquidity (idempotent by tx_hash) — addition to contract 3",
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
    },
    async ({ params, body }, deps) => {
      const { trader, created } = await fundTrader(deps, params.trader_id, body.amount, body.tx_hash);
      return created ? { trader } : new Reply(200, { trader });
    },
  ),
  defineRoute(
    {
      method: 'post',
      path: `${ADMIN}/traders/{trader_id}/requisites`,
      auth: 'operator',
      summary: 'Add a requisite (card, phone or IBAN) to a trader',
      tags,
      params: traderParams,
      body: createRequisiteBody,
      status: 201,
      response: requisiteResponse,
      errors: [404],
    },
    async ({ params, body }, deps) => ({ requisite: await addRequisite(deps, params.trader_id, body) }),
  ),
  defineRoute(
    {
      method: 'get',
      path: `${ADMIN}/alerts`,
      auth: 'operator',
      summary: 'Open operator alerts, newest first (e.g. a payout PROCESSING past PAYOUT_PROCESSING_ALERT_SECONDS) — addition',
      description: 'An alert closes by itself when its deal moves on (a payout completed or rejected); `include_resolved=true` lists those too.',
      tags,
      query: z.object({ include_resolved: z.enum(['true', 'false']).optional() }),
      response: alertsResponse,
    },
    async ({ query }, deps) => ({ data: await listAlerts(deps, query.include_resolved === 'true') }),
  ),
];
