/**
 * npm start's demo dispute: so that a newcomer who signs in to the operator console finds an
 * appeal waiting for an arbiter, with evidence (an image and a text statement) and a deal behind
 * it, and can resolve it end to end without a terminal. Made through the merchant API with the
 * demo merchant's own pair (signed as a merchant signs), only when the demo merchant has no open
 * appeal — so restarts do not pile disputes up.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { signatureHeader } from '../domain/crypto/signature';

/** A 96×64 PNG drawn as a receipt: the evidence image the console previews inline. */
const RECEIPT_PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAGAAAABACAIAAABqVuVZAAAAn0lEQVR42u3WUQ2AMAwFwFnBACaQgie+EYG/YQD4gNCty71UwSWvbZnWwzxMQQAIECBAgAABAmQugep9tl5TAwMIECBAgADlxQX0AUgAAQIECFBeII8iIBUDBAgQIED+oIECKBBIAAECBAiQP6j5qQakYnYQIECAAMkoZz7yRQCkYnYQIECAXmTel8gB9ANQ23sMKD+QigECBAgQoL6BTsvbamymR9djAAAAAElFTkSuQmCC',
  'base64',
);
const STATEMENT = 'Bank statement, 25.11.2026\n10:02  card transfer  1 500.33 RUB  to **** 4242  status: done\n';

interface Pair {
  token: string;
  secret: string;
}

/** A signed call; the caller names the answer's shape it reads. */
async function signedFetch<T>(
  apiUrl: string,
  pair: Pair,
  method: string,
  path: string,
  body: Buffer | string = '',
  contentType = 'application/json',
): Promise<T> {
  const url = new URL(path, apiUrl);
  const t = Math.floor(Date.now() / 1000);
  const response = await fetch(url, {
    method,
    headers: {
      ...(body.length > 0 ? { 'Content-Type': contentType } : {}),
      'X-Merchant-Token': pair.token,
      'X-Timestamp': String(t),
      'X-Signature': signatureHeader(pair.secret, t, body, { method, target: url.pathname + url.search }),
    },
    ...(body.length > 0 ? { body: typeof body === 'string' ? body : new Uint8Array(body) } : {}),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text.slice(0, 300)}`);
  return JSON.parse(text) as T;
}

function filePart(data: Buffer, filename: string, contentType: string) {
  const boundary = `----demo${randomBytes(8).toString('hex')}`;
  const body = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: ${contentType}\r\n\r\n`),
    data,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return { body, contentType: `multipart/form-data; boundary=${boundary}` };
}

/** The demo merchant's open appeal, made now when it has none; its id. */
export async function ensureDemoDispute(apiUrl: string, pair: Pair): Promise<{ appealId: string; created: boolean }> {
  const open = await signedFetch<{ data: { appeal_id: string }[] }>(
    apiUrl,
    pair,
    'GET',
    '/api/v1/p2p/merchant/appeals?status=OPEN,IN_REVIEW,REOPENED&page_size=1',
  );
  const [waiting] = open.data;
  if (waiting) return { appealId: waiting.appeal_id, created: false };

  // The demo merchant is a sandbox merchant: an amount ending in 33 is one nobody pays, so the sandbox
  // trader leaves the deal alone and the appeal holds it for a human arbiter (docs/sandbox.md).
  const { deal } = await signedFetch<{ deal: { deal_id: string } }>(
    apiUrl,
    pair,
    'POST',
    '/api/v1/p2p/merchant/deals/payin',
    JSON.stringify({
      idempotency_key: `demo-dispute-${randomUUID()}`,
      amount: 150033,
      currency: 'RUB',
      payment_method_id: 'card-rub',
      client_id: 'demo-payer',
    }),
  );
  const fileIds: string[] = [];
  for (const [data, name, type] of [
    [RECEIPT_PNG, 'receipt.png', 'image/png'],
    [Buffer.from(STATEMENT), 'statement.txt', 'text/plain'],
  ] as const) {
    const part = filePart(data, name, type);
    const uploaded = await signedFetch<{ file: { file_id: string } }>(apiUrl, pair, 'POST', '/api/v1/p2p/merchant/files', part.body, part.contentType);
    fileIds.push(uploaded.file.file_id);
  }
  const appeal = await signedFetch<{ data: { appeal_id: string } }>(
    apiUrl,
    pair,
    'POST',
    '/api/v1/p2p/merchant/appeals',
    JSON.stringify({
      deal_id: deal.deal_id,
      reason: 'The payer sent 1 500.33 RUB at 10:02 (receipt and statement attached), but the deal did not complete.',
      file_ids: fileIds,
    }),
  );
  return { appealId: appeal.data.appeal_id, created: true };
}
