import { z } from 'zod';
import { accessAndLimitFields } from './profile';
import { httpUrl, int64Body, int64String, lineRule, timestamp, uuid } from './common';
import type { MerchantProfileRow } from '../../db/queries/merchants';
import { USDT_UNITS_PER_CENT } from '../../domain/tron/transaction';

export const merchantSchema = z
  .object({
    id: z.string().uuid(),
    name: z.string(),
    email: z.string(),
    status: z.string(),
    kill_switch: z.boolean(),
    kill_switch_reason: z.string(),
    balance_usdt: int64String,
    escrow_usdt: int64String,
    trc20_address: z.string(),
    trc20_usdt_balance: int64String.openapi({
      description: 'USDT on the deposit address (trc20_address) as last read from the chain, in cents (whole cents); "0" until read',
    }),
    trc20_trx_balance: int64String.openapi({
      description: 'TRX on the deposit address as last read from the chain, in sun (1 TRX = 1 000 000 sun); "0" until read',
    }),
    trc20_balances_at: z.string().openapi({
      description:
        'addition: RFC 3339 time the two trc20_*_balance values were read from the chain (their age); empty when never read (e.g. the embedded simulated chain)',
    }),
    project_url: z.string(),
    checkout_brand_name: z.string(),
    success_redirect_url: z.string(),
    fail_redirect_url: z.string(),
    finance_chat_id: z.string(),
    appeal_chat_id: z.string(),
    ip_whitelist: z.array(z.string()),
    api_token: z.string(),
    withdrawal_address: z.string(),
    moderation_status: z.string(),
    api_version: z.enum(['v1', 'v2']),
    webhook_url: z.string(),
    signature_binding: z.enum(['optional', 'required']).openapi({
      description:
        "Set by an operator. 'required': every HMAC request must carry a valid request-bound v2 signature " +
        '(`X-Signature: t=…,v1=…,v2=<hex HMAC-SHA256(secret, "<t>.<METHOD>.<path and query>.<raw body>")>`); \'optional\' (default): v2 is checked when sent ' +
        '(docs/signing.md).',
    }),
    sandbox: z.boolean().openapi({
      description:
        'addition: true for a sandbox merchant — its deals go to the built-in sandbox trader, driven by the amount ' +
        '(see the Sandbox tag), its USDT is play money; set by an operator',
    }),
    created_at: timestamp,
    updated_at: timestamp,
    deal_min_amount: int64String.optional(),
    deal_max_amount: int64String.optional(),
    daily_deal_amount_limit: int64String.optional(),
  })
  .openapi('Merchant');

export const myMerchantResponse = z
  .object({
    merchant: merchantSchema,
    auto_withdrawal_mode: z.enum(['AUTO_UP_TO_LIMIT', 'MANUAL_ONLY']),
    auto_withdrawal_effective_limit_usdt_cents: int64String,
  })
  .openapi('MyMerchant');

export function presentMerchant(row: MerchantProfileRow): z.infer<typeof merchantSchema> {
  return {
    id: row.id,
    name: row.name,
    email: row.email,
    status: row.status,
    kill_switch: row.disabled_at !== null,
    kill_switch_reason: row.disabled_at ? row.kill_switch_reason : '',
    balance_usdt: row.usdt_available.toString(),
    escrow_usdt: row.usdt_frozen.toString(),
    trc20_address: row.trc20_address,
    trc20_usdt_balance: ((row.chain_usdt_units ?? 0n) / USDT_UNITS_PER_CENT).toString(),
    trc20_trx_balance: (row.chain_trx_sun ?? 0n).toString(),
    trc20_balances_at: row.chain_balances_at?.toISOString() ?? '',
    project_url: row.project_url,
    checkout_brand_name: row.checkout_brand_name,
    success_redirect_url: row.success_redirect_url,
    fail_redirect_url: row.fail_redirect_url,
    finance_chat_id: row.finance_chat_id,
    appeal_chat_id: row.appeal_chat_id,
    ip_whitelist: row.ip_whitelist,
    api_token: row.api_token ?? '',
    withdrawal_address: row.withdrawal_address,
    moderation_status: row.moderation_status,
    api_version: row.api_version,
    webhook_url: row.webhook_url,
    signature_binding: row.signature_binding,
    sandbox: row.sandbox,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    ...(row.deal_min_amount !== null ? { deal_min_amount: row.deal_min_amount.toString() } : {}),
    ...(row.deal_max_amount !== null ? { deal_max_amount: row.deal_max_amount.toString() } : {}),
    ...(row.daily_deal_amount_limit !== null ? { daily_deal_amount_limit: row.daily_deal_amount_limit.toString() } : {}),
  };
}

export function presentMyMerchant(row: MerchantProfileRow): z.infer<typeof myMerchantResponse> {
  const mode = row.auto_withdrawal_mode === 'AUTO_UP_TO_LIMIT' ? 'AUTO_UP_TO_LIMIT' : 'MANUAL_ONLY';
  return {
    merchant: presentMerchant(row),
    auto_withdrawal_mode: mode,
    auto_withdrawal_effective_limit_usdt_cents: (mode === 'AUTO_UP_TO_LIMIT' ? row.auto_withdrawal_limit_usdt_cents : 0n).toString(),
  };
}

export const createMerchantBody = z
  .object({
    name: z.string({ error: 'name is required' }).trim().min(1, 'name is required').max(200).superRefine(lineRule('name')),
    email: z.string({ error: 'email is required' }).email('email must be an email address'),
    webhook_url: httpUrl('webhook_url').optional(),
    api_version: z.enum(['v1', 'v2']).optional(),
    rate_limit_per_minute: z.number().int().min(1).max(1_000_000).optional(),
    payin_fee_bps: z.number().int().min(0).max(10_000).optional(),
    payout_fee_bps: z.number().int().min(0).max(10_000).optional(),
    sandbox: z.boolean().optional().openapi({ description: 'addition: a sandbox merchant (see the Sandbox tag); default false' }),
    owner_email: z.string().trim().toLowerCase().email('owner_email must be an email address').max(254).optional().openapi({
      description:
        "addition: the email of the merchant's first owner, invited to the cabinet in the same transaction (the answer's owner_invitation carries its link, shown once; the owner signs in at /cabinet)",
    }),
  })
  .openapi('CreateMerchantRequest');

export const merchantIdBody = z.object({ merchant_id: uuid('merchant_id') }).openapi('IssueKeysRequest');

export const keyPairResponse = z
  .object({
    token: z.string().openapi({ description: 'public token, 64 hex characters' }),
    secret: z.string().openapi({ description: 'signing secret, whsec_ prefix; shown once' }),
  })
  .openapi('KeyPair');

export const killSwitchResponse = z
  .object({
    merchant_id: z.string().uuid(),
    disabled: z.boolean(),
    disabled_at: timestamp.nullable().openapi({ description: 'set when the switch went on; null when it is off (clearing the switch nulls it)' }),
  })
  .openapi('KillSwitchResult', { description: 'disabled_at is an RFC 3339 time while disabled, null when the switch is off' });

export const disableBody = z.object({ reason: z.string().max(500).optional() }).openapi('DisableMerchantRequest');

export const merchantSettingsBody = z
  .object({
    auto_withdrawal_mode: z.enum(['AUTO_UP_TO_LIMIT', 'MANUAL_ONLY']).optional(),
    auto_withdrawal_limit_usdt_cents: int64Body('auto_withdrawal_limit_usdt_cents')
      .refine((v) => v >= 0n, { message: 'auto_withdrawal_limit_usdt_cents must not be negative', params: { code: 'too_small' } })
      .optional()
      .openapi({ type: 'integer', format: 'int64', description: 'USDT cents, ≥ 0' }),
    rate_limit_per_minute: z.number().int().min(1).max(1_000_000).nullable().optional(),
    payin_fee_bps: z.number().int().min(0).max(10_000).optional(),
    payout_fee_bps: z.number().int().min(0).max(10_000).optional(),
    webhook_max_retries: z.number().int().min(1).max(20).optional(),
    signature_binding: z
      .enum(['optional', 'required'], { error: "signature_binding must be 'optional' or 'required'" })
      .optional()
      .openapi({ description: "'required': the merchant's HMAC requests must carry a valid request-bound v2 signature (401 otherwise)" }),
    // What the merchant also sets in its cabinet, by the same rules (PATCH my-merchant).
    ...accessAndLimitFields,
    sandbox: z.boolean().optional().openapi({
      description: 'addition: make the merchant a sandbox (or live) merchant; 400 FAILED_PRECONDITION once it has deals, withdrawals or balance history',
    }),
  })
  .strict()
  .openapi('PatchMerchantSettingsRequest', {
    description:
      'Operator settings; send only what changes. ip_whitelist and the deal limits are those the merchant also sets in its ' +
      'cabinet (PATCH my-merchant), by the same rules: limits absent = unchanged, 0 = removed, > 0 = set; ip_whitelist a JSON ' +
      'array of addresses (in a string, or plain), [] = any address.',
  });
