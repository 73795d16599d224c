/** A V1 client for the tests, with its own HMAC-SHA512 (independent of the server's code). */
import { createHmac } from 'node:crypto';
import { API_URL, readResponse, type ApiResponse } from '../helpers/api';

export interface V1Merchant {
  merchantId: string;
  keys: { token: string; secret: string };
}

export function v1Sign(secret: string, timestamp: number | string, fields: unknown[]): string {
  const payload = [String(timestamp), ...fields.map((f) => (f === undefined || f === null ? '' : String(f)))].join(';');
  return createHmac('sha512', secret).update(payload, 'utf8').digest('hex');
}

/**
 * As in V2, a signature accepted on one route is refused on another (api/auth/replay.ts): two
 * `{timestamp}`-signed routes in one second need different timestamps, so this steps back a
 * second until the signature is free for the route.
 */
const used = new Map<string, string>();
function freshTimestamp(secret: string, route: string, fields: unknown[]): number {
  for (let t = Math.floor(Date.now() / 1000); ; t -= 1) {
    const signature = v1Sign(secret, t, fields);
    const on = used.get(signature);
    if (on === undefined || on === route) {
      used.set(signature, route);
      return t;
    }
  }
}

export interface V1Options {
  timestamp?: number;
  secret?: string;
  merchantId?: string;
  headers?: Record<string, string>;
  base?: string;
}

export async function v1(m: V1Merchant, method: 'GET' | 'POST', path: string, body: unknown, fields: unknown[], options: V1Options = {}): Promise<ApiResponse> {
  const secret = options.secret ?? m.keys.secret;
  const timestamp = options.timestamp ?? freshTimestamp(secret, `${method} ${path}`, fields);
  const raw = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
  const response = await fetch((options.base ?? API_URL) + path, {
    method,
    headers: {
      MERCHANT: options.merchantId ?? m.merchantId,
      TIMESTAMP: String(timestamp),
      SIGNATURE: v1Sign(secret, timestamp, fields),
      ...(raw !== undefined ? { 'Content-Type': 'application/json' } : {}),
      ...options.headers,
    },
    ...(raw !== undefined ? { body: raw } : {}),
  });
  return readResponse(response);
}

/** The V1 calls of a merchant, each signed by its category's payload. */
export function v1Client(m: V1Merchant, options: V1Options = {}) {
  return {
    createIncoming: (body: Record<string, unknown>, path = '/v1/payments/incoming') => v1(m, 'POST', path, body, [body.payInId, body.salt], options),
    getIncoming: (id: string) => v1(m, 'GET', `/v1/payments/incoming/${id}`, undefined, [id], options),
    listIncoming: (body: Record<string, unknown> = {}) => v1(m, 'POST', '/v1/payments/incoming/list', body, [], options),
    incomingStatistics: (body: Record<string, unknown> = {}) => v1(m, 'POST', '/v1/payments/incoming/statistics', body, [], options),
    createOutgoing: (body: Record<string, unknown>) => v1(m, 'POST', '/v1/payments/outgoing', body, [body.payOutId, body.salt], options),
    getOutgoing: (id: string) => v1(m, 'GET', `/v1/payments/outgoing/${id}`, undefined, [id], options),
    listOutgoing: (body: Record<string, unknown> = {}) => v1(m, 'POST', '/v1/payments/outgoing/list', body, [], options),
    outgoingStatistics: (body: Record<string, unknown> = {}) => v1(m, 'POST', '/v1/payments/outgoing/statistics', body, [], options),
    banks: (body: Record<string, unknown> = {}) => v1(m, 'POST', '/v1/banks/list', body, [], options),
  };
}

export const incomingBody = (over: Record<string, unknown> = {}) => ({
  payInId: `v1-${Math.random().toString(36).slice(2)}`,
  amount: '1500.50',
  currency: 643,
  method: 'card-rub',
  clientId: 'payer-7',
  salt: 'pepper',
  successUrl: 'https://shop.example/ok',
  failUrl: 'https://shop.example/fail',
  ...over,
});

/** The payload fields each V1 create route signs after the timestamp; GET by id signs its id; the rest nothing. */
const CREATE_FIELDS: Array<[RegExp, string[]]> = [
  [/^\/v1\/payments\/incoming(?:\/idempotency|\/nochannel)?$/, ['payInId', 'salt']],
  [/^\/v1\/payments\/outgoing$/, ['payOutId', 'salt']],
  [/^\/v1\/merchant\/withdraw$/, ['requestId', 'wallet', 'salt']],
  [/^\/v1\/disputs\/create$/, ['paymentId']],
];

/** The fields a V1 request signs, read from its raw body (as well as a client can tell; a mismatch simply is a 401). */
export function v1FieldsOf(method: string, path: string, raw: string): unknown[] {
  const pathname = new URL(path, 'http://host').pathname;
  if (method === 'GET') {
    const id = /^\/v1\/(?:payments\/(?:incoming|outgoing)|merchant\/withdraw|disputs)\/([^/]+)$/.exec(pathname)?.[1];
    if (!id) return [];
    try {
      return [decodeURIComponent(id)];
    } catch {
      return [id];
    }
  }
  const names = CREATE_FIELDS.find(([re]) => re.test(pathname))?.[1];
  if (!names) return [];
  let body: Record<string, unknown> = {};
  try {
    const parsed = JSON.parse(raw);
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) body = parsed;
  } catch {
    /* not JSON: the server refuses it anyway */
  }
  return names.map((n) => (n === 'wallet' ? (body.wallet ?? body.address) : body[n]));
}

/** A raw V1 request signed for its route, for the reliability suites. */
export async function v1Raw(m: V1Merchant, method: string, path: string, raw: string, contentType?: string, timeoutMs = 15_000) {
  const fields = v1FieldsOf(method, path, raw);
  const timestamp = freshTimestamp(m.keys.secret, `${method} ${new URL(path, 'http://host').pathname}`, fields);
  const response = await fetch(API_URL + path, {
    method,
    headers: {
      ...(contentType ? { 'Content-Type': contentType } : {}),
      MERCHANT: m.merchantId,
      TIMESTAMP: String(timestamp),
      SIGNATURE: v1Sign(m.keys.secret, timestamp, fields),
    },
    ...(method === 'GET' ? {} : { body: raw }),
    signal: AbortSignal.timeout(timeoutMs),
  });
  return { status: response.status, headers: response.headers, text: await response.text() };
}
