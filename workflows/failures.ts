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

export type Creation<S> = { ok: true; snapshot: S } | { ok: false; failure: unknown; reason: string };

/**
 * A deal's create step, with the give-up path made safe: every attempt's transaction is bounded
 * by its deadline (activities/deadline.ts), so once the step has failed none can commit any
 * more; one that committed before its answer was lost left a deal, which is adopted rather than
 * orphaned. A business refusal is final.
 */
export async function createOrAdopt<S>(create: () => Promise<S>, findCommitted: () => Promise<S | null>): Promise<Creation<S>> {
  try {
    return { ok: true, snapshot: await create() };
  } catch (error) {
    const failure = businessFailure(error);
    const committed = isBusinessFailure(failure) ? null : await findCommitted();
    if (committed) return { ok: true, snapshot: committed };
    return { ok: false, failure, reason: error instanceof Error ? error.message : 'creation failed' };
  }
}
