/** The merchant's USDT wallet: the balance, TRON addresses, deposits (as listed and as an operator records them). */
import { z } from 'zod';
import { creditAmount, int64String, openEnum, pageSize, timestamp, txHash, uuid } from './common';
import { describeTronAddressProblem, tronAddressProblem } from '../../domain/tron/address';

/** A mainnet TRON Base58Check address ('T' + 33 base58 characters, version 0x41, valid checksum). */
export const tronAddress = z
  .string({ error: 'address is required' })
  .superRefine((value, ctx) => {
    const problem = tronAddressProblem(value);
    if (problem) ctx.addIssue({ code: 'custom', message: describeTronAddressProblem(problem), params: { code: 'invalid_address', problem } });
  })
  .openapi({ type: 'string', pattern: '^T[1-9A-HJ-NP-Za-km-z]{33}$', example: 'TJRyWwFs9wTFGZg3JbrVriFbNfCug5tDeC' });
export const pageQuery = z.object({
  page_size: pageSize(250, 50),
  page_token: z.string().optional().openapi({ description: 'opaque cursor from next_page_token' }),
});
export const depositAddressResponse = z
  .object({ address: z.string().openapi({ example: 'TJRyWwFs9wTFGZg3JbrVriFbNfCug5tDeC' }), updated_at: timestamp })
  .openapi('DepositAddress', { description: 'The current TRC-20 deposit address; updated_at is when it became current.' });
export const depositSchema = z
  .object({
    deposit_id: z.string().uuid(),
    status: openEnum(
      ['PENDING', 'CONFIRMED', 'DROPPED'],
      'PENDING: seen on chain, not final, not credited. CONFIRMED: credited to available. DROPPED: gone from the chain before it was final, never credited.',
      'as not credited (yet)',
    ),
    currency: z.literal('USDT'),
    amount: int64String.openapi({ description: 'USDT cents' }),
    tx_hash: z.string(),
    address: z.string().openapi({ description: 'receiving address; empty for deposits recorded by an operator' }),
    confirmations: z.number().int(),
    created_at: timestamp,
    confirmed_at: z.string().openapi({ description: 'RFC 3339 when credited; empty while PENDING' }),
    sandbox: z.literal(true).optional().openapi({
      description: "addition: true on a sandbox merchant's deposits (see the Sandbox tag); absent on a live merchant's",
    }),
  })
  .openapi('Deposit', { description: "A sandbox merchant's deposits carry sandbox: true." });
export const depositListResponse = z
  .object({ data: z.array(depositSchema), next_page_token: z.string() })
  .openapi('DepositList', { description: 'Newest first. An empty next_page_token means the last page.' });

export const balanceResponse = z
  .object({
    wallets: z.array(
      z.object({
        wallet_id: z.string().uuid(),
        currency: z.string(),
        available: int64String,
        frozen: int64String,
        total: int64String.openapi({ description: 'available + frozen' }),
        pending_credits: int64String,
      }),
    ),
  })
  .openapi('Balance');

export const depositBody = z
  .object({
    merchant_id: uuid('merchant_id'),
    amount: creditAmount('amount'),
    tx_hash: txHash('tx_hash'),
  })
  .openapi('CreateDepositRequest');
export const depositResponse = z
  .object({
    deposit: z.object({
      deposit_id: z.string().uuid(),
      merchant_id: z.string().uuid(),
      wallet_id: z.string().uuid(),
      amount: int64String,
      currency: z.literal('USDT'),
      tx_hash: z.string(),
      status: z.string(),
      created_at: timestamp,
      sandbox: z.literal(true).optional().openapi({
        description: "addition: true on a sandbox merchant's deposits (see the Sandbox tag); absent on a live merchant's",
      }),
    }),
  })
  .openapi('DepositResponse');
