/**
 * The operator console (console/) served under /console (and, at the merchant's door, /cabinet; at the traders', /trader): the files `vite build` wrote
 * to console/dist, with their content types; hashed files under /console/assets/ cached as
 * immutable; every other path below /console answers index.html (the app's own routes). A
 * Content-Security-Policy allowing only this origin (no inline script, no framing) on each answer.
 */
import { createReadStream, existsSync, statSync } from 'node:fs';
import { extname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Context, Middleware } from 'koa';

const CONSOLE_DIST = resolve(fileURLToPath(new URL('../../console/dist', import.meta.url)));

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.json': 'application/json',
  '.txt': 'text/plain; charset=utf-8',
};

const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

function secure(ctx: Context) {
  ctx.set('Content-Security-Policy', CONSOLE_CSP);
  ctx.set('X-Frame-Options', 'DENY');
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('Referrer-Policy', 'same-origin');
}

/** The file below dist a path names, or undefined (outside dist, a folder, missing). */
function fileOf(dist: string, relative: string): string | undefined {
  const path = resolve(dist, `.${sep}${decodeURIComponent(relative)}`);
  if (path !== dist && !path.startsWith(dist + sep)) return undefined;
  try {
    return statSync(path).isFile() ? path : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The middleware: GET/HEAD of /console and below, and of /cabinet and /trader and below — the same
 * app at the merchant's and the traders' doors (it reads its door from the path; its files stay
 * under /console/assets/), so every /cabinet and /trader path answers index.html. Everything else
 * passes on.
 */
export function consolePages(dist = CONSOLE_DIST): Middleware {
  return async (ctx, next) => {
    const app = ['/console', '/cabinet', '/trader'].find((base) => ctx.path === base || ctx.path.startsWith(`${base}/`));
    if (!app) return next();
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return next();
    if (ctx.path === app) {
      ctx.redirect(`${app}/`);
      return;
    }
    serve(ctx, dist, app !== '/console');
  };
}

function serve(ctx: Context, dist: string, indexOnly: boolean) {
  secure(ctx);
  const index = join(dist, 'index.html');
  if (!existsSync(index)) {
    ctx.status = 503;
    ctx.type = 'text/plain';
    ctx.body = 'The operator console is not built: npm start and npm test build it (or npm run console:build).';
    return;
  }
  const relative = indexOnly ? '' : ctx.path.slice('/console/'.length);
  let file: string | undefined;
  try {
    file = relative ? fileOf(dist, relative) : undefined;
  } catch {
    file = undefined; // a malformed escape: not a file
  }
  if (!file && relative.startsWith('assets/')) {
    ctx.status = 404;
    ctx.type = 'text/plain';
    ctx.body = 'no such file';
    return;
  }
  ctx.set('Cache-Control', file && relative.startsWith('assets/') ? 'public, max-age=31536000, immutable' : 'no-cache');
  const target = file ?? index;
  ctx.type = TYPES[extname(target)] ?? 'application/octet-stream';
  ctx.body = createReadStream(target);
}
