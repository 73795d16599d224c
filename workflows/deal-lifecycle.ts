/**
 * What the deal-like workflows (PayIn, PayOut, withdrawal) share: the snapshot they keep —
 * answered by the status query; its final status in the DealStatus search attribute — the create
 * step the creation update waits for, and commands that wait for the creation, run one at a time
 * and keep their refusal's kind. Each workflow file then reads like its state table.
 */
import { allHandlersFinished, condition, setHandler, upsertSearchAttributes } from '@temporalio/workflow';
import { awaitCreationUpdate, type DealOutcome, type DealLikeSnapshot, statusQuery } from './contracts/deal-like';
import type { Refusal } from '../domain/state/state-machine';
import { DealStatusKey } from './contracts/search-attributes';
import { businessFailure, isBusinessFailure, rejected } from './failures';
import { serialQueue } from './serial';

export type Creation<S> = { ok: true; snapshot: S } | { ok: false; failure: unknown; reason: string };

/**
 * A create step, with the give-up path made safe: when the step failed for an infrastructure
 * reason, `giveUp` closes the create fence for this run (db/queries/create-fence.ts) — an
 * attempt still running on a starved worker can no longer commit — and answers the row an
 * attempt did commit, which is adopted rather than orphaned. A business refusal is final.
 */
export async function createOrAdopt<S>(create: () => Promise<S>, giveUp: () => Promise<S | null>): Promise<Creation<S>> {
  try {
    return { ok: true, snapshot: await create() };
  } catch (error) {
    const failure = businessFailure(error);
    const committed = isBusinessFailure(failure) ? null : await giveUp();
    if (committed) return { ok: true, snapshot: committed };
    return { ok: false, failure, reason: error instanceof Error ? error.message : 'creation failed' };
  }
}

export function dealLifecycle<S extends DealLikeSnapshot>(options: {
  /** The request that started the run (its input's requestId): its creation update is the one that is not a replay. */
  requestId: string;
  /** The refusal of a command when the create step made nothing. */
  notFound: string;
  /** What the creation update answers once the deal exists (default: the snapshot). */
  creationAnswer?: (snapshot: S) => Promise<S>;
  /** The deal's final statuses. */
  terminal: readonly string[];
}) {
  const serial = serialQueue();
  let snapshot: S | undefined;
  let creationFailure: unknown;
  const settled = () => snapshot !== undefined || creationFailure !== undefined;

  /** The snapshot; only after the creation. */
  const current = (): S => snapshot!;
  /**
   * DealStatus is the deal's final status, written when it ends: one visibility write per deal
   * instead of one per move; a live deal is found by DealId or MerchantId and reports its status
   * by the status query.
   */
  const apply = (next: S): S => {
    if (next.status !== snapshot?.status && options.terminal.includes(next.status)) {
      upsertSearchAttributes([{ key: DealStatusKey, value: next.status }]);
    }
    snapshot = next;
    return next;
  };

  /**
   * A command: it waits for the creation, then runs alone (`serial`). `refusal` checks the move
   * against the state table first; a refused or failed step reaches the caller with its kind.
   */
  const command = <T>(refusal: (s: S) => Refusal | undefined, step: (s: S) => Promise<T>): Promise<T> =>
    serial(async () => {
      await condition(settled);
      if (!snapshot) throw rejected('NOT_FOUND', options.notFound);
      const refused = refusal(snapshot);
      if (refused) throw rejected(refused.kind, refused.message);
      try {
        return await step(snapshot);
      } catch (error) {
        throw businessFailure(error);
      }
    });

  setHandler(statusQuery, () => snapshot);
  setHandler(awaitCreationUpdate, async (requestId) => {
    await condition(settled);
    if (creationFailure) throw creationFailure;
    const answer = options.creationAnswer ? await options.creationAnswer(current()) : current();
    // The Idempotent-Replayed header: only the request whose input started this run made the object.
    return { ...answer, replayed: requestId !== options.requestId };
  });

  return {
    serial,
    current,
    apply,
    command,
    /**
     * Runs the create step. A refused create answers every waiting creation update with its
     * failure and, once they have their answers, gives the run's outcome; otherwise undefined.
     */
    async create(run: () => Promise<Creation<S>>): Promise<DealOutcome<S['status']> | undefined> {
      const created = await run();
      if (!created.ok) {
        creationFailure = created.failure;
        await condition(allHandlersFinished);
        return { created: false, reason: created.reason };
      }
      apply(created.snapshot);
      return undefined;
    },
    /** The run's outcome once the deal is final and every handler has answered. */
    async finish(): Promise<DealOutcome<S['status']>> {
      await condition(allHandlersFinished);
      return { created: true, status: current().status };
    },
  };
}
