/**
 * The test vectors of docs/signing.md (docs/signing-vectors.json), each checked against the
 * gateway's own code: the V2 request signature and its verifier (the merchant contract's request signing), the request-bound v2=,
 * the V2 webhook headers as the delivery activity renders them (X-Signature and Standard Webhooks,
 * a rotation's two secrets included), the V1 request signature and the V1 webhook headers — and,
 * where an independent implementation exists, against it too (Stripe's and the standardwebhooks
 * library). The page shows every vector exactly as the file has it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import test from 'ava';
import Stripe from 'stripe';
import { Webhook } from 'standardwebhooks';
import { boundSignatureMatches, parseSignatureHeader, signatureHeader, signatureMatches } from '../../domain/crypto/signature';
import { WebhookFormats, type WebhookEvent } from '../../domain/events/webhook-formats';
import { v1Signature, v1SignedPayload } from '../../api/v1/auth';
import { v1WebhookFormat } from '../../api/v1/webhooks';
import { ROOT } from '../../scripts/stack';

interface Vector {
  name: string;
  scheme: 'v2-request' | 'v2-request-bound' | 'webhook' | 'standard-webhooks' | 'v1-request' | 'v1-webhook';
  timestamp: number;
  method?: string;
  target?: string;
  body: string;
  secrets?: Array<'secret' | 'old_secret'>;
  id?: string;
  fields?: string[];
  payload?: string;
  headers: Record<string, string>;
}
const file = JSON.parse(readFileSync(join(ROOT, 'docs', 'signing-vectors.json'), 'utf8')) as {
  secret: string;
  old_secret: string;
  token: string;
  merchant_id: string;
  vectors: Vector[];
};
const page = readFileSync(join(ROOT, 'docs', 'signing.md'), 'utf8');
const { secret } = file;
const secretsOf = (v: Vector) => (v.secrets ?? ['secret']).map((name) => file[name]);
const byScheme = (scheme: Vector['scheme']) => file.vectors.filter((v) => v.scheme === scheme);
const stripe = new Stripe('sk_test_unused_for_offline_signing');

/** The stored event a delivery renders (only what the header functions read). */
const eventOf = (v: Vector): WebhookEvent => ({ event_id: v.headers['X-Event-Id'] ?? v.id, merchant_id: file.merchant_id }) as unknown as WebhookEvent;

test('every scheme of docs/signing.md has vectors, and the page shows each exactly', (t) => {
  for (const scheme of ['v2-request', 'v2-request-bound', 'webhook', 'standard-webhooks', 'v1-request', 'v1-webhook'] as const) {
    t.true(byScheme(scheme).length > 0, scheme);
  }
  t.true(page.includes(file.secret) && page.includes(file.old_secret) && page.includes(file.token) && page.includes(file.merchant_id));
  for (const v of file.vectors) {
    t.true(page.includes(`\`${v.name}\``), `${v.name} is on the page`);
    if (v.body) t.true(page.includes(`\n${v.body}\n`), `${v.name}: its body, byte for byte`);
    for (const [name, value] of Object.entries(v.headers)) t.true(page.includes(`\n${name}: ${value}\n`), `${v.name}: ${name}`);
  }
  // A body with a character outside ASCII: a signer that hashes UTF-16 or Latin-1 fails the vector.
  t.true(file.vectors.some((v) => Buffer.byteLength(v.body) > v.body.length));
});

test('V2 requests: the gateway signs each vector so, and its verifier accepts it and nothing else', (t) => {
  for (const v of byScheme('v2-request')) {
    t.is(v.headers['X-Signature']!, signatureHeader(secret, v.timestamp, v.body), v.name);
    t.is(v.headers['X-Timestamp'], String(v.timestamp));
    const parsed = parseSignatureHeader(v.headers['X-Signature']);
    t.truthy(parsed);
    t.is(parsed!.timestamp, v.timestamp);
    t.true(signatureMatches(secret, parsed!, v.body), `${v.name} verifies`);
    t.false(signatureMatches(secret, parsed!, `${v.body} `), `${v.name}: another body does not`);
    t.false(signatureMatches(file.old_secret, parsed!, v.body), `${v.name}: another secret does not`);
    // Stripe's signer makes the same v1 (byte-compatible with its webhook signatures).
    t.is(stripe.webhooks.generateTestHeaderString({ payload: v.body, secret, timestamp: v.timestamp }), v.headers['X-Signature']!);
  }
});

test('request-bound v2=: the gateway signs each vector so and verifies it for that method and target only', (t) => {
  for (const v of byScheme('v2-request-bound')) {
    const request = { method: v.method!, target: v.target! };
    t.is(v.headers['X-Signature']!, signatureHeader(secret, v.timestamp, v.body, request), v.name);
    const parsed = parseSignatureHeader(v.headers['X-Signature'])!;
    t.is(parsed.v2.length, 1);
    t.true(boundSignatureMatches(secret, parsed, request, v.body), `${v.name} verifies`);
    t.true(signatureMatches(secret, parsed, v.body), `${v.name}: its v1 verifies alone too`);
    t.false(boundSignatureMatches(secret, parsed, { ...request, method: request.method === 'GET' ? 'POST' : 'GET' }, v.body), 'another method');
    t.false(boundSignatureMatches(secret, parsed, { ...request, target: `${request.target}&x=1` }, v.body), 'another query');
  }
});

test('V2 webhooks: the delivery renders exactly the headers of each vector, Stripe’s and the standardwebhooks libraries agree', (t) => {
  const v2 = new WebhookFormats().of('v2');
  for (const v of [...byScheme('webhook'), ...byScheme('standard-webhooks')]) {
    const headers = v2.headers(secretsOf(v), v.timestamp, v.body, eventOf(v));
    for (const [name, value] of Object.entries(v.headers)) t.is(headers[name], value as string | undefined, `${v.name}: ${name}`);
  }
  for (const v of byScheme('webhook')) {
    // Stripe checks the newest v1 of the header against each secret; its tolerance is widened for the fixed timestamp.
    for (const s of secretsOf(v)) t.notThrows(() => stripe.webhooks.constructEvent(v.body, v.headers['X-Signature']!, s, 10 ** 10), `${v.name} with ${s}`);
  }
  for (const v of byScheme('standard-webhooks')) {
    const expected = secretsOf(v)
      .map((s) => new Webhook(s).sign(v.id!, new Date(v.timestamp * 1000), v.body))
      .join(' ');
    t.is(v.headers['webhook-signature'], expected, `${v.name}: the standardwebhooks library signs alike`);
  }
});

test('V1 requests: the signed string and SIGNATURE the V1 adapter verifies', (t) => {
  for (const v of byScheme('v1-request')) {
    const payload = v1SignedPayload(String(v.timestamp), v.fields!);
    t.is(payload, v.payload!, v.name);
    t.is(v1Signature(secret, payload), v.headers.SIGNATURE!, v.name);
    t.is(v.headers.TIMESTAMP, String(v.timestamp));
    t.is(v.headers.MERCHANT, file.merchant_id);
  }
});

test('V1 webhooks: TIMESTAMP is the start of the UTC day, SIGNATURE as the V1 delivery renders it', (t) => {
  for (const v of byScheme('v1-webhook')) {
    t.deepEqual(v1WebhookFormat.headers([secret, file.old_secret], v.timestamp, v.body, eventOf(v)), v.headers, v.name);
    t.is(Number(v.headers.TIMESTAMP) % 86_400, 0);
  }
});
