import type { EventType } from '../events/event-types';

/**
 * A state machine as a table (the shape of domain/state/withdrawals.ts): every legal move with its
 * source states, its target, the events it writes and its money. Workflow guards, the activities'
 * locked status checks and the API's refusals all read the same row.
 */
export interface Transition<S extends string> {
  /** The states the move may start from; null is the create (no row yet). */
  readonly from: readonly (S | null)[];
  /** The state after the move; absent when the status stays (the move changes other fields). */
  readonly to?: S;
  /** The outbox events the move writes, in order. */
  readonly events: readonly EventType[];
  /** What happens to the money (the postings are in db/queries/postings.ts). */
  readonly money: string;
}

/** The states a move may start from (the create's null left out). */
export function sourceStates<S extends string>(transition: Transition<S>): readonly S[] {
  return transition.from.filter((s): s is S => s !== null);
}

/** Whether `status` is a source state of the move (a status string of another machine never is). */
export function allowsFrom<S extends string>(transition: Transition<S>, status: string): boolean {
  return (transition.from as readonly (string | null)[]).includes(status);
}

/** A refusal of a move: the error kind (ApplicationFailure type / DomainError kind) and the message. */
export interface Refusal {
  kind: 'FAILED_PRECONDITION' | 'INVALID_ARGUMENT' | 'CONFLICT';
  message: string;
}
