import type { Context, Next } from 'koa';
import { ZodError, type z } from 'zod';
import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError } from '@temporalio/client';
import {
  Conflict,
  DomainError,
  fromDatabaseError,
  Internal,
  InvalidArgument,
  NotFound,
  isFieldErrorCode,
  type ErrorKind,
  type FieldError,
  type FieldErrorCode,
} from '../domain/errors';

/** The one table from error kind to HTTP status and gRPC code. */
const PROBLEM_TABLE: Record<ErrorKind, { status: number; grpc: number; title: string }> = {
  INVALID_ARGUMENT: { status: 400, grpc: 3, title: 'INVALID_ARGUMENT' },
  FAILED_PRECONDITION: { status: 400, grpc: 9, title: 'FAILED_PRECONDITION' },
  UNAUTHENTICATED: { status: 401, grpc: 16, title: 'UNAUTHENTICATED' },
  PERMISSION_DENIED: { status: 403, grpc: 7, title: 'PERMISSION_DENIED' },
  NOT_FOUND: { status: 404, grpc: 5, title: 'NOT_FOUND' },
  CONFLICT: { status: 409, grpc: 10, title: 'ABORTED' },
  RATE_LIMITED: { status: 429, grpc: 8, title: 'RESOURCE_EXHAUSTED' },
  GONE: { status: 410, grpc: 12, title: 'UNIMPLEMENTED' },
  INTERNAL: { status: 500, grpc: 13, title: 'INTERNAL' },
};

export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  instance: string;
  errors?: FieldError[];
}

/** What an error answer may repeat of the request: a few fields, short strings (never a 100 kB echo). */
const MAX_FIELD_ERRORS = 10;
const MAX_FIELD_TEXT = 300;
/** A message may list allowed values (payment method slugs), so it gets more room than a field error. */
const MAX_MESSAGE = 2000;
const cap = (text: string, max = MAX_FIELD_TEXT) => (text.length > max ? `${text.slice(0, max)}…` : text);

/** The value at an issue's path in what was parsed, or ABSENT when a key on the way is missing. */
const ABSENT = Symbol('absent');
function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let value: unknown = root;
  for (const key of path) {
    if (value === null || typeof value !== 'object' || !Object.hasOwn(value, key)) return ABSENT;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

/** A number that is not an integer; NaN is what the body parser makes of `1e3` or `1.0000000000000001` (api/body.ts). */
const isFraction = (value: unknown) => typeof value === 'number' && !Number.isInteger(value);
/** An integer was expected (z.number().int(), or a union of int and bigint). */
const expectsInteger = (issue: z.core.$ZodIssue): boolean =>
  (issue.code === 'invalid_type' && (issue.expected === 'int' || issue.expected === 'bigint')) ||
  (issue.code === 'invalid_union' && issue.errors.some((branch) => branch.some(expectsInteger)));

/**
 * The stable code (domain/errors.ts FIELD_ERROR_CODES) of a zod issue: never zod's own name.
 * `input` is what was parsed (the body, query or path parameters), when known: it tells a
 * missing field (`required`) from one of the wrong type, and a fraction from another non-integer.
 * Custom refinements name their code in `params.code`; without one they are `invalid_value`.
 */
function fieldErrorCode(issue: z.core.$ZodIssue, input: unknown = ABSENT): FieldErrorCode {
  const value = input === ABSENT ? ABSENT : valueAt(input, issue.path);
  const missing = input !== ABSENT && (value === ABSENT || value === undefined || value === null);
  switch (issue.code) {
    case 'invalid_type':
      if (missing) return 'required';
      if (expectsInteger(issue) && isFraction(value)) return 'not_integer';
      return 'invalid_type';
    case 'invalid_union':
      if (missing) return 'required';
      if (expectsInteger(issue) && isFraction(value)) return 'not_integer';
      if (issue.errors.length > 0 && issue.errors.every((branch) => branch.length > 0 && branch.every((i) => i.code === 'invalid_type'))) return 'invalid_type';
      return 'invalid_value';
    case 'too_small':
      return 'too_small';
    case 'too_big':
      return 'too_big';
    case 'invalid_format':
      return 'invalid_format';
    case 'not_multiple_of':
      return 'not_integer';
    case 'invalid_value':
      return 'invalid_enum';
    case 'unrecognized_keys':
      return 'unknown_field';
    case 'custom': {
      const code: unknown = issue.params?.code;
      return isFieldErrorCode(code) ? code : 'invalid_value';
    }
    default:
      // invalid_key, invalid_element, and whatever a later zod adds
      return 'invalid_value';
  }
}

/** A zod error as field errors with stable codes; `input` is what was parsed (see fieldErrorCode). */
export function zodFieldErrors(error: ZodError, input: unknown = ABSENT): FieldError[] {
  return error.issues.slice(0, MAX_FIELD_ERRORS).map((issue) => ({
    field: cap(issue.path.map(String).join('.') || '(body)'),
    message: cap(issue.message),
    code: fieldErrorCode(issue, input),
  }));
}

/** A failed parse of `input` (a route's params, query or body) as the 400 it answers. */
export function invalidInput(error: ZodError, input: unknown = ABSENT): InvalidArgument {
  const fields = zodFieldErrors(error, input);
  return new InvalidArgument(fields[0]?.message ?? 'invalid request', fields);
}

/** Turns anything thrown into a DomainError; unknown errors become an opaque Internal. */
export function toDomainError(error: unknown): DomainError {
  if (error instanceof DomainError) return error;
  if (error instanceof ZodError) return invalidInput(error);
  if (error instanceof WorkflowNotFoundError) return new NotFound('not found');
  if (error instanceof WorkflowExecutionAlreadyStartedError) return new Conflict('already started');
  const database = fromDatabaseError(error);
  if (database) return database;
  const http = error as { status?: number; message?: string };
  if (http && typeof http.status === 'number' && http.status >= 400 && http.status < 500) {
    const mapped = http.status === 404 ? new NotFound('not found') : new InvalidArgument(http.message || 'bad request');
    mapped.httpStatus = http.status;
    return mapped;
  }
  return new Internal('internal error');
}

export function problemFor(error: DomainError, instance: string): { status: number; body: Problem } {
  const row = PROBLEM_TABLE[error.kind];
  const status = error.httpStatus ?? row.status;
  const body: Problem = {
    type: 'about:blank',
    title: row.title,
    status,
    detail: JSON.stringify({ code: row.grpc, message: cap(error.message, MAX_MESSAGE), details: [] }),
    instance,
  };
  if (error.fieldErrors.length > 0) {
    body.errors = error.fieldErrors.slice(0, MAX_FIELD_ERRORS).map((f) => ({ field: cap(f.field), message: cap(f.message), code: f.code }));
  }
  return { status, body };
}

/**
 * Renders a problem in another wire format for a family of routes (the V1 adapter's envelope,
 * api/v1/envelope.ts): same status, same table, another body.
 */
export type ProblemRenderer = (problem: Problem) => { type: string; body: unknown };

/** The error middleware: the only place errors become HTTP responses. */
export function errorMiddleware() {
  return async (ctx: Context, next: Next) => {
    try {
      await next();
    } catch (thrown) {
      const error = toDomainError(thrown);
      if (error.kind === 'INTERNAL') {
        ctx.state.log?.error({ err: thrown, traceId: ctx.state.traceId }, 'unhandled error');
      }
      const { status, body } = problemFor(error, ctx.path);
      ctx.status = status;
      const render = ctx.state.renderProblem as ProblemRenderer | undefined;
      const rendered = render ? render(body) : { type: 'application/problem+json', body };
      ctx.type = rendered.type;
      ctx.body = JSON.stringify(rendered.body);
      if (error.kind === 'RATE_LIMITED') ctx.set('Retry-After', String(ctx.state.rateLimitRetryAfter ?? 60));
    }
  };
}
