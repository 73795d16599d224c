import test from 'ava';
import { createHmac } from 'node:crypto';
import Stripe from 'stripe';
import {
  boundSignatureMatches,
  checkTimestamp,
  computeBoundSignature,
  computeSignature,
  parseSignatureHeader,
  signatureHeader,
  signatureMatches,
} from '../../domain/crypto/signature';
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
  t.false(signatureMatches(secret, parsed!, `${body} `));
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
  for (const header of [undefined, '', 'v1=abc', `t=abc,v1=${'a'.repeat(64)}`, 't=1', 't=1,v1=xyz', 'garbage']) {
    t.is(parseSignatureHeader(header), undefined, String(header));
  }
  const two = parseSignatureHeader(`t=5,v1=${'a'.repeat(64)},v0=zz,v1=${'b'.repeat(64)}`);
  t.deepEqual(two, { timestamp: 5, v1: ['a'.repeat(64), 'b'.repeat(64)], v2: [] });
});

test('replay window is 300 s back and 60 s forward, inclusive', (t) => {
  const now = 1_800_000_000;
  t.is(checkTimestamp(now - 300, now), 'ok');
  t.is(checkTimestamp(now - 301, now), 'too_old');
  t.is(checkTimestamp(now + 60, now), 'ok');
  t.is(checkTimestamp(now + 61, now), 'too_new');
});

test('v2 binds method, path and query; a header with v1 and v2 still verifies with Stripe’s library', (t) => {
  const timestamp = Math.floor(Date.now() / 1000);
  const request = { method: 'get', target: '/api/v1/p2p/merchant/deals?page_size=100' };
  const header = signatureHeader(secret, timestamp, '', request);
  const parsed = parseSignatureHeader(header)!;
  t.is(parsed.v2.length, 1);
  t.is(parsed.v2[0], computeBoundSignature(secret, timestamp, { method: 'GET', target: request.target }, ''), 'the method is upper-cased');
  t.true(boundSignatureMatches(secret, parsed, { method: 'GET', target: request.target }, ''));
  for (const moved of [
    { method: 'POST', target: request.target },
    { method: 'GET', target: '/api/v1/p2p/merchant/deals?page_size=101' },
    { method: 'GET', target: '/api/v1/p2p/merchant/deals' },
  ]) {
    t.false(boundSignatureMatches(secret, parsed, moved, ''), JSON.stringify(moved));
  }
  t.false(boundSignatureMatches(secret, parsed, { method: 'GET', target: request.target }, '{}'), 'the body is bound too');
  // The v1 part is unchanged: Stripe's verifier accepts the header and ignores v2.
  t.notThrows(() => stripe.webhooks.constructEvent(body, signatureHeader(secret, timestamp, body, request), secret));
  // The signed string, spelled out: "<t>.<METHOD>.<target>.<raw body>".
  t.is(parsed.v2[0], createHmac('sha256', secret).update(`${timestamp}.GET.${request.target}.`).digest('hex'));
});

test('a v2 that is not 64 hex characters makes the header malformed; v2 alone is a header', (t) => {
  t.is(parseSignatureHeader(`t=5,v1=${'a'.repeat(64)},v2=xyz`), undefined);
  t.deepEqual(parseSignatureHeader(`t=5,v2=${'C'.repeat(64)}`), { timestamp: 5, v1: [], v2: ['c'.repeat(64)] });
});
