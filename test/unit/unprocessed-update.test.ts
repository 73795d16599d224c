import { ServiceError, WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import test from 'ava';
import { isUnprocessedUpdate, unwrapUpdateFailure } from '../../api/services/deal-workflows';
import { TooManyInFlight } from '../../domain/errors';

/** A gRPC error as @grpc/grpc-js hands it to the Temporal client. */
function grpcError(code: number, details: string) {
  return Object.assign(new Error(`${code} ${details}`), { code, details, metadata: {} });
}

test('an update refused because the run’s workflow task failed is unprocessed: sent again, then 429, never 500', (t) => {
  const failedTask = new ServiceError('Workflow Update failed', {
    cause: grpcError(9, 'Unable to perform workflow execution update due to Workflow Task in failed state.'),
  });
  t.true(isUnprocessedUpdate(failedTask));
  t.true(unwrapUpdateFailure(failedTask) instanceof TooManyInFlight);
});

test('an update over the run’s in-flight limit is unprocessed: sent again, then 429; an aborted one may have been applied and is not', (t) => {
  const overLimit = new ServiceError('Workflow Update failed', {
    cause: grpcError(8, 'limit on number of concurrent in-flight updates has been reached (10)'),
  });
  t.true(isUnprocessedUpdate(overLimit));
  t.true(unwrapUpdateFailure(overLimit) instanceof TooManyInFlight);
  t.false(isUnprocessedUpdate(new ServiceError('Workflow Update failed', { cause: grpcError(14, 'workflow update was aborted') })));
});

test('an update no task processed is unprocessed', (t) => {
  const unprocessed = new WorkflowUpdateFailedError('update failed', ApplicationFailure.create({ type: 'UnprocessedUpdate', message: 'not processed' }));
  t.true(isUnprocessedUpdate(unprocessed));
});

test('other server refusals are not taken for an unprocessed update', (t) => {
  t.false(isUnprocessedUpdate(new ServiceError('Workflow Update failed', { cause: grpcError(9, 'workflow execution already completed') })));
  t.false(isUnprocessedUpdate(new ServiceError('Workflow Update failed', { cause: grpcError(14, 'Workflow Task in failed state') })));
  t.false(isUnprocessedUpdate(new ServiceError('Workflow Update failed', { cause: grpcError(8, 'namespace rate limit exceeded') })));
  t.false(isUnprocessedUpdate(new ServiceError('Workflow Update failed', { cause: grpcError(14, 'tcp connect error') })));
  t.false(isUnprocessedUpdate(new Error('Workflow Task in failed state')));
  const refused = new WorkflowUpdateFailedError('update failed', ApplicationFailure.create({ type: 'CONFLICT', message: 'already approved' }));
  t.false(isUnprocessedUpdate(refused));
});
