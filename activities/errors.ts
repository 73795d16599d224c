import { ApplicationFailure } from '@temporalio/activity';
import { DomainError, fromDatabaseError } from '../domain/errors';
import { withActivityDeadline } from './deadline';

/**
 * Business errors — and database errors that mean the input was wrong (domain/errors.ts
 * fromDatabaseError) — leave an activity as non-retryable ApplicationFailures whose type is the
 * error kind, so the same kind reaches the HTTP response through the workflow at once, instead
 * of after every retry.
 */
export function withBusinessFailures<T extends Record<string, (...args: never[]) => Promise<unknown>>>(activities: T): T {
  const wrapped: Record<string, unknown> = {};
  for (const [name, fn] of Object.entries(activities)) {
    wrapped[name] = async (...args: never[]) => {
      try {
        return await withActivityDeadline(() => fn(...args));
      } catch (error) {
        // A unique-key race inside an activity is retried (the retry finds the winner's row).
        const database = fromDatabaseError(error);
        const business = error instanceof DomainError ? error : database?.kind === 'INVALID_ARGUMENT' ? database : undefined;
        if (business) throw ApplicationFailure.nonRetryable(business.message, business.kind);
        throw error;
      }
    };
  }
  return wrapped as T;
}
