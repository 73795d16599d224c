/**
 * How the API hands a command to a workflow: Update-With-Start (the one builder, updateWithStart:
 * deal and withdrawal creates, appeal commands, settlements), and updating a live deal.
 */
import {
  ServiceError,
  WithStartWorkflowOperation,
  WorkflowNotFoundError,
  isGrpcServiceError,
  WorkflowUpdateFailedError,
  type WorkflowHandle,
  type WorkflowStartOptions,
} from '@temporalio/client';
import { ApplicationFailure, type UpdateDefinition, type Workflow } from '@temporalio/common';
import type { AppDeps } from '../deps';
import type { AuditActor } from '../../domain/audit';
import { DomainError, FailedPrecondition, NotFound, PermissionDenied, TooManyInFlight, domainErrorFromKind } from '../../domain/errors';
import { findDeal, type DealRow } from '../../db/queries/deals';
import { awaitCreationUpdate, type CreationAnswer, type DealLikeSnapshot, type DealOutcome } from '../../workflows/contracts/deal-like';

/** gRPC codes of the server's "the run cannot take this update right now" answers. */
const FAILED_PRECONDITION = 9;
const RESOURCE_EXHAUSTED = 8;

/**
 * The server's answer to an update that no workflow task accepted: a task completed without
 * processing it (many concurrent updates on one run), the run's last task failed and awaits its
 * retry (a starved worker, a task past its deadline), or the run already holds as many updates in
 * flight as the server takes (RESOURCE_EXHAUSTED: refused at admission). Nothing of it was
 * accepted, and sending it again is safe for a step keyed by its request. An update the server
 * aborted (UNAVAILABLE, "update was aborted") is not among them: it may have been applied before
 * its answer was lost, and a second send would be answered as a refusal of what already happened.
 */
export const isUnprocessedUpdate = (error: unknown): boolean =>
  (error instanceof WorkflowUpdateFailedError && error.cause instanceof ApplicationFailure && error.cause.type === 'UnprocessedUpdate') ||
  (error instanceof ServiceError &&
    isGrpcServiceError(error.cause) &&
    ((error.cause.code === FAILED_PRECONDITION && /workflow task in failed state/i.test(error.cause.details)) ||
      (error.cause.code === RESOURCE_EXHAUSTED && /concurrent in-flight updates/i.test(error.cause.details))));

/** Maps a failed update back to the DomainError it carries (its kind travels as the failure type). */
export function unwrapUpdateFailure(error: unknown): unknown {
  if (isUnprocessedUpdate(error)) return new TooManyInFlight('the workflow is busy with other commands at this moment; try again');
  if (error instanceof WorkflowUpdateFailedError && error.cause instanceof ApplicationFailure) {
    return domainErrorFromKind(error.cause.type, error.cause.message) ?? error;
  }
  return error;
}

/**
 * Who makes an operator's move, as its step audits it. Every operator route has an actor
 * (api/mount.ts); a move without one is refused rather than left unaudited.
 */
export function operatorActor(actor: AuditActor | undefined): AuditActor {
  if (!actor) throw new PermissionDenied('operator identity required');
  return actor;
}

/** Who makes a trader's move: every trader route has an actor (the trader's account); a move without one is refused rather than left unaudited. */
export function traderActor(actor: AuditActor | undefined): AuditActor {
  if (!actor) throw new PermissionDenied('trader identity required');
  return actor;
}

export async function readDeal(deps: AppDeps, dealId: string): Promise<DealRow> {
  const row = await findDeal(deps.sql, dealId);
  if (!row) throw new NotFound('deal not found');
  return row;
}

/** What every deal create (PayIn, PayOut) hands its workflow about who asks and for what. */
export const dealCreateBase = (
  scope: { tenantId: string; merchantId: string },
  dealId: string,
  body: { idempotency_key: string; amount: bigint; currency: string },
  paymentMethodId: string,
) => ({
  dealId,
  tenantId: scope.tenantId,
  merchantId: scope.merchantId,
  idempotencyKey: body.idempotency_key,
  amount: body.amount.toString(),
  currency: body.currency,
  paymentMethodId,
});

/** The step deadlines every deal-like workflow (PayIn, PayOut, withdrawal) takes in its input. */
export const stepTimeouts = (config: AppDeps['config']) => ({ stepMs: config.DEAL_STEP_TIMEOUT_MS, createMs: config.DEAL_CREATE_TIMEOUT_MS });

/**
 * Update-With-Start, the one way the API starts a workflow: the run is started — or joined when one
 * runs under the id (USE_EXISTING: concurrent requests that derive one id join one run, whose first
 * input makes it) — and `update` runs in it; its answer is returned.
 */
export function updateWithStart<W extends Workflow, Ret, Args extends unknown[]>(
  deps: AppDeps,
  workflowType: string,
  start: WorkflowStartOptions<W>,
  update: UpdateDefinition<Ret, Args>,
  ...args: Args
): Promise<Ret> {
  const startWorkflowOperation = new WithStartWorkflowOperation<W>(workflowType, { ...start, workflowIdConflictPolicy: 'USE_EXISTING' });
  return deps.temporal.workflow.executeUpdateWithStart(update, { args, startWorkflowOperation });
}

interface StartThrough<W extends Workflow> {
  /** The contract's workflow type name. */
  workflowType: string;
  /** Id, task queue, search attributes and input, from the workflow's contract. */
  start: WorkflowStartOptions<W>;
  /** This request's id (randomUUID()), also put in the workflow's input as `requestId`: see startThroughWorkflow. */
  requestId: string;
}

/**
 * What a create answers besides its object: whether it is a replay (idempotency by key, the
 * Idempotent-Replayed header) — true when an earlier request with the same key made the object
 * (answered from Postgres, or this request joined the run another request started).
 */
export interface Created<Row> {
  row: Row;
  replayed: boolean;
}

/**
 * Starts the workflow (or joins the running one, updateWithStart) and waits for its create step.
 * When the step refuses, nothing was made and the closed run is deleted, so a refused create
 * leaves nothing behind; the same idempotency key can be retried. Answers whether this request
 * is a replay: the run knows the request that started it (its input's requestId), so of
 * concurrent requests with one key exactly one is not.
 */
export async function startThroughWorkflow<W extends Workflow>(deps: AppDeps, options: StartThrough<W>): Promise<{ replayed: boolean }> {
  try {
    const answer = await updateWithStart<W, CreationAnswer<DealLikeSnapshot>, [string]>(
      deps,
      options.workflowType,
      options.start,
      awaitCreationUpdate,
      options.requestId,
    );
    return { replayed: answer.replayed };
  } catch (error) {
    const mapped = unwrapUpdateFailure(error);
    if (mapped instanceof DomainError) void removeRefusedRun(deps, options.start.workflowId);
    throw mapped;
  }
}

/** A deal created through its workflow (startThroughWorkflow), answered from its row. */
export async function createThroughWorkflow<W extends Workflow>(deps: AppDeps, options: StartThrough<W> & { dealId: string }): Promise<Created<DealRow>> {
  const { replayed } = await startThroughWorkflow<W>(deps, options);
  return { row: await readDeal(deps, options.dealId), replayed };
}

async function removeRefusedRun(deps: AppDeps, workflowId: string) {
  try {
    const latest = deps.temporal.workflow.getHandle(workflowId);
    await latest.result().catch(() => undefined);
    // Only a closed run that made no deal: a concurrent retry's live run is never touched.
    const { runId, status } = await latest.describe();
    if (status.name === 'RUNNING') return;
    const outcome = (await deps.temporal.workflow.getHandle(workflowId, runId).result()) as DealOutcome<unknown>;
    if (outcome.created) return;
    await deps.temporal.workflowService.deleteWorkflowExecution({
      namespace: deps.config.TEMPORAL_NAMESPACE,
      workflowExecution: { workflowId, runId },
    });
  } catch (error) {
    deps.log.warn({ err: error, workflowId }, 'could not delete the execution of a refused create');
  }
}

/**
 * Sends an update to a live deal's workflow. When the workflow has already closed (the deal is
 * terminal and settled), `whenClosed` answers from the deal's final row.
 */
export async function updateDeal<W extends Workflow>(
  deps: AppDeps,
  workflowId: string,
  dealId: string,
  send: (handle: WorkflowHandle<W>) => Promise<unknown>,
  whenClosed: (row: DealRow) => void,
): Promise<void> {
  try {
    await send(deps.temporal.workflow.getHandle<W>(workflowId));
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return whenClosed(await readDeal(deps, dealId));
    throw unwrapUpdateFailure(error);
  }
}

export const closedRejects = (row: DealRow) => {
  throw new FailedPrecondition(`deal is ${row.status}`);
};

/**
 * A create call answered with its deal (new or replayed), timed into
 * gateway_deal_create_duration_seconds; a refusal is not a create and is not observed (its
 * latency is in http_request_duration_seconds with its status).
 */
export async function timedCreate<T>(deps: AppDeps, type: 'payin' | 'payout', create: () => Promise<T>): Promise<T> {
  const started = performance.now();
  const answer = await create();
  deps.metrics?.dealCreateDuration.observe({ type }, (performance.now() - started) / 1000);
  return answer;
}
