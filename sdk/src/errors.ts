/**
 * Typed errors. Every non-2xx answer of the API is RFC 9457 problem+json: `title` is the
 * gRPC code name, `detail` a JSON string `{ code, message, details }`, `errors` the field errors,
 * and the answer's `X-Trace-Id` names it in the gateway's logs — quote it to support.
 */
import type { components } from './generated/openapi.js';

type Schemas = components['schemas'];
/** What a create answers: a PayIn deal, a PayOut deal, a withdrawal. */
export type CreatedObject = Schemas['MerchantDealInfo'] | Schemas['PayoutResponse']['deal'] | Schemas['Withdrawal'];

/** One field error of a validation failure. */
export interface FieldError {
  field: string;
  message: string;
  code: string;
}

/** The problem+json body as the API sends it. */
export interface Problem {
  type?: string;
  title?: string;
  status?: number;
  detail?: string;
  instance?: string;
  errors?: FieldError[];
}

const GRPC_NAMES: Record<number, string> = {
  0: 'OK',
  1: 'CANCELLED',
  2: 'UNKNOWN',
  3: 'INVALID_ARGUMENT',
  4: 'DEADLINE_EXCEEDED',
  5: 'NOT_FOUND',
  6: 'ALREADY_EXISTS',
  7: 'PERMISSION_DENIED',
  8: 'RESOURCE_EXHAUSTED',
  9: 'FAILED_PRECONDITION',
  10: 'ABORTED',
  11: 'OUT_OF_RANGE',
  12: 'UNIMPLEMENTED',
  13: 'INTERNAL',
  14: 'UNAVAILABLE',
  15: 'DATA_LOSS',
  16: 'UNAUTHENTICATED',
};

/** Any failure of a call to the gateway. */
export class GatewayError extends Error {
  override name = 'GatewayError';
}

/** The gateway answered with an error status. */
export class ApiError extends GatewayError {
  override name = 'ApiError';
  /** HTTP status. */
  readonly status: number;
  /** gRPC status code (3 INVALID_ARGUMENT, 9 FAILED_PRECONDITION, 5 NOT_FOUND, …); undefined when the answer had none. */
  readonly grpcCode: number | undefined;
  /** gRPC code name, e.g. INVALID_ARGUMENT (the problem's title). */
  readonly code: string;
  /** The problem's title. */
  readonly title: string;
  /** Field errors of a validation failure (empty otherwise). */
  readonly fieldErrors: FieldError[];
  /** X-Trace-Id of the answer. */
  readonly traceId: string | undefined;
  /** Seconds to wait before retrying, from Retry-After (429). */
  readonly retryAfterSeconds: number | undefined;
  /** The body as received (the problem, or text when it was not JSON). */
  readonly body: unknown;

  constructor(init: { status: number; body: unknown; traceId?: string; retryAfterSeconds?: number }) {
    const problem = (typeof init.body === 'object' && init.body !== null ? init.body : {}) as Problem;
    const detail = parseDetail(problem.detail);
    const message = detail?.message ?? problem.detail ?? (typeof init.body === 'string' && init.body ? init.body : `HTTP ${init.status}`);
    super(message);
    this.status = init.status;
    this.grpcCode = detail?.code;
    this.code = problem.title ?? (detail?.code !== undefined ? (GRPC_NAMES[detail.code] ?? String(detail.code)) : `HTTP_${init.status}`);
    this.title = problem.title ?? '';
    this.fieldErrors = Array.isArray(problem.errors) ? problem.errors : [];
    this.traceId = init.traceId;
    this.retryAfterSeconds = init.retryAfterSeconds;
    this.body = init.body;
  }

  /** The error class for a status: InvalidRequestError, AuthenticationError, … */
  static from(init: { status: number; body: unknown; traceId?: string; retryAfterSeconds?: number }): ApiError {
    const s = init.status;
    if (s === 400) return new InvalidRequestError(init);
    if (s === 401) return new AuthenticationError(init);
    if (s === 403) return new PermissionDeniedError(init);
    if (s === 404) return new NotFoundError(init);
    if (s === 409) return new ConflictError(init);
    if (s === 429) return new RateLimitError(init);
    if (s >= 500) return new ServerError(init);
    return new ApiError(init);
  }
}

/** 400: INVALID_ARGUMENT (see fieldErrors) or FAILED_PRECONDITION (the state does not allow it). */
export class InvalidRequestError extends ApiError {
  override name = 'InvalidRequestError';
}
/** 401: credentials missing, invalid, expired or replayed. */
export class AuthenticationError extends ApiError {
  override name = 'AuthenticationError';
}
/** 403: kill-switch on, ip_whitelist, or a route the credential may not call. */
export class PermissionDeniedError extends ApiError {
  override name = 'PermissionDeniedError';
}
/** 404: no such object for this merchant (foreign ids included). */
export class NotFoundError extends ApiError {
  override name = 'NotFoundError';
}
/** 409: a conflict with the current state or a concurrent request. */
export class ConflictError extends ApiError {
  override name = 'ConflictError';
}
/** 429: over the merchant's rate limit (retried by the SDK, honouring Retry-After). */
export class RateLimitError extends ApiError {
  override name = 'RateLimitError';
}
/** 5xx: retried by the SDK where that is safe. */
export class ServerError extends ApiError {
  override name = 'ServerError';
}

/** No answer: the connection failed or the attempt timed out (after the SDK's retries). */
export class NetworkError extends GatewayError {
  override name = 'NetworkError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/**
 * A create repeated with an idempotency_key the gateway already knows, but with another body: the
 * gateway answered the object it made the first time and ignored the new body, so what you sent is
 * not what exists. `received` is that original object (the deal or the withdrawal), `sent` the body
 * of this call, `fields` the names that differ. `replayed` is the gateway's own word
 * (`Idempotent-Replayed`): true, or undefined when the answer did not say. Pass
 * `{ allowIdempotentMismatch: true }` to the create to get the original object instead.
 */
export class IdempotencyMismatchError extends GatewayError {
  override name = 'IdempotencyMismatchError';
  readonly idempotencyKey: string;
  /** The body of this call, as sent (amounts as the SDK serialized them). */
  readonly sent: Record<string, unknown>;
  /** The object the key made first (what the gateway answered): a deal, or a withdrawal. */
  readonly received: CreatedObject;
  /** The fields whose values differ, e.g. ['amount']. */
  readonly fields: string[];
  /** The gateway's Idempotent-Replayed header: true, or undefined when the answer carried none. */
  readonly replayed: boolean | undefined;

  constructor(init: { idempotencyKey: string; sent: Record<string, unknown>; received: CreatedObject; fields: string[]; replayed: boolean | undefined }) {
    super(
      `idempotency_key ${JSON.stringify(init.idempotencyKey)} already made an object with another ${init.fields.join(', ')}; ` +
        'the gateway answered that original and ignored this body',
    );
    this.idempotencyKey = init.idempotencyKey;
    this.sent = init.sent;
    this.received = init.received;
    this.fields = init.fields;
    this.replayed = init.replayed;
  }
}

/** retryCallback with `wait`: the delivery reached no final status (SUCCESS or ERROR) in time. `delivery` is the last state seen. */
export class CallbackWaitTimeoutError extends GatewayError {
  override name = 'CallbackWaitTimeoutError';
  readonly delivery: unknown;

  constructor(message: string, delivery: unknown) {
    super(message);
    this.delivery = delivery;
  }
}

function parseDetail(detail: string | undefined): { code?: number; message?: string } | undefined {
  if (!detail) return undefined;
  try {
    const parsed: unknown = JSON.parse(detail);
    if (typeof parsed !== 'object' || parsed === null) return undefined;
    const { code, message } = parsed as { code?: unknown; message?: unknown };
    return { code: typeof code === 'number' ? code : undefined, message: typeof message === 'string' ? message : undefined };
  } catch {
    return undefined;
  }
}
