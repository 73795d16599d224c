/**
 * An upload is read on a public token, before its signature can be checked. The
 * bytes of such reads in flight are capped per merchant and in total (429 + Retry-After at once,
 * unread), released however the request ends, and a read that does not verify spends one of the
 * token's unverified reads of the minute — never a verified request's allowance
 * (api/auth/unverified-uploads.ts, docs/reliability.md "Unverified uploads").
 */
import test from 'ava';
import { randomUUID } from 'node:crypto';
import { cabinetToken, newMerchant, problemDetail, signed, type KeyPair } from '../helpers/api';
import { startApp } from '../helpers/app';
import { bearerUpload, filePart, FILES, heldRequest, heldUpload, SAMPLES, signedUpload, type RawAnswer } from '../helpers/multipart';
import { eventually } from '../helpers/poll';
import { v1Sign } from '../v1/v1-client';

type App = Awaited<ReturnType<typeof startApp>>;

/** The app's gauge of unverified upload bytes in flight (GET /metrics). */
async function inFlight(app: App): Promise<number | undefined> {
  const text = await (await fetch(app.metricsUrl)).text();
  const match = /^unverified_upload_bytes_in_flight (\d+)$/m.exec(text);
  return match ? Number(match[1]) : undefined;
}
const settlesAt = (app: App, bytes: number, what: string) =>
  eventually(async () => (await inFlight(app)) === bytes, `${what} (${bytes} bytes in flight)`, 60_000);

/** A text file of `size` bytes in the part named `file`. */
const upload = (size: number) => filePart(Buffer.alloc(size, 'a'), 'evidence.txt', 'text/plain');
const junk = (keys: KeyPair): KeyPair => ({ token: keys.token, secret: 'whsec_not-the-secret' });

/** 429 before the body was sent; Retry-After 1 s for the byte budget (reads end soon), the window's rest for the rate limit. */
function refusedUnread(t: import('ava').ExecutionContext, answer: RawAnswer, message: RegExp, retryAfter: (seconds: number) => boolean = (s) => s === 1) {
  t.is(answer.status, 429, answer.head);
  t.true(answer.beforeBodySent, 'answered before the client sent its body: nothing was read');
  t.true(retryAfter(Number(answer.headers['retry-after'])), `Retry-After: ${answer.headers['retry-after']}`);
  t.is(answer.headers.connection, 'close');
  const problem = JSON.parse(answer.text);
  t.is(problem.title, 'RESOURCE_EXHAUSTED');
  t.regex(problemDetail(problem).message, message);
}

test('unverified uploads beyond the merchant budget are 429 + Retry-After at once, unread; the held ones, other merchants and concurrent uploads within it pass', async (t) => {
  const app = await startApp({ EVIDENCE_MAX_BYTES: 200_000, UNVERIFIED_UPLOAD_BYTES_PER_MERCHANT: 300_000, UNVERIFIED_UPLOAD_BYTES_TOTAL: 10_000_000 });
  t.teardown(() => app.close());
  const a = await newMerchant();
  const b = await newMerchant();
  const first = upload(140_000);
  const second = upload(140_000);
  const held = [heldUpload(app.url, a.keys, first), heldUpload(app.url, a.keys, second)];
  await settlesAt(app, first.body.length + second.body.length, 'both held uploads reserved');

  // 280 kB held + 30 kB > 300 kB: refused before a byte of it is read.
  const over = heldUpload(app.url, a.keys, upload(30_000));
  refusedUnread(t, await over.answer, /upload bytes in flight for this merchant .*limit: 300000 bytes/);
  // Another merchant's budget is its own.
  const other = await signedUpload(b.keys, upload(30_000), `${app.url}${FILES}`);
  t.is(other.status, 201, other.text);

  for (const h of held) h.finish();
  for (const h of held) t.is((await h.answer).status, 201, 'the held uploads complete');
  await settlesAt(app, 0, 'released after success');

  // A legitimate client's concurrent uploads within the budget are never refused.
  const concurrent = await Promise.all([90_000, 90_000, 90_000].map((size) => signedUpload(a.keys, upload(size), `${app.url}${FILES}`)));
  t.deepEqual(
    concurrent.map((r) => r.status),
    [201, 201, 201],
  );
  await settlesAt(app, 0, 'released after concurrent successes');
});

test('the total budget spans merchants: beyond it every merchant is 429 at once, unread, until reads end', async (t) => {
  const app = await startApp({ EVIDENCE_MAX_BYTES: 100_000, UNVERIFIED_UPLOAD_BYTES_PER_MERCHANT: 200_000, UNVERIFIED_UPLOAD_BYTES_TOTAL: 300_000 });
  t.teardown(() => app.close());
  const [a, b, c] = await Promise.all([newMerchant(), newMerchant(), newMerchant()]);
  const ua = upload(90_000);
  const ub = upload(90_000);
  const uc = upload(90_000);
  const held = [heldUpload(app.url, a.keys, ua), heldUpload(app.url, b.keys, ub), heldUpload(app.url, c.keys, uc)];
  await settlesAt(app, ua.body.length + ub.body.length + uc.body.length, 'three merchants reading');

  const d = await newMerchant();
  const refused = heldUpload(app.url, d.keys, upload(30_000));
  refusedUnread(t, await refused.answer, /upload bytes in flight before their signatures are checked .*limit: 300000 bytes/);

  for (const h of held) h.finish();
  for (const h of held) t.is((await h.answer).status, 201);
  await settlesAt(app, 0, 'released');
  const again = await signedUpload(d.keys, upload(30_000), `${app.url}${FILES}`);
  t.is(again.status, 201, again.text);
});

test('failed signatures spend the token’s unverified reads of the minute: the next upload is 429 unread; verified requests and the cabinet are untouched', async (t) => {
  const frozen = Date.now();
  const app = await startApp({}, () => frozen);
  t.teardown(() => app.close());
  const { merchantId, keys } = await newMerchant({ rate_limit_per_minute: 3 });
  const balance = `${app.url}/api/v1/p2p/merchant/balance`;
  // A wrong signature on an ordinary route costs a small read and spends nothing.
  for (let i = 0; i < 5; i += 1) t.is((await signed(junk(keys), 'GET', balance)).status, 401);

  for (let i = 0; i < 3; i += 1) t.is((await signedUpload(junk(keys), filePart(SAMPLES.text), `${app.url}${FILES}`)).status, 401, `junk upload ${i + 1}`);
  // The window's unverified reads are spent: even a correctly signed upload is refused before it is read.
  const next = heldUpload(app.url, keys, filePart(SAMPLES.png), 20);
  refusedUnread(t, await next.answer, /merchant rate limit exceeded \(limit: 3\/min\)/, (s) => s >= 1 && s <= 60);

  // The failures never touch the verified requests' allowance: three pass, the fourth meets the ordinary limit.
  for (let i = 0; i < 3; i += 1) t.is((await signed(keys, 'GET', balance)).status, 200, `verified request ${i + 1} of 3`);
  t.is((await signed(keys, 'GET', balance)).status, 429);
  // The cabinet's JWT is verified before its upload is read: not gated by the token's window.
  const cabinet = await bearerUpload(await cabinetToken(merchantId), filePart(SAMPLES.pdf), `${app.url}${FILES}`);
  t.is(cabinet.status, 201, cabinet.text);
  await settlesAt(app, 0, 'nothing held');
});

test('the budget is released after success, a bad signature, an abort and a truncated body: back to zero, and a full-budget upload still passes', async (t) => {
  const app = await startApp({ EVIDENCE_MAX_BYTES: 100_000, UNVERIFIED_UPLOAD_BYTES_PER_MERCHANT: 170_000, UNVERIFIED_UPLOAD_BYTES_TOTAL: 170_000 });
  t.teardown(() => app.close());
  const { keys } = await newMerchant();
  const url = `${app.url}${FILES}`;
  const size = 100_000;

  t.is((await signedUpload(keys, upload(size), url)).status, 201);
  await settlesAt(app, 0, 'after a success');
  t.is((await signedUpload(junk(keys), upload(size), url)).status, 401);
  await settlesAt(app, 0, 'after a bad signature');

  const aborted = upload(size);
  const gone = heldUpload(app.url, keys, aborted, 10_000);
  await settlesAt(app, aborted.body.length, 'the held upload reserved');
  gone.abort();
  await gone.answer.catch(() => undefined);
  await settlesAt(app, 0, 'after an abort');

  const cut = upload(size);
  const truncated = heldUpload(app.url, keys, cut, 10_000);
  await settlesAt(app, cut.body.length, 'the truncated upload reserved');
  truncated.truncate();
  await truncated.answer.catch(() => undefined);
  await settlesAt(app, 0, 'after a truncated body');

  // Had any of them leaked, 100 kB more would not fit in 170 kB.
  const last = await signedUpload(keys, upload(size), url);
  t.is(last.status, 201, last.text);
  await settlesAt(app, 0, 'at the end');
});

test('the V1 dispute (base64 proof, read before its signature) reserves its bytes too: beyond the budget 429 in the V1 envelope, unread', async (t) => {
  const app = await startApp({ EVIDENCE_MAX_BYTES: 1000, UNVERIFIED_UPLOAD_BYTES_PER_MERCHANT: 70_000, UNVERIFIED_UPLOAD_BYTES_TOTAL: 10_000_000 });
  t.teardown(() => app.close());
  const m = await newMerchant({ api_version: 'v1' });
  const dispute = (proofBytes: number) => {
    const paymentId = randomUUID();
    const timestamp = Math.floor(Date.now() / 1000);
    const body = Buffer.from(JSON.stringify({ paymentId, description: 'paid, proof attached', proofImageBase64: 'A'.repeat(proofBytes) }));
    const headers = {
      'Content-Type': 'application/json',
      MERCHANT: m.merchantId,
      TIMESTAMP: String(timestamp),
      SIGNATURE: v1Sign(m.keys.secret, timestamp, [paymentId]),
    };
    return { body, request: () => heldRequest(app.url, '/v1/disputs/create', headers, body, 50) };
  };
  const big = dispute(50_000);
  const held = big.request();
  await settlesAt(app, big.body.length, 'the held dispute reserved');

  const refused = await dispute(30_000).request().answer;
  t.is(refused.status, 429, refused.head);
  t.true(refused.beforeBodySent);
  t.is(refused.headers['retry-after'], '1');
  const envelope = JSON.parse(refused.text);
  t.like(envelope, { isSuccess: false, value: null });
  t.is(envelope.failures[0].code, 'RESOURCE_EXHAUSTED');
  t.regex(envelope.failures[0].message, /in flight for this merchant/);

  held.finish();
  t.not((await held.answer).status, 429, 'the held dispute is read and verified (its payment is unknown: 404)');
  await settlesAt(app, 0, 'released');
});
