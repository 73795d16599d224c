/**
 * Brings up the pieces of the stack on this machine for `npm start` and `npm test`:
 * Postgres (the given server, or a project-local cluster), the Temporal dev server, and the
 * API and worker processes. Every child is stopped by stopAll().
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chownSync, createWriteStream, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import postgres from 'postgres';
import { Connection, type TLSConfig } from '@temporalio/client';
import { SEARCH_ATTRIBUTES } from '../workflows/contracts/search-attributes';
import { taskQueuesPolled } from '../temporal/client';

export const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));
export const DATA_DIR = join(ROOT, '.data');
export const TEMPORAL_BIN = process.env.TEMPORAL_CLI ?? join(ROOT, '.tools', 'bin', 'temporal');

const children: { name: string; child: ChildProcess }[] = [];
const cleanups: (() => void)[] = [];

/** Pids of the children started so far, by name (the bench reads their CPU time from /proc). */
export function childPids(): Record<string, number> {
  return Object.fromEntries(children.filter(({ child }) => child.pid !== undefined).map(({ name, child }) => [name, child.pid!]));
}

export function say(line: string) {
  process.stdout.write(`[stack] ${line}\n`);
}

export async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolvePort(port));
    });
  });
}

export async function portIsFree(port: number): Promise<boolean> {
  return new Promise((done) => {
    const server = createServer();
    server.once('error', () => done(false));
    server.listen(port, '127.0.0.1', () => server.close(() => done(true)));
  });
}

async function serverAnswers(url: string): Promise<boolean> {
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const sql = postgres(admin.toString(), { max: 1, connect_timeout: 3, onnotice: () => {} });
  try {
    await sql`select 1`;
    return true;
  } catch {
    return false;
  } finally {
    await sql.end({ timeout: 1 }).catch(() => {});
  }
}

function postgresBinDir(): string {
  const fromPgConfig = spawnSync('pg_config', ['--bindir'], { encoding: 'utf8' });
  const candidates = [
    ...(fromPgConfig.status === 0 ? [fromPgConfig.stdout.trim()] : []),
    ...(existsSync('/usr/lib/postgresql')
      ? readdirSync('/usr/lib/postgresql')
          .sort((a, b) => Number(b) - Number(a))
          .map((v) => `/usr/lib/postgresql/${v}/bin`)
      : []),
  ];
  const dir = candidates.find((d) => existsSync(join(d, 'initdb')) && existsSync(join(d, 'pg_ctl')));
  if (!dir) throw new Error('no Postgres server binaries found (initdb, pg_ctl); install postgresql or set DATABASE_URL');
  return dir;
}

/** Postgres refuses to run as root: run the local cluster as the postgres (or nobody) user. */
function runAs(): { user?: string; uid?: number; gid?: number } {
  if (process.getuid?.() !== 0) return {};
  for (const user of ['postgres', 'nobody']) {
    const id = spawnSync('id', ['-u', user], { encoding: 'utf8' });
    const gid = spawnSync('id', ['-g', user], { encoding: 'utf8' });
    if (id.status === 0) return { user, uid: Number(id.stdout.trim()), gid: Number(gid.stdout.trim()) };
  }
  throw new Error('running as root and no postgres/nobody user to run a local cluster');
}

function runPg(binDir: string, tool: string, args: string[]) {
  const who = runAs();
  const result = spawnSync(join(binDir, tool), args, { encoding: 'utf8', uid: who.uid, gid: who.gid, cwd: '/tmp' });
  if (result.status !== 0) throw new Error(`${tool} failed: ${result.stderr || result.stdout}`);
  return result.stdout;
}

/**
 * Returns a server URL (without database) that answers: DATABASE_URL's server when it is up,
 * otherwise a project-local cluster in .data/pg started with the machine's binaries.
 */
export async function ensurePostgresServer(preferredUrl: string): Promise<{ url: string; local: boolean }> {
  if (await serverAnswers(preferredUrl)) return { url: preferredUrl, local: false };
  say(`Postgres at ${new URL(preferredUrl).host} does not answer; starting a project-local cluster in .data/pg`);
  const binDir = postgresBinDir();
  const pgData = join(DATA_DIR, 'pg');
  const socketDir = join(DATA_DIR, 'pg-socket');
  const portFile = join(DATA_DIR, 'pg.port');
  mkdirSync(socketDir, { recursive: true });
  const who = runAs();
  if (!existsSync(join(pgData, 'PG_VERSION'))) {
    mkdirSync(pgData, { recursive: true });
    if (who.uid !== undefined) chownSync(pgData, who.uid, who.gid!);
    runPg(binDir, 'initdb', ['-D', pgData, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-instructions']);
  }
  if (who.uid !== undefined) chownSync(socketDir, who.uid, who.gid!);
  const savedPort = existsSync(portFile) ? Number(readFileSync(portFile, 'utf8')) : 0;
  const candidateUrl = (port: number) => `postgres://postgres@127.0.0.1:${port}/postgres`;
  if (savedPort && (await serverAnswers(candidateUrl(savedPort)))) return { url: candidateUrl(savedPort), local: true };
  const port = savedPort && (await portIsFree(savedPort)) ? savedPort : await freePort();
  writeFileSync(portFile, String(port));
  runPg(binDir, 'pg_ctl', [
    '-D',
    pgData,
    '-l',
    join(pgData, 'server.log'),
    '-w',
    '-t',
    '60',
    '-o',
    `-p ${port} -k ${socketDir} -c listen_addresses=127.0.0.1 -c max_connections=200 -c fsync=off`,
    'start',
  ]);
  cleanups.push(() => {
    try {
      runPg(binDir, 'pg_ctl', ['-D', pgData, '-m', 'fast', '-w', 'stop']);
    } catch {
      /* already stopped */
    }
  });
  return { url: candidateUrl(port), local: true };
}

export function withDatabase(serverUrl: string, database: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

/** Quiet children write to .data/logs/<name>.log instead of the console. */
function pipeOutput(name: string, child: ChildProcess, quiet: boolean) {
  if (quiet) {
    mkdirSync(join(DATA_DIR, 'logs'), { recursive: true });
    const file = createWriteStream(join(DATA_DIR, 'logs', `${name}.log`), { flags: 'a' });
    child.stdout?.pipe(file);
    child.stderr?.pipe(file);
    return;
  }
  const prefix = (chunk: Buffer) =>
    chunk
      .toString()
      .split('\n')
      .filter((l) => l.length > 0)
      .map((l) => `[${name}] ${l}\n`)
      .join('');
  child.stdout?.on('data', (chunk: Buffer) => process.stdout.write(prefix(chunk)));
  child.stderr?.on('data', (chunk: Buffer) => process.stderr.write(prefix(chunk)));
}

export function startProcess(name: string, command: string, args: string[], env: NodeJS.ProcessEnv, options: { quiet?: boolean } = {}): ChildProcess {
  const child = spawn(command, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  pipeOutput(name, child, options.quiet ?? false);
  children.push({ name, child });
  child.on('exit', (code, signal) => {
    if (!stopping && code !== 0) say(`${name} exited (${signal ?? code})`);
  });
  return child;
}

/**
 * Runs a TypeScript entrypoint of this project under tsx. STACK_PROFILE_DIR=<dir> writes a V8
 * CPU profile of each process and thread into <dir>/<name>/ when it exits (open it in Chrome
 * DevTools); the workflow worker thread gets a file of its own beside the main thread's.
 */
export function startNode(name: string, entry: string, env: NodeJS.ProcessEnv, options: { quiet?: boolean } = {}) {
  const profile = process.env.STACK_PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${join(process.env.STACK_PROFILE_DIR, name)}`] : [];
  return startProcess(name, process.execPath, [...profile, '--import', 'tsx', join(ROOT, entry)], env, options);
}

/**
 * The worker: with `split` two processes, `<prefix>worker` (deal work, no relay) and
 * `<prefix>webhooks` (deliveries and the relay) at a lower OS priority (WORKER_NICE, default 10),
 * so deal work gets the CPU first; otherwise one `<prefix>worker` polling both. WORKER_SPLIT
 * (1/true, 0/false) overrides `split`.
 */
/** The metric ports of one worker process (its gateway metrics + /health, the Temporal SDK's exporter). */
export interface WorkerPorts {
  name: string;
  metrics: number;
  sdkMetrics: number;
}

/**
 * Starts the worker process(es); each gets its own metric ports (free ones, or from
 * `basePort`: deals worker base, base+1; webhooks worker base+2, base+3). Returns them.
 */
export async function startWorkers(
  prefix: string,
  env: NodeJS.ProcessEnv,
  options: { split: boolean; quiet?: boolean; basePort?: number },
): Promise<WorkerPorts[]> {
  const wanted = process.env.WORKER_SPLIT;
  const split = wanted === undefined || wanted === '' ? options.split : wanted === '1' || wanted === 'true';
  const output = { quiet: options.quiet };
  const ports = async (name: string, index: number): Promise<WorkerPorts> =>
    options.basePort === undefined
      ? { name, metrics: await freePort(), sdkMetrics: await freePort() }
      : { name, metrics: options.basePort + 2 * index, sdkMetrics: options.basePort + 2 * index + 1 };
  const withPorts = (p: WorkerPorts, extra: NodeJS.ProcessEnv): NodeJS.ProcessEnv => ({
    ...env,
    ...extra,
    WORKER_METRICS_PORT: String(p.metrics),
    TEMPORAL_SDK_METRICS_PORT: String(p.sdkMetrics),
  });
  if (!split) {
    const p = await ports(`${prefix}worker`, 0);
    startNode(p.name, 'workers/main.ts', withPorts(p, {}), output);
    return [p];
  }
  const deals = await ports(`${prefix}worker`, 0);
  const webhooks = await ports(`${prefix}webhooks`, 1);
  startNode(deals.name, 'workers/main.ts', withPorts(deals, { WORKER_ROLE: 'deals', OUTBOX_RELAY: 'false' }), output);
  startNode(
    webhooks.name,
    'workers/main.ts',
    withPorts(webhooks, { WORKER_ROLE: 'webhooks', WORKER_NICE: env.WORKER_NICE ?? process.env.WORKER_NICE ?? '10' }),
    output,
  );
  return [deals, webhooks];
}

/**
 * One more worker process beside running ones (a replica: the same env, role and relay; its own
 * metric ports), e.g. to prove two workers share the work. Its pg connections carry its name as
 * application_name, so pg_stat_activity and pg_locks tell it apart. stopAll() stops it with the
 * rest; the caller may SIGKILL it earlier through `child`.
 */
export async function startExtraWorker(
  name: string,
  env: NodeJS.ProcessEnv,
  options: { quiet?: boolean } = {},
): Promise<WorkerPorts & { child: ChildProcess }> {
  const ports: WorkerPorts = { name, metrics: await freePort(), sdkMetrics: await freePort() };
  const databaseUrl = new URL(env.DATABASE_URL ?? process.env.DATABASE_URL ?? '');
  databaseUrl.searchParams.set('application_name', name);
  const child = startNode(
    name,
    'workers/main.ts',
    { ...env, DATABASE_URL: databaseUrl.toString(), WORKER_METRICS_PORT: String(ports.metrics), TEMPORAL_SDK_METRICS_PORT: String(ports.sdkMetrics) },
    { quiet: options.quiet ?? true },
  );
  return { ...ports, child };
}

export async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs = 120_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (
      await check().catch((error: Error) => {
        if (/exited/.test(error.message)) throw error; // a child that died will not answer
        return false;
      })
    )
      return;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`timed out waiting for ${what}`);
}

export async function temporalAnswers(address: string, tls?: TLSConfig): Promise<boolean> {
  try {
    const connection = await Connection.connect({ address, connectTimeout: 1000, ...(tls ? { tls } : {}) });
    try {
      await connection.workflowService.getSystemInfo({});
      return true;
    } finally {
      await connection.close();
    }
  } catch {
    return false;
  }
}

/**
 * Starts the Temporal dev server with the gateway's search attributes registered; with a UI,
 * `codecEndpoint` makes it decode payloads through the API's codec endpoint (api/codec.ts).
 */
export async function startTemporal(options: {
  port: number;
  uiPort?: number;
  codecEndpoint?: string;
  dbFile?: string;
  metricsPort?: number;
  quiet?: boolean;
}) {
  if (!existsSync(TEMPORAL_BIN)) throw new Error(`Temporal CLI not found at ${TEMPORAL_BIN} (scripts/run.sh builds it)`);
  const args = ['server', 'start-dev', '--ip', '127.0.0.1', '--port', String(options.port), '--log-level', 'warn'];
  args.push(...(options.uiPort ? ['--ui-port', String(options.uiPort)] : ['--headless']));
  if (options.uiPort && options.codecEndpoint) args.push('--ui-codec-endpoint', options.codecEndpoint);
  if (options.dbFile) args.push('--db-filename', options.dbFile);
  // The server's own Prometheus metrics (service, persistence, matching…) for the Temporal server
  // dashboard and alerts; without the flag the dev server exports none.
  if (options.metricsPort) args.push('--metrics-port', String(options.metricsPort));
  for (const [key, type] of Object.entries(SEARCH_ATTRIBUTES)) args.push('--search-attribute', `${key}=${type}`);
  // Same switch as config/temporal/dynamic.yaml: an activity scheduled by a workflow task goes
  // back to the completing worker in the response (no matching round trip, no poll).
  if (process.env.TEMPORAL_EAGER_ACTIVITIES !== 'false') args.push('--dynamic-config-value', 'system.enableActivityEagerExecution=true');
  // Extra start-dev flags for experiments, e.g. "--dynamic-config-value k=v --sqlite-pragma journal_mode=wal".
  args.push(...(process.env.TEMPORAL_DEV_ARGS ?? '').split(' ').filter(Boolean));
  startProcess('temporal', TEMPORAL_BIN, args, {}, { quiet: options.quiet ?? true });
  const address = `127.0.0.1:${options.port}`;
  await waitFor('the Temporal dev server', () => temporalAnswers(address));
  return address;
}

export async function waitForHttp(url: string) {
  await waitFor(url, async () => (await fetch(url)).status < 500);
}

/**
 * Ready means served: the API answers and a worker polls every task queue (DescribeTaskQueue).
 * Until the first poll, every workflow start waits for it, which once showed up as a 2-3 s p99.
 */
export async function waitForWorkers(options: { address: string; namespace: string; taskQueues: string[]; tls?: TLSConfig }) {
  const started = Date.now();
  const connection = await Connection.connect({ address: options.address, ...(options.tls ? { tls: options.tls } : {}) });
  try {
    await waitFor(`workers polling ${options.taskQueues.join(', ')}`, async () => {
      const polled = await taskQueuesPolled(connection.workflowService, options.namespace, options.taskQueues);
      return Object.values(polled).every(Boolean);
    });
  } finally {
    await connection.close();
  }
  return Date.now() - started;
}

let stopping = false;

export async function stopAll() {
  if (stopping) return;
  stopping = true;
  // API and worker first (they drain), Temporal last.
  for (const { child } of [...children].reverse()) {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
  }
  await Promise.all(
    children.map(
      ({ child }) =>
        new Promise<void>((done) => {
          if (child.exitCode !== null || child.signalCode !== null) return done();
          const timer = setTimeout(() => {
            child.kill('SIGKILL');
            done();
          }, 10_000);
          child.once('exit', () => {
            clearTimeout(timer);
            done();
          });
        }),
    ),
  );
  for (const cleanup of cleanups.reverse()) cleanup();
}

export function onInterrupt(handler: () => Promise<void>) {
  let count = 0;
  const run = (signal: string) => {
    count += 1;
    if (count > 1) process.exit(130);
    say(`${signal}: stopping everything`);
    void handler().finally(() => process.exit(130));
  };
  process.on('SIGINT', () => run('SIGINT'));
  process.on('SIGTERM', () => run('SIGTERM'));
}
