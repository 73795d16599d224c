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

/** Reads the raw body (kept for HMAC verification) and parses JSON bodies. */
export function bodyMiddleware() {
  return async (ctx: Context, next: Next) => {
    ctx.state.rawBody = '';
    if (!['GET', 'HEAD', 'OPTIONS'].includes(ctx.method)) {
      ctx.state.rawBody = await getRawBody(ctx.req, { limit: BODY_LIMIT, encoding: 'utf8' });
      ctx.state.body = ctx.state.rawBody.trim() === '' ? undefined : parseJsonBody(ctx.state.rawBody);
    }
    await next();
  };
}
