import type { Context, Next } from 'koa';
import { ZodError } from 'zod';
import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError } from '@temporalio/client';
import {
  Conflict,
  DomainError,
  fromDatabaseError,
  Internal,
  InvalidArgument,
  NotFound,
  type ErrorKind,
  type FieldError,
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

export function zodFieldErrors(error: ZodError): FieldError[] {
  return error.issues.slice(0, MAX_FIELD_ERRORS).map((issue) => ({
    field: cap(issue.path.map(String).join('.') || '(body)'),
    message: cap(issue.message),
    code: issue.code,
  }));
}

/** Turns anything thrown into a DomainError; unknown errors become an opaque Internal. */
export function toDomainError(error: unknown): DomainError {
  if (error instanceof DomainError) return error;
  if (error instanceof ZodError) {
    const fields = zodFieldErrors(error);
    return new InvalidArgument(fields[0]?.message ?? 'invalid request', fields);
  }
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
