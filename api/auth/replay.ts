import type { Sql } from '../../db/sql';
import { claimSignature, pruneSignatureUses } from '../../db/queries/signature-uses';
import { Unauthenticated } from '../../domain/errors';
import { REPLAY_WINDOW_PAST_SECONDS } from '../../domain/crypto/signature';

/**
 * The replay rule for V2 HMAC requests. The spec's signed string is `<t>.<raw body>`:
 * it does not name the route, so two body-less requests of one second carry one signature, and
 * a client signing exactly as the spec's signing rule says (Stripe-style signers, the spec's own retry advice)
 * sends such sequences all the time. So a valid signature is accepted on ANY route within its
 * window, repeats included — with two exceptions, the routes where a repeat would do harm:
 *
 *   - 'rotation' (POST /api-keys/rotate hands out a new secret): refuses a signature already
 *     seen on any request. A rotation is body-less, so the headers of any body-less request
 *     (a GET) would otherwise rotate the keys and hand the new secret to whoever replays them.
 *     A request carrying a valid request-bound v2 signature cannot have been moved from another
 *     route: then only a repeat of the rotation itself is refused.
 *   - 'route' (callback retry, deposit-address rotation, appeal messages, passes, evidence
 *     upload: each repeat would act again): refuses a second use on the same route (method and
 *     path) only.
 *
 * Memory is kept in Postgres (all API processes) only for what these need, until the
 * signature's timestamp leaves the window: signatures of body-less requests (route '') and uses
 * of single-use routes (route 'METHOD path'). Requests with a body on ordinary routes leave
 * nothing behind. The key is always the computed v1 signature — also for a client that sent only
 * v2 — so stripping v2 from captured headers gains nothing.
 */
export type SingleUse = 'rotation' | 'route';

export interface SignatureUse {
  /** The v1 signature of the request (hex), or a scheme-prefixed key. */
  signature: string;
  /** The route in one canonical spelling: method, defined path, decoded lower-cased parameters. */
  route: string;
  timestamp: number;
  /** The body is empty or `{}`: a key rotation could carry the same signature. */
  bodyless: boolean;
  singleUse?: SingleUse;
  /** The request carried a valid v2 signature (bound to method, path and query). */
  bound: boolean;
}

/**
 * One statement, serialised by the primary key (signature, route): a body-less request claims
 * (signature, ''), a single-use route claims (signature, route). An unbound rotation must be the
 * first to claim (signature, ''): a GET of the same signature that committed first wins, and one
 * that comes later is simply accepted (it only reads).
 */
export async function rememberSignature(sql: Sql, use: SignatureUse): Promise<void> {
  if (!use.bodyless && !use.singleUse) return;
  const expiresAt = new Date((use.timestamp + REPLAY_WINDOW_PAST_SECONDS + 1) * 1000);
  const unboundRotation = use.singleUse === 'rotation' && !use.bound && use.bodyless;
  const claimsRoute = use.singleUse !== undefined && !unboundRotation;
  const row = await claimSignature(sql, { signature: use.signature, route: use.route, expiresAt, claimsBodyless: use.bodyless, claimsRoute });
  if (unboundRotation && !row.first_seen) {
    throw new Unauthenticated(
      'this signature was already used by another request; a key rotation needs a signature of its own (a new timestamp, or a request-bound v2 signature)',
    );
  }
  if (claimsRoute && !row.first_use) throw new Unauthenticated('this signature was already used on this route; sign the request afresh');
  if (Math.random() < 0.01) void pruneSignatureUses(sql).catch(() => {});
}
