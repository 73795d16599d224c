/**
 * docker-compose.yml, checked without a Docker engine (none runs here): it validates against the
 * Compose specification (tools/compose-check, compose-go with every profile on), every file it
 * mounts exists, every image is pinned to the tag versions.env states, Prometheus scrapes every
 * metrics port it configures, the proxy is the one address the APIs trust, only the API and
 * Grafana are published, the API and workers connect as the app role, and the Temporal schema
 * and namespace jobs are idempotent — run twice against this run's Postgres and Temporal.
 */
import { execFile, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join, posix, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import test from 'ava';
import postgres from 'postgres';
import { clientIpResolver } from '../../api/auth/client-ip';
import { SEARCH_ATTRIBUTES } from '../../workflows/contracts/search-attributes';
import { readVersions } from '../../scripts/versions';
import type { Json } from '../helpers/api';

const run = promisify(execFile);
const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const COMPOSE_FILE = join(ROOT, 'docker-compose.yml');
const CHECK_SRC = join(ROOT, 'tools', 'compose-check');
const CHECK_BIN = process.env.COMPOSE_CHECK_BIN ?? join(ROOT, '.tools', 'bin', 'compose-check');
const versions = readVersions();

interface Volume {
  type: string;
  source?: string;
  target: string;
  read_only?: boolean;
}
interface Service {
  image?: string;
  build?: { context: string; dockerfile: string };
  profiles?: string[];
  environment?: Record<string, string | null>;
  volumes?: Volume[];
  command?: string[] | null;
  entrypoint?: string[] | null;
  networks?: Record<string, { ipv4_address?: string } | null>;
  ports?: { target: number; published?: string; host_ip?: string }[];
}
interface Project {
  services: Record<string, Service>;
  networks: Record<string, { ipam?: { config?: { subnet?: string; ip_range?: string }[] } }>;
}

/** go build with a retry without the checksum database (unreachable on some networks); skipped when the binary is newer than its sources. */
async function ensureComposeCheck(): Promise<string> {
  const sources = ['main.go', 'go.mod', 'go.sum'].map((f) => join(CHECK_SRC, f));
  const built = existsSync(CHECK_BIN) ? statSync(CHECK_BIN).mtimeMs : 0;
  if (sources.every((f) => statSync(f).mtimeMs < built)) return CHECK_BIN;
  const build = (env: NodeJS.ProcessEnv) => run('go', ['build', '-o', CHECK_BIN, '.'], { cwd: CHECK_SRC, env: { ...process.env, ...env }, timeout: 300_000 });
  await build({}).catch(() => build({ GOSUMDB: 'off' }));
  return CHECK_BIN;
}

async function composeCheck(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const bin = await ensureComposeCheck();
  return run(bin, args, { cwd: ROOT, maxBuffer: 16 << 20 }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code?: number; stdout?: string; stderr?: string }) => ({ code: error.code ?? 1, stdout: error.stdout ?? '', stderr: error.stderr ?? '' }),
  );
}

let project: Project;
async function yamlFile(path: string): Promise<Json> {
  const result = await composeCheck(['yaml', path]);
  if (result.code !== 0) throw new Error(result.stderr);
  return JSON.parse(result.stdout);
}

test.before(async (t) => {
  t.timeout(300_000); // a cold build of compose-check: about a minute, more on a loaded machine
  const result = await composeCheck(['-f', COMPOSE_FILE, '-print']);
  if (result.code !== 0) throw new Error(`compose-check failed: ${result.stderr}`);
  project = JSON.parse(result.stdout) as Project;
});

const services = () => Object.entries(project.services);
const env = (service: Service, key: string) => service.environment?.[key] ?? undefined;
/** The gateway's API processes: built from the Dockerfile, serving HTTP on PORT with the image's default command. */
const apiServices = () =>
  services()
    .filter(([, s]) => s.build && env(s, 'PORT') && !s.command?.length)
    .map(([name]) => name);

test('docker-compose.yml validates against the Compose specification, every profile on', async (t) => {
  const result = await composeCheck(['-f', COMPOSE_FILE]);
  t.is(result.code, 0, result.stderr);
  t.true(
    Object.values(project.services).some((s) => s.profiles?.includes('scale')),
    'the scale profile was loaded too',
  );
});

test('the check fails on a compose file that breaks the specification, also in a profile-only service', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'compose-check-'));
  try {
    const original = readFileSync(COMPOSE_FILE, 'utf8');
    const cases: [string, string, RegExp][] = [
      ['unknown key', original.replace('  cpu_shares: 256', '  cpu_sharez: 256'), /cpu_sharez/],
      ['wrong condition', original.replace('condition: service_healthy', 'condition: healthy'), /condition/],
      // The proxy exists only in the scale profile: a check without every profile on would miss this.
      ['profile-only dependency', original.replace(/( {2}proxy:\n(?:.*\n)*? {4}depends_on:\n) {6}api:/, '$1      api-3:'), /api-3/],
    ];
    for (const [what, text, message] of cases) {
      t.not(text, original, `${what}: the test's edit applies`);
      const file = join(dir, 'docker-compose.yml');
      writeFileSync(file, text);
      const result = await composeCheck(['-f', file]);
      t.not(result.code, 0, what);
      t.regex(result.stderr, message, what);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('every file and folder compose mounts or builds from exists in the repo', (t) => {
  let binds = 0;
  for (const [name, service] of services()) {
    for (const volume of service.volumes ?? []) {
      if (volume.type !== 'bind') continue;
      binds++;
      t.true(volume.source!.startsWith(`${ROOT}/`), `${name}: ${volume.source} is inside the repo`);
      t.true(existsSync(volume.source!), `${name}: ${volume.source} exists`);
      t.true(volume.read_only, `${name}: ${volume.target} is mounted read-only`);
    }
    if (service.build) t.true(existsSync(join(service.build.context, service.build.dockerfile)), `${name}: its Dockerfile exists`);
  }
  t.true(binds >= 8, 'the mounts were found');
});

test('every image is pinned, to the tag versions.env states (the Dockerfile too)', (t) => {
  const pinned = Object.entries(versions)
    .filter(([key]) => key.endsWith('_IMAGE'))
    .map(([, image]) => image);
  const expected: Record<string, string> = {
    temporal: `temporalio/server:${versions.TEMPORAL_SERVER_VERSION}`,
    'temporal-ui': `temporalio/ui:${versions.TEMPORAL_UI_VERSION}`,
    'temporal-schema': versions.TEMPORAL_ADMIN_TOOLS_IMAGE!,
    'temporal-namespace': versions.TEMPORAL_ADMIN_TOOLS_IMAGE!,
  };
  const used = new Set<string>();
  for (const [name, service] of services()) {
    if (!service.image) {
      t.truthy(service.build, `${name} has an image or a build`);
      continue;
    }
    const tag = /^[^:]+(?::\d+)?\/?[^:]*:([^:@]+)$/.exec(service.image)?.[1];
    t.truthy(tag, `${name}: ${service.image} has a tag`);
    t.not(tag, 'latest', `${name}: not latest`);
    if (expected[name]) t.is(service.image, expected[name], `${name} runs the version of versions.env`);
    else t.true(pinned.includes(service.image), `${name}: ${service.image} is one of versions.env's *_IMAGE`);
    used.add(service.image);
  }
  // The admin tools are the ones built for this server version.
  t.true(versions.TEMPORAL_ADMIN_TOOLS_IMAGE!.startsWith(`temporalio/admin-tools:${versions.TEMPORAL_SERVER_VERSION}-`));
  const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
  const froms = [...dockerfile.matchAll(/^FROM\s+(\S+)/gm)].map((m) => m[1]);
  t.true(froms.length >= 2, 'the build stages were found');
  for (const from of froms) t.is(from, versions.NODE_IMAGE, 'every Dockerfile stage builds on NODE_IMAGE');
  used.add(versions.NODE_IMAGE!);
  for (const image of pinned) t.true(used.has(image), `versions.env's ${image} is used (no stale pin)`);
  // npm start builds what the file says; no version is written out in scripts/run.sh any more.
  t.notRegex(readFileSync(join(ROOT, 'scripts', 'run.sh'), 'utf8'), /@v\d/);
});

test('Prometheus scrapes every metrics port compose configures, and only those', async (t) => {
  const config = await yamlFile(join(ROOT, 'deploy', 'prometheus', 'prometheus.yml'));
  // What compose configures: the API's metrics port (never its HTTP port: /metrics is 404 there),
  // each worker's two metric ports, the Temporal server's.
  const wanted = new Set<string>();
  for (const name of apiServices()) {
    const api = project.services[name]!;
    t.truthy(env(api, 'METRICS_PORT'), `${name} serves its metrics on a port of its own`);
    t.not(env(api, 'METRICS_PORT'), env(api, 'PORT'), `${name}: not on the API's port`);
    t.is(env(api, 'METRICS_HOST'), '0.0.0.0', `${name}'s metrics port is reachable by Prometheus`);
    wanted.add(`${name}:${env(api, 'METRICS_PORT')}`);
  }
  for (const [name, service] of services()) {
    for (const key of ['WORKER_METRICS_PORT', 'TEMPORAL_SDK_METRICS_PORT']) {
      if (!env(service, key)) continue;
      wanted.add(`${name}:${env(service, key)}`);
      t.is(env(service, 'WORKER_METRICS_HOST'), '0.0.0.0', `${name} listens beyond its own loopback`);
    }
    const endpoint = env(service, 'PROMETHEUS_ENDPOINT');
    if (endpoint) wanted.add(`${name}:${endpoint.split(':').pop()}`);
  }
  t.true(wanted.size >= 11, `found the metric ports: ${[...wanted].join(' ')}`);

  const scraped = new Set<string>();
  for (const job of config.scrape_configs) {
    for (const sc of job.static_configs ?? []) for (const target of sc.targets) scraped.add(target);
    for (const sd of job.dns_sd_configs ?? []) {
      t.is(sd.type, 'A', `${job.job_name}: A records of the compose service names`);
      for (const host of sd.names) scraped.add(`${host}:${sd.port}`);
    }
  }
  for (const target of wanted) t.true(scraped.has(target), `prometheus.yml scrapes ${target}`);
  for (const target of scraped) t.true(wanted.has(target) || target === 'localhost:9090', `${target} is a metrics port of a compose service`);

  // The rule files the other parts write are loaded from the mounted folder.
  const prometheus = project.services.prometheus!;
  const mount = (source: string) => prometheus.volumes!.find((v) => v.source === join(ROOT, source))?.target;
  t.is(mount('deploy/prometheus/prometheus.yml'), '/etc/prometheus/prometheus.yml');
  t.true(prometheus.command!.includes('--config.file=/etc/prometheus/prometheus.yml'));
  t.deepEqual(config.rule_files, [posix.join(mount('deploy/prometheus/rules')!, '*.yml')]);
});

test('only the API (and nginx in front of it) and Grafana are published; the Temporal frontend and UI, Prometheus and Jaeger are not; the UI is read-only by default', async (t) => {
  const published = services()
    .flatMap(([name, s]) => (s.ports ?? []).map((p) => `${name}:${p.published ?? ''}->${p.target}`))
    .sort();
  t.deepEqual(published, ['api:3000->3000', 'grafana:3001->3000', 'proxy:8000->80']);
  t.is(env(project.services.proxy!, 'PORT'), undefined);
  t.regex(readFileSync(join(ROOT, 'deploy', 'proxy', 'nginx.conf'), 'utf8'), /proxy_pass http:\/\/api/, 'nginx fronts the API only');
  // Grafana, the one published door to metrics and traces, asks for a sign-in.
  const grafana = project.services.grafana!;
  t.is(env(grafana, 'GF_AUTH_ANONYMOUS_ENABLED'), 'false');
  t.is(env(grafana, 'GF_USERS_ALLOW_SIGN_UP'), 'false');
  // The Temporal UI's write actions (terminate, reset, signal, update, start, batch) are off unless turned on.
  t.is(env(project.services['temporal-ui']!, 'TEMPORAL_DISABLE_WRITE_ACTIONS'), 'true');
  t.regex(readFileSync(COMPOSE_FILE, 'utf8'), /TEMPORAL_DISABLE_WRITE_ACTIONS: \$\{TEMPORAL_UI_DISABLE_WRITE_ACTIONS:-true\}/, 'an env turns them on');
  // The operators' loopback doors (for an SSH tunnel): services of the file, bound to 127.0.0.1 only.
  const loopback = await yamlFile(join(ROOT, 'deploy', 'compose', 'ops-loopback.yml'));
  const doors = Object.entries(loopback.services as Record<string, { ports: string[] }>);
  t.deepEqual(doors.map(([name]) => name).sort(), ['jaeger', 'prometheus', 'temporal-ui']);
  for (const [name, door] of doors) {
    t.truthy(project.services[name], `${name} is a service of docker-compose.yml`);
    for (const port of door.ports) t.regex(port, /^127\.0\.0\.1:\d+:\d+$/, `${name}: ${port} is on the loopback only`);
  }
});

test('the API and workers connect as the app role; only the setup job, which migrates and grants, as the owner', (t) => {
  const postgres = project.services.postgres!;
  const owner = env(postgres, 'POSTGRES_USER') ?? '';
  const gateway = services().filter(([, s]) => s.build);
  t.true(gateway.length >= 7, `gateway services: ${gateway.map(([n]) => n)}`);
  for (const [name, service] of gateway) {
    const url = new URL(env(service, 'DATABASE_URL')!);
    if (name === 'setup') {
      t.is(url.username, owner, 'setup migrates as the owner');
      t.deepEqual(service.command, ['node', '--import', 'tsx', 'scripts/seed.ts']);
      t.is(env(service, 'DATABASE_APP_ROLE'), 'gateway_app');
      t.is(
        env(service, 'DATABASE_APP_PASSWORD'),
        decodeURIComponent(new URL(env(project.services.api!, 'DATABASE_URL')!).password),
        'and sets the password the services use',
      );
      t.is(env(service, 'NODE_ENV'), 'production', 'the catalogue-only seed');
    } else {
      t.is(url.username, env(service, 'DATABASE_APP_ROLE') ?? '(none)', `${name} connects as the app role`);
      t.not(url.username, owner, `${name} is not the owner`);
    }
  }
});

test('Grafana provisions the Prometheus datasource under uid prometheus and every dashboard file', async (t) => {
  const grafana = project.services.grafana!;
  const mount = (source: string) => grafana.volumes!.find((v) => v.source === join(ROOT, source))?.target;
  t.is(mount('deploy/grafana/provisioning'), '/etc/grafana/provisioning');
  const datasources = await yamlFile(join(ROOT, 'deploy', 'grafana', 'provisioning', 'datasources', 'prometheus.yml'));
  t.like(datasources.datasources[0], { uid: 'prometheus', type: 'prometheus', url: 'http://prometheus:9090' });
  const jaeger = await yamlFile(join(ROOT, 'deploy', 'grafana', 'provisioning', 'datasources', 'jaeger.yml'));
  t.like(jaeger.datasources[0], { uid: 'jaeger', type: 'jaeger', url: 'http://jaeger:16686' });
  const providers = await yamlFile(join(ROOT, 'deploy', 'grafana', 'provisioning', 'dashboards', 'gateway.yml'));
  t.is(providers.providers[0].options.path, mount('deploy/grafana/dashboards'));
  t.truthy(env(grafana, 'GF_SECURITY_ADMIN_PASSWORD'), 'the admin password comes from the environment');
  // Dashboards refer to the datasource by its fixed uid (or a dashboard variable), never by a uid of some other Grafana.
  const dir = join(ROOT, 'deploy', 'grafana', 'dashboards');
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.json'))) {
    const uids = new Set<string>();
    JSON.parse(readFileSync(join(dir, file), 'utf8'), (key, value) => {
      if (key === 'datasource' && value && typeof value === 'object' && typeof value.uid === 'string') uids.add(value.uid);
      return value;
    });
    for (const uid of uids)
      t.true(uid === 'prometheus' || uid.startsWith('$') || uid === '-- Grafana --' || uid === 'grafana', `${file}: datasource uid ${uid}`);
  }
});

test("the Temporal server runs with npm start's dynamic config and a production shard count", (t) => {
  const temporal = project.services.temporal!;
  t.is(env(temporal, 'NUM_HISTORY_SHARDS'), '512');
  const dynamic = temporal.volumes!.find((v) => v.source === join(ROOT, 'config', 'temporal', 'dynamic.yaml'));
  t.truthy(dynamic, 'config/temporal/dynamic.yaml is mounted');
  // The image's config template reads DYNAMIC_CONFIG_FILE_PATH relative to its working directory /etc/temporal.
  t.is(posix.resolve('/etc/temporal', env(temporal, 'DYNAMIC_CONFIG_FILE_PATH')!), dynamic!.target);
  t.is(env(project.services['temporal-namespace']!, 'SEARCH_ATTRIBUTES')!.split(' ').sort().join(' '), Object.keys(SEARCH_ATTRIBUTES).sort().join(' '));
});

test('scale profile: two APIs, deal workers and webhook workers; nginx is the one address the APIs trust', (t) => {
  const apis = apiServices();
  const roles = (role: string) =>
    services()
      .filter(([, s]) => env(s, 'WORKER_ROLE') === role)
      .map(([n]) => n);
  t.true(apis.length >= 2, `APIs: ${apis}`);
  t.true(roles('deals').length >= 2);
  t.true(roles('webhooks').length >= 2);
  for (const name of roles('deals')) t.truthy(env(project.services[name]!, 'TRON_HOT_WALLET_KEY'), `${name} can sign withdrawals`);

  const proxyIp = project.services.proxy!.networks!.default!.ipv4_address!;
  const ipam = project.networks.default!.ipam!.config![0]!;
  const inside = (ip: string, cidr: string) => {
    const [base, bits] = cidr.split('/');
    const n = (a: string) => a.split('.').reduce((acc, x) => acc * 256 + Number(x), 0);
    const size = 2 ** (32 - Number(bits));
    return Math.floor(n(ip) / size) === Math.floor(n(base!) / size);
  };
  t.true(inside(proxyIp, ipam.subnet!), 'the proxy address is on the compose network');
  t.false(inside(proxyIp, ipam.ip_range!), 'and outside the range Docker hands to other containers');
  for (const name of apis) t.is(env(project.services[name]!, 'TRUSTED_PROXIES'), proxyIp, `${name} trusts the proxy only`);

  // What the API makes of it: through the proxy the client's address counts, from any other peer the header does not.
  const clientIp = clientIpResolver([proxyIp]);
  const request = (peer: string, xff: string) =>
    ({ socket: { remoteAddress: peer }, connection: { remoteAddress: peer }, headers: { 'x-forwarded-for': xff } }) as unknown as IncomingMessage;
  t.is(clientIp(request(proxyIp, '203.0.113.7')), '203.0.113.7');
  t.is(clientIp(request('172.29.81.1', '203.0.113.7')), '172.29.81.1');

  const nginx = readFileSync(join(ROOT, 'deploy', 'proxy', 'nginx.conf'), 'utf8');
  const upstream = [...nginx.matchAll(/^\s*server\s+([\w-]+):(\d+)/gm)].map((m) => `${m[1]}:${m[2]}`).sort();
  t.deepEqual(upstream, apis.map((n) => `${n}:${env(project.services[n]!, 'PORT')}`).sort(), 'nginx balances over every API');
  t.regex(nginx, /proxy_set_header X-Forwarded-For \$remote_addr;/, 'the edge proxy replaces what the client sent');
});

/** Runs a compose job's script on this machine with the given environment. */
function runJob(script: string, jobEnv: Record<string, string>) {
  const result = spawnSync('sh', [join(ROOT, 'config', 'temporal', script)], {
    env: { PATH: process.env.PATH, ...jobEnv },
    encoding: 'utf8',
    timeout: 180_000,
  });
  return { code: result.status, output: `${result.stdout}${result.stderr}` };
}

/** The schema tool npm start uses (scripts/run.sh builds it into .tools), built here when missing. */
async function sqlTool(): Promise<{ bin: string; schema: string }> {
  const server = versions.TEMPORAL_SERVER_VERSION;
  const dir = process.env.TEMPORAL_SERVER_DIR ?? join(ROOT, '.tools', `temporal-server-v${server}`);
  const bin = join(dir, 'bin', 'sql');
  if (!existsSync(bin)) {
    const install = (extra: NodeJS.ProcessEnv) =>
      run('go', ['install', `go.temporal.io/server/cmd/tools/sql@v${server}`], { env: { ...process.env, GOBIN: dirname(bin), ...extra }, timeout: 600_000 });
    await install({}).catch(() => install({ GOSUMDB: 'off' }));
  }
  const modCache = spawnSync('go', ['env', 'GOMODCACHE'], { encoding: 'utf8' }).stdout.trim();
  const copied = join(dir, 'schema', 'postgresql', 'v12');
  return { bin, schema: existsSync(copied) ? copied : join(modCache, `go.temporal.io/server@v${server}`, 'schema', 'postgresql', 'v12') };
}

test("the schema job creates, sets up and updates Temporal's databases, and a second run changes nothing", async (t) => {
  t.timeout(900_000); // builds the schema tool when npm start has not (a few minutes cold; suspends ava's global timeout)
  const { bin, schema } = await sqlTool();
  const url = new URL(process.env.DATABASE_URL!);
  const names = { main: `temporal_compose_${process.pid}`, visibility: `temporal_compose_vis_${process.pid}` };
  const admin = postgres({
    host: url.hostname,
    port: Number(url.port || 5432),
    user: decodeURIComponent(url.username),
    password: decodeURIComponent(url.password),
    database: 'postgres',
    max: 1,
    onnotice: () => {},
  });
  const jobEnv = {
    POSTGRES_SEEDS: url.hostname,
    DB_PORT: url.port || '5432',
    POSTGRES_USER: decodeURIComponent(url.username),
    POSTGRES_PWD: decodeURIComponent(url.password) || 'unused-with-trust-auth',
    DBNAME: names.main,
    VISIBILITY_DBNAME: names.visibility,
    SQL_TOOL: bin,
    SCHEMA_DIR: schema,
  };
  // The newest version of each schema directory: what update-schema must reach.
  const newest = (kind: string) =>
    readdirSync(join(schema, kind, 'versioned'))
      .map((v) => v.replace(/^v/, ''))
      .sort((a, b) => a.localeCompare(b, undefined, { numeric: true }))
      .pop()!;
  const versionsIn = async (database: string) => {
    const db = postgres({
      host: url.hostname,
      port: Number(url.port || 5432),
      user: decodeURIComponent(url.username),
      password: decodeURIComponent(url.password),
      database,
      max: 1,
      onnotice: () => {},
    });
    try {
      const [row] = await db`select curr_version from schema_version`;
      const [count] = await db`select count(*)::int as n from schema_update_history`;
      return { version: row!.curr_version as string, updates: count!.n as number };
    } finally {
      await db.end();
    }
  };
  try {
    const first = runJob('compose-schema.sh', jobEnv);
    t.is(first.code, 0, first.output);
    t.regex(first.output, new RegExp(`creating database ${names.main}`));
    const after1 = { main: await versionsIn(names.main), visibility: await versionsIn(names.visibility) };
    t.is(after1.main.version, newest('temporal'));
    t.is(after1.visibility.version, newest('visibility'));

    const second = runJob('compose-schema.sh', jobEnv);
    t.is(second.code, 0, second.output);
    t.notRegex(second.output, /creating database|setting up the schema/);
    t.deepEqual({ main: await versionsIn(names.main), visibility: await versionsIn(names.visibility) }, after1, 'nothing applied twice');
  } finally {
    await admin.unsafe(`drop database if exists ${names.main} with (force)`);
    await admin.unsafe(`drop database if exists ${names.visibility} with (force)`);
    await admin.end();
  }
});

test('the namespace job registers the namespace, its retention and the search attributes, and a second run changes nothing', async (t) => {
  t.timeout(300_000);
  const cli = process.env.TEMPORAL_CLI ?? join(ROOT, '.tools', 'bin', 'temporal');
  const namespace = `compose-test-${process.pid}`;
  const jobEnv = {
    TEMPORAL_ADDRESS: process.env.TEMPORAL_ADDRESS!,
    TEMPORAL_CLI: cli,
    NAMESPACE: namespace,
    RETENTION: '10d',
    SEARCH_ATTRIBUTES: env(project.services['temporal-namespace']!, 'SEARCH_ATTRIBUTES')!,
    HOME: tmpdir(),
  };
  const describe = () => {
    const out = spawnSync(cli, ['operator', 'namespace', 'describe', '--namespace', namespace, '--address', jobEnv.TEMPORAL_ADDRESS, '-o', 'json'], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH, HOME: tmpdir() },
    });
    return JSON.parse(out.stdout) as { config: { workflowExecutionRetentionTtl: string } };
  };
  const attributes = () => {
    const out = spawnSync(cli, ['operator', 'search-attribute', 'list', '--namespace', namespace, '--address', jobEnv.TEMPORAL_ADDRESS], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH, HOME: tmpdir() },
    });
    return out.stdout.split('\n').map((line) => line.trim().split(/\s+/)[0]);
  };
  for (const round of [1, 2]) {
    const result = runJob('compose-namespace.sh', jobEnv);
    t.is(result.code, 0, result.output);
    t.is(describe().config.workflowExecutionRetentionTtl, `${10 * 24 * 3600}s`, `round ${round}: retention`);
    const registered = attributes();
    for (const name of Object.keys(SEARCH_ATTRIBUTES)) t.true(registered.includes(name), `round ${round}: ${name} registered`);
    // A new namespace starts without the gateway's attributes (they are per namespace on SQL visibility).
    if (round === 1) t.regex(result.output, /registering search attribute MerchantId/);
    if (round === 2) t.notRegex(result.output, /registering search attribute/, 'nothing registered twice');
  }
});
