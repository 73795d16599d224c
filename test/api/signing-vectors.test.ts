/**
 * docs/signing.md against a running gateway: a signer written from the page alone (node:crypto,
 * none of the gateway's code), first checked on the page's test vectors, signs requests the API
 * accepts — V2 with v1 only and with the request-bound v2=, V1 — and verifies the webhooks it
 * sends (X-Signature and Standard Webhooks). The page's same-second rule holds as written: a
 * v1-only key rotation carrying the signature of a GET of the same second is refused with the
 * message the page quotes, and accepted once signed a second earlier. Every answer's headers are
 * those its operation declares in the served document.
 */
import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import test from 'ava';
import { API_URL, newMerchant, problemDetail, readResponse, type ApiResponse, type Json, type KeyPair } from '../helpers/api';
import { payinBody } from '../helpers/deals';
import { eventually } from '../helpers/poll';
import { startReceiver } from '../helpers/receiver';
import { ROOT } from '../../scripts/stack';

// ---- the page's formulas, as a merchant in another language would write them ----
const hex256 = (key: string | Buffer, text: string) => createHmac('sha256', key).update(text, 'utf8').digest('hex');
const v2Header = (secret: string, t: number, body: string, bind?: { method: string; target: string }) =>
  `t=${t},v1=${hex256(secret, `${t}.${body}`)}${bind ? `,v2=${hex256(secret, `${t}.${bind.method}.${bind.target}.${body}`)}` : ''}`;
const standardSignature = (secret: string, id: string, t: number, body: string) =>
  `v1,${createHmac('sha256', Buffer.from(secret.slice('whsec_'.length), 'base64'))
    .update(`${id}.${t}.${body}`, 'utf8')
    .digest('base64')}`;
const v1Signature = (secret: string, payload: string) => createHmac('sha512', secret).update(payload, 'utf8').digest('hex');
const equal = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

interface Vector {
  name: string;
  scheme: string;
  timestamp: number;
  method?: string;
  target?: string;
  body: string;
  secrets?: Array<'secret' | 'old_secret'>;
  id?: string;
  payload?: string;
  headers: Record<string, string>;
}
const file = JSON.parse(readFileSync(join(ROOT, 'docs', 'signing-vectors.json'), 'utf8')) as { secret: string; old_secret: string; vectors: Vector[] };

test('the page-only signer reproduces every vector of docs/signing.md', (t) => {
  for (const v of file.vectors) {
    const secrets = (v.secrets ?? ['secret']).map((name) => file[name]);
    if (v.scheme === 'v2-request') t.is(v2Header(file.secret, v.timestamp, v.body), v.headers['X-Signature']!, v.name);
    if (v.scheme === 'v2-request-bound')
      t.is(v2Header(file.secret, v.timestamp, v.body, { method: v.method!, target: v.target! }), v.headers['X-Signature']!, v.name);
    if (v.scheme === 'webhook')
      t.is([`t=${v.timestamp}`, ...secrets.map((s) => `v1=${hex256(s, `${v.timestamp}.${v.body}`)}`)].join(','), v.headers['X-Signature']!, v.name);
    if (v.scheme === 'standard-webhooks')
      t.is(secrets.map((s) => standardSignature(s, v.id!, v.timestamp, v.body)).join(' '), v.headers['webhook-signature']!, v.name);
    if (v.scheme === 'v1-request') t.is(v1Signature(file.secret, v.payload!), v.headers.SIGNATURE!, v.name);
    if (v.scheme === 'v1-webhook') t.is(v1Signature(file.secret, `${v.headers.TIMESTAMP};${v.body}`), v.headers.SIGNATURE!, v.name);
  }
});

// ---- the running API ----
type Doc = {
  paths: Record<string, Record<string, { responses: Record<string, { $ref?: string; headers?: Record<string, unknown> }> }>>;
  components: { responses: Record<string, { headers?: Record<string, unknown> }> };
};
let doc: Doc;
test.before(async () => {
  doc = (await (await fetch(`${API_URL}/openapi.json`)).json()) as Doc;
});

/** The headers an answer of the operation declares (lower case), its component's followed. */
function declared(method: string, path: string, status: number): Set<string> {
  const response = doc.paths[path]?.[method.toLowerCase()]?.responses[status];
  if (!response) throw new Error(`${method} ${path} does not document ${status}`);
  const resolved = response.$ref ? doc.components.responses[response.$ref.split('/').pop()!]! : response;
  return new Set(Object.keys(resolved.headers ?? {}).map((h) => h.toLowerCase()));
}

/** The headers the gateway itself sets (api/): each present in an answer must be declared on it. */
const GATEWAY_HEADERS = [
  'x-trace-id',
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'x-ratelimit-reset',
  'retry-after',
  'idempotent-replayed',
  'deprecation',
  'sunset',
  'link',
];
function assertDeclared(
  t: { deepEqual: (a: unknown, b: unknown, m?: string) => void; true: (v: boolean, m?: string) => void },
  res: ApiResponse,
  method: string,
  path: string,
) {
  const names = declared(method, path, res.status);
  const sent = GATEWAY_HEADERS.filter((h) => res.headers.has(h));
  t.true(sent.includes('x-trace-id'), `${method} ${path} ${res.status} carries X-Trace-Id`);
  t.deepEqual(
    sent.filter((h) => !names.has(h)),
    [],
    `${method} ${path} ${res.status}: every header it sent is declared`,
  );
}

async function send(method: string, target: string, headers: Record<string, string>, body = ''): Promise<ApiResponse> {
  const response = await fetch(API_URL + target, {
    method,
    headers: { ...headers, ...(body ? { 'Content-Type': 'application/json' } : {}) },
    ...(body ? { body } : {}),
  });
  return readResponse(response);
}
const signedV2 = (keys: KeyPair, method: string, target: string, body: string, t: number, bind: boolean) =>
  send(
    method,
    target,
    { 'X-Merchant-Token': keys.token, 'X-Timestamp': String(t), 'X-Signature': v2Header(keys.secret, t, body, bind ? { method, target } : undefined) },
    body,
  );
const now = () => Math.floor(Date.now() / 1000);

test('V2 requests signed by the page alone are accepted: v1 only, and with the request-bound v2= (a query included)', async (t) => {
  const { keys } = await newMerchant();
  const balance = await signedV2(keys, 'GET', '/api/v1/p2p/merchant/balance', '', now(), false);
  t.is(balance.status, 200, balance.text);
  assertDeclared(t, balance, 'GET', '/api/v1/p2p/merchant/balance');
  for (const h of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']) t.regex(balance.headers.get(h) ?? '', /^\d+$/, h);

  // A body with a character outside ASCII: the bytes sent are the bytes signed.
  const body = JSON.stringify(payinBody({ client_id: `Zoë-${randomUUID().slice(0, 8)}` }));
  const created = await signedV2(keys, 'POST', '/api/v1/p2p/merchant/deals/payin', body, now(), true);
  t.is(created.status, 200, created.text);
  t.is(created.headers.get('idempotent-replayed'), 'false');
  assertDeclared(t, created, 'POST', '/api/v1/p2p/merchant/deals/payin');
  const repeat = await signedV2(keys, 'POST', '/api/v1/p2p/merchant/deals/payin', body, now() - 1, true);
  t.is(repeat.headers.get('idempotent-replayed'), 'true', 'a repeat of the key says so');

  const listed = await signedV2(keys, 'GET', '/api/v1/p2p/merchant/deals?page_size=100&statuses=ESCROW_LOCKED', '', now(), true);
  t.is(listed.status, 200, listed.text);
  t.true((listed.body.data as Json[]).some((d) => d.deal_id === created.body.deal.deal_id));

  const missing = await signedV2(keys, 'GET', `/api/v1/p2p/merchant/deals/${randomUUID()}`, '', now(), true);
  t.is(missing.status, 404);
  assertDeclared(t, missing, 'GET', '/api/v1/p2p/merchant/deals/{deal_id}');

  // The v2 is checked: the right v1 with a v2 of another target is refused.
  const t0 = now();
  const moved = await send('GET', '/api/v1/p2p/merchant/balance', {
    'X-Merchant-Token': keys.token,
    'X-Timestamp': String(t0),
    'X-Signature': v2Header(keys.secret, t0, '', { method: 'GET', target: '/api/v1/p2p/merchant/deals' }),
  });
  t.is(moved.status, 401);
  assertDeclared(t, moved, 'GET', '/api/v1/p2p/merchant/balance');
});

test('the same-second rule as the page writes it: a v1-only key rotation with a GET’s signature of that second is refused, one second earlier it passes', async (t) => {
  const { keys } = await newMerchant();
  const t0 = now();
  t.is((await signedV2(keys, 'GET', '/api/v1/p2p/merchant/balance', '', t0, false)).status, 200);
  const refused = await signedV2(keys, 'POST', '/api/v1/p2p/merchant/api-keys/rotate', '', t0, false);
  t.is(refused.status, 401);
  t.is(
    problemDetail(refused.body).message,
    'this signature was already used by another request; a key rotation needs a signature of its own (a new timestamp, or a request-bound v2 signature)',
  );
  const page = readFileSync(join(ROOT, 'docs', 'signing.md'), 'utf8');
  t.true(page.includes(problemDetail(refused.body).message), 'the page quotes the message');
  const rotated = await signedV2(keys, 'POST', '/api/v1/p2p/merchant/api-keys/rotate', '', t0 - 1, false);
  t.is(rotated.status, 200, rotated.text);
  t.regex(rotated.body.secret, /^whsec_/);
});

test('a V1 request signed by the page alone is accepted, with the V1 headers the document declares', async (t) => {
  const m = await newMerchant({ api_version: 'v1' });
  const t0 = now();
  const res = await send(
    'POST',
    '/v1/payments/incoming/list',
    { MERCHANT: m.merchantId, TIMESTAMP: String(t0), SIGNATURE: v1Signature(m.keys.secret, `${t0}`) },
    '{}',
  );
  t.is(res.status, 200, res.text);
  t.is(res.headers.get('deprecation'), 'true');
  assertDeclared(t, res, 'POST', '/v1/payments/incoming/list');
});

test('webhooks verify by the page alone: X-Signature and Standard Webhooks over the raw body', async (t) => {
  const receiver = await startReceiver();
  try {
    const { keys } = await newMerchant({ webhook_url: receiver.url });
    const body = JSON.stringify(payinBody());
    t.is((await signedV2(keys, 'POST', '/api/v1/p2p/merchant/deals/payin', body, now(), true)).status, 200);
    const delivery = await eventually(async () => receiver.received.find((r) => r.body.includes('"deal.created"')), 'the deal.created webhook');
    const h = delivery.headers as Record<string, string>;
    const ts = Number(h['x-timestamp']);
    t.true(Math.abs(now() - ts) <= 300, 'within the tolerance');
    const given = h['x-signature']!.split(',').filter((part) => part.startsWith('v1='));
    t.true(
      given.some((part) => equal(part.slice(3), hex256(keys.secret, `${ts}.${delivery.body}`))),
      'X-Signature',
    );
    t.is(h['webhook-id'], JSON.parse(delivery.body).event_id);
    t.true(
      h['webhook-signature']!.split(' ').some((s) => equal(s, standardSignature(keys.secret, h['webhook-id']!, Number(h['webhook-timestamp']), delivery.body))),
      'webhook-signature',
    );
  } finally {
    await receiver.close();
  }
});
