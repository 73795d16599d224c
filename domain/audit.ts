/**
 * The audit trail: who did what to which object, before and after, under which
 * request. The actor travels from the API into workflow updates and activities (no secrets: ids,
 * role, the request's trace id and key), so the row is written in the transaction of the effect.
 */
import type { AnyRole } from './roles';

export type AuditActorKind =
  | 'operator_account'
  | 'operator_jwt'
  | 'merchant_account'
  | 'merchant_jwt'
  | 'trader_account'
  | 'bank_device'
  | 'system'
  | 'anonymous';

export interface AuditActor {
  /**
   * An operator account (console session), the spec's operator JWT, a merchant member (cabinet
   * session), the spec's cabinet JWT, a trader account, a trader's paired bank device (its notification confirmed a deal), the gateway itself (the sandbox arbiter),
   * or whoever tried to sign in and failed (`anonymous`).
   */
  kind: AuditActorKind;
  /** The account's id, the JWT's sub, the system actor's name (`sandbox-arbiter`), or the client address of a failed sign-in. */
  id: string;
  /** The actor's role in its party (an operator's, a member's); '' for an anonymous actor (none proven). */
  role: AnyRole | '';
  /** The request's trace id (X-Trace-Id). */
  requestId: string;
  /** A server-made id of the request: a retried step writes its row once (unique with action and object). */
  requestKey: string;
  /**
   * Which console session (`session:<ref>`) or operator JWT (`jwt:<ref>`) acted: a one-way
   * reference, never the credential. Absent for the gateway itself and a failed sign-in.
   */
  credential?: string;
}

export interface AuditEntry {
  action: string;
  objectType: string;
  objectId: string;
  before?: unknown;
  after?: unknown;
}

/** Who approved, as withdrawal_approvals names them: an account and a JWT subject never count as one another. */
export const approverOf = (actor: Pick<AuditActor, 'kind' | 'id'>) => `${actor.kind}:${actor.id}`;

/**
 * The sandbox arbiter as an audit actor: a system actor in the arbiter's role. One
 * request key per action (`key`), so a retried step writes its row once.
 */
export const sandboxArbiterActor = (key: string): AuditActor => ({
  kind: 'system',
  id: 'sandbox-arbiter',
  role: 'arbiter',
  requestId: `sandbox-arbiter:${key}`,
  requestKey: `sandbox-arbiter:${key}`,
});
