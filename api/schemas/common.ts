import { z } from 'zod';
import '../openapi';
import { INT64_MAX } from '../../domain/money';

/** int64 in a request body: a JSON integer (kept exact as bigint by the body parser). */
export const int64Body = (field: string) =>
  z
    .union([z.number().int(), z.bigint()], { error: `${field} must be an integer` })
    .transform((v) => BigInt(v))
    .refine((v) => v >= -INT64_MAX - 1n && v <= INT64_MAX, `${field} is out of the int64 range`)
    .openapi({ type: 'integer', format: 'int64' });

/** A positive int64 amount in minor units. */
export const positiveAmount = (field: string) =>
  int64Body(field).refine((v) => v > 0n, `${field} must be greater than 0`).openapi({ type: 'integer', format: 'int64' });

/** int64 in a response: a digit string. */
export const int64String = z.string().regex(/^-?\d+$/).openapi({ type: 'string', format: 'int64', example: '150000' });

export const uuid = (field: string) => z.string({ error: `${field} is required` }).uuid(`${field} must be a UUID`);

export const timestamp = z.string().openapi({ format: 'date-time', example: '2026-11-22T10:00:00.000Z' });

export const problemSchema = z
  .object({
    type: z.string().openapi({ example: 'about:blank' }),
    title: z.string().openapi({ example: 'INVALID_ARGUMENT' }),
    status: z.number().int(),
    detail: z.string().openapi({ example: '{"code":3,"message":"idempotency_key is required","details":[]}' }),
    instance: z.string(),
    errors: z.array(z.object({ field: z.string(), message: z.string(), code: z.string() })).optional(),
  })
  .openapi('Problem');

export const emptyObject = z.object({}).openapi('Empty');
