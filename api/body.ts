import type { Context, Next } from 'koa';
import getRawBody from 'raw-body';
import { parse } from 'lossless-json';
import { InvalidArgument } from '../domain/errors';
import { firstUnsafeText } from '../domain/text';
import { lingerAfterAnswer, type LingeringClose } from './lingering-close';

const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;\s*charset\s*=\s*"?utf-8"?\s*)?$/i;
/** How deep a JSON body may nest; no route takes more than a few levels. */
const MAX_DEPTH = 32;

/**
 * Numbers keep their exact value or are refused, never rounded: an integer literal beyond 2^53
 * stays a bigint (zod then checks the int64 range); a literal with a fraction or an exponent
 * whose double happens to be an integer ("150000.00000000001", "1e3") becomes NaN, which every
 * integer field refuses ("… must be an integer"). Real fractions stay numbers and fail the
 * same integer checks.
 */
export function parseNumber(text: string): unknown {
  if (/^-?\d+$/.test(text)) {
    const asNumber = Number(text);
    return Number.isSafeInteger(asNumber) ? asNumber : BigInt(text);
  }
  const value = Number(text);
  if (!Number.isFinite(value)) return Number.NaN;
  return Number.isInteger(value) ? Number.NaN : value;
}

function depthOf(value: unknown, depth = 0): number {
  if (depth > MAX_DEPTH || value === null || typeof value !== 'object') return depth;
  let max = depth;
  for (const child of Object.values(value as object)) max = Math.max(max, depthOf(child, depth + 1));
  return max;
}

export function parseJsonBody(raw: string): unknown {
  let value: unknown;
  try {
    value = parse(raw, null, parseNumber);
  } catch {
    throw new InvalidArgument('malformed JSON body', [{ field: '(body)', message: 'malformed JSON body', code: 'invalid_json' }]);
  }
  if (depthOf(value) > MAX_DEPTH) throw new InvalidArgument(`JSON body nests deeper than ${MAX_DEPTH} levels`);
  const unsafe = firstUnsafeText(value);
  if (unsafe) {
    throw new InvalidArgument(`${unsafe.field} contains ${unsafe.problem}`, [
      { field: unsafe.field, message: `contains ${unsafe.problem}`, code: 'invalid_string' },
    ]);
  }
  return value;
}

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

const isMultipart = (ctx: Context) => /^multipart\/form-data\b/i.test(ctx.get('Content-Type'));

/** Whether the request announces a body at all (a length above 0, or chunked framing). */
function announcesBody(ctx: Context): boolean {
  const { headers } = ctx.req;
  return headers['transfer-encoding'] !== undefined || Number(headers['content-length'] ?? '0') > 0;
}

/**
 * What a route may receive: every route reads at most SMALL_BODY_BYTES of JSON, and
 * only after its caller's identity is known far enough not to cost the server a large read;
 * only upload routes take multipart/form-data, up to their own cap, and read it only after the
 * merchant's token, kill-switch, ip_whitelist and rate limit have passed (api/auth/authenticate.ts).
 */
export const SMALL_BODY_BYTES = 64 * 1024;

/** What a multipart body may carry beyond its file: boundaries and part headers. */
export const MULTIPART_OVERHEAD_BYTES = 64 * 1024;

export interface BodyRule {
  /** The route takes multipart/form-data (a file upload), kept as raw bytes. */
  multipart: boolean;
  /** The most the route reads; beyond it 413 and nothing is kept. */
  maxBytes: number;
}

/** A body larger than SMALL_BODY_BYTES is read only after the caller passed its gates. */
export const readsLargeBody = (rule: BodyRule) => rule.maxBytes > SMALL_BODY_BYTES;

class UnsupportedMediaType extends InvalidArgument {
  constructor(message: string) {
    super(message);
    this.httpStatus = 415;
  }
}

/**
 * Before anything is read (and after the caller's headers were checked, so a request without
 * credentials is 401 whatever it sends): a multipart body only where a file is uploaded, and an
 * upload only as multipart (415 otherwise, the body left unread; the answer closes the connection).
 */
function checkBodyType(ctx: Context, rule: BodyRule): void {
  if (!announcesBody(ctx) || ['GET', 'HEAD', 'OPTIONS'].includes(ctx.method)) return;
  if (rule.multipart && !isMultipart(ctx)) {
    throw new UnsupportedMediaType('this operation takes multipart/form-data with the file in the part named "file"');
  }
  if (!rule.multipart && isMultipart(ctx)) {
    throw new UnsupportedMediaType('multipart/form-data is accepted only where a file is uploaded; this operation takes application/json');
  }
}

async function readBytes(ctx: Context, maxBytes: number): Promise<Buffer> {
  try {
    // The announced length lets an oversized body be refused before a byte of it is read.
    const length = ctx.req.headers['content-length'];
    return await getRawBody(ctx.req, { limit: maxBytes, ...(length !== undefined && !ctx.req.headers['transfer-encoding'] ? { length } : {}) });
  } catch (error) {
    const e = error as { type?: string };
    if (e.type === 'entity.too.large') {
      const tooLarge = new InvalidArgument(`request body is larger than ${maxBytes} bytes`);
      tooLarge.httpStatus = 413;
      throw tooLarge;
    }
    if (e.type === 'request.aborted' || e.type === 'request.size.invalid') throw new InvalidArgument('request body is truncated');
    throw error;
  }
}

/**
 * Reads the raw body (kept for HMAC verification) and parses JSON. A multipart body (upload
 * routes) stays its raw BYTES (ctx.state.rawBody is then a Buffer): the HMAC is verified over
 * exactly those bytes and the route parses them. A non-empty JSON body must be declared JSON
 * (415 otherwise) and be valid UTF-8: invalid bytes are refused, never replaced, so two
 * different byte strings can never become the same key. Reading twice is a no-op. Authentication
 * calls it (api/auth/authenticate.ts) once the caller's headers, or for uploads its gates, passed.
 */
export async function readRequestBody(ctx: Context, rule: BodyRule): Promise<void> {
  if (ctx.state.bodyRead) return;
  ctx.state.bodyRead = true;
  checkBodyType(ctx, rule);
  ctx.state.rawBody = '';
  if (['GET', 'HEAD', 'OPTIONS'].includes(ctx.method)) return;
  if (rule.multipart && isMultipart(ctx)) {
    ctx.state.rawBody = await readBytes(ctx, rule.maxBytes);
    return;
  }
  const bytes = await readBytes(ctx, rule.maxBytes);
  let raw: string;
  try {
    raw = utf8.decode(bytes);
  } catch {
    throw new InvalidArgument('request body is not valid UTF-8');
  }
  ctx.state.rawBody = raw;
  if (raw.trim() !== '') {
    const type = ctx.get('Content-Type');
    if (!JSON_TYPE.test(type)) {
      throw new UnsupportedMediaType(`request body must be application/json${type ? `, not ${type.slice(0, 100)}` : ' (Content-Type is missing)'}`);
    }
    ctx.state.body = parseJsonBody(raw);
  }
}

/**
 * An answer that leaves the request body unread (413, an early 401/403/415/429, no such route)
 * closes the connection: the client's next request on it would otherwise be read from the
 * middle of this one's body. The close lingers (api/lingering-close.ts): what the client is
 * still sending is read and dropped, within bounds, so it gets this answer and not a reset.
 */
export function closeUnreadBodies(limits: LingeringClose) {
  return async function closeUnreadBodies(ctx: Context, next: Next) {
    try {
      await next();
    } finally {
      if (announcesBody(ctx) && !ctx.req.readableEnded) {
        ctx.set('Connection', 'close');
        lingerAfterAnswer(ctx.req, limits);
      }
    }
  };
}
