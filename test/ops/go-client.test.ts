/**
 * An API any language can generate from: Go code generated from the served documents (the full
 * /openapi.json and the merchant's /openapi.merchant.json) by oapi-codegen and ogen at their default
 * settings (oapi-codegen: types, client, Echo server, embedded document; ogen: client and server)
 * compiles and passes go vet (tools/go-client/check.sh, the generator versions pinned by its
 * go.mod), and every operation of each document has its method in each client (a generator that
 * skips what it cannot express would otherwise pass unnoticed). Go modules come from the Go module
 * proxy the first time (a cold run: a few minutes on two cores), from the module and build caches
 * after (about half a minute).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import test from 'ava';
import '../../api/app';
import { merchantOpenApiDocument, openApiDocument } from '../../api/openapi';
import { ROOT } from '../../scripts/stack';

const run = promisify(execFile);
const OUT = join(ROOT, '.data', 'go-client-test');

type Doc = { paths: Record<string, Record<string, { operationId: string }>> };
const operationIds = (doc: object) => Object.values((doc as Doc).paths).flatMap((item) => Object.values(item).map((op) => op.operationId));
/** What both generators name an operation's client method: its operationId with a capital first letter. */
const methodOf = (operationId: string) => operationId[0]!.toUpperCase() + operationId.slice(1);
const goSources = (dir: string) =>
  readdirSync(dir)
    .filter((f) => f.endsWith('.go'))
    .map((f) => readFileSync(join(dir, f), 'utf8'))
    .join('\n');

let output = '';
test.before(async (t) => {
  t.timeout(20 * 60_000); // cold: modules downloaded and the generated code compiled for the first time
  const docs = mkdtempSync(join(tmpdir(), 'go-client-docs-'));
  try {
    writeFileSync(join(docs, 'openapi.json'), JSON.stringify(openApiDocument()));
    writeFileSync(join(docs, 'openapi.merchant.json'), JSON.stringify(merchantOpenApiDocument()));
    // Niced: the compile takes both cores for a while and must not starve the suite's stack beside it.
    const check = [join(ROOT, 'tools', 'go-client', 'check.sh'), join(docs, 'openapi.json'), join(docs, 'openapi.merchant.json')];
    const result = await run('nice', ['-n', '10', 'bash', ...check], {
      cwd: ROOT,
      env: { ...process.env, GO_CLIENT_DIR: OUT },
      maxBuffer: 64 << 20,
    }).catch((error: { stdout?: string; stderr?: string; message: string }) => {
      throw new Error(`tools/go-client/check.sh failed:\n${error.stdout ?? ''}\n${error.stderr ?? error.message}`);
    });
    output = `${result.stdout}${result.stderr}`;
  } finally {
    rmSync(docs, { recursive: true, force: true });
  }
});

test('oapi-codegen and ogen clients of both documents generate, build and vet', (t) => {
  t.regex(output, /4 clients generated, built and vetted/);
});

for (const [name, doc] of [
  ['full', openApiDocument],
  ['merchant', merchantOpenApiDocument],
] as const) {
  test(`every operation of the ${name} document is a method of both Go clients`, (t) => {
    const ids = operationIds(doc());
    t.true(ids.length > (name === 'full' ? 100 : 25), `${ids.length} operations`);
    const oapi = goSources(join(OUT, `oapi${name}`));
    const ogen = goSources(join(OUT, `ogen${name}`));
    // oapi-codegen names a method with a body it cannot type (multipart) …WithBody only.
    const missing = (source: string) => ids.filter((id) => !new RegExp(`func \\(c \\*Client\\) ${methodOf(id)}(WithBody)?\\(`).test(source));
    t.deepEqual(missing(oapi), [], 'oapi-codegen');
    t.deepEqual(missing(ogen), [], 'ogen');
  });
}

test('the merchant clients carry no operator, payer-page or V1 operation', (t) => {
  const ogen = goSources(join(OUT, 'ogenmerchant'));
  for (const method of ['AdminListMerchants', 'GetCheckout', 'V1CreateIncoming', 'IssueApiKeys', 'GetHealth']) {
    t.false(ogen.includes(`func (c *Client) ${method}(`), method);
  }
  t.true(ogen.includes('func (c *Client) UpdateMyMerchant('), 'updateMyMerchant (the cabinet PATCH) is there');
});
