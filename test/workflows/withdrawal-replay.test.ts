/**
 * Replay compatibility: histories recorded with the withdrawal workflow as it was before issue 19
 * (broadcast → complete / fail, no confirmation loop) replay on today's code without a
 * nondeterminism error — finished ones and one whose broadcast was still in flight (that one
 * must keep the old command sequence: `patched()` is false for it). withdrawal-tron-confirmed.json
 * is the confirmation loop itself (submit, timers, checks, a resubmit, confirmed), recorded when
 * it was written, so a later change to the loop must keep it replaying too.
 *
 * (The histories are the proto objects as JSON; History.fromObject reads them back —
 * historyFromJSON of @temporalio/common trips over two protobufjs copies in this tree.)
 */
import { readdirSync, readFileSync } from 'node:fs';
import test from 'ava';
import proto from '@temporalio/proto';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { workflowBundle } from '../helpers/workflow-env';

Runtime.install({ logger: new DefaultLogger('ERROR') });
const dir = new URL('./histories/', import.meta.url);
const files = readdirSync(dir).filter((f) => f.startsWith('withdrawal-') && f.endsWith('.json'));

test('recorded withdrawal histories (before the confirmation loop, and of it) replay on today’s code', async (t) => {
  t.true(files.length >= 5);
  for (const file of files) {
    const { workflowId, history } = JSON.parse(readFileSync(new URL(file, dir), 'utf8')) as { workflowId: string; history: unknown };
    await t.notThrowsAsync(Worker.runReplayHistory({ workflowBundle: await workflowBundle() }, proto.temporal.api.history.v1.History.fromObject(history as object), workflowId), file);
  }
});
