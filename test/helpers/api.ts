import { signJwt } from '../../api/auth/jwt';
import { computeSignature, signatureHeader } from '../../domain/signature';

export const API_URL = process.env.TEST_API_URL ?? '';
export const JWT_SECRET = process.env.JWT_SECRET ?? '';

export interface KeyPair {
  token: string;
  secret: string;
}

export interface ApiResponse<T = any> {
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

const usedSignatures = new Map<string, string>();

/**
 * Headers for a raw request. Without an explicit timestamp one is chosen whose signature this
 * process has not sent before, on any route (see freshTimestamp: the server refuses a signature
 * reused on another route).
 */
export function hmacHeaders(pair: KeyPair, rawBody: string | Buffer, timestamp?: number) {
  if (timestamp === undefined) {
    for (timestamp = Math.floor(Date.now() / 1000); usedSignatures.has(computeSignature(pair.secret, timestamp, rawBody)); timestamp -= 1);
    usedSignatures.set(computeSignature(pair.secret, timestamp, rawBody), '(raw request)');
  }
  return {
    'X-Merchant-Token': pair.token,
    'X-Timestamp': String(timestamp),
    'X-Signature': signatureHeader(pair.secret, timestamp, rawBody),
  };
}

/**
 * The server refuses a signature already accepted on another route, and any repeat on a
 * single-use route (api/auth/replay.ts). Body-less requests of one second share a signature, so
 * a client that sends several must vary the timestamp: this one steps back a second until the
 * signature is free for the route (the window is five minutes).
 */
const SINGLE_USE = [
  /\/api-keys\/rotate$/,
  /\/callbacks\/[^/]+\/retry$/,
  /^POST .*\/wallet\/deposit-address$/,
  /^POST .*\/appeals\/[^/]+\/messages$/,
  /^POST .*\/merchant\/passes$/,
];

function freshTimestamp(pair: KeyPair, method: string, path: string, raw: string): number {
  const route = `${method.toUpperCase()} ${new URL(path, 'http://host').pathname}`;
  const once = SINGLE_USE.some((re) => re.test(route));
  for (let t = Math.floor(Date.now() / 1000); ; t -= 1) {
    const signature = computeSignature(pair.secret, t, raw);
    const usedOn = usedSignatures.get(signature);
    if (usedOn === undefined || (usedOn === route && !once)) {
      usedSignatures.set(signature, route);
      return t;
    }
  }
}

/** A request signed with a merchant key pair (spec 5.1). */
export function signed(pair: KeyPair, method: string, path: string, body?: unknown, timestamp?: number) {
  const raw = encode(body);
  const t = timestamp ?? freshTimestamp(pair, method, path, raw ?? '');
  return send(method, path, hmacHeaders(pair, raw ?? '', t), raw);
}

/** A signed request with a raw body and content type of the caller's choosing (fuzzing, uploads). */
export async function signedRaw(pair: KeyPair, method: string, path: string, raw: string | Buffer, contentType?: string, timeoutMs = 15_000) {
  const text = typeof raw === 'string' ? raw : raw.toString('latin1');
  const t = freshTimestamp(pair, method, path, text);
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
