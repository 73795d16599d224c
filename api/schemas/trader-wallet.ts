/** The trader's money: its wallet, deposit address, deposits, movements, deals' money, withdrawals; the operator's settings. */
import { z } from 'zod';
import { int64Body, int64String, timestamp } from './common';
import { tronAddress } from './wallet';

const OUT_OF_POOL_REASONS = ['TRADER_NOT_ACTIVE', 'SECURITY_DEPOSIT_NOT_HELD', 'BELOW_MIN_WORKING_BALANCE'] as const;

const traderWalletSchema = z
  .object({
    trader_id: z.string().uuid(),
    currency: z.literal('USDT'),
    available: int64String.openapi({ description: 'USDT cents the trader may lock for PayIns or withdraw' }),
    frozen: int64String.openapi({ description: 'escrow + security_deposit.held + withdrawals_held' }),
    escrow: int64String.openapi({ description: 'the escrow of the live PayIns the trader holds' }),
    withdrawals_held: int64String.openapi({ description: "the amounts of the trader's withdrawals still in progress" }),
    security_deposit: z.object({
      required: int64String.openapi({ description: 'what the operator asks the trader to keep held (0: none)' }),
      held: int64String.openapi({ description: 'what is held (frozen) now; below required, the trader is out of the pool' }),
      released_at: z.string().openapi({ description: 'when an operator released it (the trader stopped); empty while it is held' }),
    }),
    min_working_balance: int64String.openapi({ description: 'below this available balance the trader gets no new PayIns or PayOuts (0: none)' }),
    in_pool: z.boolean().openapi({ description: "whether the trader's money lets the matcher give it deals" }),
    out_of_pool_reasons: z.array(z.enum(OUT_OF_POOL_REASONS)).openapi({
      description: 'why not (empty when in_pool): TRADER_NOT_ACTIVE, SECURITY_DEPOSIT_NOT_HELD (held below required, or released), BELOW_MIN_WORKING_BALANCE',
    }),
  })
  .openapi('TraderWallet', {
    description: 'USDT cents as int64 strings.',
    example: {
      trader_id: '30000000-0000-4000-8000-000000000001',
      currency: 'USDT',
      available: '250000',
      frozen: '120000',
      escrow: '20000',
      withdrawals_held: '0',
      security_deposit: { required: '100000', held: '100000', released_at: '' },
      min_working_balance: '50000',
      in_pool: true,
      out_of_pool_reasons: [],
    },
  });

export const traderWalletResponse = z.object({ wallet: traderWalletSchema }).openapi('TraderWalletResponse');

export const traderDepositAddressSchema = z
  .object({
    address: tronAddress,
    currency: z.literal('USDT'),
    network: z.literal('TRC20'),
    created_at: timestamp,
  })
  .openapi('TraderDepositAddress', { description: "The trader's TRC-20 USDT deposit address: one per trader, for good." });

const traderMovementSchema = z
  .object({
    transaction_id: z.string().uuid(),
    kind: z.string().openapi({
      description:
        'the ledger posting: trader_deposit (an operator top-up), deposit (a chain deposit), escrow_lock, escrow_release, payin_complete, payout_complete, withdrawal_hold, withdrawal_release, withdrawal_complete, security_hold, security_release',
    }),
    ref_type: z.string().openapi({ description: 'what it is about: deal, deposit, withdrawal, trader (security deposit), wallet (top-up)' }),
    ref_id: z.string(),
    available_change: int64String,
    frozen_change: int64String,
    deal_type: z.string().openapi({ description: "the deal's type when ref_type is deal; empty otherwise" }),
    at: timestamp,
  })
  .openapi('TraderMovement');
export const traderMovementList = z
  .object({ data: z.array(traderMovementSchema), next_page_token: z.string() })
  .openapi('TraderMovementList', { description: 'Newest first. An empty next_page_token means the last page.' });

const traderDealMoneySchema = z
  .object({
    deal_id: z.string().uuid(),
    deal_type: z.enum(['PAYIN', 'PAYOUT']),
    status: z.string(),
    amount: int64String.openapi({ description: 'the fiat amount in minor units of currency' }),
    currency: z.string(),
    fiat_change: int64String.openapi({ description: 'the fiat the trader got (PayIn: +amount from the payer) or sent (PayOut: −amount), off the gateway' }),
    usdt_change: int64String.openapi({
      description: "the deal's net effect on the trader's USDT so far (PayIn completed: −escrow; PayOut completed: +amount_usdt)",
    }),
    usdt_frozen: int64String.openapi({ description: 'of it, what is still frozen (a live PayIn’s escrow)' }),
    reward_usdt: int64String.openapi({
      description: "the gateway's reward to the trader for the deal: the fee model has none (always 0); the trader's margin is its rate",
    }),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .openapi('TraderDealMoney');
export const traderDealMoneyList = z
  .object({ data: z.array(traderDealMoneySchema), next_page_token: z.string() })
  .openapi('TraderDealMoneyList', { description: 'The deals that moved the trader’s USDT, newest first.' });

export const traderWithdrawBody = z
  .object({
    address: tronAddress.openapi({ description: 'mainnet TRON address' }),
    amount: int64Body('amount')
      .refine((v) => v > 0n, { message: 'amount must be greater than 0', params: { code: 'too_small' } })
      .openapi({ type: 'integer', format: 'int64', description: 'USDT cents, including the fee' }),
    idempotency_key: z.string().max(200).optional().openapi({ description: 'echoed; the server derives the key from (trader, address, amount, current fee)' }),
  })
  .strict()
  .openapi('TraderWithdrawRequest');

const nonNegative = (field: string) =>
  int64Body(field)
    .refine((v) => v >= 0n, { message: `${field} must not be negative`, params: { code: 'too_small' } })
    .refine((v) => v <= 10n ** 15n, { message: `${field} is at most 1000000000000000 USDT cents`, params: { code: 'too_big' } })
    .openapi({ type: 'integer', format: 'int64', minimum: 0 });
export const traderMoneySettingsBody = z
  .object({
    security_deposit: nonNegative('security_deposit').optional().openapi({ description: 'USDT cents the trader keeps held while it works (0: none)' }),
    min_working_balance: nonNegative('min_working_balance')
      .optional()
      .openapi({ description: 'USDT cents of available below which it gets no deals (0: none)' }),
  })
  .strict()
  .refine((b) => b.security_deposit !== undefined || b.min_working_balance !== undefined, {
    message: 'security_deposit or min_working_balance is required',
    params: { code: 'required' },
  })
  .openapi('TraderMoneySettings');
