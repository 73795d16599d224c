/**
 * Replay: histories of the endpoint stream (workflows/webhook-endpoint.ts), recorded with the
 * current code on stub activities (test/workflows/record-histories.ts) — lanes side by side with
 * a retried head, a parked endpoint, a poisoned event, a repeated callback and a second signal,
 * closing idle; and a run that continues as new with a head mid-schedule — replay on today's code
 * without a nondeterminism error. A change that breaks one changes what open runs would do: it
 * ships under the rule of docs/operations.md ("Changing workflow code"), and the histories are
 * recorded again. (Read back as in withdrawal-replay.test.ts.)
 */
import { readdirSync, readFileSync } from 'node:fs';
import test from 'ava';
import proto from '@temporalio/proto';
import { DefaultLogger, Runtime, Worker, type InjectedSinks } from '@temporalio/worker';
import { tracedWorkflowBundle, workflowBundle } from '../helpers/workflow-env';

Runtime.install({ logger: new DefaultLogger('ERROR') });
const dir = new URL('./histories/', import.meta.url);
const files = readdirSync(dir).filter((f) => f.startsWith('endpoint-') && f.endsWith('.json'));

test('recorded endpoint stream histories (lanes, retries, a parked endpoint, continue-as-new, the idle close) replay on today’s code', async (t) => {
  t.true(files.length >= 2);
  for (const file of files) {
    const { workflowId, history } = JSON.parse(readFileSync(new URL(file, dir), 'utf8')) as { workflowId: string; history: unknown };
    // As a worker replays them with tracing off and with it on (the OpenTelemetry workflow interceptors installed).
    for (const [bundle, label] of [
      [workflowBundle, 'untraced'],
      [tracedWorkflowBundle, 'traced'],
    ] as const) {
      // The traced worker's sink (workflow spans leave through it; not called on replay).
      const sinks: InjectedSinks<any> = label === 'traced' ? { exporter: { export: { fn: () => {} } } } : {};
      await t.notThrowsAsync(
        Worker.runReplayHistory({ workflowBundle: await bundle(), sinks }, proto.temporal.api.history.v1.History.fromObject(history as object), workflowId),
        `${file} (${label})`,
      );
    }
  }
});
