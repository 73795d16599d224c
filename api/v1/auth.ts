/**
 * Legacy V1 authentication (spec 5.5, contract 7): headers MERCHANT (merchant id), TIMESTAMP
 * (Unix seconds) and SIGNATURE = lowercase hex HMAC-SHA512, keyed with the merchant's secret
 * string exactly as issued (`whsec_` included), over `{timestamp};{field};…` — the fields each
 * route names (api/v1/route.ts, defineV1Route). After the signature, the same gates as V2 in the same order:
 * kill-switch, ip_whitelist and rate limit (api/auth/admit.ts).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Context } from 'koa';
import { PermissionDenied, Unauthenticated } from '../../domain/errors';
import { checkTimestamp, REPLAY_WINDOW_PAST_SECONDS } from '../../domain/signature';
import { findV1Keys } from '../../db/queries/api-keys';
import { claimSignatureFamily } from '../../db/queries/signature-uses';
import { admitMerchant } from '../auth/admit';
import { admitUnverifiedUpload } from '../auth/unverified-uploads';
import type { AuthOptions, AuthScheme, Identity } from '../auth/authenticate';
import type { AppDeps } from '../deps';

/** The fields of a route's signed payload after the timestamp, read from the raw request. */
export type V1Payload = (raw: { body: Record<string, unknown>; params: Record<string, string> }) => unknown[];

export const V2_MERCHANT_ON_V1 = 'this merchant uses API v2 (api_version v2); V1 routes serve only merchants with api_version v1';

/** A payload field as the client wrote it: strings verbatim, integers in digits, absent as ''. */
function fieldText(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'bigint' || typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

export function v1SignedPayload(timestamp: string, fields: unknown[]): string {
  return [timestamp, ...fields.map(fieldText)].join(';');
}

export function v1Signature(secret: string, payload: string): string {
  return createHmac('sha512', secret).update(payload).digest('hex');
}

/**
 * PayIn and PayOut creates sign the same shape, `{timestamp};{id};{salt}`, and V1 signs no amount
 * or card: the headers of a captured PayIn create would create a PayOut of any amount to any card.
 * So a create signature belongs to its family; the other family refuses it (no legitimate client
 * sends one id and salt as both in one second). Every other V1 signature is free on any route.
 */
export type V1CreateFamily = 'payin' | 'payout';

/** The family is the route's own (defineV1Route's createFamily), not read from the path's spelling. */
async function claimCreateFamily(deps: AppDeps, signature: string, family: V1CreateFamily | undefined, timestamp: number): Promise<void> {
  if (!family) return;
  const expiresAt = new Date((timestamp + REPLAY_WINDOW_PAST_SECONDS + 1) * 1000);
  // Both claimed under a race: both see the other and both are refused (fail closed).
  const other = await claimSignatureFamily(deps.sql, { signature: `v1:${signature}`, prefix: 'v1 create ', family, expiresAt });
  if (other) throw new Unauthenticated('this signature was already used to create another kind of payment; sign the request afresh');
}


/**
 * V1 payloads name their route's own fields (payInId, requestId …), and the routes that sign
 * only `{timestamp}` (statistics, banks) are reads: a V1 signature is accepted on any V1 route
 * within its window, repeats included (issue 17) — but for the PayIn/PayOut create families
 * (claimCreateFamily). A route that reads a large body (a dispute with its proof image) passes the
 * merchant's gates before it is read.
 */
async function authenticateV1(ctx: Context, deps: AppDeps, payloadOf: V1Payload, options: AuthOptions, family: V1CreateFamily | undefined): Promise<Identity> {
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
  const payload = v1SignedPayload(timestamp, payloadOf({ body, params: ctx.params ?? {} }));
  const given = Buffer.from(signature, 'hex');
  // Every pair that may still sign is checked, each in constant time; which one matched is not revealed.
  let key: (typeof keys)[number] | undefined;
  for (const candidate of keys) {
    const hex = v1Signature(deps.secretBox.open(candidate.secret_sealed, candidate.key_id), payload);
    if (timingSafeEqual(Buffer.from(hex, 'hex'), given) && !key) key = candidate;
  }
  if (!key) throw new Unauthenticated('invalid merchant credentials');
  await claimCreateFamily(deps, signature.toLowerCase(), family, Number(timestamp));
  if (key.api_version !== 'v1') throw new PermissionDenied(V2_MERCHANT_ON_V1);
  await admitMerchant(ctx, deps, key, nowMs);
  return { kind: 'merchant' as const, via: 'v1' as const, merchantId: key.merchant_id, tenantId: key.tenant_id, subject: key.key_id };
}

/**
 * The V1 signature as a route's auth scheme: `payload` names the fields the route signs after
 * `{timestamp}`; `family` marks a PayIn or PayOut create route (claimCreateFamily).
 */
export const v1Auth = (payload: V1Payload, family?: V1CreateFamily): AuthScheme => ({
  authenticate: (ctx, deps, options) => authenticateV1(ctx, deps, payload, options, family),
  security: [{ V1Merchant: [], V1Timestamp: [], V1Signature: [] }],
  errors: [401, 403, 429],
});
