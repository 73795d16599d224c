/**
 * The typed error hierarchy shared by the API, services and activities.
 * Each kind maps to one HTTP status and gRPC code in api/errors.ts; the `kind` string is
 * also the ApplicationFailure type when the error crosses a Temporal boundary.
 */
/**
 * Every code a field error (problem+json `errors[].code`) may carry, with what it means: the one
 * documented list (the OpenAPI Problem schema's enum is built from it). Validation library
 * internals (zod's `custom`, `invalid_union`, …) are mapped onto it in api/errors.ts and never
 * reach a client. New codes may be added; a code is never renamed or given another meaning.
 */
export const FIELD_ERROR_MEANINGS = {
  required: 'the field is missing (or null where a value is required)',
  invalid_type: 'the value has the wrong JSON type (a number where a string is expected, …)',
  not_integer: 'an integer field (amounts in minor units, counts) got a number with a fraction or in exponent form',
  too_small: 'below the minimum: a number too small (amounts must be greater than 0), a string or list too short',
  too_big: 'above the maximum: a number too large, a string or list too long',
  out_of_range: 'outside the representable range (int64, dates between 1970 and 9999)',
  invalid_format: 'a string not in its format: UUID, URL, RFC 3339 timestamp, currency code, transaction id, …',
  invalid_enum: 'not one of the values the field allows',
  invalid_value: 'a value the field does not accept for another reason (the message says which)',
  invalid_string: 'text with control characters or ill-formed Unicode',
  invalid_json: 'the body is not well-formed JSON',
  unknown_field: 'a field this operation does not know (operations that refuse extra fields)',
  invalid_address: 'not a valid TRON address (empty, wrong length or prefix, not base58, bad checksum)',
  unknown_payment_method: 'no such payment method, or not enabled for the merchant',
  currency_mismatch: 'the currency differs from the currency of the payment method',
  invalid_page_token: 'a page_token that this listing did not issue, or issued for other filters',
  key_reused: 'an idempotency key already used for another request',
  unknown_wallet: 'not a wallet of the caller (or not of the expected currency)',
  invalid_file: 'the uploaded file is refused (type, size, empty)',
  unknown_file: 'no such file of the caller',
  invalid_reference: "names a record that does not exist or is not the caller's",
  max_below_min: 'a maximum set below its minimum',
  unknown_currency: 'V1: an unknown numeric currency code',
  invalid_amount: 'V1: a decimal amount that is not valid for its currency',
  unknown_status: 'V1: an unknown status code',
  v1_separator: 'V1: a signed field contains the signature separator `;`',
  unsupported: 'a value the API accepts in its schema but does not support (the message says which)',
  already_exists: 'a value that must be unique and is taken (an operator email)',
} as const;

export type FieldErrorCode = keyof typeof FIELD_ERROR_MEANINGS;
export const FIELD_ERROR_CODES = Object.keys(FIELD_ERROR_MEANINGS) as [FieldErrorCode, ...FieldErrorCode[]];
export const isFieldErrorCode = (code: unknown): code is FieldErrorCode => typeof code === 'string' && Object.hasOwn(FIELD_ERROR_MEANINGS, code);

export interface FieldError {
  field: string;
  message: string;
  code: FieldErrorCode;
}

const ERROR_KINDS = [
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
