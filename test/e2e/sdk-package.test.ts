/**
 * The SDK as a merchant gets it: `npm run sdk:pack` makes the tarball, npm installs
 * it into a fresh project outside the repository (os.tmpdir()), and a small integration, once as
 * ES modules (import) and once as CommonJS (require), is typechecked under `strict` (module
 * nodenext, no DOM lib, the package's own .d.ts files checked too) with the repository's
 * TypeScript and run with node against the test stack: a signed getMyMerchant (the profile itself)
 * and getBalance, a PayIn, a decimal amount refused before sending, a typed error, and a delivery
 * the gateway really sent, verified by the SDK.
 */
import test from 'ava';
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { API_URL, cabinetToken, newMerchant, operatorToken, withBearer } from '../helpers/api';
import { createPayin } from '../helpers/deals';
import { eventually } from '../helpers/poll';
import { startReceiver } from '../helpers/receiver';

const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
const STEP_TIMEOUT_MS = 150_000;

/**
 * The environment of a process outside the repository: without npm's own npm_* variables, which
 * `npm test` sets (npm_config_local_prefix is this repository: an `npm install` that inherited
 * it would install here, not in the temporary project).
 */
const outsideEnv = (extra: Record<string, string> = {}): NodeJS.ProcessEnv => ({
  ...Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key) && key !== 'INIT_CWD')),
  ...extra,
});

async function run(command: string, args: string[], cwd: string, env = outsideEnv()) {
  try {
    return await promisify(execFile)(command, args, { cwd, env, timeout: STEP_TIMEOUT_MS, maxBuffer: 32 * 1024 * 1024 });
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    throw new Error(`${basename(command)} ${args.join(' ')} failed in ${cwd}: ${String(error)}\n${stdout ?? ''}\n${stderr ?? ''}`);
  }
}

/** One `npm run sdk:pack` per run of this file: both tests install the same tarball (two packs would race on sdk/dist). */
let packing: Promise<string> | undefined;
const packOnce = () => (packing ??= run('npm', ['run', '-s', 'sdk:pack'], ROOT).then((packed) => packed.stdout.trim().split('\n').at(-1)!));

/** The merchant's integration, the same code in both module systems; it prints one JSON line. */
function integration(format: 'esm' | 'cjs'): string {
  const header =
    format === 'esm'
      ? "import { randomUUID } from 'node:crypto';\nimport { fileURLToPath } from 'node:url';"
      : "// CommonJS: TypeScript compiles the imports below to require().\nimport { randomUUID } from 'node:crypto';";
  return `${header}
import {
  GatewayClient,
  NotFoundError,
  verifyWebhook,
  WebhookVerificationError,
  type Balance,
  type Deal,
  type WebhookEvent,
} from '@merchant-gateway/sdk';

const resolved = ${format === 'esm' ? "fileURLToPath(import.meta.resolve('@merchant-gateway/sdk'))" : "require.resolve('@merchant-gateway/sdk')"};

function env(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(name + ' is not set');
  return value;
}

async function main(): Promise<void> {
  const secret = env('MERCHANT_SECRET');
  const gateway = new GatewayClient({ baseUrl: env('GATEWAY_URL'), token: env('MERCHANT_TOKEN'), secret });
  const me = await gateway.getMyMerchant();
  const balance: Balance = await gateway.getBalance();
  const deal: Deal = await gateway.createPayin({ idempotency_key: 'order-' + randomUUID(), amount: 150_000, currency: 'RUB', payment_method_id: 'card-rub' });
  let refusedAmount = '';
  try {
    await gateway.createPayin({ amount: '1500.00', currency: 'RUB', payment_method_id: 'card-rub' });
  } catch (error) {
    if (!(error instanceof TypeError)) throw error;
    refusedAmount = error.name;
  }
  let notFound = '';
  try {
    await gateway.getDeal(randomUUID());
  } catch (error) {
    if (!(error instanceof NotFoundError)) throw error;
    notFound = error.code;
  }
  const delivery = JSON.parse(env('DELIVERY')) as { body: string; headers: Record<string, string> };
  const event: WebhookEvent = verifyWebhook(delivery.body, delivery.headers, secret);
  const spec = verifyWebhook(delivery.body, delivery.headers, secret, { scheme: 'x-signature' });
  let refused = '';
  try {
    verifyWebhook(delivery.body + ' ', delivery.headers, secret);
  } catch (error) {
    if (!(error instanceof WebhookVerificationError)) throw error;
    refused = error.name;
  }
  console.log(JSON.stringify({ resolved, merchantId: me.id, wallets: balance.wallets.length, deal: deal.status, refusedAmount, notFound, webhook: [event.event_id, spec.event_id], refused }));
}

/** Never called: the typecheck refuses it, so the types are the SDK's and not \`any\`. */
export function typesAreReal(gateway: GatewayClient): void {
  // @ts-expect-error an amount is a number, a bigint or a digit string, never a boolean
  void gateway.createPayin({ amount: true, currency: 'RUB', payment_method_id: 'card-rub' });
  // @ts-expect-error getMyMerchant answers the profile itself, not { merchant }
  void gateway.getMyMerchant().then((me) => me.merchant);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
`;
}

/** A strict consumer: nodenext picks the import or require condition per file (.mts / .cts). */
const TSCONFIG = {
  compilerOptions: {
    target: 'ES2022',
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    lib: ['ES2023'],
    types: ['node'],
    strict: true,
    noUncheckedIndexedAccess: true,
    exactOptionalPropertyTypes: true,
    noUnusedLocals: true,
    skipLibCheck: false,
    rootDir: 'src',
    outDir: 'out',
  },
  include: ['src'],
};

test('the packed SDK installs outside the repository and an ESM and a CommonJS integration typecheck under strict and run against the gateway', async (t) => {
  t.timeout(5 * 60_000);
  const started = Date.now();
  const step = (what: string) => t.log(`${what}: ${((Date.now() - started) / 1000).toFixed(1)} s`);

  // The merchant's side: a key pair from the operator, and a receiver for its webhooks.
  const receiver = await startReceiver();
  t.teardown(() => receiver.close());
  const { merchantId, keys } = await newMerchant({ webhook_url: receiver.url });

  // The tarball, as `npm run sdk:pack` makes it: only what a consumer needs.
  const tarball = await packOnce();
  t.is(dirname(tarball), join(ROOT, '.data', 'sdk'));
  t.regex(basename(tarball), /^merchant-gateway-sdk-\d+\.\d+\.\d+.*\.tgz$/);
  step('packed');
  const entries = (await run('tar', ['-tzf', tarball], ROOT)).stdout.trim().split('\n');
  const outside = entries.filter((e) => !/^package\/(package\.json|README\.md|QUICKSTART\.md|dist\/(esm|cjs)\/.+|src\/.+\.ts)$/.test(e));
  t.deepEqual(outside, [], 'nothing but package.json, README.md, QUICKSTART.md, dist/esm, dist/cjs and src');
  for (const needed of [
    'README.md',
    'QUICKSTART.md',
    'dist/esm/index.js',
    'dist/esm/index.d.ts',
    'dist/cjs/index.js',
    'dist/cjs/index.d.ts',
    'dist/cjs/package.json',
    'src/index.ts',
  ]) {
    t.true(entries.includes(`package/${needed}`), needed);
  }

  // A fresh project outside the repository installs it (openapi-fetch from the npm cache or registry).
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'sdk-package-')));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  t.false(dir.startsWith(`${ROOT}/`));
  cpSync(tarball, join(dir, basename(tarball)));
  const typesNode = (JSON.parse(readFileSync(join(ROOT, 'node_modules', '@types', 'node', 'package.json'), 'utf8')) as { version: string }).version;
  writeFileSync(
    join(dir, 'package.json'),
    `${JSON.stringify({ name: 'sdk-integration', private: true, devDependencies: { '@types/node': typesNode } }, null, 2)}\n`,
  );
  await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', `./${basename(tarball)}`], dir);
  const installed = join(dir, 'node_modules', '@merchant-gateway', 'sdk');
  t.true(existsSync(join(dir, 'node_modules', 'openapi-fetch', 'package.json')), 'its runtime dependency');
  step('installed');

  // Every source map and declaration map points at a file the package has.
  const maps = readdirSync(join(installed, 'dist'), { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.map'));
  t.true(maps.length > 0);
  for (const map of maps) {
    const file = join(installed, 'dist', map);
    for (const source of (JSON.parse(readFileSync(file, 'utf8')) as { sources: string[] }).sources) {
      t.true(existsSync(resolve(dirname(file), source)), `${map} → ${source}`);
    }
  }

  // Typecheck and compile both integrations; each module system must take its own declarations.
  writeFileSync(join(dir, 'tsconfig.json'), `${JSON.stringify(TSCONFIG, null, 2)}\n`);
  const src = join(dir, 'src');
  mkdirSync(src);
  writeFileSync(join(src, 'integration.mts'), integration('esm'));
  writeFileSync(join(src, 'integration.cts'), integration('cjs'));
  const compiled = await run(process.execPath, [TSC, '-p', dir, '--listFiles'], dir);
  const program = compiled.stdout.split('\n').map((line) => line.trim());
  t.true(program.includes(join(installed, 'dist', 'esm', 'index.d.ts')), 'import resolves dist/esm/index.d.ts');
  t.true(program.includes(join(installed, 'dist', 'cjs', 'index.d.ts')), 'require resolves dist/cjs/index.d.ts');
  t.regex(readFileSync(join(dir, 'out', 'integration.cjs'), 'utf8'), /require\("@merchant-gateway\/sdk"\)/);
  step('typechecked');

  // Run both against the test stack, with a delivery the gateway has just signed (well within
  // the verifier's 5-minute tolerance however long the steps above took).
  await createPayin(keys);
  const delivery = await eventually(async () => receiver.received[0], 'the first webhook delivery');
  const env = outsideEnv({
    GATEWAY_URL: API_URL,
    MERCHANT_TOKEN: keys.token,
    MERCHANT_SECRET: keys.secret,
    DELIVERY: JSON.stringify({ body: delivery.body, headers: delivery.headers }),
  });
  const eventId = (JSON.parse(delivery.body) as { event_id: string }).event_id;
  for (const format of ['esm', 'cjs'] as const) {
    const { stdout } = await run(process.execPath, [join(dir, 'out', `integration.${format === 'esm' ? 'mjs' : 'cjs'}`)], dir, env);
    const { wallets, ...result } = JSON.parse(stdout.trim().split('\n').at(-1)!) as { wallets: number } & Record<string, unknown>;
    t.deepEqual(
      result,
      {
        resolved: join(installed, 'dist', format, 'index.js'),
        merchantId,
        deal: 'ESCROW_LOCKED',
        refusedAmount: 'TypeError',
        notFound: 'NOT_FOUND',
        webhook: [eventId, eventId],
        refused: 'WebhookVerificationError',
      },
      format,
    );
    t.true(wallets > 0, `${format}: a balance with wallets`);
  }
  step('ran');
});

/** The fenced blocks of a markdown document with the given info string, in order. */
function fencedBlocks(markdown: string, language: string): string[] {
  return [...markdown.matchAll(/^```(\S*)\n([\s\S]*?)^```$/gm)].filter((m) => m[1] === language).map((m) => m[2]!);
}

/** A free local port, for the quickstart program's webhook receiver. */
async function freePort(): Promise<number> {
  const { createServer } = await import('node:net');
  return new Promise((done, fail) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => done(port));
    });
    server.once('error', fail);
  });
}

test('the quickstart, run as written in a fresh directory, reaches a verified webhook and a reconciled feed, and resumes the feed where it stopped', async (t) => {
  t.timeout(5 * 60_000);
  const doc = readFileSync(join(ROOT, 'sdk', 'QUICKSTART.md'), 'utf8');

  // What a merchant has: the package (the quickstart inside it) and what the gateway serves.
  for (const [file, text] of [
    ['QUICKSTART.md', doc],
    ['README.md', readFileSync(join(ROOT, 'sdk', 'README.md'), 'utf8')],
  ] as const) {
    const links = [...text.matchAll(/\]\(([^)]+)\)/g)].map((m) => m[1]!).filter((href) => !/^(https?:|#)/.test(href));
    for (const href of links) t.true(existsSync(join(ROOT, 'sdk', href.split('#')[0]!)), `${file} links ${href}, which the package has`);
    t.notRegex(text, /\b(spec|contract) \d|design\.md|architecture\.md|docs\//i, `${file} names no document the merchant does not have`);
  }
  // The package ships src/ (for its maps): its comments state rules too, never a section of a document it lacks.
  for (const file of readdirSync(join(ROOT, 'sdk', 'src'), { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'))) {
    t.notRegex(readFileSync(join(ROOT, 'sdk', 'src', file), 'utf8'), /\b(spec|contract) \d|\bissue \d|design\.md|architecture\.md/i, `src/${file}`);
  }

  // The quickstart's shell steps ("What you need"), with the tarball's real path; npm reads the cache first.
  const [exports, steps] = fencedBlocks(doc, 'bash');
  const program = fencedBlocks(doc, 'js').join('\n');
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'quickstart-')));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const tarball = await packOnce();
  const commands = steps!
    .split('\n')
    .map((line) => line.replace(/\s+#.*$/, '').trim())
    .filter((line) => line && !line.startsWith('#'));
  t.deepEqual(commands, ['npm init -y && npm pkg set type=module', 'npm install /path/to/merchant-gateway-sdk-0.1.0.tgz', 'node quickstart.mjs']);
  const npmEnv = outsideEnv({ npm_config_prefer_offline: 'true', npm_config_audit: 'false', npm_config_fund: 'false' });
  for (const command of commands.slice(0, 2)) await run('bash', ['-c', command.replace('/path/to/merchant-gateway-sdk-0.1.0.tgz', tarball)], dir, npmEnv);
  writeFileSync(join(dir, 'quickstart.mjs'), program);

  // The environment "What you need" exports, for a merchant of the test stack whose webhook_url is elsewhere.
  const { merchantId, keys } = await newMerchant();
  const env: Record<string, string> = {
    GATEWAY_URL: API_URL,
    MERCHANT_TOKEN: keys.token,
    MERCHANT_SECRET: keys.secret,
    CABINET_TOKEN: await cabinetToken(merchantId),
    OPERATOR_TOKEN: await operatorToken(),
    WAIT_SECONDS: '90',
  };
  const exported = [...exports!.matchAll(/^export (\w+)=/gm)].map((m) => m[1]!);
  t.deepEqual(
    exported.filter((name) => !(name in env)),
    [],
    'the test sets every variable the quickstart exports',
  );

  const runOnce = async (runEnv: Record<string, string> = env) => {
    const { stdout } = await run(process.execPath, ['quickstart.mjs'], dir, outsideEnv({ ...runEnv, WEBHOOK_PORT: String(await freePort()) }));
    t.log(stdout.trim());
    return stdout.trim().split('\n');
  };
  const first = await runOnce();
  const dealId = /^PayIn (\S+): ESCROW_LOCKED; send the payer to \S+\/pay\/\S+$/m.exec(first.join('\n'))?.[1];
  t.truthy(dealId, 'a PayIn in ESCROW_LOCKED with its payment page');
  t.true(
    first.some((l) => l.startsWith(`signed in as merchant ${merchantId} (`)),
    'getMyMerchant answers the profile itself',
  );
  t.true(first.includes('webhook verified: deal.completed'));
  t.regex(first.join('\n'), new RegExp(`^paid: deal ${dealId} is COMPLETED \\(verified webhook [0-9a-f-]{36}\\)$`, 'm'));
  t.true(first.includes(`reconciled: the feed agrees, deal ${dealId} is completed`));
  t.deepEqual(
    first.filter((l) => l.startsWith('from the feed:')),
    [],
    'the webhook brought every event already',
  );

  // A second run resumes the feed from the saved position: the first deal's events are not read again.
  const position = readFileSync(join(dir, '.gateway-feed-position'), 'utf8');
  t.true(position.length > 0);
  const second = await runOnce();
  t.true(second.some((l) => /^reconciled: the feed agrees, deal \S+ is completed$/.test(l)));
  t.deepEqual(
    second.filter((l) => l.startsWith('from the feed:')),
    [],
    'nothing of the first run comes again',
  );
  t.false(second.join('\n').includes(dealId!));

  const me = await withBearer(env.CABINET_TOKEN!, 'GET', '/api/v1/p2p/my-merchant');
  t.regex(me.body.merchant.webhook_url as string, /^http:\/\/127\.0\.0\.1:\d+\/webhooks$/, '"Receive webhooks" set the webhook_url with the cabinet token');

  // A sandbox merchant (npm start's demo merchant is one) needs no operator: the sandbox trader
  // pays and confirms the …00 PayIn by itself, and the same program reaches the same end.
  const sandbox = await newMerchant({ sandbox: true });
  rmSync(join(dir, '.gateway-feed-position'));
  const { OPERATOR_TOKEN: _operator, ...withoutOperator } = env;
  const third = await runOnce({
    ...withoutOperator,
    MERCHANT_TOKEN: sandbox.keys.token,
    MERCHANT_SECRET: sandbox.keys.secret,
    CABINET_TOKEN: await cabinetToken(sandbox.merchantId),
  });
  t.true(third.includes('sandbox merchant: the sandbox trader pays and confirms by itself'));
  t.false(
    third.some((l) => l.startsWith('development:')),
    'no operator step',
  );
  t.regex(third.join('\n'), /^paid: deal \S+ is COMPLETED \(verified webhook [0-9a-f-]{36}\)$/m);
  t.true(third.some((l) => /^reconciled: the feed agrees, deal \S+ is completed$/.test(l)));
});
