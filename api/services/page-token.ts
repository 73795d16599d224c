import { createHmac, timingSafeEqual } from 'node:crypto';
import { InvalidArgument } from '../../domain/errors';
import { isKeysetCursor, type KeysetCursor } from '../../db/queries/keyset';

export { isKeysetCursor, type KeysetCursor };

/**
 * Opaque, tamper-evident page tokens: base64url(JSON payload) + "." + HMAC-SHA256 over it and
 * the merchant id, keyed from the server's secrets key. Anything else is 400 `invalid page_token`.
 */
export class PageTokens {
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
