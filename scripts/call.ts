/**
 * npm run call -- [--live] METHOD PATH [JSON body]: one request signed with the demo merchant's pair
 * (the sandbox Demo Shop's; with --live, Demo Shop Live's, whose deals meet the demo traders;
 * MERCHANT_TOKEN / MERCHANT_SECRET override both). Prints the status, the trace id and the body.
 * It signs both schemes: v1 (the spec's, over `<t>.<raw body>`) and the request-bound v2 over method, path and query as
 * sent (domain/crypto/signature.ts), so it also works for a merchant whose signature_binding is required.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { signatureHeader } from '../domain/crypto/signature';
import { DATA_DIR } from './stack';

const live = process.argv[2] === '--live';
const [method = 'GET', path = '/api/v1/p2p/my-merchant', body = ''] = process.argv.slice(live ? 3 : 2);
let token = process.env.MERCHANT_TOKEN;
let secret = process.env.MERCHANT_SECRET;
if (!token || !secret) {
  const file = readdirSync(DATA_DIR).find((f) => f.startsWith(live ? 'live-demo-merchant-' : 'demo-merchant-'));
  if (!file) throw new Error('no demo credentials in .data; run npm start first or set MERCHANT_TOKEN and MERCHANT_SECRET');
  ({ token, secret } = JSON.parse(readFileSync(join(DATA_DIR, file), 'utf8')) as { token: string; secret: string });
}
const base = process.env.API_URL ?? `http://127.0.0.1:${process.env.PORT ?? 3000}`;
const t = Math.floor(Date.now() / 1000);
// The target is signed as it goes on the wire: the URL parser's normalised path and query.
const url = new URL(path, base);
const response = await fetch(url, {
  method,
  headers: {
    'Content-Type': 'application/json',
    'X-Merchant-Token': token,
    'X-Timestamp': String(t),
    'X-Signature': signatureHeader(secret, t, body, { method, target: url.pathname + url.search }),
  },
  ...(body ? { body } : {}),
});
console.log(`${response.status} ${response.statusText}  X-Trace-Id: ${response.headers.get('x-trace-id')}`);
const text = await response.text();
try {
  console.log(JSON.stringify(JSON.parse(text), null, 2));
} catch {
  console.log(text);
}
