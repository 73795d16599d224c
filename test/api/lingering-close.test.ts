/**
 * A body refused as too large (or refused unread for any reason) is answered while the client is
 * still sending it. Closing the connection at once makes the kernel reset it with the client's
 * bytes unread, and the client sees a broken pipe instead of the answer. The API closes as nginx
 * does (api/lingering-close.ts): it answers, ends its side, and reads and discards what still
 * arrives, within LINGERING_CLOSE_MAX_BYTES and LINGERING_CLOSE_MAX_MS (LINGERING_CLOSE_IDLE_MS
 * between reads), then closes. Every request here is several MB over its route's limit and is
 * sent 20 times by Node's fetch and 20 times by curl; each must get its 413 answer.
 */
import test from 'ava';
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { API_URL, hmacHeaders, newMerchant, signed, type KeyPair } from '../helpers/api';
import { startApp } from '../helpers/app';
import { PAYIN, payinBody } from '../helpers/deals';
import { FILES, filePart } from '../helpers/multipart';
import { v1Sign } from '../v1/v1-client';

const REPEATS = 20;
const MiB = 1024 * 1024;

let dir = '';
test.before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lingering-close-'));
});
test.after.always(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

interface Oversized {
  path: string;
  body: Buffer;
  contentType: string;
  /** Fresh headers for each request (signatures carry the current second). */
  headers: () => Record<string, string>;
  /** V1 answers in its own envelope, V2 in problem+json. */
  v1?: boolean;
}

interface Answer {
  status: number;
  contentType: string;
  text: string;
}

/** A JSON PayIn create 5 MiB over its 64 KiB limit, signed over the body it sends. */
function bigPayin(keys: KeyPair): Oversized {
  const body = Buffer.from(JSON.stringify(payinBody({ description: 'x'.repeat(5 * MiB) })));
  return { path: PAYIN, body, contentType: 'application/json', headers: () => hmacHeaders(keys, body) };
}

/** An evidence upload of 15 MiB: 5 MiB over EVIDENCE_MAX_BYTES (10 MiB) and its multipart allowance. */
function bigUpload(keys: KeyPair): Oversized {
  const upload = filePart(Buffer.alloc(15 * MiB, 'a'), 'big.txt', 'text/plain');
  return { path: FILES, body: upload.body, contentType: upload.contentType, headers: () => hmacHeaders(keys, upload.body) };
}

/** A V1 dispute of 6 MiB: 5 MiB over the route's 1 MiB (its base64 proof image). */
function bigDispute(merchantId: string, keys: KeyPair): Oversized {
  const paymentId = randomUUID();
  const body = Buffer.from(JSON.stringify({ paymentId, description: 'the payer says it was paid', proofImageBase64: 'A'.repeat(6 * MiB) }));
  return {
    path: '/v1/disputs/create',
    body,
    contentType: 'application/json',
    v1: true,
    headers: () => {
      const timestamp = Math.floor(Date.now() / 1000);
      return { MERCHANT: merchantId, TIMESTAMP: String(timestamp), SIGNATURE: v1Sign(keys.secret, timestamp, [paymentId]) };
    },
  };
}

/** The body as a stream of 64 KiB chunks: sent chunked, with no length announced. */
function chunks(body: Buffer): ReadableStream<Uint8Array> {
  let offset = 0;
  return new ReadableStream({
    pull(controller) {
      if (offset >= body.length) return controller.close();
      controller.enqueue(new Uint8Array(body.subarray(offset, offset + 64 * 1024)));
      offset += 64 * 1024;
    },
  });
}

async function viaFetch(request: Oversized, chunked: boolean, base = API_URL): Promise<Answer> {
  const response = await fetch(base + request.path, {
    method: 'POST',
    headers: { 'Content-Type': request.contentType, ...request.headers() },
    ...(chunked ? { body: chunks(request.body), duplex: 'half' } : { body: new Uint8Array(request.body) }),
    signal: AbortSignal.timeout(60_000),
  } as RequestInit);
  return { status: response.status, contentType: response.headers.get('content-type') ?? '', text: await response.text() };
}

/** curl as a user would run it (its default `Expect: 100-continue` for large bodies included). */
async function viaCurl(request: Oversized, file: string, chunked: boolean): Promise<Answer> {
  const headers = { 'Content-Type': request.contentType, ...request.headers(), ...(chunked ? { 'Transfer-Encoding': 'chunked' } : {}) };
  const args = ['-sS', '--max-time', '60', '-X', 'POST', '--data-binary', `@${file}`, '-o', '-', '-w', '\n%{http_code} %{content_type}'];
  for (const [name, value] of Object.entries(headers)) args.push('-H', `${name}: ${value}`);
  args.push(API_URL + request.path);
  const out = await new Promise<string>((resolve, reject) => {
    execFile('curl', args, { maxBuffer: 16 * MiB, encoding: 'utf8' }, (error, stdout, stderr) => {
      if (error) reject(new Error(`curl exited ${String((error as { code?: unknown }).code)}: ${stderr.trim()}`));
      else resolve(stdout);
    });
  });
  const cut = out.lastIndexOf('\n');
  const [status, contentType = ''] = out.slice(cut + 1).split(' ');
  return { status: Number(status), contentType, text: out.slice(0, cut) };
}

/** The answer a refused oversized body must get: 413 in the route's error format, never a broken connection. */
function isTooLarge(answer: Answer, v1: boolean | undefined): string | undefined {
  if (answer.status !== 413) return `status ${answer.status}: ${answer.text.slice(0, 200)}`;
  if (v1) {
    const envelope = JSON.parse(answer.text) as { isFailure?: boolean };
    return answer.contentType.startsWith('application/json') && envelope.isFailure === true ? undefined : `not the V1 envelope: ${answer.text.slice(0, 200)}`;
  }
  return answer.contentType.startsWith('application/problem+json') && /larger than/.test(answer.text)
    ? undefined
    : `not problem+json: ${answer.text.slice(0, 200)}`;
}

/** Sends the request `REPEATS` times and lists every answer that was not the 413 (a reset counts). */
async function repeatedly(send: () => Promise<Answer>, v1: boolean | undefined): Promise<string[]> {
  const failures: string[] = [];
  for (let i = 0; i < REPEATS; i += 1) {
    try {
      const problem = isTooLarge(await send(), v1);
      if (problem) failures.push(`#${i + 1}: ${problem}`);
    } catch (error) {
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      failures.push(`#${i + 1}: ${(error as Error).message}${cause ? ` (${cause.code ?? ''} ${cause.message ?? ''})` : ''}`);
    }
  }
  return failures;
}

const cases: Array<[string, (m: { merchantId: string; keys: KeyPair }) => Oversized, boolean]> = [
  ['a JSON create 5 MiB over 64 KiB, length announced', ({ keys }) => bigPayin(keys), false],
  ['a JSON create 5 MiB over 64 KiB, chunked', ({ keys }) => bigPayin(keys), true],
  ['an upload 5 MiB over its cap, length announced', ({ keys }) => bigUpload(keys), false],
  ['an upload 5 MiB over its cap, chunked', ({ keys }) => bigUpload(keys), true],
  ['a V1 dispute 5 MiB over 1 MiB, length announced', ({ merchantId, keys }) => bigDispute(merchantId, keys), false],
];

for (const [title, make, chunked] of cases) {
  test.serial(`Node's fetch, ${REPEATS} times: ${title} gets its 413 every time`, async (t) => {
    const merchant = await newMerchant(title.includes('V1') ? { api_version: 'v1' } : {});
    const request = make(merchant);
    t.deepEqual(await repeatedly(() => viaFetch(request, chunked), request.v1), []);
    // The connection was closed cleanly: the next request of the same client works.
    if (!request.v1) t.is((await signed(merchant.keys, 'GET', '/api/v1/p2p/merchant/balance')).status, 200);
  });

  test.serial(`curl, ${REPEATS} times: ${title} gets its 413 every time`, async (t) => {
    const merchant = await newMerchant(title.includes('V1') ? { api_version: 'v1' } : {});
    const request = make(merchant);
    const file = join(dir, `${randomUUID()}.body`);
    await writeFile(file, request.body);
    t.deepEqual(await repeatedly(() => viaCurl(request, file, chunked), request.v1), []);
  });
}

test.serial(`Node's fetch, ${REPEATS} times: an anonymous request with a 5 MiB body gets its 401 (refused unread)`, async (t) => {
  const body = Buffer.alloc(5 * MiB, 'x');
  const failures: string[] = [];
  for (let i = 0; i < REPEATS; i += 1) {
    try {
      const response = await fetch(API_URL + PAYIN, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: new Uint8Array(body) });
      if (response.status !== 401) failures.push(`#${i + 1}: ${response.status}`);
      await response.text();
    } catch (error) {
      failures.push(`#${i + 1}: ${(error as Error).message} ${String((error as { cause?: { code?: string } }).cause?.code ?? '')}`);
    }
  }
  t.deepEqual(failures, []);
});

/** A raw connection that announces a huge body and sends what the test says, to watch when the server lets go. */
function rawUpload(base: string, keys: KeyPair) {
  const url = new URL(base);
  // Half-open allowed: the server's FIN after its answer must not end this side, so writes show when it really closes.
  const socket: Socket = connect({ port: Number(url.port), host: url.hostname, allowHalfOpen: true });
  let head = '';
  const answered = new Promise<number>((resolve) => {
    socket.on('data', (chunk) => {
      head += chunk.toString('latin1');
      if (head.includes('\r\n\r\n')) resolve(Number(head.slice(9, 12)));
    });
  });
  const closed = new Promise<number>((resolve) => {
    socket.on('error', () => resolve(Date.now()));
    socket.on('close', () => resolve(Date.now()));
  });
  const body = 'x'.repeat(64 * 1024);
  const headers = { 'Content-Type': 'application/json', ...hmacHeaders(keys, body) };
  socket.write(
    [`POST ${PAYIN} HTTP/1.1`, `Host: ${url.host}`, `Content-Length: ${1024 * MiB}`, ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)].join('\r\n') +
      '\r\n\r\n',
  );
  return { socket, answered, closed };
}

test.serial('the lingering is bounded: by bytes, by total time and by idle time', async (t) => {
  const { keys } = await newMerchant();
  const chunk = Buffer.alloc(64 * 1024, 'x');

  // Bytes: a client that keeps sending as fast as it can is read up to 16 MiB, then cut, long before the time bound.
  {
    const app = await startApp({ LINGERING_CLOSE_MAX_BYTES: 16 * MiB, LINGERING_CLOSE_MAX_MS: 120_000, LINGERING_CLOSE_IDLE_MS: 60_000 });
    t.teardown(() => app.close());
    const raw = rawUpload(app.url, keys);
    t.is(await raw.answered, 413);
    let sent = 0;
    let open = true;
    void raw.closed.then(() => (open = false));
    const started = Date.now();
    while (open && Date.now() - started < 60_000) {
      if (!raw.socket.write(chunk)) {
        await Promise.race([new Promise((r) => raw.socket.once('drain', r)), raw.closed, new Promise((r) => setTimeout(r, 1_000))]);
      }
      if (open) sent += chunk.length;
    }
    raw.socket.destroy();
    t.false(open, 'the server closed the connection');
    t.true(Date.now() - started < 60_000, 'by the byte bound, not the time bound');
    t.true(sent >= 16 * MiB, `the server read on after its answer (${sent} bytes written)`);
    t.true(sent < 64 * MiB, `and stopped near the bound (${sent} bytes written, kernel buffers included)`);
    t.log(`bytes bound: the client wrote ${(sent / MiB).toFixed(1)} MiB before the close (bound 16 MiB)`);
  }

  // Total time: a slow but steady client (1 KiB every 100 ms, never idle) is cut after about 3 s.
  {
    const app = await startApp({ LINGERING_CLOSE_MAX_BYTES: 64 * MiB, LINGERING_CLOSE_MAX_MS: 3_000, LINGERING_CLOSE_IDLE_MS: 60_000 });
    t.teardown(() => app.close());
    const raw = rawUpload(app.url, keys);
    t.is(await raw.answered, 413);
    const started = Date.now();
    const ticker = setInterval(() => raw.socket.writable && raw.socket.write(chunk.subarray(0, 1024)), 100);
    const closedAt = await Promise.race([raw.closed, new Promise<number>((r) => setTimeout(() => r(0), 60_000))]);
    clearInterval(ticker);
    raw.socket.destroy();
    t.true(closedAt > 0, 'closed within a minute');
    t.true(closedAt - started >= 2_500, `not before the time bound (${closedAt - started} ms)`);
    t.log(`time bound: closed ${closedAt - started} ms after the answer (bound 3,000 ms)`);
  }

  // Idle: a client that stops sending is let go after about 1 s without a byte.
  {
    const app = await startApp({ LINGERING_CLOSE_MAX_BYTES: 64 * MiB, LINGERING_CLOSE_MAX_MS: 120_000, LINGERING_CLOSE_IDLE_MS: 1_000 });
    t.teardown(() => app.close());
    const raw = rawUpload(app.url, keys);
    t.is(await raw.answered, 413);
    const started = Date.now();
    // The close shows on the next write after it: probe every 3 s.
    const prober = setInterval(() => raw.socket.writable && raw.socket.write('x'), 3_000);
    const closedAt = await Promise.race([raw.closed, new Promise<number>((r) => setTimeout(() => r(0), 60_000))]);
    clearInterval(prober);
    raw.socket.destroy();
    t.true(closedAt > 0, 'closed within a minute');
    t.true(closedAt - started < 30_000, `by the idle bound, long before the total one (${closedAt - started} ms)`);
    t.log(`idle bound: closed (seen at the next probe) ${closedAt - started} ms after the answer (bound 1,000 ms idle)`);
  }
});
