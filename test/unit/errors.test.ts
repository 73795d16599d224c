import test from 'ava';
import { z } from 'zod';
import { problemFor, toDomainError } from '../../api/errors';
import { Conflict, FailedPrecondition, InvalidArgument, NotFound, PermissionDenied, RateLimited, Unauthenticated } from '../../domain/errors';

test('each error kind maps to its status, title and gRPC code', (t) => {
  const cases = [
    [new InvalidArgument('bad'), 400, 'INVALID_ARGUMENT', 3],
    [new FailedPrecondition('state'), 400, 'FAILED_PRECONDITION', 9],
    [new Unauthenticated('who'), 401, 'UNAUTHENTICATED', 16],
    [new PermissionDenied('admin role required'), 403, 'PERMISSION_DENIED', 7],
    [new NotFound('none'), 404, 'NOT_FOUND', 5],
    [new Conflict('stale'), 409, 'ABORTED', 10],
    [new RateLimited(5), 429, 'RESOURCE_EXHAUSTED', 8],
  ] as const;
  for (const [error, status, title, code] of cases) {
    const problem = problemFor(error, '/x');
    t.is(problem.status, status);
    t.is(problem.body.title, title);
    t.is(problem.body.type, 'about:blank');
    t.is(problem.body.instance, '/x');
    t.deepEqual(JSON.parse(problem.body.detail), { code, message: error.message, details: [] });
  }
  t.is(new RateLimited(7).message, 'merchant rate limit exceeded (limit: 7/min)');
});

test('zod errors become 400 with errors[] and the first message', (t) => {
  const schema = z.object({ idempotency_key: z.string({ error: 'idempotency_key is required' }), amount: z.number() });
  const result = schema.safeParse({ amount: 'x' });
  t.false(result.success);
  const problem = problemFor(toDomainError(result.error), '/deals');
  t.is(problem.status, 400);
  t.is(JSON.parse(problem.body.detail).message, 'idempotency_key is required');
  t.deepEqual(problem.body.errors?.map((e) => e.field), ['idempotency_key', 'amount']);
});

test('unknown errors become an opaque 500; postgres and http errors are mapped', (t) => {
  const internal = problemFor(toDomainError(new Error('connection string postgres://secret@db')), '/x');
  t.is(internal.status, 500);
  t.false(internal.body.detail.includes('secret'));
  t.is(problemFor(toDomainError({ code: '23505', severity: 'ERROR' }), '/x').status, 409);
  t.is(problemFor(toDomainError({ code: '22003', severity: 'ERROR' }), '/x').status, 400);
  t.is(problemFor(toDomainError(Object.assign(new Error('Method Not Allowed'), { status: 405 })), '/x').status, 405);
  t.is(problemFor(toDomainError(Object.assign(new Error('request entity too large'), { status: 413 })), '/x').status, 413);
});
