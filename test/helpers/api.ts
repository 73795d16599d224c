import { signJwt } from '../../api/auth/jwt';
import { computeSignature, signatureHeader, type SignedRequest } from '../../domain/crypto/signature';

export const API_URL = process.env.TEST_API_URL ?? '';
/** The stack API's Prometheus endpoint, on its own port (METRICS_PORT); API_URL + /metrics is 404. */
export const API_METRICS_URL = process.env.TEST_API_METRICS_URL ?? '';
export const JWT_SECRET = process.env.JWT_SECRET ?? '';

export interface KeyPair {
  token: string;
  secret: string;
}

/**
 * JSON as a test reads it: an answer, a jsonb column, a request to a fake. A test checks its shape
 * with its assertions (t.like, t.deepEqual; the contract tests check every answer against the
 * OpenAPI document), so the type is left open here rather than restating the document's schemas
 * in every test.
 */
// biome-ignore lint/suspicious/noExplicitAny: the tests' one open type: the shape of JSON is what their assertions check
export type Json = any;

export interface ApiResponse<T = Json> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

async function send(method: string, path: string, headers: Record<string, string>, rawBody?: string): Promise<ApiResponse> {
  const base = path.startsWith('http') ? '' : API_URL;
  const response = await fetch(base + path, {
    method,
    headers: { ...(rawBody !== undefined ? { 'Content-Type': 'application/json' } : {}), ...headers },
    ...(rawBody !== undefined ? { body: rawBody } : {}),
  }).catch((error: Error & { cause?: { code?: string; message?: string } }) => {
    // fetch says only "fetch failed": name the request and what broke.
    throw new Error(`${method} ${path}: ${error.message} (${error.cause?.code ?? ''} ${error.cause?.message ?? ''})`, { cause: error });
  });
  return readResponse(response);
}

/** Status, headers, the text and, when it is JSON, the parsed body. */
export async function readResponse(response: Response): Promise<ApiResponse> {
  const text = await response.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    /* not JSON */
  }
  return { status: response.status, headers: response.headers, body, text };
}

const encode = (body: unknown) => (body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body));

/**
 * Headers for a raw request, signed exactly as the spec's signing rule says: the current second, v1 over
 * `<t>.<raw body>`; with `bind`, also the request-bound v2 (method, path and query as sent).
 */
export function hmacHeaders(pair: KeyPair, rawBody: string | Buffer, timestamp = Math.floor(Date.now() / 1000), bind?: SignedRequest) {
  return {
    'X-Merchant-Token': pair.token,
    'X-Timestamp': String(timestamp),
    'X-Signature': signatureHeader(pair.secret, timestamp, rawBody, bind),
  };
}

/**
 * The server refuses a repeated signature only on single-use routes (api/auth/replay.ts): a
 * second use on the same single-use route, and a key rotation whose signature any request
 * carried before. Everything else is signed with the current second, as a spec client does; for
 * those routes this client steps back a second until the signature is fresh (the window is five
 * minutes), as a careful client of the rule would.
 */
const SINGLE_USE_ROUTES = [
  /^POST .*\/callbacks\/[^/]+\/retry$/,
  /^POST .*\/wallet\/deposit-address$/,
  /^POST .*\/appeals\/[^/]+\/messages$/,
  /^POST .*\/merchant\/passes$/,
  /^POST .*\/merchant\/files$/,
];
const ROTATION = /^POST .*\/api-keys\/rotate$/;
const seenSignatures = new Map<string, Set<string>>();

function spentTimestamp(pair: KeyPair, method: string, path: string, raw: string | Buffer): number {
  const route = `${method.toUpperCase()} ${new URL(path, 'http://host').pathname}`;
  const rotation = ROTATION.test(route);
  const singleUse = rotation || SINGLE_USE_ROUTES.some((re) => re.test(route));
  for (let t = Math.floor(Date.now() / 1000); ; t -= 1) {
    const signature = computeSignature(pair.secret, t, raw);
    const routes = seenSignatures.get(signature) ?? new Set<string>();
    if (!singleUse || (rotation ? routes.size === 0 : !routes.has(route))) {
      routes.add(route);
      seenSignatures.set(signature, routes);
      return t;
    }
  }
}

/** A request signed with a merchant key pair (v1 over `<t>.<raw body>`). */
export function signed(pair: KeyPair, method: string, path: string, body?: unknown, timestamp?: number) {
  const raw = encode(body);
  const t = timestamp ?? spentTimestamp(pair, method, path, raw ?? '');
  return send(method, path, hmacHeaders(pair, raw ?? '', t), raw);
}

/** A request signed with both schemes, v2 bound to the method and the path and query exactly as sent. */
export function signedBound(pair: KeyPair, method: string, path: string, body?: unknown, timestamp?: number) {
  const raw = encode(body);
  const t = timestamp ?? spentTimestamp(pair, method, path, raw ?? '');
  const url = new URL(path, API_URL || 'http://host');
  return send(method, path, hmacHeaders(pair, raw ?? '', t, { method, target: url.pathname + url.search }), raw);
}

/** A signed request with a raw body and content type of the caller's choosing (fuzzing, uploads). */
export async function signedRaw(pair: KeyPair, method: string, path: string, raw: string | Buffer, contentType?: string, timeoutMs = 15_000) {
  const text = typeof raw === 'string' ? raw : raw.toString('latin1');
  const t = spentTimestamp(pair, method, path, text);
  const base = path.startsWith('http') ? '' : API_URL;
  const response = await fetch(base + path, {
    method,
    headers: { ...(contentType ? { 'Content-Type': contentType } : {}), ...hmacHeaders(pair, text, t) },
    ...(method === 'GET' || method === 'HEAD' ? {} : { body: typeof raw === 'string' ? raw : new Uint8Array(raw) }),
    signal: AbortSignal.timeout(timeoutMs),
  });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

export function unsigned(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  return send(method, path, headers, encode(body));
}

export function withBearer(token: string, method: string, path: string, body?: unknown) {
  return send(method, path, { Authorization: `Bearer ${token}` }, encode(body));
}

export const operatorToken = () => signJwt({ sub: 'test-operator', role: 'admin' }, JWT_SECRET);
export const cabinetToken = (merchantId: string) => signJwt({ sub: 'test-user', role: 'merchant', merchant_id: merchantId }, JWT_SECRET);

export async function asOperator(method: string, path: string, body?: unknown) {
  return withBearer(await operatorToken(), method, path, body);
}

let counter = 0;

/** A fresh merchant with a key pair: each test makes its own so tests never share state. */
export async function newMerchant(overrides: Record<string, unknown> = {}): Promise<{ merchantId: string; keys: KeyPair }> {
  counter += 1;
  const created = await asOperator('POST', '/api/v1/p2p/admin/merchants', {
    name: `Test merchant ${process.pid}-${counter}`,
    email: `merchant-${process.pid}-${counter}-${Date.now()}@example.test`,
    webhook_url: process.env.TEST_WEBHOOK_SINK_URL ?? 'http://127.0.0.1:9/webhooks',
    ...overrides,
  });
  if (created.status !== 201) throw new Error(`merchant create failed: ${created.status} ${created.text}`);
  const merchantId = created.body.merchant.id as string;
  const keys = await asOperator('POST', '/api/v1/p2p/merchant/api-keys', { merchant_id: merchantId });
  if (keys.status !== 201) throw new Error(`key issue failed: ${keys.status} ${keys.text}`);
  return { merchantId, keys: keys.body as KeyPair };
}

/** The gRPC-style JSON inside a problem's detail. */
export function problemDetail(body: { detail: string }): { code: number; message: string; details: unknown[] } {
  return JSON.parse(body.detail);
}
