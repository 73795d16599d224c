/**
 * The SDK's webhook verifier: both schemes, constant-time comparison of every signature against
 * every secret (a rotation's two), timestamp tolerance, and what it refuses.
 */
import test from 'ava';
import { createHmac, randomBytes } from 'node:crypto';
import { standardWebhooksKey, verifyWebhook, WebhookVerificationError } from '../src/index.js';

const secret = `whsec_${randomBytes(32).toString('base64')}`;
const previous = `whsec_${randomBytes(32).toString('base64')}`;
const body = JSON.stringify({ event_id: '7d6f3a8e-1c2b-5d4e-9f0a-1b2c3d4e5f60', type: 'deal.completed', created_at: '2026-11-22T10:06:00.000Z' });
const id = '7d6f3a8e-1c2b-5d4e-9f0a-1b2c3d4e5f60';
const now = Math.floor(Date.now() / 1000);

/** The gateway's headers, computed here from the published formulas. */
function headers(secrets: string[], t = now, payload = body) {
  const standard = secrets.map(
    (s) =>
      `v1,${createHmac('sha256', Buffer.from(s.slice(6), 'base64'))
        .update(`${id}.${t}.${payload}`)
        .digest('base64')}`,
  );
  const spec = secrets.map((s) => `v1=${createHmac('sha256', s).update(`${t}.${payload}`).digest('hex')}`);
  return {
    'webhook-id': id,
    'webhook-timestamp': String(t),
    'webhook-signature': standard.join(' '),
    'X-Timestamp': String(t),
    'X-Signature': [`t=${t}`, ...spec].join(','),
    'X-Event-Id': id,
  };
}
const xOnly = (h: Record<string, string>) => ({ 'X-Timestamp': h['X-Timestamp']!, 'X-Signature': h['X-Signature']! });

test('verifies Standard Webhooks and X-Signature and returns the event', (t) => {
  const h = headers([secret]);
  t.is(verifyWebhook(body, h, secret).type, 'deal.completed');
  t.is(verifyWebhook(Buffer.from(body), h, secret, { scheme: 'x-signature' }).event_id, id);
  t.is(verifyWebhook(body, xOnly(h), secret).event_id, id, 'X-Signature alone (auto)');
  t.is(verifyWebhook(body, new Headers(h), secret).event_id, id, 'a Headers object');
});

test('during a rotation either secret verifies, and a receiver may hold both', (t) => {
  const h = headers([secret, previous]);
  for (const scheme of ['standard', 'x-signature'] as const) {
    t.notThrows(() => verifyWebhook(body, h, secret, { scheme }));
    t.notThrows(() => verifyWebhook(body, h, previous, { scheme }));
    t.notThrows(() => verifyWebhook(body, h, [previous, secret], { scheme }));
  }
  const after = headers([secret]);
  t.notThrows(() => verifyWebhook(body, after, [secret, previous]), 'after the window the new one alone signs');
  t.throws(() => verifyWebhook(body, after, previous), { instanceOf: WebhookVerificationError });
});

test('refuses a wrong secret, a changed body, a moved id, stale or future timestamps, missing headers', (t) => {
  const h = headers([secret]);
  const refused = (payload: string, hs: Record<string, string>, s = secret, scheme?: 'standard' | 'x-signature', message?: RegExp) =>
    t.throws(() => verifyWebhook(payload, hs, s, scheme ? { scheme } : {}), { instanceOf: WebhookVerificationError, ...(message ? { message } : {}) });
  for (const scheme of ['standard', 'x-signature'] as const) {
    refused(body, h, previous, scheme, /no matching signature/);
    refused(`${body} `, h, secret, scheme, /no matching signature/);
    // A minute past the 300 s tolerance: `now` was taken when the file loaded, and a busy machine
    // may run this test seconds later (at now + 301 a 2 s delay made the timestamp acceptable).
    refused(body, headers([secret], now - 360), secret, scheme, /too old/);
    refused(body, headers([secret], now + 360), secret, scheme, /too new/);
  }
  refused(body, { ...h, 'webhook-id': 'another' }, secret, 'standard', /no matching signature/);
  refused(body, { ...h, 'X-Timestamp': String(now - 1) }, secret, 'x-signature', /X-Timestamp/);
  refused(body, {}, secret, undefined, /missing X-Signature/);
  refused(body, { 'X-Signature': h['X-Signature']! }, secret, 'standard', /missing webhook-id/);
  t.notThrows(() => verifyWebhook(body, headers([secret], now - 600), secret, { toleranceSeconds: 900 }), 'tolerance is an option');
  t.throws(() => verifyWebhook(body, h, []), { message: /no secret/ });
});

test('a secret is whsec_ + standard base64 of 32 bytes: the key of the Standard Webhooks scheme', (t) => {
  t.is(standardWebhooksKey(secret).length, 32);
  t.deepEqual(standardWebhooksKey(secret), Buffer.from(secret.slice(6), 'base64'));
});
