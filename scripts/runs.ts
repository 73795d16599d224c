/**
 * npm run runs: the open (Running) workflow runs per workflow type and per code version, and the
 * open runs that recorded a patch marker, per patch id — what an operator checks before code kept
 * for old runs may go (docs/operations.md, "Changing workflow code"). Reads Temporal's visibility
 * (count and list queries), which may lag a moment behind. Uses the Temporal settings
 * (TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE …), so it works against `npm start`'s Temporal and any
 * other; `--json` prints the report as JSON, `--where '<visibility clause>'` narrows it.
 *
 * The version of a run: its Worker Deployment Version (`TemporalWorkerDeploymentVersion`, with
 * its versioning behavior) once workers run with Worker Versioning; otherwise the build ids of the
 * workers that ran its workflow tasks (`BuildIds`) — today the SDK's default,
 * `@temporalio/worker@<version>+<sha256 of the workflow bundle>`, so one per workflow code. The
 * build of this checkout's workflow code is marked ("this code"); a type this code does not
 * register is flagged: its open runs have no worker to go on.
 */
import { createHash } from 'node:crypto';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Client, WorkflowExecutionInfo } from '@temporalio/client';
import { defineSearchAttributeKey } from '@temporalio/common';
import { bundleWorkflowCode, DefaultLogger } from '@temporalio/worker';
import { loadConfig } from '../config';
import { createTemporalClient } from '../temporal/client';

const BuildIdsKey = defineSearchAttributeKey('BuildIds', 'KEYWORD_LIST');
const ChangeVersionKey = defineSearchAttributeKey('TemporalChangeVersion', 'KEYWORD_LIST');
const DeploymentVersionKey = defineSearchAttributeKey('TemporalWorkerDeploymentVersion', 'KEYWORD');
const VersioningBehaviorKey = defineSearchAttributeKey('TemporalWorkflowVersioningBehavior', 'KEYWORD');

const WORKFLOWS_PATH = fileURLToPath(new URL('../workflows/index.ts', import.meta.url));

export interface OpenRuns {
  /** Open runs in scope (a count query). */
  total: number;
  /** Per workflow type: its open runs (a count query) and how the listed ones split by version. */
  types: { type: string; runs: number; versions: { version: string; runs: number }[] }[];
  /** Per patch id recorded by open runs (TemporalChangeVersion): its open runs, and of which types. */
  patches: { patch: string; runs: number; types: { type: string; runs: number }[] }[];
}

const quoted = (value: string) => `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;

/**
 * The code version a run is on: its deployment version (and behavior) under Worker Versioning,
 * else the build ids its workflow tasks ran on ('unversioned:' dropped), else 'unknown' (no task
 * completed yet).
 */
export function versionOf(run: Pick<WorkflowExecutionInfo, 'typedSearchAttributes'>): string {
  const attributes = run.typedSearchAttributes;
  const deployment = attributes.get(DeploymentVersionKey);
  if (deployment) return `${deployment} (${attributes.get(VersioningBehaviorKey) || 'no behavior'})`;
  const builds = (attributes.get(BuildIdsKey) ?? []).filter((id) => id !== 'unversioned').map((id) => id.replace(/^unversioned:/, ''));
  return builds.length > 0 ? builds.join(' + ') : 'unknown';
}

/** The open runs in scope (`where`: an extra visibility clause), per type and version, and per patch marker. */
export async function openRuns(client: Client, where?: string): Promise<OpenRuns> {
  const scope = `ExecutionStatus = "Running"${where ? ` AND (${where})` : ''}`;
  const count = async (clause: string) => (await client.workflow.count(`${scope} AND ${clause}`)).count;
  const versions = new Map<string, Map<string, number>>();
  const patches = new Map<string, Map<string, number>>();
  const add = (into: Map<string, Map<string, number>>, key: string, sub: string) => {
    const counts = into.get(key) ?? new Map<string, number>();
    counts.set(sub, (counts.get(sub) ?? 0) + 1);
    into.set(key, counts);
  };
  for await (const run of client.workflow.list({ query: scope })) {
    add(versions, run.type, versionOf(run));
    for (const patch of run.typedSearchAttributes.get(ChangeVersionKey) ?? []) add(patches, patch, run.type);
  }
  const sorted = (counts: Map<string, number>) => [...counts].sort(([a, x], [b, y]) => y - x || a.localeCompare(b));
  return {
    total: (await client.workflow.count(scope)).count,
    types: await Promise.all(
      [...versions.keys()].sort().map(async (type) => ({
        type,
        runs: await count(`WorkflowType = ${quoted(type)}`),
        versions: sorted(versions.get(type)!).map(([version, runs]) => ({ version, runs })),
      })),
    ),
    patches: await Promise.all(
      [...patches.keys()].sort().map(async (patch) => ({
        patch,
        runs: await count(`TemporalChangeVersion = ${quoted(patch)}`),
        types: sorted(patches.get(patch)!).map(([type, runs]) => ({ type, runs })),
      })),
    ),
  };
}

/**
 * The build id a worker started from this directory gets for this workflow code by default, derived
 * as @temporalio/worker 1.24 derives it (Worker.create: `addBuildIdIfMissing` over the code
 * `parseWorkflowCode` loads): SDK name and version + sha256 of the bundle whose inline source map
 * names its file by an absolute path from the working directory. The workers and this command both
 * run from the project root (npm scripts; WORKDIR in the image). test/workflows/runs.test.ts checks
 * it against a worker's, so an SDK upgrade that derives it otherwise fails there.
 */
export async function currentBuildId(workflowsPath = WORKFLOWS_PATH): Promise<string> {
  const { code } = await bundleWorkflowCode({ workflowsPath, logger: new DefaultLogger('ERROR') });
  const mapAt = code.lastIndexOf('//# sourceMappingURL=data:');
  const sourceMap = JSON.parse(Buffer.from(code.slice(code.indexOf('base64,', mapAt) + 'base64,'.length).trimEnd(), 'base64').toString());
  sourceMap.file = resolve(process.cwd(), sourceMap.file);
  const loaded = `${code.slice(0, mapAt)}\n//# sourceMappingURL=data:application/json;base64,${Buffer.from(JSON.stringify(sourceMap)).toString('base64')}`;
  const sdk = (await import('@temporalio/worker/package.json', { with: { type: 'json' } })).default;
  return `${sdk.name}@${sdk.version}+${createHash('sha256').update(loaded).digest('hex')}`;
}

/** The report as text: `registered` are the workflow types this code runs, `buildId` its build. */
export function formatRuns(report: OpenRuns, current: { registered: string[]; buildId?: string }, namespace: string): string {
  const lines = [`open workflow runs in namespace ${namespace}: ${report.total} (visibility; it may lag a moment)`];
  if (report.types.length > 0) {
    lines.push('', 'per workflow type, then per version (deployment version, else build id):');
    for (const { type, runs, versions } of report.types) {
      lines.push(`  ${type.padEnd(28)} ${String(runs).padStart(6)}${current.registered.includes(type) ? '' : '   NOT IN THIS CODE: no worker runs them'}`);
      for (const v of versions) {
        const mine = current.buildId !== undefined && v.version.split(' + ').some((id) => id === current.buildId || id.endsWith(`:${current.buildId}`));
        lines.push(`    ${String(v.runs).padStart(6)}  ${v.version}${mine ? '   (this code)' : ''}`);
      }
    }
  }
  lines.push('', 'patch markers on open runs (TemporalChangeVersion):');
  if (report.patches.length === 0) lines.push('  none: no open run needs a patched() branch');
  for (const { patch, runs, types } of report.patches) {
    lines.push(`  ${patch.padEnd(40)} ${String(runs).padStart(6)}  (${types.map((t) => `${t.type} ${t.runs}`).join(', ')})`);
    lines.push(`    list them: TemporalChangeVersion = ${quoted(patch)} AND ExecutionStatus = "Running"`);
  }
  return lines.join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const args = process.argv.slice(2);
  const whereAt = args.indexOf('--where');
  const where = whereAt >= 0 ? args[whereAt + 1] : undefined;
  const config = loadConfig();
  const client = await createTemporalClient(config);
  try {
    const [report, registered, buildId] = await Promise.all([
      openRuns(client, where),
      import('../workflows/index').then((workflows) => Object.keys(workflows)),
      currentBuildId().catch(() => undefined),
    ]);
    console.log(
      args.includes('--json')
        ? JSON.stringify({ ...report, current: { registered, buildId } }, null, 2)
        : formatRuns(report, { registered, buildId }, config.TEMPORAL_NAMESPACE),
    );
  } finally {
    await client.connection.close();
  }
}
