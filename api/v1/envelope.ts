/**
 * V1 wire shapes: every answer is `{ failures, value, isSuccess, isFailure }`.
 * Errors keep the HTTP status of the one error table (api/errors.ts) and carry the same
 * envelope with `isFailure: true`, `value: null` and the problem in `failures`.
 */
import { z, type ZodType } from 'zod';
import { registry } from '../openapi';
import type { Problem, ProblemRenderer } from '../errors';
import type { ErrorEnvelope } from '../route';

export interface V1Failure {
  /** The gRPC code name, as problem+json's `title` (INVALID_ARGUMENT, NOT_FOUND, …). */
  code: string;
  grpcCode: number;
  message: string;
  /** Set on field errors: the request field at fault. */
  field?: string;
}

export const ok = <T>(value: T) => ({ failures: [] as V1Failure[], value, isSuccess: true as const, isFailure: false as const });

export interface V1List<T> {
  count: number;
  data: T[];
  items: T[];
  next_page_token: string;
}

/** A V1 list page: `count` is the total matching, `items` aliases `data`, the token is the next `skip` ('' on the last page). */
export function listPage<T>(data: T[], count: number, skip: number): V1List<T> {
  const next = skip + data.length;
  return { count, data, items: data, next_page_token: data.length > 0 && next < count ? String(next) : '' };
}

export const renderV1Problem: ProblemRenderer = (problem: Problem) => {
  let grpcCode = 0;
  let message = problem.title;
  try {
    const detail = JSON.parse(problem.detail) as { code: number; message: string };
    grpcCode = detail.code;
    message = detail.message;
  } catch {
    /* detail is always our JSON; keep the title otherwise */
  }
  const failures: V1Failure[] = [{ code: problem.title, grpcCode, message }];
  for (const f of problem.errors ?? []) failures.push({ code: problem.title, grpcCode, message: f.message, field: f.field });
  return { type: 'application/json', body: { failures, value: null, isSuccess: false, isFailure: true, status: problem.status, instance: problem.instance } };
};

const failureSchema = z.object({
  code: z.string().openapi({ example: 'INVALID_ARGUMENT' }),
  grpcCode: z.number().int().openapi({ example: 3 }),
  message: z.string(),
  field: z.string().optional(),
});

const v1ErrorSchema = z
  .object({
    failures: z.array(failureSchema).min(1),
    value: z.null(),
    isSuccess: z.literal(false),
    isFailure: z.literal(true),
    status: z.number().int().openapi({ description: 'the HTTP status, repeated' }),
    instance: z.string().openapi({ description: 'the request path' }),
  })
  .openapi('V1Error', {
    description:
      'Every V1 error (4xx and 5xx, 410 after the sunset included): the HTTP status of the problem+json table with the V1 ' +
      'envelope as body (application/json). failures[0] is the error; further entries name fields at fault.',
  });

registry.register('V1Error', v1ErrorSchema);

/** How the V1 routes document their errors: the envelope above, and the 410 only V1 answers. */
export const v1ErrorEnvelope: ErrorEnvelope = {
  name: 'V1',
  note: ' (V1 error envelope)',
  contentType: 'application/json',
  schemaRef: '#/components/schemas/V1Error',
  meanings: { 410: { name: 'Gone', description: 'API V1 was retired at V1_SUNSET_AT' } },
  // Set on every /v1/ answer by ./deprecation.ts.
  headers: ['Deprecation', 'Sunset', 'Link'],
};

export const v1Envelope = (value: ZodType, name: string) =>
  z.object({ failures: z.array(failureSchema).max(0), value, isSuccess: z.literal(true), isFailure: z.literal(false) }).openapi(name);

export const v1ListOf = (item: ZodType) =>
  z.object({
    count: z.number().int().openapi({ description: 'every matching record, not only this page' }),
    data: z.array(item),
    items: z.array(item).openapi({ description: 'legacy alias of data' }),
    next_page_token: z.string().openapi({ description: "the next page's skip as a string; empty on the last page" }),
  });
