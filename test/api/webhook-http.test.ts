import test from 'ava';
import { postWebhook, RESPONSE_BODY_LIMIT, storableText } from '../../activities/webhook-http';
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

const bytes = (s: string) => Buffer.byteLength(s, 'utf8');

test('storableText: NUL and invalid UTF-8 become U+FFFD, and the text is cut to the limit on a character boundary', (t) => {
  t.is(storableText(Buffer.from('a\0b')), 'a\uFFFDb');
  t.is(storableText('a\0b'), 'a\uFFFDb');
  t.is(
    storableText(Buffer.from([0x6f, 0x6b, 0xff, 0xc3, 0x28, 0xe2, 0x82])),
    'ok\uFFFD\uFFFD(\uFFFD',
    'one U+FFFD per invalid sequence, a truncated one at the very end included',
  );
  t.is(storableText('lone \uD800 surrogate'), 'lone \uFFFD surrogate');
  t.is(storableText('tab\tnew\nline\u0007'), 'tab\tnew\nline\u0007', 'other control characters are kept');
  // Cut inside a 2-, 3- and 4-byte character: the character goes, no U+FFFD takes its place.
  for (const [char, size] of [
    ['é', 2],
    ['€', 3],
    ['😀', 4],
  ] as const) {
    const text = `a${char.repeat(3000)}`;
    const cut = storableText(text);
    t.is(cut, `a${char.repeat(Math.floor(2047 / size))}`);
    t.true(bytes(cut) <= RESPONSE_BODY_LIMIT && bytes(cut) > RESPONSE_BODY_LIMIT - size);
    t.is(storableText(Buffer.from(text).subarray(0, RESPONSE_BODY_LIMIT), RESPONSE_BODY_LIMIT, true), cut, 'the first 2048 bytes of a longer answer');
  }
  // 2048 invalid bytes would be 6144 bytes of U+FFFD: still at most the limit.
  const invalid = storableText(Buffer.alloc(2048, 0xff));
  t.is(bytes(invalid), 2046);
  t.is(storableText('x'.repeat(600), 500).length, 500);
});

test('a receiver answering NUL bytes, invalid UTF-8 or long multi-byte text: the body is storable text of at most 2048 bytes', async (t) => {
  const answers = [
    Buffer.concat([Buffer.from('a\0'), Buffer.from([0xff, 0xfe]), Buffer.from('z')]),
    Buffer.from(`a${'😀'.repeat(1000)}`),
    Buffer.from(`a${'é'.repeat(2000)}`),
  ];
  const receiver = await startReceiver((i, res) => res.writeHead(200).end(answers[i]));
  t.teardown(() => receiver.close());
  const post = () => postWebhook(receiver.url, '{}', {}, { timeoutMs: 1000, allowPrivate: true });
  t.is((await post()).body, 'a\uFFFD\uFFFD\uFFFDz');
  const emoji = await post();
  t.is(emoji.body, `a${'😀'.repeat(511)}`);
  t.is(bytes(emoji.body), 2045);
  const accented = await post();
  t.is(accented.body, `a${'é'.repeat(1023)}`);
  t.is(bytes(accented.body), 2047);
});
