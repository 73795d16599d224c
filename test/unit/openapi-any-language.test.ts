/**
 * An API any language can generate from, checked on the documents as served — the full
 * /openapi.json and the merchant's /openapi.merchant.json — without a generator (the Go clients
 * themselves are built by test/ops/go-client.test.ts):
 *
 *   - every description renders as written in /docs: Markdown with no raw HTML (a `<placeholder>`
 *     outside a code span is an HTML tag to a Markdown renderer, and /docs drops it);
 *   - the names Go generators trip on: a schema and a security scheme of one name (ogen), a schema
 *     named like what oapi-codegen makes of an operation (`<OperationId>Response`), a component only
 *     the `webhooks` reference (oapi-codegen prunes it, then refers to it), an anyOf of two strings
 *     (ogen's "complex anyOf");
 *   - open enums are strings with their known values in `x-extensible-enum`;
 *   - every response declares the headers the API sends on it;
 *   - the merchant document is the full one's merchant operations, unchanged, with exactly the
 *     components they reach.
 */
import test from 'ava';
import MarkdownIt from 'markdown-it';
import { allRoutes } from '../../api/app';
import { merchantOpenApiDocument, openApiDocument } from '../../api/openapi';

type Schema = Record<string, unknown> & { type?: string; enum?: unknown[]; anyOf?: Schema[]; oneOf?: Schema[]; description?: string; $ref?: string };
type Response = { $ref?: string; description?: string; headers?: Record<string, unknown>; content?: Record<string, unknown> };
type Operation = {
  operationId: string;
  deprecated?: boolean;
  security?: Array<Record<string, string[]>>;
  responses: Record<string, Response>;
  tags?: string[];
};
type Doc = {
  info: { description: string };
  paths: Record<string, Record<string, Operation>>;
  webhooks?: Record<string, Record<string, Operation>>;
  components: Record<string, Record<string, unknown>> & { schemas: Record<string, Schema>; responses: Record<string, Response> };
};
if (allRoutes.length === 0) throw new Error('no routes registered');
const full = openApiDocument() as Doc;
const merchant = merchantOpenApiDocument() as Doc;
const DOCUMENTS = [
  ['full', full],
  ['merchant', merchant],
] as const;

const operationsOf = (doc: Doc) => Object.entries(doc.paths).flatMap(([path, item]) => Object.entries(item).map(([method, op]) => ({ path, method, op })));
const schemesOf = (op: Operation) => (op.security ?? []).flatMap((requirement) => Object.keys(requirement));
const resolve = (doc: Doc, response: Response) => (response.$ref ? doc.components.responses[response.$ref.split('/').pop()!]! : response);

/** Every string under a key that a renderer shows as Markdown, with where it is. */
function texts(node: unknown, path = ''): Array<{ path: string; text: string }> {
  if (Array.isArray(node)) return node.flatMap((item, i) => texts(item, `${path}/${i}`));
  if (node === null || typeof node !== 'object') return [];
  return Object.entries(node).flatMap(([key, value]) =>
    (key === 'description' || key === 'summary') && typeof value === 'string' ? [{ path: `${path}/${key}`, text: value }] : texts(value, `${path}/${key}`),
  );
}

const markdown = new MarkdownIt({ html: true });
/**
 * What a Markdown renderer may take for HTML in a text (and /docs then drops): raw HTML by
 * CommonMark's rules, and — stricter, as Swagger UI's renderer and the browser are more lenient
 * than CommonMark (`<hex HMAC-SHA256(…)>` is no tag to CommonMark, yet vanished from /docs) — any
 * `<` before a letter, `/`, `!` or `?` in text outside a code span.
 */
function rawHtml(text: string): string[] {
  const found: string[] = [];
  const walk = (tokens: ReturnType<typeof markdown.parse>) => {
    for (const token of tokens) {
      if (token.type === 'html_inline' || token.type === 'html_block') found.push(token.content);
      if (token.type === 'text' && /<[A-Za-z/!?]/.test(token.content)) found.push(token.content);
      if (token.children) walk(token.children);
    }
  };
  walk(markdown.parse(text, {}));
  return found;
}

for (const [name, doc] of DOCUMENTS) {
  test(`${name} document: every description and summary renders as written (no raw HTML, placeholders in code spans)`, (t) => {
    const all = texts(doc);
    t.true(all.length > (name === 'full' ? 500 : 100), `${all.length} texts`);
    const bad = all.flatMap(({ path, text }) => rawHtml(text).map((html) => `${path}: ${html}`));
    t.deepEqual(bad, []);
  });
}

test('the signing formula of the MerchantToken scheme renders with its placeholders, in code', (t) => {
  const scheme = full.components.securitySchemes!.MerchantToken as { description: string };
  const html = markdown.render(scheme.description);
  t.true(html.includes('<code>t=&lt;unix seconds&gt;,v1=&lt;hex HMAC-SHA256(secret, &quot;&lt;t&gt;.&lt;raw body&gt;&quot;)&gt;</code>'), html);
  t.true(html.includes('<a href="/docs/signing.md">'), 'links the signing guide');
  t.regex(markdown.render(full.info.description), /<a href="\/docs\/signing\.md">/);
});

test('no name Go generators trip on: schema vs security scheme, <OperationId>Response and kin, webhook-only components', (t) => {
  for (const [name, doc] of DOCUMENTS) {
    const schemas = new Set(Object.keys(doc.components.schemas));
    t.deepEqual(
      Object.keys(doc.components.securitySchemes ?? {}).filter((s) => schemas.has(s)),
      [],
      `${name}: ogen refuses a schema and a security scheme of one name`,
    );
    const operations = [...operationsOf(doc), ...Object.values(doc.webhooks ?? {}).flatMap((item) => Object.values(item).map((op) => ({ op })))];
    const generated = operations.flatMap(({ op }) => {
      const type = op.operationId[0]!.toUpperCase() + op.operationId.slice(1);
      return ['Response', 'Params', 'JSONBody', 'JSONRequestBody', 'MultipartBody', 'MultipartRequestBody', 'RequestOptions'].map((suffix) => type + suffix);
    });
    t.deepEqual(
      generated.filter((type) => schemas.has(type)),
      [],
      `${name}: oapi-codegen names these after operations`,
    );
    // oapi-codegen keeps a component only when the paths (or a kept component) reach it.
    const fromPaths = JSON.stringify([doc.paths, doc.components]);
    const onlyWebhooks = JSON.stringify(doc.webhooks ?? {})
      .match(/#\/components\/schemas\/[A-Za-z0-9_.-]+/g)
      ?.filter((ref) => !fromPaths.includes(`"${ref}"`));
    t.deepEqual(onlyWebhooks ?? [], [], `${name}: components only the webhooks reference`);
  }
  // An anyOf or oneOf with two branches of one primitive type and no discriminator: ogen's "complex anyOf".
  const complex: string[] = [];
  const walk = (node: unknown, path: string): void => {
    if (Array.isArray(node)) {
      for (const [i, item] of node.entries()) walk(item, `${path}/${i}`);
    } else if (node && typeof node === 'object') {
      const schema = node as Schema;
      for (const branches of [schema.anyOf, schema.oneOf]) {
        const types = (branches ?? []).map((b) => b.type).filter((type): type is string => typeof type === 'string' && type !== 'object');
        if (new Set(types).size < types.length && !('discriminator' in schema)) complex.push(path);
      }
      for (const [key, value] of Object.entries(node)) walk(value, `${path}/${key}`);
    }
  };
  walk(full, '');
  t.deepEqual(complex, []);
});

test('open enums: strings with their known values in x-extensible-enum, said to grow; the status and type fields are open', (t) => {
  let open = 0;
  const walk = (node: unknown, path: string): void => {
    if (Array.isArray(node)) {
      for (const [i, item] of node.entries()) walk(item, `${path}/${i}`);
    } else if (node && typeof node === 'object') {
      const schema = node as Schema;
      if ('x-extensible-enum' in schema) {
        open += 1;
        t.is(schema.type, 'string', path);
        t.is(schema.enum, undefined, `${path}: no closed enum beside it`);
        t.true(Array.isArray(schema['x-extensible-enum']) && (schema['x-extensible-enum'] as unknown[]).length > 0, path);
        t.regex(schema.description ?? '', /new values may be added/, path);
      }
      for (const [key, value] of Object.entries(node)) walk(value, `${path}/${key}`);
    }
  };
  walk(full, '');
  t.true(open >= 10, `${open} open enums`);
  const property = (schema: string, field: string) => (full.components.schemas[schema]!.properties as Record<string, Schema>)[field]!;
  for (const [schema, field] of [
    ['MerchantDealInfo', 'status'],
    ['FieldError', 'code'],
    ['Appeal', 'status'],
    ['Withdrawal', 'status'],
    ['Deposit', 'status'],
    ['Pass', 'status'],
    ['CallbackDelivery', 'status'],
    ['DealEvent', 'type'],
    ['DealAmountChangedEvent', 'type'],
    ['AppealEvent', 'type'],
    ['AppealMessageEvent', 'type'],
    ['WithdrawalEvent', 'type'],
    ['DepositEvent', 'type'],
  ] as const) {
    t.truthy(property(schema, field)['x-extensible-enum'], `${schema}.${field} is open`);
  }
});

test('every response declares the headers the API sends on it', (t) => {
  const has = (doc: Doc, response: Response, header: string) => Object.hasOwn(resolve(doc, response).headers ?? {}, header);
  let checked = 0;
  for (const { path, method, op } of operationsOf(full)) {
    const label = `${method.toUpperCase()} ${path}`;
    const schemes = schemesOf(op);
    const signed = schemes.includes('MerchantToken') || schemes.includes('V1Merchant');
    for (const [status, response] of Object.entries(op.responses)) {
      checked += 1;
      t.true(has(full, response, 'X-Trace-Id'), `${label} ${status}: X-Trace-Id`);
      if (status === '429') t.true(has(full, response, 'Retry-After'), `${label} 429: Retry-After`);
      if (signed && (Number(status) < 300 || ['400', '404', '409', '429', '500'].includes(status))) {
        for (const h of ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset']) t.true(has(full, response, h), `${label} ${status}: ${h}`);
      }
      if (!signed || ['401', '431'].includes(status)) t.false(has(full, response, 'X-RateLimit-Limit'), `${label} ${status}: no rate-limit headers`);
      if (path.startsWith('/v1/') && status !== '431') {
        for (const h of ['Deprecation', 'Sunset', 'Link']) t.true(has(full, response, h), `${label} ${status}: ${h}`);
      }
      if (Number(status) < 300 && resolve(full, response).content?.['text/csv']) t.true(has(full, response, 'Content-Disposition'), `${label}: the CSV's name`);
    }
  }
  t.true(checked > 1000, `${checked} responses`);
  for (const id of ['createPayin', 'createPayout', 'createWithdrawal']) {
    const { op } = operationsOf(full).find(({ op }) => op.operationId === id)!;
    t.true(has(full, op.responses[200]!, 'Idempotent-Replayed'), id);
  }
});

test('the merchant document: the full document’s operations of a merchant’s own credentials, unchanged, and only what they reach', (t) => {
  const merchantOperations = operationsOf(full).filter(({ op }) => schemesOf(op).some((s) => s === 'MerchantToken' || s === 'CabinetJwt'));
  t.deepEqual(
    operationsOf(merchant).map(({ op }) => op.operationId),
    merchantOperations.map(({ op }) => op.operationId),
  );
  for (const { path, method, op } of operationsOf(merchant)) {
    t.deepEqual(op, full.paths[path]![method], `${method} ${path} as in the full document`);
    t.false(path.startsWith('/v1/') || path.includes('/admin/') || path.includes('/checkout/') || path.startsWith('/pay/'), path);
    t.false(
      schemesOf(op).some((s) => s.startsWith('Operator') || s.startsWith('V1')),
      `${method} ${path}: ${schemesOf(op)}`,
    );
  }
  for (const id of ['createPayin', 'getDeal', 'listEvents', 'updateMyMerchant', 'rotateApiKeys', 'createWithdrawal']) {
    t.true(
      operationsOf(merchant).some(({ op }) => op.operationId === id),
      id,
    );
  }
  t.deepEqual(Object.keys(merchant.webhooks ?? {}), ['event']);
  t.deepEqual(Object.keys(merchant.components.securitySchemes ?? {}).sort(), ['CabinetJwt', 'CabinetSessionCookie', 'MerchantToken']);
  // Every reference resolves, and every component is referenced (nothing of the operator's or V1's rides along).
  const text = JSON.stringify({ paths: merchant.paths, webhooks: merchant.webhooks, components: merchant.components });
  const refs = new Set(text.match(/#\/components\/[A-Za-z]+\/[A-Za-z0-9_.-]+/g));
  for (const ref of refs) {
    const [, , kind, name] = ref.split('/');
    t.truthy(merchant.components[kind!]?.[name!], `${ref} resolves`);
  }
  for (const [kind, entries] of Object.entries(merchant.components)) {
    if (kind === 'securitySchemes') continue;
    for (const name of Object.keys(entries)) t.true(refs.has(`#/components/${kind}/${name}`), `${kind}/${name} is used`);
  }
  t.false('V1Error' in merchant.components.schemas || 'OperatorSession' in merchant.components.schemas);
  t.regex(merchant.info.description, /\/docs\/signing\.md/);
});
