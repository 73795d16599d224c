/**
 * The OpenAPI document lists every status an operation answers: the statuses of
 * representative routes, the ones defineRoute adds to every route of a kind, and — read from
 * the handlers themselves — every status a handler sets by hand (a Reply, ctx.status).
 */
import test from 'ava';
import { allRoutes } from '../../api/app';
import { openApiDocument } from '../../api/openapi';
import { documentedErrors } from '../../api/route';

interface Response {
  $ref?: string;
  description?: string;
  content?: Record<string, { schema?: { $ref?: string } }>;
}
type Media = { schema?: unknown; example?: unknown };
type Operation = {
  operationId?: string;
  tags?: string[];
  deprecated?: boolean;
  security?: Array<Record<string, string[]>>;
  responses: Record<string, Response & { content?: Record<string, Media> }>;
  requestBody?: { content?: Record<string, Media> };
};
const doc = openApiDocument() as {
  paths: Record<string, Record<string, Operation>>;
  components: { responses: Record<string, Response>; schemas: Record<string, unknown> };
  tags: Array<{ name: string; description?: string }>;
};
const op = (method: string, path: string) => {
  const found = doc.paths[path]?.[method];
  if (!found) throw new Error(`no operation ${method} ${path}`);
  return found;
};
const statuses = (method: string, path: string) => Object.keys(op(method, path).responses).map(Number);
/** A response with its $ref followed. */
const response = (method: string, path: string, status: number): Response => {
  const r = op(method, path).responses[status]!;
  return r.$ref ? doc.components.responses[r.$ref.split('/').pop()!]! : r;
};

test('representative routes document the statuses they answer', (t) => {
  const has = (method: string, path: string, expected: number[]) => {
    const listed = statuses(method, path);
    t.deepEqual(
      expected.filter((s) => !listed.includes(s)),
      [],
      `${method.toUpperCase()} ${path} lists ${listed.join(', ')}`,
    );
  };
  has('post', '/api/v1/p2p/merchant/deals/payin', [200, 400, 401, 403, 409, 413, 415, 429, 500]);
  has('post', '/api/v1/p2p/merchant/deals/payout', [200, 400, 409]);
  has('post', '/api/v1/p2p/admin/deposits', [201, 200, 400, 401, 403, 404, 409, 413, 415, 500]);
  has('post', '/api/v1/p2p/admin/traders/{trader_id}/deposits', [201, 200, 404, 409]);
  has('get', '/api/v1/p2p/merchant/deals/{deal_id}', [200, 400, 401, 403, 404, 429, 500]);
  has('post', '/api/v1/p2p/checkout/{hash}/cancel', [200, 400, 404, 409, 413, 415, 500]);
  has('post', '/api/v1/p2p/merchant/files', [201, 400, 413, 415]);
  has('post', '/v1/payments/incoming', [200, 400, 401, 403, 409, 410, 413, 415, 429, 500]);
  has('post', '/v1/merchant/withdraw', [200, 409, 410]);
  has('get', '/health', [200, 503]);
  has('get', '/pay/{hash}', [200, 404]);

  // The 200 of a repeated deposit and the 503 of a degraded health check carry the success body, not a problem.
  t.deepEqual(Object.keys(response('post', '/api/v1/p2p/admin/deposits', 200).content ?? {}), ['application/json']);
  t.deepEqual(response('get', '/health', 503).content?.['application/json']?.schema, response('get', '/health', 200).content?.['application/json']?.schema);
  t.deepEqual(Object.keys(response('get', '/pay/{hash}', 404).content ?? {}), ['text/html']);
  t.deepEqual(Object.keys(response('post', '/api/v1/p2p/merchant/deals/payin', 409).content ?? {}), ['application/problem+json']);
  // V1 errors are the V1 envelope, except 431, which Node's parser answers before any route is known.
  t.deepEqual(Object.keys(response('post', '/v1/payments/incoming', 409).content ?? {}), ['application/json']);
  t.deepEqual(Object.keys(response('post', '/v1/payments/incoming', 431).content ?? {}), ['application/problem+json']);
  // GET takes no body: the body statuses are not claimed there.
  t.false(statuses('get', '/api/v1/p2p/merchant/deals').includes(415));
});

test('every operation lists what every route of its kind answers, and has a unique operationId', (t) => {
  const ids = new Set<string>();
  for (const { spec } of allRoutes) {
    const listed = statuses(spec.method, spec.path);
    const label = `${spec.method.toUpperCase()} ${spec.path}`;
    t.deepEqual(
      documentedErrors(spec).filter((s) => !listed.includes(s)),
      [],
      label,
    );
    for (const s of [400, 431, 500]) t.true(listed.includes(s), `${label} lists ${s}`);
    if (spec.method !== 'get') t.true(listed.includes(413) && listed.includes(415), `${label} takes a body: 413 and 415`);
    if (spec.path.includes('{')) t.true(listed.includes(404), `${label} has path parameters: 404`);
    // A scheme of the route's own with no security requirement is public too (the payer's page forms: the hash is the credential).
    const isPublic = spec.auth === 'public' || (typeof spec.auth === 'object' && spec.auth.security.length === 0);
    if (!isPublic)
      t.true(
        [401, 403, 429].every((s) => listed.includes(s)),
        `${label} authenticates: 401, 403, 429`,
      );
    const id = op(spec.method, spec.path).operationId!;
    t.is(id, spec.operationId, `${label}: the operationId its definition declares`);
    t.regex(id, /^[a-z][A-Za-z0-9]*$/, `${label}: lowerCamelCase`);
    if (spec.path.startsWith('/v1/')) t.regex(id, /^v1[A-Z]/, `${label}: V1 operations are v1…`);
    if (spec.path.includes('/admin/')) t.regex(id, /^admin[A-Z]/, `${label}: /admin/ operations are admin…`);
    t.false(ids.has(id), `operationId ${id} is unique`);
    ids.add(id);
  }
  // The names SDK users call: stable, never renamed once shipped.
  const byRoute = (method: string, path: string) => op(method, path).operationId;
  t.is(byRoute('post', '/api/v1/p2p/merchant/deals/payin'), 'createPayin');
  t.is(byRoute('post', '/api/v1/p2p/merchant/deals/payout'), 'createPayout');
  t.is(byRoute('get', '/api/v1/p2p/merchant/deals/{deal_id}'), 'getDeal');
  t.is(byRoute('post', '/api/v1/p2p/merchant/deals/{deal_id}/cancel'), 'cancelDeal');
  t.is(byRoute('get', '/api/v1/p2p/merchant/deals'), 'listDeals');
  t.is(byRoute('get', '/api/v1/p2p/merchant/balance'), 'getBalance');
  t.is(byRoute('get', '/api/v1/p2p/merchant/events'), 'listEvents');
  t.is(byRoute('post', '/v1/payments/incoming'), 'v1CreateIncoming');
});

test('every operation has a declared tag; the V1 section stays deprecated', (t) => {
  const declared = new Set(doc.tags.map((tag) => tag.name));
  t.true(
    doc.tags.every((tag) => (tag.description ?? '').length > 0),
    'each tag says what it groups',
  );
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, o] of Object.entries(methods)) {
      t.true((o.tags ?? []).length > 0 && o.tags!.every((tag) => declared.has(tag)), `${method} ${path} tags ${o.tags}`);
      if (path.startsWith('/v1/')) t.true(o.deprecated, `${method} ${path} is deprecated`);
    }
  }
});

/** Merchant operations allowed to show no example yet (operationIds); none today. */
const EXAMPLES_LATER = new Set<string>();

test('every merchant operation shows an example of its JSON request and answer', (t) => {
  const missing: string[] = [];
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const o of Object.values(methods)) {
      const merchant = (o.security ?? []).some((s) => 'MerchantToken' in s || 'CabinetJwt' in s) && !path.startsWith('/v1/');
      if (!merchant || EXAMPLES_LATER.has(o.operationId!) || o.deprecated) continue;
      const request = o.requestBody?.content?.['application/json'];
      if (request && request.example === undefined) missing.push(`${o.operationId} request`);
      const success = Object.entries(o.responses).find(([status]) => Number(status) < 300)?.[1];
      const answer = success?.content?.['application/json'];
      if (answer && answer.example === undefined) missing.push(`${o.operationId} answer`);
    }
  }
  t.deepEqual(missing, []);
});

test('every status a handler sets by hand (Reply, ctx.status) is documented for its route', (t) => {
  let seen = 0;
  for (const { spec, handler } of allRoutes) {
    const source = handler.toString();
    const set = [...source.matchAll(/new Reply\(\s*(\d{3})|ctx\.status\s*=\s*(\d{3})/g)].map((m) => Number(m[1] ?? m[2]));
    seen += set.length;
    const listed = statuses(spec.method, spec.path);
    t.deepEqual(
      set.filter((s) => !listed.includes(s)),
      [],
      `${spec.method.toUpperCase()} ${spec.path}`,
    );
  }
  t.true(seen >= 4, 'the deposit repeats, the degraded health check and the payment page set statuses by hand');
});

test('the document served at /docs names no document a merchant does not have: the rule itself, never a section number of the spec or its contract', (t) => {
  const naming = /\b(spec|contract)\b\s*(\d|merchant-api)|\bsection \d|\.md\b|\bissue \d+|the spec\b|spec's\b/i;
  // The signing guide is the one document named: the API serves it (SIGNING_GUIDE_PATH).
  const served = /docs\/signing\.md/g;
  const found: string[] = [];
  const walk = (value: unknown, path: string): void => {
    if (typeof value === 'string') {
      if (naming.test(value.replace(served, ''))) found.push(`${path}: ${value.slice(0, 120)}`);
    } else if (value && typeof value === 'object') {
      for (const [key, inner] of Object.entries(value)) walk(inner, `${path}/${key}`);
    }
  };
  walk(openApiDocument(), '');
  t.deepEqual(found, []);
});
