/**
 * The core of `npm run runs` (scripts/runs.ts) on the suite's Temporal: open runs are counted per
 * workflow type and per build (the build of the code the report is made for marked as such), the
 * ones that recorded a patch marker per patch id, and a type the code does not register is
 * flagged. Scoped to the test's own task queue.
 */
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import test from 'ava';
import { bundleWorkflowCode, DefaultLogger, Worker } from '@temporalio/worker';
import { currentBuildId, formatRuns, openRuns } from '../../scripts/runs';
import { eventually } from '../helpers/poll';
import { workflowEnvironment } from '../helpers/workflow-env';

const env = await workflowEnvironment();
test.after.always(() => env.teardown());
const FIXTURE = fileURLToPath(new URL('./fixtures/runs-workflows.ts', import.meta.url));

test('open runs per workflow type and build, patch markers per patch id; closed runs leave the report', async (t) => {
  const taskQueue = `runs-test-${randomUUID()}`;
  const where = `TaskQueue = "${taskQueue}"`;
  const worker = await Worker.create({
    connection: env.nativeConnection,
    namespace: env.namespace ?? 'default',
    taskQueue,
    workflowBundle: await bundleWorkflowCode({ workflowsPath: FIXTURE, logger: new DefaultLogger('ERROR') }),
  });
  const buildId = await currentBuildId(FIXTURE);
  await worker.runUntil(async () => {
    const handles = await Promise.all(
      ['patchedWaiter', 'patchedWaiter', 'plainWaiter'].map((type) => env.client.workflow.start(type, { taskQueue, workflowId: `runs-test-${randomUUID()}` })),
    );
    const report = await eventually(async () => {
      const r = await openRuns(env.client, where);
      const settled = r.total === 3 && r.types.every((x) => x.versions.every((v) => v.version !== 'unknown')) && r.patches[0]?.runs === 2;
      return settled && r;
    }, 'the three runs in visibility, each with its build and markers');
    t.deepEqual(report, {
      total: 3,
      types: [
        { type: 'patchedWaiter', runs: 2, versions: [{ version: buildId, runs: 2 }] },
        { type: 'plainWaiter', runs: 1, versions: [{ version: buildId, runs: 1 }] },
      ],
      patches: [{ patch: 'runs-test-patch', runs: 2, types: [{ type: 'patchedWaiter', runs: 2 }] }],
    });
    const text = formatRuns(report, { registered: ['patchedWaiter'], buildId }, 'default');
    t.regex(text, /open workflow runs in namespace default: 3/);
    t.regex(text, /patchedWaiter +2\n +2 {2}\S+ {3}\(this code\)/);
    t.regex(text, /plainWaiter +1 {3}NOT IN THIS CODE/);
    t.regex(text, /runs-test-patch +2 {2}\(patchedWaiter 2\)/);
    t.notRegex(formatRuns(report, { registered: ['patchedWaiter', 'plainWaiter'], buildId: 'another-build' }, 'default'), /this code|NOT IN THIS CODE/);

    await Promise.all(handles.map((h) => h.signal('finish')));
    await Promise.all(handles.map((h) => h.result()));
    const after = await eventually(async () => {
      const r = await openRuns(env.client, where);
      return r.total === 0 && r.types.length === 0 && r;
    }, 'the closed runs out of the report');
    t.deepEqual(after, { total: 0, types: [], patches: [] });
    t.regex(formatRuns(after, { registered: [], buildId }, 'default'), /none: no open run needs a patched\(\) branch/);
  });
});
