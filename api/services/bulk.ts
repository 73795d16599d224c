/**
 * A bulk action is the single action once per object: the same service call, its own checks,
 * workflow update and audit row, under the same actor — never one action over many rows. A
 * refusal of one object is its answer in the list and stops nothing else; the items run a few at
 * a time, in the order given.
 */
import type { Logger } from 'pino';
import { problemFor, toDomainError } from '../errors';

/** Items of one bulk request in flight at once: each is a workflow update or a transaction of its own. */
const BULK_CONCURRENCY = 4;

export interface BulkItem<O extends string> {
  id: string;
  /** The HTTP status the single action would have answered. */
  status: number;
  outcome: O | 'refused';
  /** The refusal's message (the single action's problem detail), or ''. */
  message: string;
}

/**
 * Runs `act` for each id (repeats dropped); an item that throws is `refused` with the single
 * action's status and message (an unexpected error is logged, as the error middleware would).
 */
export async function eachOf<O extends string>(
  log: Pick<Logger, 'error'>,
  ids: readonly string[],
  act: (id: string) => Promise<{ status: number; outcome: O }>,
): Promise<BulkItem<O>[]> {
  const unique = [...new Set(ids)];
  const results: BulkItem<O>[] = new Array(unique.length);
  let next = 0;
  const lane = async () => {
    for (let i = next++; i < unique.length; i = next++) {
      const id = unique[i]!;
      try {
        results[i] = { id, ...(await act(id)), message: '' };
      } catch (error) {
        const { status, body } = problemFor(toDomainError(error), id);
        if (status >= 500) log.error({ err: error, id }, 'a bulk item failed');
        let message = body.title;
        try {
          message = (JSON.parse(body.detail) as { message?: string }).message ?? message;
        } catch {
          // the title stands
        }
        results[i] = { id, status, outcome: 'refused', message };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(BULK_CONCURRENCY, unique.length) }, lane));
  return results;
}
