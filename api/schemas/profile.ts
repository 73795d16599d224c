import { isIP } from 'node:net';
import { z } from 'zod';
import { INT64_MAX } from '../../domain/money';
import { httpUrl, line, lineRule } from './common';

/** A limit in PATCH: integer or digit string; 0 removes it, > 0 sets it. */
const limit = (field: string) =>
  z
    .union([z.number().int(), z.bigint(), z.string().regex(/^\d+$/, `${field} must be a non-negative integer or digit string`)], {
      error: `${field} must be a non-negative integer or digit string`,
    })
    .transform((v) => BigInt(v))
    .refine((v) => v >= 0n && v <= INT64_MAX, { message: `${field} must be between 0 and the int64 maximum`, params: { code: 'out_of_range' } })
    .openapi({
      anyOf: [
        { type: 'integer', format: 'int64' },
        { type: 'string', pattern: '^\\d+$' },
      ],
    });

/**
 * An absolute http(s) URL, or '' to clear it. Documented as one string (a union of two strings is
 * an anyOf Go generators refuse: ogen's "complex anyOf"), with what it takes in its description.
 */
const url = (field: string) =>
  z.union([z.literal(''), httpUrl(field)], { error: `${field} must be an absolute http or https URL` }).openapi({
    anyOf: undefined,
    type: 'string',
    maxLength: 2000,
    description: "an absolute http or https URL, or '' to clear it",
  });

/** ip_whitelist travels as a JSON array inside a string (the profile's wire form); a plain array is accepted too. */
const ipWhitelist = z
  .union([z.string(), z.array(z.string())])
  .transform((value, ctx) => {
    let list: unknown = value;
    if (typeof value === 'string') {
      try {
        list = value.trim() === '' ? [] : JSON.parse(value);
      } catch {
        ctx.addIssue({ code: 'custom', message: 'ip_whitelist must be a JSON array of IP addresses in a string', params: { code: 'invalid_format' } });
        return z.NEVER;
      }
    }
    if (!Array.isArray(list) || !list.every((ip) => typeof ip === 'string' && isIP(ip) !== 0)) {
      ctx.addIssue({ code: 'custom', message: 'ip_whitelist must list IPv4 or IPv6 addresses', params: { code: 'invalid_format' } });
      return z.NEVER;
    }
    return [...new Set(list as string[])];
  })
  .openapi({ type: 'string', example: '["203.0.113.7"]' });

/**
 * The merchant's IP whitelist and deal limits: the same rules where the merchant sets them (PATCH
 * my-merchant) and where an operator does (PATCH /admin/merchants/{id}).
 */
export const accessAndLimitFields = {
  ip_whitelist: ipWhitelist.optional(),
  deal_min_amount: limit('deal_min_amount').optional(),
  deal_max_amount: limit('deal_max_amount').optional(),
  daily_deal_amount_limit: limit('daily_deal_amount_limit').optional(),
};

export const patchProfileBody = z
  .object({
    name: z.string().trim().min(1, 'name must not be empty').max(200).superRefine(lineRule('name')).optional(),
    webhook_url: url('webhook_url').optional(),
    withdrawal_address: line('withdrawal_address', 100).optional(),
    success_redirect_url: url('success_redirect_url').optional(),
    fail_redirect_url: url('fail_redirect_url').optional(),
    checkout_brand_name: line('checkout_brand_name', 200).optional(),
    finance_chat_id: line('finance_chat_id', 200).optional(),
    appeal_chat_id: line('appeal_chat_id', 200).optional(),
    ...accessAndLimitFields,
  })
  .strict()
  .openapi('PatchMerchantRequest', {
    description:
      'Send only changed fields. Limits: absent = unchanged, 0 = removed (then absent from the profile), > 0 = set. Other fields (status, balances, fees) are refused.',
  });
