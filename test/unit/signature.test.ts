import test from 'ava';
import Stripe from 'stripe';
import { checkTimestamp, computeSignature, parseSignatureHeader, signatureHeader, signatureMatches } from '../../domain/signature';
import { newSigningSecret } from '../../domain/ids';

const stripe = new Stripe('sk_test_unused_for_offline_signing');
const secret = newSigningSecret();
const body = JSON.stringify({ amount: 150000, currency: 'RUB', idempotency_key: 'k-1' });

test('a header made by Stripe verifies with our verifier', (t) => {
  const timestamp = Math.floor(Date.now() / 1000);
  const header = stripe.webhooks.generateTestHeaderString({ payload: body, secret, timestamp });
  const parsed = parseSignatureHeader(header);
  t.truthy(parsed);
  t.is(parsed!.timestamp, timestamp);
  t.true(signatureMatches(secret, parsed!, body));
  t.false(signatureMatches(secret, parsed!, body + ' '));
  t.false(signatureMatches(newSigningSecret(), parsed!, body));
});

test('our signature verifies with Stripe constructEvent', (t) => {
  const timestamp = Math.floor(Date.now() / 1000);
  const header = signatureHeader(secret, timestamp, body);
  const event = stripe.webhooks.constructEvent(body, header, secret) as unknown as { amount: number };
  t.is(event.amount, 150000);
  t.throws(() => stripe.webhooks.constructEvent(body, signatureHeader(newSigningSecret(), timestamp, body), secret));
});

test('the empty body signs "<t>."', (t) => {
  t.is(computeSignature('whsec_x', 1700000000, ''), computeSignature('whsec_x', 1700000000, Buffer.from('')));
  const parsed = parseSignatureHeader(signatureHeader('whsec_x', 1700000000, ''))!;
  t.true(signatureMatches('whsec_x', parsed, ''));
});

test('malformed headers are rejected', (t) => {
  for (const header of [undefined, '', 'v1=abc', 't=abc,v1=' + 'a'.repeat(64), 't=1', 't=1,v1=xyz', 'garbage']) {
    t.is(parseSignatureHeader(header), undefined, String(header));
  }
  const two = parseSignatureHeader(`t=5,v1=${'a'.repeat(64)},v0=zz,v1=${'b'.repeat(64)}`);
  t.deepEqual(two, { timestamp: 5, v1: ['a'.repeat(64), 'b'.repeat(64)] });
});

test('replay window is 300 s back and 60 s forward, inclusive', (t) => {
  const now = 1_800_000_000;
  t.is(checkTimestamp(now - 300, now), 'ok');
  t.is(checkTimestamp(now - 301, now), 'too_old');
  t.is(checkTimestamp(now + 60, now), 'ok');
  t.is(checkTimestamp(now + 61, now), 'too_new');
});
