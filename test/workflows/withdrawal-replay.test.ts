/**
 * Replay: histories of the withdrawal workflow, recorded with the current code on stub
 * activities (test/workflows/record-histories.ts) — completed at once, approved by an operator
 * and completed, refused by the network, one whose broadcast was still in flight, and the TRON
 * confirmation loop (submit, timers, checks, a resubmit, confirmed) — replay on today's code
 * without a nondeterminism error. A change that breaks one changes what open runs would do:
 * it ships under the rule of docs/operations.md ("Changing workflow code"), and the histories
 * are recorded again.
 *
 * (The histories are the proto objects as JSON; History.fromObject reads them back —
 * historyFromJSON of @temporalio/common trips over two protobufjs copies in this tree.)
 */
import { readdirSync, readFileSync } from 'node:fs';
import test from 'ava';
import proto from '@temporalio/proto';
import { DefaultLogger, Runtime, Worker, type InjectedSinks } from '@temporalio/worker';
import { tracedWorkflowBundle, workflowBundle } from '../helpers/workflow-env';

Runtime.install({ logger: new DefaultLogger('ERROR') });
const dir = new URL('./histories/', import.meta.url);
const files = readdirSync(dir).filter((f) => f.startsWith('withdrawal-') && f.endsWith('.json'));

test('recorded withdrawal histories (every path, the confirmation loop included) replay on today’s code', async (t) => {
  t.true(files.length >= 5);
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
