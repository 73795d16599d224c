import type { Context } from 'koa';
import { PermissionDenied, Unauthenticated } from '../../domain/errors';
import { boundSignatureMatches, checkTimestamp, computeSignature, parseSignatureHeader, signatureMatches } from '../../domain/crypto/signature';
import { rememberSignature, type SingleUse } from './replay';
import { findKeyForAuth, findMerchantGate } from '../../db/queries/api-keys';
import type { AppDeps } from '../deps';
import { verifyJwt } from './jwt';
import { admitMerchant, MERCHANT_DISABLED } from './admit';
import { admitUnverifiedUpload, settleUnverifiedUpload } from './unverified-uploads';
import { authenticateSession, sessionIsLive, sessionTokenOf, tokenReference, type AccountSession } from './sessions';
import { JWT_MERCHANT_ROLE, JWT_OPERATOR_ROLE, type MerchantRole, type OperatorRole, type Party, type TraderRole } from '../../domain/roles';

/**
 * hmac: merchant HMAC pair (H); cabinet: merchant cabinet JWT (J) or a member's cabinet session
 * cookie; operator: admin JWT (A) or a console session cookie (api/auth/sessions.ts);
 * cabinet_or_hmac: J, a cabinet session or H; trader: a trader account's session cookie only (no
 * JWT of the spec stands for a trader); public: no identity (P). Every person (sessions and the
 * JWTs, which stand for a role) is checked against the role table (domain/roles.ts).
 */
export type AuthMode = 'public' | 'hmac' | 'cabinet' | 'operator' | 'cabinet_or_hmac' | 'trader';

export type Identity =
  | { kind: 'public' }
  /**
   * via: the credential that proved it — 'hmac', 'cabinet' (the JWT: subject is its sub, role
   * owner), 'session' (a member's cabinet session: subject is the account's id), or the name of a
   * route's own scheme. role: the person's role in the merchant's table; absent for the HMAC pair
   * (the merchant's servers, no person).
   */
  | {
      kind: 'merchant';
      via: string;
      merchantId: string;
      tenantId: string;
      subject: string;
      role?: MerchantRole;
      email?: string;
      sessionId?: string;
      /** The audit trail's reference of the session or token (api/auth/sessions.ts). */
      credential?: string;
      expiresAt?: Date;
      /** A member's session that must set up an authenticator first (api/mount.ts lets it do only that). */
      enrolmentPending?: boolean;
    }
  /**
   * An operator: the spec's operator JWT (via 'jwt': operatorId is its sub, role the table's
   * admin) or a console account's session (via 'session': operatorId is the account's id).
   */
  | {
      kind: 'operator';
      operatorId: string;
      role: OperatorRole;
      via: 'jwt' | 'session';
      /** The JWT's own role claim (admin or platform_admin); absent for sessions. */
      jwtRole?: 'admin' | 'platform_admin';
      email?: string;
      sessionId?: string;
      /** The audit trail's reference of the session or token (api/auth/sessions.ts). */
      credential?: string;
      expiresAt?: Date;
      /** A session of an account that must set up an authenticator first (api/mount.ts lets it do only that). */
      enrolmentPending?: boolean;
    }
  /** A trader's paired bank device (api/auth/device.ts): it speaks for traderId's requisites it serves. */
  | { kind: 'device'; deviceId: string; traderId: string }
  /** A trader's account (its session at the trader app): it acts for traderId alone. */
  | {
      kind: 'trader';
      traderId: string;
      accountId: string;
      role: TraderRole;
      via: 'session';
      email: string;
      sessionId: string;
      /** The audit trail's reference of the session (api/auth/sessions.ts). */
      credential: string;
      expiresAt: Date;
      /** The account must set up an authenticator first (api/mount.ts lets it do only that). */
      enrolmentPending: boolean;
    };

export interface AuthOptions {
  /** Where a repeat of a signature is refused (api/auth/replay.ts); ordinary routes accept repeats. */
  singleUse?: SingleUse;
  /** The route in one canonical spelling (method, defined path, decoded lower-cased parameters). */
  routeKey?: string;
  /**
   * Reads the request body. Authentication calls it once it knows enough: a small body after
   * the headers were checked (the HMAC needs the bytes), a large one (uploads) only after the
   * merchant's gates passed.
   */
  readBody: () => Promise<void>;
  /**
   * The route reads a large body: token, kill-switch, ip_whitelist and rate limit pass before it
   * is read, and a signed one reserves its bytes first (api/auth/unverified-uploads.ts).
   */
  gateBeforeBody?: boolean;
  /** The most the route reads (api/body.ts): what a chunked body reserves (with gateBeforeBody). */
  maxBodyBytes?: number;
  /**
   * The route stays open to the merchant's people (cabinet JWT, member sessions) while the
   * kill-switch is on: GET my-merchant, and a member's own session and team.
   */
  openWhileDisabled?: boolean;
  /** Refuses an identity the route does not admit (the operator role table), before the body is read. */
  authorize?: (identity: Identity) => void;
}

/**
 * A route's own authentication scheme, beside the modes above (the legacy V1 adapter's
 * signature): how it proves the caller, and how the OpenAPI document shows it.
 */
export interface AuthScheme {
  authenticate(ctx: Context, deps: AppDeps, options: AuthOptions): Promise<Identity>;
  /** The OpenAPI security requirement (its schemes registered by the scheme's owner). */
  security: Array<Record<string, string[]>>;
  /** The error statuses it answers. */
  errors: number[];
  /** It admits the merchant's signed requests through the rate limit (api/auth/admit.ts), whose headers its answers then carry. */
  rateLimited?: boolean;
}

export type RouteAuth = AuthMode | AuthScheme;

const ADMIN_REQUIRED = 'admin role required';
const TRADER_REQUIRED = "this operation needs a trader's session (sign in at the trader app: POST /api/v1/p2p/trader/session)";
const MERCHANT_REQUIRED = 'merchant identity required';
const V2_REQUIRED =
  'this merchant requires request-bound signatures: X-Signature must carry v2=<hex hmac-sha256 of "<t>.<METHOD>.<path and query>.<raw body>">';

/** The body is empty or an empty JSON object: a key rotation (body-less) could carry the same v1 signature. */
function isBodyless(ctx: Context): boolean {
  const raw: unknown = ctx.state.rawBody;
  if (Buffer.isBuffer(raw)) return raw.length === 0;
  if (typeof raw !== 'string' || raw.trim() === '') return true;
  const body: unknown = ctx.state.body;
  return body !== null && typeof body === 'object' && !Array.isArray(body) && Object.keys(body).length === 0;
}

/**
 * The merchant API's HMAC signature (v1 over `<t>.<raw body>`) plus the request-bound v2 scheme (domain/crypto/signature.ts). Order: headers and window,
 * the key pair (401), the signatures (401; a v2 present must verify; a merchant whose
 * signature_binding is 'required' must send one), the replay rule (401), then the merchant's
 * gates: kill-switch, ip_whitelist (403), rate limit (429). Upload routes pass the gates before
 * their body is read too (the rate limit looked at, not spent: only a verified request spends)
 * and reserve its bytes (api/auth/unverified-uploads.ts).
 */
async function authenticateHmac(ctx: Context, deps: AppDeps, options: AuthOptions): Promise<Identity & { kind: 'merchant' }> {
  const token = ctx.get('X-Merchant-Token');
  const parsed = parseSignatureHeader(ctx.get('X-Signature') || undefined);
  const timestampHeader = ctx.get('X-Timestamp');
  if (!token || !parsed || !timestampHeader) throw new Unauthenticated('missing or malformed signature headers');
  if (timestampHeader !== String(parsed.timestamp)) throw new Unauthenticated('X-Timestamp does not match the signature timestamp');
  const nowMs = deps.now();
  const window = checkTimestamp(parsed.timestamp, Math.floor(nowMs / 1000));
  if (window === 'too_old') throw new Unauthenticated('timestamp is outside the replay window');
  if (window === 'too_new') throw new Unauthenticated('timestamp is too far in the future');

  const key = await findKeyForAuth(deps.sql, token);
  if (!key || (key.grace_until !== null && key.grace_until.getTime() <= nowMs)) {
    throw new Unauthenticated('invalid merchant credentials');
  }
  if (options.gateBeforeBody) await admitUnverifiedUpload(ctx, deps, key, nowMs, options.maxBodyBytes);
  await options.readBody();

  const secret = deps.secretBox.open(key.secret_sealed, key.key_id);
  const raw: string | Buffer = ctx.state.rawBody ?? '';
  const bound = parsed.v2.length > 0;
  if (bound) {
    if (!boundSignatureMatches(secret, parsed, { method: ctx.method, target: ctx.originalUrl }, raw)) {
      throw new Unauthenticated(
        signatureMatches(secret, parsed, raw)
          ? 'the v2 signature does not match this request (method, path and query exactly as sent, and the raw body)'
          : 'invalid merchant credentials',
      );
    }
  } else {
    if (!signatureMatches(secret, parsed, raw)) throw new Unauthenticated('invalid merchant credentials');
    if (key.signature_binding === 'required') throw new Unauthenticated(V2_REQUIRED);
  }
  await rememberSignature(deps.sql, {
    signature: computeSignature(secret, parsed.timestamp, raw),
    route: options.routeKey ?? `${ctx.method} ${ctx.path}`,
    timestamp: parsed.timestamp,
    bodyless: isBodyless(ctx),
    singleUse: options.singleUse,
    bound,
  });

  await admitMerchant(ctx, deps, key, nowMs);
  return { kind: 'merchant', via: 'hmac', merchantId: key.merchant_id, tenantId: key.tenant_id, subject: key.key_id };
}

function bearerToken(ctx: Context): string | undefined {
  const header = ctx.get('Authorization');
  const match = /^Bearer\s+(\S+)$/i.exec(header);
  return match?.[1];
}

/** The merchant of a person (the cabinet JWT, a member's session): 401 when gone, 403 while its kill-switch is on (but on the routes open then). */
async function merchantGate(deps: AppDeps, merchantId: string, options: AuthOptions) {
  const merchant = await findMerchantGate(deps.sql, merchantId);
  if (!merchant) throw new Unauthenticated('merchant not found');
  // While the kill-switch is on, the merchant's people may read its profile (to see kill_switch: true) and manage their own accounts, nothing else.
  if (merchant.disabled_at && !options.openWhileDisabled) throw new PermissionDenied(MERCHANT_DISABLED);
  return merchant;
}

async function authenticateJwt(deps: AppDeps, token: string, options: AuthOptions): Promise<Identity> {
  const claims = await verifyJwt(token, deps.config.JWT_SECRET);
  if (claims.role === 'admin' || claims.role === 'platform_admin') {
    return { kind: 'operator', operatorId: claims.sub, role: JWT_OPERATOR_ROLE, via: 'jwt', jwtRole: claims.role, credential: tokenReference(token) };
  }
  if (claims.role !== 'merchant' || !claims.merchant_id) throw new PermissionDenied(MERCHANT_REQUIRED);
  const merchant = await merchantGate(deps, claims.merchant_id, options);
  return {
    kind: 'merchant',
    via: 'cabinet',
    merchantId: merchant.id,
    tenantId: merchant.tenant_id,
    subject: claims.sub,
    role: JWT_MERCHANT_ROLE,
    credential: tokenReference(token),
  };
}

/** A member's cabinet session as the merchant's identity. */
async function memberIdentity(deps: AppDeps, session: AccountSession, options: AuthOptions): Promise<Identity> {
  const merchant = await merchantGate(deps, session.merchantId!, options);
  return {
    kind: 'merchant',
    via: 'session',
    merchantId: merchant.id,
    tenantId: merchant.tenant_id,
    subject: session.accountId,
    role: session.role as MerchantRole,
    email: session.email,
    sessionId: session.sessionId,
    credential: session.credential,
    expiresAt: session.expiresAt,
    enrolmentPending: session.enrolmentPending,
  };
}

/** The party whose sessions a mode's door reads. */
const DOOR_OF: { readonly [M in Exclude<AuthMode, 'public' | 'hmac'>]: Party } = {
  operator: 'operator',
  cabinet: 'merchant',
  cabinet_or_hmac: 'merchant',
  trader: 'trader',
};
const REFUSED_AT: { readonly [P in Party]: string } = { operator: ADMIN_REQUIRED, merchant: MERCHANT_REQUIRED, trader: TRADER_REQUIRED };

/** A session as the identity of its door's party. */
async function sessionIdentity(deps: AppDeps, session: AccountSession, options: AuthOptions): Promise<Identity> {
  if (session.party === 'merchant') return memberIdentity(deps, session, options);
  const common = {
    email: session.email,
    sessionId: session.sessionId,
    expiresAt: session.expiresAt,
    credential: session.credential,
    enrolmentPending: session.enrolmentPending,
  };
  if (session.party === 'trader')
    return { kind: 'trader', traderId: session.traderId!, accountId: session.accountId, role: session.role as TraderRole, via: 'session', ...common };
  return { kind: 'operator', operatorId: session.accountId, role: session.role as OperatorRole, via: 'session', ...common };
}

/**
 * The session cookies of the request (never beside a bearer token: a token is judged alone). A
 * door's own session is the identity; another door's live session is a person of another party,
 * refused as the other party's JWT is (403); no session leaves the bearer token to decide.
 */
async function identifyBySession(ctx: Context, mode: keyof typeof DOOR_OF, deps: AppDeps, options: AuthOptions) {
  const own = DOOR_OF[mode];
  const token = sessionTokenOf(ctx, own);
  if (token) {
    const identity = await sessionIdentity(deps, await authenticateSession(ctx, deps, own, token), options);
    options.authorize?.(identity);
    await options.readBody();
    return identity;
  }
  for (const other of (['operator', 'merchant', 'trader'] as const).filter((party) => party !== own)) {
    const foreign = sessionTokenOf(ctx, other);
    if (foreign && (await sessionIsLive(deps, other, foreign))) throw new PermissionDenied(REFUSED_AT[own]);
  }
  return undefined;
}

/**
 * Resolves the caller's identity for a route's auth mode, or throws 401/403/429; reads the body
 * on the way (options.readBody). A body read before its signature could be checked is settled
 * here, whatever the scheme: released once verified, counted as a failed read otherwise.
 */
export async function authenticate(ctx: Context, mode: RouteAuth, deps: AppDeps, options: AuthOptions): Promise<Identity> {
  let identity: Identity;
  try {
    identity = await identify(ctx, mode, deps, options);
  } catch (error) {
    await settleUnverifiedUpload(ctx, deps, false);
    throw error;
  }
  await settleUnverifiedUpload(ctx, deps, true);
  return identity;
}

async function identify(ctx: Context, mode: RouteAuth, deps: AppDeps, options: AuthOptions): Promise<Identity> {
  if (typeof mode === 'object') return mode.authenticate(ctx, deps, options);
  if (mode === 'public') {
    await options.readBody();
    return { kind: 'public' };
  }

  if (ctx.get('X-Merchant-Token')) {
    // Refused before anything is read or verified: no merchant pair may call these routes.
    if (mode === 'operator') throw new PermissionDenied(ADMIN_REQUIRED);
    if (mode === 'trader') throw new PermissionDenied(TRADER_REQUIRED);
    if (mode === 'cabinet') throw new PermissionDenied('this operation needs a cabinet session; HMAC is not accepted');
    return authenticateHmac(ctx, deps, options);
  }

  const token = bearerToken(ctx);
  if (!token && mode !== 'hmac') {
    const identity = await identifyBySession(ctx, mode, deps, options);
    if (identity) return identity;
  }
  if (!token) throw new Unauthenticated('authentication required');
  // No JWT of the spec stands for a trader: the trader app's routes take its session alone.
  if (mode === 'trader') throw new PermissionDenied(TRADER_REQUIRED);
  const identity = await authenticateJwt(deps, token, options);
  if (mode === 'operator') {
    if (identity.kind !== 'operator') throw new PermissionDenied(ADMIN_REQUIRED);
  } else {
    if (identity.kind !== 'merchant') throw new PermissionDenied(MERCHANT_REQUIRED);
    if (mode === 'hmac') throw new Unauthenticated('merchant HMAC signature required');
  }
  options.authorize?.(identity);
  await options.readBody();
  return identity;
}

/** The operator an operator route's identity is (its authentication let no one else in). */
export type OperatorIdentity = Extract<Identity, { kind: 'operator' }>;

export function operatorOf(identity: Identity): OperatorIdentity {
  if (identity.kind !== 'operator') throw new PermissionDenied('operator identity required');
  return identity;
}

export function merchantOf(identity: Identity): { merchantId: string; tenantId: string } {
  if (identity.kind !== 'merchant') throw new PermissionDenied(MERCHANT_REQUIRED);
  return identity;
}

/** The trader a trader route's identity is (its authentication let no one else in). */
export type TraderIdentity = Extract<Identity, { kind: 'trader' }>;

export function traderOf(identity: Identity): TraderIdentity {
  if (identity.kind !== 'trader') throw new PermissionDenied(TRADER_REQUIRED);
  return identity;
}

/** The merchant's person an identity is (a member's session or the cabinet JWT); the HMAC pair is none. */
export type MerchantIdentity = Extract<Identity, { kind: 'merchant' }>;
