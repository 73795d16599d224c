/**
 * What every deal-like workflow (PayIn, PayOut, withdrawal) shares on the wire: how a run ends,
 * the update that waits for its create step and the query of its snapshot — each message defined
 * here once, under one name for all three, so a client asks every deal-like workflow the same
 * question the same way.
 */
import { defineQuery, defineUpdate } from '@temporalio/workflow';

/**
 * How a deal-like workflow ends: it made its object and saw it to a final status, or its create
 * step refused and nothing was made (the API then deletes the closed run,
 * api/services/deal-workflows.ts).
 */
export type DealOutcome<Status> = { created: false; reason: string } | { created: true; status: Status };

/** What every deal-like snapshot has; each contract's snapshot (PayinSnapshot, …) extends it. */
export interface DealLikeSnapshot {
  status: string;
}

/**
 * The part of a deal-like workflow's input that names the request that started it: its creation
 * update is the one that is not a replay.
 */
export interface StartedByRequest {
  /** The id of the API request whose Update-With-Start started this run. */
  requestId: string;
}

/** A creation update's argument: the id of the API request that sends it (the Idempotent-Replayed header). */
export type CreationArgs = [requestId: string];

/**
 * What a creation update answers: the snapshot and whether the request that sent it is a replay —
 * false only for the request whose input started the run (its `requestId`), true for every
 * request that joined the run of the same key.
 */
export type CreationAnswer<S> = S & { replayed: boolean };

/** Resolves once the create step ran: the object's snapshot, or the refusal that left nothing made. */
export const awaitCreationUpdate = defineUpdate<CreationAnswer<DealLikeSnapshot>, CreationArgs>('awaitCreation');
/** The object's snapshot as the run holds it (undefined before the create step ran or when it made nothing). */
export const statusQuery = defineQuery<DealLikeSnapshot | undefined>('status');
