/**
 * The one client of the console: openapi-fetch typed by the gateway's own OpenAPI document
 * (the SDK's sdk/src/generated/openapi.ts, written by `npm run sdk:generate`: one file for both). Same-origin cookie session; every
 * request but GET/HEAD carries the session's CSRF token.
 */
import createClient, { type Middleware } from 'openapi-fetch';
import type { components, paths } from '../../sdk/src/generated/openapi';

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

export const api = createClient<paths>({ baseUrl: '', credentials: 'same-origin' });
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
export function problemMessage(status: number, error: unknown): string {
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
    const fields = problem.errors?.map((f) => `${f.field}: ${f.message}`).join('; ');
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
