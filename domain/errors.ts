/**
 * The typed error hierarchy shared by the API, services and activities.
 * Each kind maps to one HTTP status and gRPC code in api/errors.ts; the `kind` string is
 * also the ApplicationFailure type when the error crosses a Temporal boundary.
 */
export interface FieldError {
  field: string;
  message: string;
  code: string;
}

export const ERROR_KINDS = [
  'INVALID_ARGUMENT',
  'FAILED_PRECONDITION',
  'UNAUTHENTICATED',
  'PERMISSION_DENIED',
  'NOT_FOUND',
  'CONFLICT',
  'RATE_LIMITED',
  'GONE',
  'INTERNAL',
] as const;
export type ErrorKind = (typeof ERROR_KINDS)[number];

export abstract class DomainError extends Error {
  abstract readonly kind: ErrorKind;
  /** Set only for protocol-level errors (405, 413, 415) whose status differs from the kind's. */
  httpStatus?: number;
  constructor(
    message: string,
    readonly fieldErrors: FieldError[] = [],
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export class InvalidArgument extends DomainError {
  readonly kind = 'INVALID_ARGUMENT' as const;
}
export class FailedPrecondition extends DomainError {
  readonly kind = 'FAILED_PRECONDITION' as const;
}
export class Unauthenticated extends DomainError {
  readonly kind = 'UNAUTHENTICATED' as const;
}
export class PermissionDenied extends DomainError {
  readonly kind = 'PERMISSION_DENIED' as const;
}
export class NotFound extends DomainError {
  readonly kind = 'NOT_FOUND' as const;
}
export class Conflict extends DomainError {
  readonly kind = 'CONFLICT' as const;
}
export class Gone extends DomainError {
  readonly kind = 'GONE' as const;
}
export class Internal extends DomainError {
  readonly kind = 'INTERNAL' as const;
}
export class RateLimited extends DomainError {
  readonly kind = 'RATE_LIMITED' as const;
  constructor(readonly limit: number) {
    super(`merchant rate limit exceeded (limit: ${limit}/min)`);
  }
}
/** Too much at once (unverified upload bytes in flight): 429 like the rate limit, worth retrying after a moment. */
export class TooManyInFlight extends DomainError {
  readonly kind = 'RATE_LIMITED' as const;
}

const byKind: Record<ErrorKind, new (message: string) => DomainError> = {
  INVALID_ARGUMENT: InvalidArgument,
  FAILED_PRECONDITION: FailedPrecondition,
  UNAUTHENTICATED: Unauthenticated,
  PERMISSION_DENIED: PermissionDenied,
  NOT_FOUND: NotFound,
  CONFLICT: Conflict,
  RATE_LIMITED: Internal,
  GONE: Gone,
  INTERNAL: Internal,
};

/** Rebuilds a DomainError from a kind string (e.g. an ApplicationFailure type), or undefined. */
export function domainErrorFromKind(kind: string | undefined | null, message: string): DomainError | undefined {
  if (!kind || !(ERROR_KINDS as readonly string[]).includes(kind)) return undefined;
  return new byKind[kind as ErrorKind](message);
}

/**
 * Postgres errors that say the request itself was wrong, mapped once for the API and the
 * activities alike: class 22 (data exception: a value out of range, bad text, an impossible
 * date) is the caller's input, never a reason to retry; 23505 is a lost race on a unique key.
 * Everything else is infrastructure (retryable) and stays undefined here.
 */
export function fromDatabaseError(error: unknown): DomainError | undefined {
  const pg = error as { code?: unknown; severity?: unknown };
  if (!pg || typeof pg.code !== 'string' || typeof pg.severity !== 'string') return undefined;
  if (pg.code === '23505') return new Conflict('conflicting concurrent request');
  if (pg.code.startsWith('22')) return new InvalidArgument('a value is out of range or not valid for its field');
  return undefined;
}
