/**
 * Replay: the histories of test/workflows/histories/, recorded with the current code on stub
 * activities (test/workflows/record-histories.ts) through each workflow's paths, replay on
 * today's code without a nondeterminism error — untraced and with the OpenTelemetry workflow
 * interceptors a traced worker installs. A change that breaks one changes what open runs would
 * do: it ships under the rule of docs/operations.md ("Changing workflow code": a patch id with its
 * row in the register), and the histories are recorded again.
 *
 * (The histories are the proto objects as JSON; History.fromObject reads them back —
 * historyFromJSON of @temporalio/common trips over two protobufjs copies in this tree.)
 */
import { readdirSync, readFileSync } from 'node:fs';
import test from 'ava';
import proto from '@temporalio/proto';
import type { OpenTelemetrySinks } from '@temporalio/interceptors-opentelemetry';
import { DefaultLogger, Runtime, Worker, type InjectedSinks } from '@temporalio/worker';
import { tracedWorkflowBundle, workflowBundle } from '../helpers/workflow-env';

Runtime.install({ logger: new DefaultLogger('ERROR') });
const dir = new URL('./histories/', import.meta.url);
const files = readdirSync(dir).filter((f) => f.endsWith('.json'));
/** The traced worker's sink: workflow spans leave through it (not called on replay). */
const TRACED_SINKS: InjectedSinks<OpenTelemetrySinks> = { exporter: { export: { fn: () => {} } } };

/** What each workflow's recorded histories cover (the file names' prefix, and at least this many). */
const FAMILIES = [
  {
    prefix: 'payin-',
    least: 8,
    paths:
      'notify and confirm with the fee delay, a partial reconciliation, an amount change and cancel, expiry, an appeal, a sandbox advance, a refused and an adopted create',
  },
  { prefix: 'payout-', least: 6, paths: 'start and complete, the processing alert and reject, a re-match, both SLAs, a sandbox advance' },
  { prefix: 'appeal-', least: 1, paths: 'open, review, a refused reopen, a resolution and a close in one run, closing idle' },
  { prefix: 'withdrawal-', least: 5, paths: 'auto, approved, refused by the network, a broadcast in flight, the TRON confirmation loop' },
  { prefix: 'endpoint-', least: 2, paths: 'lanes with retries, a parked endpoint, a poisoned event, continue-as-new, the idle close' },
  { prefix: 'sandbox-trader-', least: 3, paths: 'a PayIn played to completion, a PayOut the deal refuses, an appeal decided' },
  { prefix: 'desk-notification-', least: 1, paths: 'an attempt refused, retried on the policy’s timer, delivered' },
] as const;

test('every recorded history belongs to a workflow the replay covers', (t) => {
  t.deepEqual(
    files.filter((f) => !FAMILIES.some(({ prefix }) => f.startsWith(prefix))),
    [],
  );
});

for (const { prefix, least, paths } of FAMILIES) {
  test(`recorded ${prefix.slice(0, -1)} histories (${paths}) replay on today’s code`, async (t) => {
    const mine = files.filter((f) => f.startsWith(prefix));
    t.true(mine.length >= least, `${mine.length} ${prefix} histories`);
    for (const file of mine) {
      const { workflowId, history } = JSON.parse(readFileSync(new URL(file, dir), 'utf8')) as { workflowId: string; history: unknown };
      for (const [bundle, label] of [
        [workflowBundle, 'untraced'],
        [tracedWorkflowBundle, 'traced'],
      ] as const) {
        const sinks = label === 'traced' ? { sinks: TRACED_SINKS } : {};
        await t.notThrowsAsync(
          Worker.runReplayHistory(
            { workflowBundle: await bundle(), ...sinks },
            proto.temporal.api.history.v1.History.fromObject(history as object),
            workflowId,
          ),
          `${file} (${label})`,
        );
      }
    }
  });
}
