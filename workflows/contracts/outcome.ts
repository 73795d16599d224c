/**
 * How a deal-like workflow (PayIn, PayOut, withdrawal) ends: it made its object and saw it to a
 * final status, or its create step refused and nothing was made (the API then deletes the closed
 * run, api/services/deal-workflows.ts). One declaration for every contract.
 */
export type DealOutcome<Status> = { created: false; reason: string } | { created: true; status: Status };

/**
 * A creation update's argument: the id of the API request that sends it (spec 4.8's
 * Idempotent-Replayed, issue 27.2). Absent when sent by an API from before issue 27.
 */
export type CreationArgs = [requestId?: string];

/**
 * What a creation update answers: the snapshot and, when the update named its request, whether
 * that request is a replay — false only for the request whose input started the run (its
 * `requestId`), true for every request that joined the run of the same key.
 */
export type CreationAnswer<S> = S & { replayed?: boolean };

/** The part of a deal-like workflow's input that names the request that started it. */
export interface StartedByRequest {
  /** The API request whose Update-With-Start started this run (absent in runs started before issue 27). */
  requestId?: string;
}
