import type { Context, Next } from 'koa';
import getRawBody from 'raw-body';
import { parse } from 'lossless-json';
import { InvalidArgument } from '../domain/errors';

const BODY_LIMIT = '1mb';

/**
 * Integers that do not fit a JS number are kept exact as bigint, so an int64 field is
 * never silently rounded; zod then decides whether the value is in range.
 */
function parseNumber(text: string): unknown {
  if (/^-?\d+$/.test(text)) {
    const asNumber = Number(text);
    return Number.isSafeInteger(asNumber) ? asNumber : BigInt(text);
  }
  const value = Number(text);
  return Number.isFinite(value) ? value : text;
}

export function parseJsonBody(raw: string): unknown {
  try {
    return parse(raw, null, parseNumber);
  } catch {
    throw new InvalidArgument('malformed JSON body', [{ field: '(body)', message: 'malformed JSON body', code: 'invalid_json' }]);
  }
}

/** Bodies whose raw bytes a route reads itself (multipart uploads) are left to that route. */
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

/** Reads the raw body (kept for HMAC verification) and parses JSON bodies. */
export function bodyMiddleware(options: { multipartMaxBytes?: number } = {}) {
  const multipartMaxBytes = options.multipartMaxBytes ?? 10 * 1024 * 1024 + MULTIPART_OVERHEAD_BYTES;
  return async (ctx: Context, next: Next) => {
    ctx.state.rawBody = '';
    if (!['GET', 'HEAD', 'OPTIONS'].includes(ctx.method) && isMultipart(ctx)) {
      ctx.state.rawBody = await readMultipart(ctx, multipartMaxBytes);
    } else if (!['GET', 'HEAD', 'OPTIONS'].includes(ctx.method)) {
      ctx.state.rawBody = await getRawBody(ctx.req, { limit: BODY_LIMIT, encoding: 'utf8' });
      ctx.state.body = ctx.state.rawBody.trim() === '' ? undefined : parseJsonBody(ctx.state.rawBody);
    }
    await next();
  };
}
