import { ActivityFailure, ApplicationFailure } from '@temporalio/workflow';

/**
 * Business errors keep their kind (the ApplicationFailure type) on the way from an activity
 * through an update to the API; anything else stays a retryable infrastructure failure.
 */
export function businessFailure(error: unknown): unknown {
  const cause = error instanceof ActivityFailure ? error.cause : error;
  if (cause instanceof ApplicationFailure && cause.nonRetryable) {
    return ApplicationFailure.nonRetryable(cause.message, cause.type ?? 'INTERNAL');
  }
  return error;
}

export const rejected = (kind: 'FAILED_PRECONDITION' | 'INVALID_ARGUMENT' | 'CONFLICT' | 'NOT_FOUND', message: string) =>
  ApplicationFailure.nonRetryable(message, kind);

/** True for a refusal with a kind (a business rule said no), false for an infrastructure failure. */
export const isBusinessFailure = (error: unknown): boolean => error instanceof ApplicationFailure && error.nonRetryable === true;

/** The message of what failed inside the activity (an ActivityFailure wraps it). */
export function failureReason(error: unknown): string {
  if (error instanceof ActivityFailure && error.cause) return error.cause.message;
  return error instanceof Error ? error.message : String(error);
}
