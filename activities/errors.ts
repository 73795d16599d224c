import { ApplicationFailure } from '@temporalio/activity';
import { DomainError } from '../domain/errors';

/**
 * Business errors leave an activity as non-retryable ApplicationFailures whose type is the
 * error kind, so the same kind reaches the HTTP response through the workflow.
 */
export function withBusinessFailures<T extends Record<string, (...args: any[]) => Promise<unknown>>>(activities: T): T {
  const wrapped: Record<string, unknown> = {};
  for (const [name, fn] of Object.entries(activities)) {
    wrapped[name] = async (...args: unknown[]) => {
      try {
        return await fn(...args);
      } catch (error) {
        if (error instanceof DomainError) throw ApplicationFailure.nonRetryable(error.message, error.kind);
        throw error;
      }
    };
  }
  return wrapped as T;
}
