/**
 * Unverified uploads: a body whose signature can only be checked once it has been
 * read — a merchant HMAC upload, the V1 dispute with its base64 proof image — is read on the
 * strength of a public token. This module is the one owner of what such a read may cost:
 *
 * - **Bytes in flight.** Before a byte is read, the announced length (Content-Length; the route's
 *   cap when chunked) is reserved against two in-process budgets, the merchant's and the
 *   process's (UNVERIFIED_UPLOAD_BYTES_PER_MERCHANT, UNVERIFIED_UPLOAD_BYTES_TOTAL). Beyond
 *   either: 429 with Retry-After at once, the body left unread (the answer closes the connection,
 *   api/body.ts). The reservation ends when authentication ends — verified, refused, or the
 *   connection gone — whichever comes first.
 * - **Failed reads.** A read that does not end in an authenticated request (a wrong signature, a
 *   replay, an abort or a truncated body) spends one of the merchant's unverified reads of the
 *   minute (api/auth/rate-limit.ts): the gate before the next unverified read counts it, a
 *   verified request never does.
 *
 * - **Payers' receipts.** The payment page's forms carry no signature at all: their hash is found
 *   first, then the bytes are reserved as above under the deal's merchant's payers (admitPayerUpload).
 *
 * Cabinet and operator uploads are not concerned: their JWT is verified before the body is read.
 */
import type { Context } from 'koa';
import { TooManyInFlight } from '../../domain/errors';
import type { AppDeps } from '../deps';
import { admitMerchant, type MerchantGate } from './admit';
import { countFailedUnverifiedRead } from './rate-limit';

/** What a refusal asks the client to wait: reads in flight end within seconds. */
const RETRY_AFTER_SECONDS = 1;

interface UnverifiedRead {
  merchantId: string;
  release: () => void;
}

/**
 * What the read may take: the announced length, the route's cap when chunked (all there is, were
 * no cap given); 0 when there is no body or the reader refuses it unread (413, beyond the cap).
 */
function announcedBytes(ctx: Context, maxBytes = Number.MAX_SAFE_INTEGER): number {
  const { headers } = ctx.req;
  if (headers['transfer-encoding'] !== undefined) return maxBytes;
  const length = Number(headers['content-length'] ?? '0');
  return Number.isSafeInteger(length) && length > 0 && length <= maxBytes ? length : 0;
}

/**
 * The gate before an unverified read, once the token is known: the merchant's gates with the rate
 * limit looked at (verified requests and failed reads of the minute), then the bytes reserved.
 */
export async function admitUnverifiedUpload(ctx: Context, deps: AppDeps, gate: MerchantGate, nowMs: number, maxBytes: number | undefined): Promise<void> {
  await admitMerchant(ctx, deps, gate, nowMs, 'peek');
  const bytes = announcedBytes(ctx, maxBytes);
  if (bytes === 0) return;
  const release = deps.uploadBudget.reserve(gate.merchant_id, bytes);
  if (typeof release === 'string') {
    ctx.state.rateLimitRetryAfter = RETRY_AFTER_SECONDS;
    const { perMerchant, total } = deps.uploadBudget.limits;
    throw new TooManyInFlight(
      release === 'merchant'
        ? `too many upload bytes in flight for this merchant before their signatures are checked (limit: ${perMerchant} bytes); retry in a moment`
        : `too many upload bytes in flight before their signatures are checked (limit: ${total} bytes); retry in a moment`,
    );
  }
  const read: UnverifiedRead = { merchantId: gate.merchant_id, release };
  ctx.state.unverifiedRead = read;
  // However the request ends — even a read that never settles — the bytes are released with it.
  ctx.res.once('close', release);
}

/**
 * Ends the request's unverified read when authentication ended (api/auth/authenticate.ts): the
 * bytes are released; a read that did not verify spends one of the merchant's unverified reads.
 */
export async function settleUnverifiedUpload(ctx: Context, deps: AppDeps, verified: boolean): Promise<void> {
  const read = ctx.state.unverifiedRead as UnverifiedRead | undefined;
  if (!read) return;
  ctx.state.unverifiedRead = undefined;
  read.release();
  if (verified) return;
  await countFailedUnverifiedRead(deps.sql, read.merchantId, deps.now()).catch((error: unknown) => {
    ctx.state.log?.warn({ err: error, traceId: ctx.state.traceId }, 'failed unverified read not counted');
  });
}

/**
 * The gate before a payer's page form is read (api/auth/payer-page.ts): the hash was found, so
 * the bytes are reserved for the deal's merchant's payers — their own budget key, so payers never
 * starve the merchant's uploads — and within the process's total. Released when the request ends.
 */
export function admitPayerUpload(ctx: Context, deps: AppDeps, merchantId: string, maxBytes: number | undefined): void {
  const bytes = announcedBytes(ctx, maxBytes);
  if (bytes === 0) return;
  const release = deps.uploadBudget.reserve(`payer:${merchantId}`, bytes);
  if (typeof release === 'string') {
    ctx.state.rateLimitRetryAfter = RETRY_AFTER_SECONDS;
    throw new TooManyInFlight("too many upload bytes in flight for this shop's payment pages; retry in a moment");
  }
  ctx.res.once('close', release);
}
