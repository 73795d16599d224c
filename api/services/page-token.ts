/** Keyset listings' pages: signed page tokens, page sizes, the next page's token. */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { InvalidArgument } from '../../domain/errors';
import { isKeysetCursor, type KeysetCursor } from '../../db/queries/keyset';
import type { AppDeps } from '../deps';

/**
 * Opaque, tamper-evident page tokens: base64url(JSON payload) + "." + HMAC-SHA256 over it and
 * the merchant id, keyed from the server's secrets key. Anything else is 400 `invalid page_token`.
 */
class PageTokens {
  private readonly key: Buffer;

  constructor(secretsKeyBase64: string) {
    this.key = createHmac('sha256', Buffer.from(secretsKeyBase64, 'base64')).update('page-token-v1').digest();
  }

  private mac(payload: string, scope: string): Buffer {
    return createHmac('sha256', this.key).update(scope).update('\0').update(payload).digest().subarray(0, 16);
  }

  encode(value: object, scope: string): string {
    const payload = Buffer.from(JSON.stringify(value)).toString('base64url');
    return `${payload}.${this.mac(payload, scope).toString('base64url')}`;
  }

  /** The next page's token of a keyset listing: after the last row shown (db/queries/keyset.ts). */
  encodeCursor(last: { cursor_ts: string; id: string }, scope: string): string {
    return this.encode({ createdAt: last.cursor_ts, id: last.id } satisfies KeysetCursor, scope);
  }

  /** The keyset cursor of a token (undefined without one); anything but a cursor is 400. */
  decodeCursor(token: string | undefined, scope: string): KeysetCursor | undefined {
    return token ? this.decode(token, scope, isKeysetCursor) : undefined;
  }

  decode<T>(token: string, scope: string, isValid: (value: unknown) => value is T): T {
    const invalid = new InvalidArgument('invalid page_token', [{ field: 'page_token', message: 'invalid page_token', code: 'invalid_page_token' }]);
    const [payload, mac, extra] = token.split('.');
    if (!payload || !mac || extra !== undefined) throw invalid;
    const given = Buffer.from(mac, 'base64url');
    const expected = this.mac(payload, scope);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw invalid;
    try {
      const value: unknown = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
      if (!isValid(value)) throw invalid;
      return value;
    } catch {
      throw invalid;
    }
  }
}

const tokensOf = (deps: AppDeps) => new PageTokens(deps.config.SECRETS_ENCRYPTION_KEY);

/** The page size a listing serves: the asked size up to `max`, `fallback` when absent or 0. */
export const clampPageSize = (size: number | undefined, fallback = 50, max = 250) => Math.min(max, size || fallback);

/** A page token of another shape than the keyset cursor (the events feed's position), signed for `scope`. */
export const encodePageToken = (deps: AppDeps, value: object, scope: string) => tokensOf(deps).encode(value, scope);

/** The value of such a token; a token not made for `scope`, or not of the shape, is 400 `invalid page_token`. */
export const decodePageToken = <T>(deps: AppDeps, token: string, scope: string, isValid: (value: unknown) => value is T) =>
  tokensOf(deps).decode(token, scope, isValid);

/** Where a keyset listing's page starts: after the token's cursor (undefined without a token); a token not made for `scope` is 400. */
export const cursorOf = (deps: AppDeps, scope: string, token: string | undefined) => tokensOf(deps).decodeCursor(token, scope);

/**
 * One page of a keyset listing newest first, read with limit size + 1: the rows to show, and the
 * next page's token after the last of them ('' on the last page: no row beyond `size` came back).
 */
export function keysetPage<R extends { cursor_ts: string; id: string }>(deps: AppDeps, scope: string, rows: R[], size: number) {
  const page = rows.slice(0, size);
  const last = page[page.length - 1];
  return { rows: page, next_page_token: rows.length > size && last ? tokensOf(deps).encodeCursor(last, scope) : '' };
}
