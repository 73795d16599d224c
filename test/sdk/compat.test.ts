/**
 * The SDK agrees with the gateway's own code and with the reference libraries: its request
 * signatures pass the server's verifier, and its webhook verifier accepts what the gateway
 * sends, what the standardwebhooks library signs and what Stripe's library signs.
 */
import test from 'ava';
import Stripe from 'stripe';
import { Webhook } from 'standardwebhooks';
import { signatureHeaders, verifyWebhook, WebhookVerificationError } from '../../sdk/src/index';
import { newSigningSecret } from '../../domain/ids';
import { boundSignatureMatches, parseSignatureHeader, signatureMatches, webhookSignatureHeader } from '../../domain/crypto/signature';
import { standardWebhooksHeaders } from '../../domain/crypto/standard-webhooks';

const body = JSON.stringify({ event_id: '7d6f3a8e-1c2b-5d4e-9f0a-1b2c3d4e5f60', type: 'deal.created', deal: { amount: '150000' } });
const id = '7d6f3a8e-1c2b-5d4e-9f0a-1b2c3d4e5f60';

test("the SDK's request signatures pass the gateway's verifier (v1 and the request-bound v2)", (t) => {
  const secret = newSigningSecret();
  const timestamp = Math.floor(Date.now() / 1000);
  const target = '/api/v1/p2p/merchant/deals?page_size=2&statuses=A&statuses=B';
  const headers = signatureHeaders({ token: 'a'.repeat(64), secret, method: 'get', target, body: '', timestamp });
  const parsed = parseSignatureHeader(headers['X-Signature'])!;
  t.true(signatureMatches(secret, parsed, ''));
  t.true(boundSignatureMatches(secret, parsed, { method: 'GET', target }, ''));
  t.false(boundSignatureMatches(secret, parsed, { method: 'GET', target: '/api/v1/p2p/merchant/deals' }, ''));
  const post = signatureHeaders({ token: 'a'.repeat(64), secret, method: 'POST', target: '/x', body, timestamp, bind: false });
  t.deepEqual(parseSignatureHeader(post['X-Signature'])!.v2, []);
  t.true(signatureMatches(secret, parseSignatureHeader(post['X-Signature'])!, body));
});

test('the SDK verifies what the gateway sends, alone and during a rotation (both schemes)', (t) => {
  const current = newSigningSecret();
  const old = newSigningSecret();
  const ts = Math.floor(Date.now() / 1000);
  for (const secrets of [[current], [current, old]]) {
    const headers = { 'X-Timestamp': String(ts), 'X-Signature': webhookSignatureHeader(secrets, ts, body), ...standardWebhooksHeaders(secrets, id, ts, body) };
    for (const scheme of ['standard', 'x-signature'] as const) {
      for (const s of secrets) t.is(verifyWebhook(body, headers, s, { scheme }).event_id, id);
      t.throws(() => verifyWebhook(body, headers, newSigningSecret(), { scheme }), { instanceOf: WebhookVerificationError });
    }
  }
});

test('the SDK verifies signatures made by the standardwebhooks and Stripe libraries', (t) => {
  const secret = newSigningSecret();
  const now = new Date();
  const ts = Math.floor(now.getTime() / 1000);
  const signature = new Webhook(secret).sign(id, now, body);
  t.is(verifyWebhook(body, { 'webhook-id': id, 'webhook-timestamp': String(ts), 'webhook-signature': signature }, secret).event_id, id);
  const stripeHeader = new Stripe('sk_test_offline_only').webhooks.generateTestHeaderString({ payload: body, secret, timestamp: ts });
  t.is(verifyWebhook(body, { 'X-Signature': stripeHeader }, secret).event_id, id);
});
