import { jwtVerify, SignJWT, errors as joseErrors } from 'jose';
import { Unauthenticated } from '../../domain/errors';
import { textProblem } from '../../domain/text';
import { UUID_RE } from '../../domain/ids';

type JwtRole = 'merchant' | 'admin' | 'platform_admin' | 'trader';

export interface JwtClaims {
  sub: string;
  role: JwtRole;
  merchant_id?: string;
}

const key = (secret: string) => new TextEncoder().encode(secret);

/** Verifies an HS256 token with a required exp; alg none or any other alg is refused. */
export async function verifyJwt(token: string, secret: string): Promise<JwtClaims> {
  try {
    const { payload } = await jwtVerify(token, key(secret), { algorithms: ['HS256'], requiredClaims: ['exp', 'sub'] });
    const role = payload.role;
    if (role !== 'merchant' && role !== 'admin' && role !== 'platform_admin' && role !== 'trader') {
      throw new Unauthenticated('token has no valid role');
    }
    const merchantId = typeof payload.merchant_id === 'string' ? payload.merchant_id : undefined;
    // Claims reach queries and logs: a merchant_id must be a UUID, and no claim may carry control characters.
    if (role === 'merchant' && (merchantId === undefined || !UUID_RE.test(merchantId))) throw new Unauthenticated('token has no valid merchant_id');
    const sub = String(payload.sub);
    if (sub.length > 255 || textProblem(sub, true)) throw new Unauthenticated('token has no valid sub');
    return { sub, role, merchant_id: merchantId };
  } catch (error) {
    if (error instanceof Unauthenticated) throw error;
    if (error instanceof joseErrors.JWTExpired) throw new Unauthenticated('token expired');
    throw new Unauthenticated('invalid token');
  }
}

/** Issues a token; used by the seed, tests and the bench (the cabinet login is not specified). */
export async function signJwt(claims: JwtClaims, secret: string, ttlSeconds = 3600): Promise<string> {
  return new SignJWT({ role: claims.role, ...(claims.merchant_id ? { merchant_id: claims.merchant_id } : {}) })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(claims.sub)
    .setIssuedAt()
    .setExpirationTime(Math.floor(Date.now() / 1000) + ttlSeconds)
    .sign(key(secret));
}
