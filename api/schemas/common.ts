import { z } from 'zod';
import '../openapi';
import { FIELD_ERROR_CODES, FIELD_ERROR_MEANINGS, type FieldErrorCode } from '../../domain/errors';
import { INT64_MAX } from '../../domain/money';
import { textProblem } from '../../domain/text';
import { canonicalTxHash } from '../../domain/tron/address';
import { ID_PREFIX_MIN_DIGITS, idPrefix } from '../../domain/ids';

/** int64 in a request body: a JSON integer (kept exact as bigint by the body parser). */
export const int64Body = (field: string) =>
  z
    .union([z.number().int(), z.bigint()], { error: `${field} must be an integer` })
    .transform((v) => BigInt(v))
    .refine((v) => v >= -INT64_MAX - 1n && v <= INT64_MAX, { message: `${field} is out of the int64 range`, params: { code: 'out_of_range' } })
    .openapi({ type: 'integer', format: 'int64' });

/** A positive int64 amount in minor units. */
export const positiveAmount = (field: string) =>
  int64Body(field)
    .refine((v) => v > 0n, { message: `${field} must be greater than 0`, params: { code: 'too_small' } })
    .openapi({ type: 'integer', format: 'int64' });

/**
 * A chain credit (deposit, trader top-up): at most 10^15 USDT cents (10 trillion USDT) each, so
 * the sums the ledger keeps (wallet figures, the chain account) stay far inside int64 — an
 * int64-sized deposit would make the next sum overflow.
 */
const MAX_CREDIT_CENTS = 10n ** 15n;
export const creditAmount = (field: string) =>
  positiveAmount(field)
    .refine((v) => v <= MAX_CREDIT_CENTS, { message: `${field} is at most ${MAX_CREDIT_CENTS} USDT cents`, params: { code: 'too_big' } })
    .openapi({ type: 'integer', format: 'int64', maximum: Number(MAX_CREDIT_CENTS) });

/** int64 in a response: a digit string. */
export const int64String = z
  .string()
  .regex(/^-?\d+$/)
  .openapi({ type: 'string', format: 'int64', example: '150000' });

/**
 * A UUID in a request (path, query, body), in its canonical lower-case form: ids and UUID keys
 * compare case-insensitively everywhere (an upper-cased settlement key is the same key, an
 * upper-cased own file id is still the caller's file), because they are normalised here, once.
 */
export const uuid = (field: string) =>
  z
    .string({ error: `${field} is required` })
    .uuid(`${field} must be a UUID`)
    .transform((v) => v.toLowerCase())
    .openapi({ type: 'string', format: 'uuid' });

/**
 * An id filter of the operator's lists: a whole UUID or the start of one as the console shows it
 * (at least 4 hex digits; `domain/ids.ts` idPrefix), matched as a range of the id index.
 */
export const idOrPrefix = (field: string) =>
  z
    .string({ error: `${field} must be a string` })
    .transform((v, ctx) => {
      const match = idPrefix(v);
      if (!match) {
        ctx.addIssue({
          code: 'custom',
          message: `${field} must be a UUID or its first characters (at least ${ID_PREFIX_MIN_DIGITS} hex digits)`,
          params: { code: 'invalid_format' },
        });
        return z.NEVER;
      }
      return match;
    })
    .openapi({
      type: 'string',
      pattern: '^[0-9a-fA-F-]{4,36}$',
      description: `a UUID, or its first characters (at least ${ID_PREFIX_MIN_DIGITS} hex digits, dashes optional): every id that starts so`,
    });

/**
 * A chain transaction id (deposits, trader top-ups), canonicalised before anything is claimed:
 * 64 hex digits in lower case; capitals, surrounding spaces and a 0x prefix are the same id.
 */
export const txHash = (field: string) =>
  z
    .string({ error: `${field} is required` })
    .max(200, `${field} must be a TRON transaction id: 64 hex characters`)
    .transform((v, ctx) => {
      const canonical = canonicalTxHash(v);
      if (canonical === undefined) {
        ctx.addIssue({ code: 'custom', message: `${field} must be a TRON transaction id: 64 hex characters`, params: { code: 'invalid_format' } });
        return z.NEVER;
      }
      return canonical;
    })
    .openapi({ type: 'string', pattern: '^(0x)?[0-9a-fA-F]{64}$', description: 'TRON transaction id; stored as 64 lower-case hex characters' });

/**
 * An answer's field whose values may grow (a status, an event type, an error code): typed and
 * checked as the enum it is today, documented as an open string — today's values in
 * `x-extensible-enum` and in the description — so that a client generated from the document
 * (ogen and oapi-codegen check enums when they decode) reads a value added later instead of failing
 * on it. Never for input: a request field's values are the ones the API takes.
 */
export const openEnum = <const T extends readonly [string, ...string[]]>(values: T, description: string, unknown: string) =>
  z.enum(values).openapi({
    enum: undefined,
    type: 'string',
    'x-extensible-enum': [...values],
    description: `${description} Open: new values may be added without notice; treat an unknown one ${unknown}.`,
  });

export const timestamp = z.string().openapi({ format: 'date-time', example: '2026-11-22T10:00:00.000Z' });

/** A field error of a 400: which field, why (for people), and a stable code (for programs). */
const fieldErrorSchema = z
  .object({
    field: z.string().openapi({ description: 'the request field at fault, a dotted path (`requisite_details.iban`); `(body)` for the body as a whole' }),
    message: z.string().openapi({ description: 'for people; may change' }),
    code: openEnum(
      FIELD_ERROR_CODES,
      'Stable, for programs (domain/errors.ts FIELD_ERROR_CODES):\n' +
        Object.entries(FIELD_ERROR_MEANINGS)
          .map(([code, meaning]) => `- \`${code}\`: ${meaning}`)
          .join('\n') +
        '\n\n',
      'like `invalid_value`',
    ),
  })
  .openapi('FieldError');

export const problemSchema = z
  .object({
    type: z.string().openapi({ example: 'about:blank' }),
    title: z.string().openapi({ example: 'INVALID_ARGUMENT' }),
    status: z.number().int(),
    detail: z.string().openapi({ example: '{"code":3,"message":"idempotency_key is required","details":[]}' }),
    instance: z.string(),
    errors: z.array(fieldErrorSchema).optional(),
  })
  .openapi('Problem');

export const emptyObject = z.object({}).openapi('Empty');

/**
 * Text fields. `line` (keys, names, ids, hosts): no control characters at all; `text` (free
 * text such as descriptions, reasons, messages): tab, LF and CR allowed, no other control
 * character; both refuse ill-formed Unicode. The body parser already refuses NUL and the like
 * anywhere; these add the per-field rule and a message naming the field.
 */
export const textRule =
  (field: string, singleLine: boolean) =>
  (value: string, ctx: { addIssue: (issue: { code: 'custom'; message: string; params: { code: FieldErrorCode } }) => void }) => {
    const problem = textProblem(value, singleLine);
    if (problem) ctx.addIssue({ code: 'custom', message: `${field} must not contain ${problem}`, params: { code: 'invalid_string' } });
  };
/** Add to an existing string schema: `.superRefine(lineRule('name'))`. */
export const lineRule = (field: string) => textRule(field, true);

export const line = (field: string, max = 255) =>
  z
    .string({ error: `${field} must be a string` })
    .max(max, `${field} is at most ${max} characters`)
    .superRefine(textRule(field, true));

export const text = (field: string, max = 1000) =>
  z
    .string({ error: `${field} must be a string` })
    .max(max, `${field} is at most ${max} characters`)
    .superRefine(textRule(field, false));

/**
 * An absolute http(s) URL: no other scheme (javascript:, file:, data: …), no credentials, no
 * control characters or spaces (refused, never stripped). Whether a webhook target may be
 * private or plain http is decided with the configuration in api/services/webhook-target.ts.
 */
export const httpUrl = (field: string, max = 2000) =>
  line(field, max).superRefine((v, ctx) => {
    let url: URL;
    try {
      url = new URL(v);
    } catch {
      ctx.addIssue({ code: 'custom', message: `${field} must be an absolute http or https URL`, params: { code: 'invalid_format' } });
      return;
    }
    if (/\s/.test(v) || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
      ctx.addIssue({ code: 'custom', message: `${field} must be an absolute http or https URL`, params: { code: 'invalid_format' } });
    } else if (url.username || url.password) {
      ctx.addIssue({ code: 'custom', message: `${field} must not carry credentials`, params: { code: 'invalid_value' } });
    }
  });

/** Dates the database and every client can represent: 1970-01-01 … 9999-12-31, UTC offsets allowed. */
const EARLIEST = Date.parse('1970-01-01T00:00:00Z');
const LATEST = Date.parse('9999-12-31T23:59:59.999Z');
export const rfc3339 = (field: string) =>
  z
    .string()
    .datetime({ offset: true, message: `${field} must be an RFC 3339 timestamp` })
    .transform((v) => new Date(v))
    .refine((d) => d.getTime() >= EARLIEST && d.getTime() <= LATEST, {
      message: `${field} must be between 1970-01-01 and 9999-12-31`,
      params: { code: 'out_of_range' },
    })
    .openapi({ type: 'string', format: 'date-time' });

/** page_size of a keyset listing: an integer from 0; above `max` it is clamped (by the service). */
export const pageSize = (max: number, fallback: number) =>
  z.coerce
    .number({ error: 'page_size must be an integer' })
    .int('page_size must be an integer')
    .min(0, 'page_size must not be negative')
    .optional()
    .openapi({ type: 'integer', description: `default ${fallback}; values above ${max} are clamped to ${max}` });

/** A keyset page's cursor in a listing's query: next_page_token of the page before, valid with the same filters. */
export const pageToken = z.string().optional().openapi({ description: 'opaque cursor from next_page_token (valid with the same filters)' });
