/**
 * What every answer of the payer's page and its JSON carries: no caching anywhere (they show card
 * numbers), no framing (a decoy page framing live buttons), no indexing, no referrer. The page's
 * own policy allows only this origin's script, style and calls, and no inline code at all.
 */
import type { Context } from 'koa';
import type { Locale } from './i18n';

const PAYER_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

/** The JSON of the checkout API and the page's redirects. */
export function payerPrivateHeaders(ctx: Context): void {
  ctx.set('Cache-Control', 'no-store');
  ctx.set('X-Robots-Tag', 'noindex, nofollow');
  ctx.set('X-Frame-Options', 'DENY');
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('Referrer-Policy', 'no-referrer');
  ctx.set('Content-Security-Policy', "default-src 'none'; frame-ancestors 'none'");
}

/** The HTML page: the above, its CSP, and the language it was written in (chosen from the request). */
export function payerPageHeaders(ctx: Context, locale: Locale): void {
  payerPrivateHeaders(ctx);
  ctx.set('Content-Security-Policy', PAYER_CSP);
  ctx.set('Content-Language', locale);
  ctx.set('Vary', 'Accept-Language, Cookie');
}

/** A cookie of the page (HttpOnly, SameSite=Lax; Secure when the page is served over https). */
export function setPayerCookie(ctx: Context, name: string, value: string, options: { path: string; maxAgeSeconds: number; secure: boolean }): void {
  ctx.append(
    'Set-Cookie',
    `${name}=${encodeURIComponent(value)}; Path=${options.path}; Max-Age=${options.maxAgeSeconds}; HttpOnly; SameSite=Lax${options.secure ? '; Secure' : ''}`,
  );
}
