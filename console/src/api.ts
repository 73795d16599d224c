/**
 * The one client of the console: openapi-fetch typed by the gateway's own OpenAPI document, the
 * types the SDK package exports as `@merchant-gateway/sdk/openapi` (written by
 * `npm run sdk:generate`: one set of types for both; the console's tsconfig reads them from the
 * SDK's source, so no SDK build comes first). Same-origin cookie session; every request but
 * GET/HEAD carries the session's CSRF token.
 */
import type { components, paths } from '@merchant-gateway/sdk/openapi';
import createClient, { type Middleware } from 'openapi-fetch';

export type Schemas = components['schemas'];

let csrfToken = '';
export const setCsrfToken = (token: string) => {
  csrfToken = token;
};

const csrf: Middleware = {
  onRequest({ request }) {
    if (request.method !== 'GET' && request.method !== 'HEAD' && csrfToken) request.headers.set('X-CSRF-Token', csrfToken);
    return request;
  },
};

/**
 * Money never goes through a JS number: an int64 field is built with int64('digits') (a bigint)
 * and written into the JSON as its digits, exact above 2^53 (the API's body parser keeps such
 * integers exact). JSON.stringify cannot write a bigint, so it leaves a marker the serializer
 * replaces by the digits.
 */
const INT_MARK = `int64-${Math.random().toString(36).slice(2)}:`;
function jsonBody(body: unknown): string {
  return JSON.stringify(body, (_key, value: unknown) => (typeof value === 'bigint' ? `${INT_MARK}${value.toString()}` : value)).replace(
    new RegExp(`"${INT_MARK}(-?\\d+)"`, 'g'),
    '$1',
  );
}

/** An int64 amount for a request body from the digits an operator typed (minor units); never parseFloat. */
export function int64(digits: string): bigint {
  const trimmed = digits.trim();
  if (!/^-?\d+$/.test(trimmed)) throw new ApiError(400, `"${digits}" is not a whole number of minor units`);
  return BigInt(trimmed);
}

export const api = createClient<paths>({ baseUrl: '', credentials: 'same-origin', bodySerializer: jsonBody });
api.use(csrf);

/** A refused call: the status and the API's own message (problem+json detail). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** The problem's message: detail is `{ code, message }` as JSON text; field errors are appended. */
function problemMessage(status: number, error: unknown): string {
  if (error && typeof error === 'object') {
    const problem = error as { title?: string; detail?: string; errors?: { field: string; message: string }[] };
    let message = problem.title ?? `HTTP ${status}`;
    if (problem.detail) {
      try {
        const detail = JSON.parse(problem.detail) as { message?: string };
        if (detail.message) message = detail.message;
      } catch {
        message = problem.detail;
      }
    }
    // A field error the message already says, field name and all (a lone bad id), is not said twice.
    const fields = problem.errors
      ?.filter((f) => !(message.includes(f.field) && message.includes(f.message)))
      .map((f) => `${f.field}: ${f.message}`)
      .join('; ');
    return fields ? `${message} (${fields})` : message;
  }
  return typeof error === 'string' && error ? error : `HTTP ${status}`;
}

/** The answer's data, or an ApiError with the API's message. */
export async function unwrap<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await call;
  if (!response.ok) throw new ApiError(response.status, problemMessage(response.status, error));
  return data as T;
}

/** The download URL of an evidence file (an <img> or a link; the session cookie goes along). */
export const fileUrl = (fileId: string) => `/api/v1/p2p/admin/files/${encodeURIComponent(fileId)}`;
