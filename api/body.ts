import type { Context, Next } from 'koa';
import getRawBody from 'raw-body';
import { parse } from 'lossless-json';
import { InvalidArgument } from '../domain/errors';
import { firstUnsafeText } from '../domain/text';

const BODY_LIMIT = '1mb';
const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;\s*charset\s*=\s*"?utf-8"?\s*)?$/i;
/** How deep a JSON body may nest; no route takes more than a few levels. */
const MAX_DEPTH = 32;

class UnsupportedMediaType extends InvalidArgument {
  constructor(message: string) {
    super(message);
    this.httpStatus = 415;
  }
}

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

/** Bodies whose raw bytes a route reads itself (multipart uploads) are kept as bytes. */
const isMultipart = (ctx: Context) => /^multipart\/form-data\b/i.test(ctx.get('Content-Type'));

/** What a multipart body may carry beyond its file: boundaries and part headers. */
export const MULTIPART_OVERHEAD_BYTES = 64 * 1024;

/**
 * A multipart body is kept as its raw BYTES (ctx.state.rawBody is then a Buffer): the HMAC is
 * verified over exactly those bytes, never over a UTF-8 reading of them, and the route parses
 * them (api/services/multipart.ts). Read up to the cap; beyond it 413 and nothing is kept.
 */
async function readMultipart(ctx: Context, maxBytes: number): Promise<Buffer> {
  try {
    return await getRawBody(ctx.req, { limit: maxBytes });
  } catch (error) {
    const e = error as { type?: string; status?: number };
    if (e.type === 'entity.too.large') {
      const tooLarge = new InvalidArgument(`multipart body is larger than ${maxBytes} bytes`);
      tooLarge.httpStatus = 413;
      throw tooLarge;
    }
    if (e.type === 'request.aborted' || e.type === 'request.size.invalid') throw new InvalidArgument('multipart body is truncated');
    throw error;
  }
}

/**
 * Reads the raw body (kept for HMAC verification) and parses JSON. A non-empty JSON body must be
 * declared JSON (415 otherwise) and be valid UTF-8: invalid bytes are refused, never replaced,
 * so two different byte strings can never become the same key. Multipart bodies stay bytes.
 */
export function bodyMiddleware(options: { multipartMaxBytes?: number } = {}) {
  const multipartMaxBytes = options.multipartMaxBytes ?? 10 * 1024 * 1024 + MULTIPART_OVERHEAD_BYTES;
  return async (ctx: Context, next: Next) => {
    ctx.state.rawBody = '';
    if (!['GET', 'HEAD', 'OPTIONS'].includes(ctx.method) && isMultipart(ctx)) {
      ctx.state.rawBody = await readMultipart(ctx, multipartMaxBytes);
    } else if (!['GET', 'HEAD', 'OPTIONS'].includes(ctx.method)) {
      const bytes = await getRawBody(ctx.req, { limit: BODY_LIMIT });
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
    await next();
  };
}
