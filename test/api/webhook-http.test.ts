import test from 'ava';
import { postWebhook, RESPONSE_BODY_LIMIT } from '../../activities/webhook-http';
import { startReceiver } from '../helpers/receiver';

test('private targets are refused before anything is sent, by literal address and by resolved name', async (t) => {
  const receiver = await startReceiver();
  t.teardown(() => receiver.close());
  const literal = await postWebhook(receiver.url, '{}', {}, { timeoutMs: 1000, allowPrivate: false });
  t.true(literal.permanent);
  t.regex(literal.error ?? '', /private address/);
  const byName = await postWebhook(receiver.url.replace('127.0.0.1', 'localhost'), '{}', {}, { timeoutMs: 1000, allowPrivate: false });
  t.true(byName.permanent);
  t.regex(byName.error ?? '', /private address/);
  t.is(receiver.received.length, 0);
  const allowed = await postWebhook(receiver.url, '{}', {}, { timeoutMs: 1000, allowPrivate: true });
  t.is(allowed.status, 200);
  t.is(receiver.received.length, 1);
  t.true((await postWebhook('ftp://example.com/x', '{}', {}, { timeoutMs: 1000, allowPrivate: true })).permanent);
});

test('redirects are not followed, bodies are capped, and a hanging receiver times out', async (t) => {
  let hung = 0;
  const receiver = await startReceiver((i, res) => {
    if (i === 0) res.writeHead(302, { Location: 'http://127.0.0.1:9/elsewhere' }).end();
    else if (i === 1) res.writeHead(200).end('x'.repeat(1_000_000));
    else hung += 1; // never answers
  });
  t.teardown(() => receiver.close());
  const redirect = await postWebhook(receiver.url, '{}', {}, { timeoutMs: 1000, allowPrivate: true });
  t.is(redirect.status, 302);
  const huge = await postWebhook(receiver.url, '{}', {}, { timeoutMs: 1000, allowPrivate: true });
  t.is(huge.status, 200);
  t.is(huge.body.length, RESPONSE_BODY_LIMIT);
  const hanging = await postWebhook(receiver.url, '{}', {}, { timeoutMs: 300, allowPrivate: true });
  t.is(hanging.status, undefined);
  t.false(hanging.permanent);
  t.regex(hanging.error ?? '', /timed out/);
  t.is(hung, 1);
});
