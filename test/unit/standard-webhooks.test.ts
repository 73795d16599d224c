/**
 * Standard Webhooks beside the spec's X-Signature, checked by the `standardwebhooks`
 * library itself, constructed with the signing secret exactly as the gateway issues it.
 */
import test from 'ava';
import { randomBytes } from 'node:crypto';
import Stripe from 'stripe';
import { Webhook } from 'standardwebhooks';
import { newSigningSecret } from '../../domain/ids';
import { parseSignatureHeader, signatureMatches, webhookSignatureHeader } from '../../domain/crypto/signature';
import { standardWebhooksHeaders, standardWebhooksKey } from '../../domain/crypto/standard-webhooks';

const body = JSON.stringify({ event_id: '7d6f3a8e-1c2b-5d4e-9f0a-1b2c3d4e5f60', type: 'deal.completed', deal: { amount: '150000' } });
const id = '7d6f3a8e-1c2b-5d4e-9f0a-1b2c3d4e5f60';
const now = () => Math.floor(Date.now() / 1000);

test('secrets are issued in the Standard Webhooks form: whsec_ + standard base64 of 32 random bytes', (t) => {
  for (let i = 0; i < 50; i += 1) {
    const secret = newSigningSecret();
    t.regex(secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    t.is(standardWebhooksKey(secret).length, 32);
    t.notThrows(() => new Webhook(secret), 'the library takes the secret as issued');
  }
});

test('the standardwebhooks library verifies our headers with the secret as issued', (t) => {
  const secret = newSigningSecret();
  const headers = standardWebhooksHeaders([secret], id, now(), body);
  t.is(headers['webhook-id'], id);
  t.regex(headers['webhook-signature'], /^v1,[A-Za-z0-9+/]{43}=$/);
  t.deepEqual(new Webhook(secret).verify(body, headers), JSON.parse(body));
  t.throws(() => new Webhook(newSigningSecret()).verify(body, headers), { message: /No matching signature/ });
  t.throws(() => new Webhook(secret).verify(`${body} `, headers), { message: /No matching signature/ });
  t.throws(() => new Webhook(secret).verify(body, { ...headers, 'webhook-id': 'another' }), { message: /No matching signature/ });
  const old = standardWebhooksHeaders([secret], id, now() - 301, body);
  t.throws(() => new Webhook(secret).verify(body, old), { message: /too old/ });
});

test('during a rotation both secrets sign: space-separated, and either verifies with the library', (t) => {
  const current = newSigningSecret();
  const previous = newSigningSecret();
  const headers = standardWebhooksHeaders([current, previous], id, now(), body);
  t.is(headers['webhook-signature'].split(' ').length, 2);
  t.notThrows(() => new Webhook(current).verify(body, headers));
  t.notThrows(() => new Webhook(previous).verify(body, headers));
  t.throws(() => new Webhook(newSigningSecret()).verify(body, headers));
});

test('X-Signature during a rotation: one v1 per secret, the new first; Stripe accepts either secret', (t) => {
  const stripe = new Stripe('sk_test_offline_only');
  const current = newSigningSecret();
  const previous = newSigningSecret();
  const ts = now();
  const header = webhookSignatureHeader([current, previous], ts, body);
  const parsed = parseSignatureHeader(header)!;
  t.is(parsed.v1.length, 2);
  t.true(signatureMatches(current, { ...parsed, v1: [parsed.v1[0]!] }, body), 'the new secret signs first');
  t.true(signatureMatches(previous, { ...parsed, v1: [parsed.v1[1]!] }, body));
  t.notThrows(() => stripe.webhooks.constructEvent(body, header, current));
  t.notThrows(() => stripe.webhooks.constructEvent(body, header, previous));
  t.is(webhookSignatureHeader([current], ts, body), `t=${ts},v1=${parsed.v1[0]}`, 'outside a rotation: the spec header exactly');
});

test('a secret in base64url (not a form the gateway issues) keys the scheme with its whole string, like any foreign secret', (t) => {
  let foreign = '';
  while (!/[-_]/.test(foreign.slice(6))) foreign = `whsec_${randomBytes(32).toString('base64url')}`;
  t.deepEqual(standardWebhooksKey(foreign), Buffer.from(foreign, 'utf8'));
  // The merchant API's own HMAC keeps the whole string as its key too.
  t.true(signatureMatches(foreign, parseSignatureHeader(webhookSignatureHeader([foreign], now(), body))!, body));
});
