/**
 * The workflows' proxies of their steps (a step is an activity call; activities/deal-moves.ts is
 * what the deal steps share inside the activities). Two kinds, each with its own name at the call:
 * `steps`, activities on the task queue (appeal, settlement, pass and sandbox trader workflows),
 * and `localSteps`, local activities run by the worker that holds the workflow task (PayIn,
 * PayOut, withdrawal), with `creation` for their create step.
 */
import { proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { StepTimeouts } from './contracts/timeouts';

const DEFAULT_STEP_MS = 5_000;
const DEFAULT_CREATE_MS = 10_000;

/**
 * Steps as activities (appeal, settlement and pass workflows): one transaction each (bounded by
 * this deadline inside, activities/deadline.ts), retried on infrastructure errors until they
 * commit. The deadline is short on purpose: a step handed to a worker that is then killed is
 * retried elsewhere after `stepMs`, not minutes later.
 */
const stepActivities = (timeouts: StepTimeouts = {}) =>
  proxyActivities<Activities>({
    startToCloseTimeout: timeouts.stepMs ?? DEFAULT_STEP_MS,
    retry: { initialInterval: '200 milliseconds', backoffCoefficient: 2, maximumInterval: '5 seconds' },
  });

/**
 * The deal workflows' steps (PayIn, PayOut, withdrawal): local activities, run by the worker that
 * holds the workflow task — the update or timer that needs a step is answered in that one task,
 * with no activity task to schedule, dispatch and complete on the server. A step on a
 * worker that dies is retried once the workflow task times out (10 s) instead of after `stepMs`.
 */
export const localStepActivities = (timeouts: StepTimeouts = {}) =>
  proxyLocalActivities<Activities>({
    startToCloseTimeout: timeouts.stepMs ?? DEFAULT_STEP_MS,
    retry: { initialInterval: '200 milliseconds', backoffCoefficient: 2, maximumInterval: '5 seconds' },
  });

/** The create step, a local activity: the create call waits for it, so it skips a task round trip. */
export const creationActivities = (timeouts: StepTimeouts = {}) =>
  proxyLocalActivities<Activities>({
    startToCloseTimeout: timeouts.createMs ?? DEFAULT_CREATE_MS,
    retry: { initialInterval: '100 milliseconds', backoffCoefficient: 2, maximumInterval: '2 seconds', maximumAttempts: 5 },
  });

/** The same proxies with the default deadlines, for workflows whose input carries no timeouts. */
export const steps = stepActivities();
export const creation = creationActivities();
