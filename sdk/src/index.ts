/**
 * @merchant-gateway/sdk — the Merchant Payment Gateway API V2 for TypeScript: a typed client
 * generated from the gateway's OpenAPI document, request signing (v1 and the request-bound v2),
 * retries, pagination, typed errors and webhook verification. See README.md.
 */
export { GatewayClient, stringifyJson, toAmount } from './client.js';
export type {
  Amount,
  SandboxAdvance,
  SandboxDepositResult,
  Appeal,
  Balance,
  Bank,
  CallbackDelivery,
  CallbackWaitOptions,
  CreateOptions,
  CreateOutcome,
  CreatePassInput,
  CreatePassRequest,
  CreatePayinInput,
  CreatePayinRequest,
  CreatePayoutInput,
  CreatePayoutRequest,
  CreateWithdrawalInput,
  Currency,
  Deal,
  GatewayClientOptions,
  KeyPair,
  MerchantProfile,
  Pass,
  PaymentMethod,
  PayoutDeal,
  Turnover,
  Withdrawal,
  WithAmounts,
  WithdrawRequest,
  WithOptionalKey,
} from './client.js';
export {
  ApiError,
  AuthenticationError,
  CallbackWaitTimeoutError,
  ConflictError,
  GatewayError,
  IdempotencyMismatchError,
  InvalidRequestError,
  NetworkError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
  ServerError,
} from './errors.js';
export type { CreatedObject, FieldError, Problem } from './errors.js';
export { EventFeed, paginate } from './pagination.js';
export type { Page } from './pagination.js';
export { DEFAULT_RETRY } from './retry.js';
export type { RetryOptions } from './retry.js';
export { signatureHeaders, v1Signature, v2Signature } from './signing.js';
export { isKnownEventType, standardWebhooksKey, verifyWebhook, WebhookVerificationError } from './webhooks.js';
export type {
  AppealEvent,
  AppealMessageEvent,
  DealAmountChangedEvent,
  DealEvent,
  DepositEvent,
  TestEvent,
  HeaderBag,
  VerifyOptions,
  WebhookEvent,
  WebhookEventOf,
  WebhookEventType,
  WithdrawalEvent,
} from './webhooks.js';
export type { components, operations, paths, webhooks } from './generated/openapi.js';
