/**
 * TEMPORAL_MODE=server (the default of `npm start`): the real Temporal server
 * (go.temporal.io/server at versions.env's TEMPORAL_SERVER_VERSION, built once by scripts/run.sh) on the project's Postgres, in
 * databases of its own, set up and upgraded by the server's schema tool; its config rendered from
 * config/temporal/server.yaml.tmpl at every start; the namespace and the gateway's search
 * attributes registered; the Web UI from the UI server the CLI embeds. The same shape as
 * docker-compose (Temporal on Postgres), so local and production behave alike.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import postgres from 'postgres';
import { Connection } from '@temporalio/client';
import type { google } from '@temporalio/proto';
import { SEARCH_ATTRIBUTES } from '../workflows/contracts/search-attributes';
import { DATA_DIR, portIsFree, ROOT, say, startProcess, temporalAnswers, waitFor, withDatabase } from './stack';
import { version } from './versions';

/** protobufjs types int64 fields as Long; it takes a number as well. */
type ProtoSeconds = NonNullable<google.protobuf.IDuration['seconds']>;

// Go module versions (v-prefixed) of the pins in versions.env, which docker-compose.yml's images match.
export const TEMPORAL_SERVER_VERSION = `v${version('TEMPORAL_SERVER_VERSION')}`;
export const TEMPORAL_UI_VERSION = `v${version('TEMPORAL_UI_VERSION')}`;
const TOOLS = join(ROOT, '.tools');
export const SERVER_DIR = process.env.TEMPORAL_SERVER_DIR ?? join(TOOLS, `temporal-server-${TEMPORAL_SERVER_VERSION}`);
const SERVER_BIN = join(SERVER_DIR, 'bin', 'server');
const SQL_TOOL = join(SERVER_DIR, 'bin', 'sql');
const UI_BIN = process.env.TEMPORAL_UI_BIN ?? join(TOOLS, `temporal-ui-${TEMPORAL_UI_VERSION}`, 'bin', 'server');

export type TemporalMode = 'server' | 'dev-file' | 'dev-memory';

export function temporalMode(fallback: TemporalMode): TemporalMode {
  const mode = process.env.TEMPORAL_MODE ?? fallback;
  if (mode !== 'server' && mode !== 'dev-file' && mode !== 'dev-memory') {
    throw new Error(`TEMPORAL_MODE must be server, dev-file or dev-memory (got ${mode})`);
  }
  return mode;
}

function render(template: string, values: Record<string, string | number>): string {
  return template.replace(/\$\{([A-Z_]+)\}/g, (_, key: string) => {
    if (!(key in values)) throw new Error(`template placeholder \${${key}} has no value`);
    return String(values[key]);
  });
}

/** The schema files ship with the server module (run.sh copies them next to the binaries). */
function schemaDir(): string {
  const copied = join(SERVER_DIR, 'schema', 'postgresql', 'v12');
  if (existsSync(copied)) return copied;
  const modCache = spawnSync('go', ['env', 'GOMODCACHE'], { encoding: 'utf8' }).stdout?.trim();
  const inCache = modCache ? join(modCache, `go.temporal.io/server@${TEMPORAL_SERVER_VERSION}`, 'schema', 'postgresql', 'v12') : '';
  if (inCache && existsSync(inCache)) return inCache;
  throw new Error(`Temporal's Postgres schema not found in ${copied} (scripts/run.sh installs it)`);
}

function sqlTool(server: URL, database: string, args: string[]) {
  const base = [
    '--plugin',
    'postgres12',
    '--ep',
    server.hostname,
    '--port',
    server.port || '5432',
    '--user',
    decodeURIComponent(server.username || 'postgres'),
    '--password',
    decodeURIComponent(server.password),
    '--db',
    database,
  ];
  const result = spawnSync(SQL_TOOL, [...base, ...args], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`temporal sql tool ${args[0]} on ${database} failed: ${result.stderr || result.stdout}`);
}

/** Creates the two databases when missing and brings their schemas to the binary's version (idempotent). */
export async function prepareTemporalDatabases(serverUrl: string, databases: { main: string; visibility: string }) {
  const server = new URL(serverUrl);
  const admin = postgres(withDatabase(serverUrl, 'postgres'), { max: 1, onnotice: () => {} });
  try {
    for (const [kind, database] of [
      ['temporal', databases.main],
      ['visibility', databases.visibility],
    ] as const) {
      const [exists] = await admin`select 1 from pg_database where datname = ${database}`;
      if (!exists) sqlTool(server, database, ['create-database']);
      const db = postgres(withDatabase(serverUrl, database), { max: 1, onnotice: () => {} });
      const [versioned] = await db`select to_regclass('public.schema_version') as t`.finally(() => db.end());
      if (!versioned?.t) sqlTool(server, database, ['setup-schema', '-v', '0.0']);
      sqlTool(server, database, ['update-schema', '-d', join(schemaDir(), kind, 'versioned')]);
    }
  } finally {
    await admin.end();
  }
}

export async function dropTemporalDatabases(serverUrl: string, databases: { main: string; visibility: string }) {
  const admin = postgres(withDatabase(serverUrl, 'postgres'), { max: 1, onnotice: () => {} });
  for (const database of [databases.main, databases.visibility]) {
    await admin.unsafe(`drop database if exists "${database}" with (force)`).catch(() => {});
  }
  await admin.end();
}

/** Registers the namespace and the search attributes, then waits until the frontend serves the namespace. */
async function registerNamespace(address: string, namespace: string) {
  const connection = await Connection.connect({ address });
  try {
    try {
      await connection.workflowService.registerNamespace({
        namespace,
        workflowExecutionRetentionPeriod: { seconds: (3 * 24 * 3600) as unknown as ProtoSeconds },
      });
      say(`registered the Temporal namespace ${namespace}`);
    } catch (error) {
      if (!/already exists|AlreadyExists/i.test(String((error as Error).message))) throw error;
    }
    const existing = await connection.operatorService.listSearchAttributes({ namespace });
    const missing = Object.keys(SEARCH_ATTRIBUTES).filter((name) => !(name in (existing.customAttributes ?? {})));
    if (missing.length > 0) {
      await connection.operatorService.addSearchAttributes({
        namespace,
        searchAttributes: Object.fromEntries(missing.map((name) => [name, 2 /* INDEXED_VALUE_TYPE_KEYWORD */])),
      });
      say(`registered search attributes ${missing.join(', ')}`);
    }
    // A new namespace reaches the frontend's cache within ~10 s; until then calls fail NotFound.
    await waitFor(`namespace ${namespace} served`, async () => {
      await connection.workflowService.describeTaskQueue({ namespace, taskQueue: { name: 'readiness-probe', kind: 1 }, taskQueueType: 1 });
      return true;
    });
  } finally {
    await connection.close();
  }
}

const DERIVED_PORT_OFFSETS = [0, 1, 2, 6, 10, -300, -299, -298, -294, 767];

/** Where the server's Prometheus metrics listen (config/temporal/server.yaml.tmpl, global.metrics): /metrics there. */
export function temporalServerMetricsPort(frontendPort: number): number {
  return frontendPort + 767;
}

/** A frontend port whose derived ports (see startTemporalServer) are all free, for throwaway stacks. */
export async function freeServerPort(): Promise<number> {
  for (let i = 0; i < 50; i += 1) {
    // Membership ports are stored as a Postgres smallint: every port stays below 32768.
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    const free = await Promise.all(DERIVED_PORT_OFFSETS.map((offset) => portIsFree(port + offset)));
    if (free.every(Boolean)) return port;
  }
  throw new Error('no free block of ports for a Temporal server');
}

export interface TemporalServerOptions {
  /** Postgres server URL (any database; the user and host are taken from it). */
  postgresUrl: string;
  port: number;
  uiPort?: number;
  codecEndpoint?: string;
  namespace?: string;
  databases?: { main: string; visibility: string };
  shards?: number;
  quiet?: boolean;
}

/** Starts the server (and its UI when asked); resolves with its address once the namespace is served. */
export async function startTemporalServer(options: TemporalServerOptions): Promise<string> {
  for (const bin of [SERVER_BIN, SQL_TOOL]) {
    if (!existsSync(bin)) throw new Error(`${bin} is missing: scripts/run.sh builds it (or use TEMPORAL_MODE=dev-file)`);
  }
  const databases = options.databases ?? {
    main: process.env.TEMPORAL_DB ?? 'temporal',
    visibility: process.env.TEMPORAL_VISIBILITY_DB ?? 'temporal_visibility',
  };
  await prepareTemporalDatabases(options.postgresUrl, databases);

  const pg = new URL(options.postgresUrl);
  const port = options.port;
  // Every other port is derived from the frontend's, as 7233 → 7234/7235/7239 and 6933… by default.
  const ports = {
    FRONTEND_PORT: port,
    FRONTEND_HTTP_PORT: port + 10,
    HISTORY_PORT: port + 1,
    MATCHING_PORT: port + 2,
    WORKER_PORT: port + 6,
    FRONTEND_MEMBERSHIP_PORT: port - 300,
    HISTORY_MEMBERSHIP_PORT: port - 299,
    MATCHING_MEMBERSHIP_PORT: port - 298,
    WORKER_MEMBERSHIP_PORT: port - 294,
    METRICS_PORT: temporalServerMetricsPort(port),
  };
  const dir = join(DATA_DIR, `temporal-server-${port}`);
  mkdirSync(join(dir, 'config'), { recursive: true });
  const templates = join(ROOT, 'config', 'temporal');
  writeFileSync(
    join(dir, 'config', 'development.yaml'),
    render(readFileSync(join(templates, 'server.yaml.tmpl'), 'utf8'), {
      ...ports,
      LOG_LEVEL: process.env.TEMPORAL_LOG_LEVEL ?? 'warn',
      HISTORY_SHARDS: options.shards ?? Number(process.env.TEMPORAL_HISTORY_SHARDS ?? 4),
      DB: databases.main,
      VISIBILITY_DB: databases.visibility,
      PG_HOST: pg.hostname,
      PG_PORT: pg.port || '5432',
      PG_USER: decodeURIComponent(pg.username || 'postgres'),
      PG_PASSWORD: decodeURIComponent(pg.password),
      DYNAMIC_CONFIG: join(templates, 'dynamic.yaml'),
    }),
  );
  const address = `127.0.0.1:${port}`;
  const child = startProcess(
    'temporal-server',
    SERVER_BIN,
    ['--root', dir, '--config', 'config', '--env', 'development', '--allow-no-auth', 'start'],
    {},
    { quiet: options.quiet ?? true },
  );
  await waitFor(
    'the Temporal server',
    async () => {
      if (child.exitCode !== null) throw new Error(`the Temporal server exited (${child.exitCode}); see .data/logs/temporal-server.log`);
      return temporalAnswers(address);
    },
    180_000,
  );
  await registerNamespace(address, options.namespace ?? 'default');

  if (options.uiPort) {
    if (existsSync(UI_BIN)) {
      writeFileSync(
        join(dir, 'config', 'ui.yaml'),
        render(readFileSync(join(templates, 'ui.yaml.tmpl'), 'utf8'), {
          FRONTEND_PORT: port,
          UI_PORT: options.uiPort,
          CODEC_ENDPOINT: options.codecEndpoint ?? '',
          // Read-only unless asked (as in compose): TEMPORAL_UI_DISABLE_WRITE_ACTIONS=false turns terminate, reset, signal… on.
          DISABLE_WRITE_ACTIONS: process.env.TEMPORAL_UI_DISABLE_WRITE_ACTIONS === 'false' ? 'false' : 'true',
        }),
      );
      startProcess('temporal-ui', UI_BIN, ['--root', dir, '--config', 'config', '--env', 'ui', 'start'], {}, { quiet: options.quiet ?? true });
    } else {
      say(`the Temporal UI server is not built (${UI_BIN}); scripts/run.sh builds it`);
    }
  }
  return address;
}
