/**
 * Legacy V1 authentication: headers MERCHANT (merchant id), TIMESTAMP
 * (Unix seconds) and SIGNATURE = lowercase hex HMAC-SHA512, keyed with the merchant's secret
 * string exactly as issued (`whsec_` included), over `{timestamp};{field};…` — the fields each
 * route names (api/v1/route.ts, defineV1Route), none of which may contain ';'. A signature serves
 * the family of the route it was first used on (V1Family). After the signature, the same gates
 * as V2 in the same order: kill-switch, ip_whitelist and rate limit (api/auth/admit.ts).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Context } from 'koa';
import { InvalidArgument, PermissionDenied, Unauthenticated } from '../../domain/errors';
import { checkTimestamp, REPLAY_WINDOW_PAST_SECONDS } from '../../domain/crypto/signature';
import { findV1Keys } from '../../db/queries/v1';
import { claimSignatureFamily } from '../../db/queries/signature-uses';
import { admitMerchant } from '../auth/admit';
import { admitUnverifiedUpload } from '../auth/unverified-uploads';
import type { AuthOptions, AuthScheme, Identity } from '../auth/authenticate';
import type { AppDeps } from '../deps';

/**
 * The fields of a route's signed payload after the timestamp, by name, in their order, read from
 * the raw request (the names only label a refusal: the client signs the values).
 */
export type V1Payload = (raw: { body: Record<string, unknown>; params: Record<string, string> }) => Record<string, unknown>;

const V2_MERCHANT_ON_V1 = 'this merchant uses API v2 (api_version v2); V1 routes serve only merchants with api_version v1';

/** A payload field as the client wrote it: strings verbatim, integers in digits, absent as ''. */
function fieldText(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'bigint' || typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

/** The separator of the signed string: no field that enters the string may contain it. */
const V1_SEPARATOR = ';';

/** The signed string of a V1 request: `{timestamp};{field};…` (docs/signing.md, "Legacy V1"). */
export function v1SignedPayload(timestamp: string, fields: unknown[]): string {
  return [timestamp, ...fields.map(fieldText)].join(V1_SEPARATOR);
}

/** SIGNATURE of a V1 request: lowercase hex HMAC-SHA512 keyed with the whole secret string. */
export function v1Signature(secret: string, payload: string): string {
  return createHmac('sha512', secret).update(payload).digest('hex');
}

/**
 * The fields of the route's signed string, each as signed. A field containing ';' is refused
 * (400) before anything is verified: V1 joins its fields with ';' and escapes nothing, so such a
 * field would let the string — and the signature — of another request stand for this one (issue
 * 25: a withdraw's `{t};{requestId};{wallet};{salt}` verified as a PayOut's
 * `{t};{payOutId};{salt}` with payOutId = "<requestId>;<wallet>"). Without one, the number of
 * fields is the number of separators, and two requests with equal strings sign equal values.
 */
function signedFields(fields: Record<string, unknown>): string[] {
  return Object.entries(fields).map(([name, value]) => {
    const text = fieldText(value);
    if (text.includes(V1_SEPARATOR)) {
      const message = `${name} must not contain '${V1_SEPARATOR}': V1 joins the signed fields with '${V1_SEPARATOR}'`;
      throw new InvalidArgument(message, [{ field: name, message, code: 'v1_separator' }]);
    }
    return text;
  });
}

/**
 * Every V1 route belongs to one family, and a signature belongs to the family it was first used
 * in: the headers of one kind of request never authenticate another kind. V1 signs
 * no amount, card, address or reason, so without this a captured create's headers would create
 * another kind of payment, and a captured read's would open a dispute. The families:
 *
 * | family   | routes                                                                 |
 * |----------|------------------------------------------------------------------------|
 * | payin    | POST /v1/payments/incoming (+ /idempotency, /nochannel: one request)   |
 * | payout   | POST /v1/payments/outgoing                                             |
 * | withdraw | POST /v1/merchant/withdraw                                             |
 * | dispute  | POST /v1/disputs/create                                                |
 * | read     | every list, both statistics, banks, and GET by id                      |
 *
 * The reads are one family: they sign `{timestamp}` (lists) or `{timestamp};{id}` (GET), so a
 * client reading two lists within one second signs both alike, and a read changes nothing.
 * Within a family a signature may repeat (creates are idempotent by their own ids).
 */
export type V1Family = 'payin' | 'payout' | 'withdraw' | 'dispute' | 'read';

const FAMILY_CLAIM_PREFIX = 'v1 family ';

/** Claims the signature for the route's family; another family holding it refuses this request. */
async function claimFamily(deps: AppDeps, signature: string, family: V1Family, timestamp: number): Promise<void> {
  const expiresAt = new Date((timestamp + REPLAY_WINDOW_PAST_SECONDS + 1) * 1000);
  // Both claimed under a race: both see the other and both are refused (fail closed).
  const other = await claimSignatureFamily(deps.sql, { signature: `v1:${signature}`, prefix: FAMILY_CLAIM_PREFIX, family, expiresAt });
  if (other) throw new Unauthenticated('this signature was already used for another kind of V1 request; sign this request afresh (another second)');
}

/**
 * A route that reads a large body (a dispute with its proof image) passes the merchant's gates
 * before it is read. Then the signed fields (no ';' in any), the signature against every pair of
 * the merchant still valid, the family of the signature, the api_version, and the gates.
 */
async function authenticateV1(ctx: Context, deps: AppDeps, payloadOf: V1Payload, options: AuthOptions, family: V1Family): Promise<Identity> {
  const merchantId = ctx.get('MERCHANT');
  const timestamp = ctx.get('TIMESTAMP');
  const signature = ctx.get('SIGNATURE');
  if (!merchantId || !/^\d{1,12}$/.test(timestamp) || !/^[0-9a-fA-F]{128}$/.test(signature)) {
    throw new Unauthenticated('missing or malformed MERCHANT, TIMESTAMP or SIGNATURE header');
  }
  const nowMs = deps.now();
  const window = checkTimestamp(Number(timestamp), Math.floor(nowMs / 1000));
  if (window === 'too_old') throw new Unauthenticated('timestamp is outside the replay window');
  if (window === 'too_new') throw new Unauthenticated('timestamp is too far in the future');

  const keys = await findV1Keys(deps.sql, merchantId, new Date(nowMs));
  if (keys.length === 0) throw new Unauthenticated('invalid merchant credentials');
  if (options.gateBeforeBody) await admitUnverifiedUpload(ctx, deps, keys[0]!, nowMs, options.maxBodyBytes);
  await options.readBody();

  const body = ctx.state.body !== null && typeof ctx.state.body === 'object' && !Array.isArray(ctx.state.body) ? ctx.state.body : {};
  const payload = v1SignedPayload(timestamp, signedFields(payloadOf({ body, params: ctx.params ?? {} })));
  const given = Buffer.from(signature, 'hex');
  // Every pair that may still sign is checked, each in constant time; which one matched is not revealed.
  let key: (typeof keys)[number] | undefined;
  for (const candidate of keys) {
    const hex = v1Signature(deps.secretBox.open(candidate.secret_sealed, candidate.key_id), payload);
    if (timingSafeEqual(Buffer.from(hex, 'hex'), given) && !key) key = candidate;
  }
  if (!key) throw new Unauthenticated('invalid merchant credentials');
  await claimFamily(deps, signature.toLowerCase(), family, Number(timestamp));
  if (key.api_version !== 'v1') throw new PermissionDenied(V2_MERCHANT_ON_V1);
  await admitMerchant(ctx, deps, key, nowMs);
  return { kind: 'merchant' as const, via: 'v1' as const, merchantId: key.merchant_id, tenantId: key.tenant_id, subject: key.key_id };
}

/**
 * The V1 signature as a route's auth scheme: `payload` names the fields the route signs after
 * `{timestamp}`, `family` the kind of request its signatures belong to (V1Family).
 */
export const v1Auth = (payload: V1Payload, family: V1Family): AuthScheme => ({
  authenticate: (ctx, deps, options) => authenticateV1(ctx, deps, payload, options, family),
  security: [{ V1Merchant: [], V1Timestamp: [], V1Signature: [] }],
  errors: [401, 403, 429],
  rateLimited: true,
});
