/**
 * Input, transport, identity: bodies are read only after the caller passed
 * its gates and only multipart where a file is uploaded; an answer that leaves a body unread
 * closes the connection; tx_hash and UUIDs have one canonical form; a kill-switched merchant's
 * cabinet reads its profile and nothing else; paths match case-sensitively.
 */
import test from 'ava';
import { randomUUID } from 'node:crypto';
import { connect } from 'node:net';
import { API_URL, asOperator, cabinetToken, hmacHeaders, newMerchant, signed, unsigned, withBearer } from '../helpers/api';
import { testSql } from '../helpers/app';
import { createPayin, PAYIN, payinBody } from '../helpers/deals';
import { filePart, FILES, SAMPLES, signedUpload } from '../helpers/multipart';
import { isolatedTrader } from '../helpers/deals';
import { txHashOf } from '../helpers/tx-hash';

const sql = testSql();
test.after.always(() => sql.end());

interface RawAnswer {
  status: number;
  head: string;
  /** The server closed the connection after its answer. */
  closed: boolean;
  ms: number;
}

/**
 * Sends the request head and only `sentBytes` of a body that announces `contentLength`, then
 * waits: an answer that comes while most of the body is still unsent proves the server did not
 * wait to read it.
 */
function partialRequest(method: string, path: string, headers: Record<string, string>, contentLength: number, sentBytes: Buffer): Promise<RawAnswer> {
  const url = new URL(API_URL);
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = connect(Number(url.port), url.hostname);
    let data = '';
    let answered: Omit<RawAnswer, 'closed'> | undefined;
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer within 5 s (got: ${data.slice(0, 200)})`));
    }, 5_000);
    socket.on('data', (chunk) => {
      data += chunk.toString('latin1');
      const end = data.indexOf('\r\n\r\n');
      if (!answered && end >= 0) answered = { status: Number(data.slice(9, 12)), head: data.slice(0, end), ms: Date.now() - started };
    });
    const finish = () => {
      clearTimeout(timer);
      if (answered) resolve({ ...answered, closed: true });
      else reject(new Error(`connection closed without an answer: ${data.slice(0, 200)}`));
    };
    socket.on('end', finish);
    socket.on('error', finish);
    const head = [
      `${method} ${path} HTTP/1.1`,
      `Host: ${url.host}`,
      `Content-Length: ${contentLength}`,
      ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
    ];
    socket.write(`${head.join('\r\n')}\r\n\r\n`);
    socket.write(sentBytes);
  });
}

const TEN_MIB = 10 * 1024 * 1024;

test('an upload is read only after authentication: a 10 MiB multipart without valid credentials is refused at once, connection closed', async (t) => {
  const boundary = '----unread';
  const prefix = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.bin"\r\n\r\n`);
  const answer = await partialRequest('POST', FILES, { 'Content-Type': `multipart/form-data; boundary=${boundary}` }, TEN_MIB, prefix);
  t.is(answer.status, 401, answer.head);
  t.regex(answer.head, /\r\nConnection: close/i);
  t.true(answer.closed);

  // A known token whose merchant is kill-switched: refused before the upload is read too.
  const { keys, merchantId } = await newMerchant();
  await asOperator('POST', `/api/v1/p2p/merchants/${merchantId}/kill-switch`);
  const signedHead = hmacHeaders(keys, 'not the real body');
  const disabled = await partialRequest('POST', FILES, { 'Content-Type': `multipart/form-data; boundary=${boundary}`, ...signedHead }, TEN_MIB, prefix);
  t.is(disabled.status, 403, disabled.head);
  t.regex(disabled.head, /\r\nConnection: close/i);
});

test('before an upload is read the rate limit is only looked at: junk signatures spend only unverified reads, an exhausted merchant is 429 unread', async (t) => {
  const { keys, merchantId } = await newMerchant();
  await asOperator('PATCH', `/api/v1/p2p/admin/merchants/${merchantId}`, { rate_limit_per_minute: 3 });
  // Early in a minute, so the window cannot turn over between the requests.
  if (new Date().getUTCSeconds() > 50) await new Promise((r) => setTimeout(r, (61 - new Date().getUTCSeconds()) * 1000));
  const junk = { token: keys.token, secret: 'whsec_not-the-secret' };
  // A read that fails its signature spends one of the window's unverified reads: after three, uploads are refused unread.
  for (let i = 0; i < 5; i += 1) {
    const upload = filePart(SAMPLES.text);
    const res = await fetch(API_URL + FILES, {
      method: 'POST',
      headers: { 'Content-Type': upload.contentType, ...hmacHeaders(junk, upload.body) },
      body: new Uint8Array(upload.body),
    });
    t.is(res.status, i < 3 ? 401 : 429, `junk upload ${i + 1}`);
  }
  // The verified requests' allowance is untouched by them.
  for (let i = 0; i < 3; i += 1) t.is((await signed(keys, 'GET', '/api/v1/p2p/merchant/balance')).status, 200, `request ${i + 1} of 3`);
  const boundary = '----exhausted';
  const answer = await partialRequest(
    'POST',
    FILES,
    { 'Content-Type': `multipart/form-data; boundary=${boundary}`, ...hmacHeaders(keys, 'x') },
    TEN_MIB,
    Buffer.from(`--${boundary}\r\n`),
  );
  t.is(answer.status, 429, answer.head);
  t.regex(answer.head, /\r\nConnection: close/i);
});

test('multipart only where a file is uploaded: elsewhere 415 before the body is read', async (t) => {
  const { keys } = await newMerchant();
  const boundary = '----nope';
  const answer = await partialRequest(
    'POST',
    PAYIN,
    { 'Content-Type': `multipart/form-data; boundary=${boundary}`, ...hmacHeaders(keys, 'x') },
    TEN_MIB,
    Buffer.from(`--${boundary}\r\n`),
  );
  t.is(answer.status, 415, answer.head);
  t.regex(answer.head, /\r\nConnection: close/i);
  // A complete small multipart body on a JSON route: 415 as well, never parsed.
  const upload = filePart(SAMPLES.text);
  const res = await fetch(API_URL + PAYIN, {
    method: 'POST',
    headers: { 'Content-Type': upload.contentType, ...hmacHeaders(keys, upload.body) },
    body: new Uint8Array(upload.body),
  });
  t.is(res.status, 415);
  // And the upload route still takes its multipart body.
  t.is((await signedUpload(keys, filePart(SAMPLES.text))).status, 201);
});

test('a JSON body over the small limit is 413 and the connection closes; the client’s next pooled request works', async (t) => {
  const { keys } = await newMerchant();
  const big = JSON.stringify(payinBody({ description: 'x'.repeat(200_000) }));
  const answer = await partialRequest(
    'POST',
    PAYIN,
    { 'Content-Type': 'application/json', ...hmacHeaders(keys, big) },
    Buffer.byteLength(big),
    Buffer.from(big.slice(0, 1000)),
  );
  t.is(answer.status, 413, answer.head);
  t.regex(answer.head, /\r\nConnection: close/i);

  // Over a pooled keep-alive client: the 413, then the next requests on the pool succeed.
  for (let i = 0; i < 3; i += 1) {
    const refused = await fetch(API_URL + PAYIN, { method: 'POST', headers: { 'Content-Type': 'application/json', ...hmacHeaders(keys, big) }, body: big });
    t.is(refused.status, 413);
    t.is(refused.headers.get('connection'), 'close');
    await refused.text();
    const next = await signed(keys, 'GET', '/api/v1/p2p/merchant/balance');
    t.is(next.status, 200);
  }
  // An early 401 with a body left unread closes too; one that read its (small) body keeps the connection.
  const unauthenticated = await fetch(API_URL + PAYIN, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: big });
  t.is(unauthenticated.status, 401, 'no credentials at all: refused before anything is read');
  t.is(unauthenticated.headers.get('connection'), 'close');
  const wrongSecret = hmacHeaders({ token: keys.token, secret: 'whsec_not-the-secret' }, '{}');
  const small = await fetch(API_URL + PAYIN, { method: 'POST', headers: { 'Content-Type': 'application/json', ...wrongSecret }, body: '{}' });
  t.is(small.status, 401, 'the signature needed the body, which was read');
  t.not(small.headers.get('connection'), 'close');
});

test('tx_hash has one canonical form: upper case, spaces or 0x never credit twice (deposits, trader top-ups); non-hashes are 400', async (t) => {
  const { merchantId } = await newMerchant();
  const hash = txHashOf();
  const first = await asOperator('POST', '/api/v1/p2p/admin/deposits', { merchant_id: merchantId, amount: 1_000, tx_hash: hash.toUpperCase() });
  t.is(first.status, 201, first.text);
  t.is(first.body.deposit.tx_hash, hash, 'stored lower case');
  for (const variant of [hash, ` ${hash}`, `${hash.toUpperCase()} `, `0x${hash}`]) {
    const repeat = await asOperator('POST', '/api/v1/p2p/admin/deposits', { merchant_id: merchantId, amount: 1_000, tx_hash: variant });
    t.is(repeat.status, 200, `${JSON.stringify(variant)}: ${repeat.text}`);
    t.is(repeat.body.deposit.deposit_id, first.body.deposit.deposit_id);
  }
  t.is((await asOperator('POST', '/api/v1/p2p/admin/deposits', { merchant_id: merchantId, amount: 1_000, tx_hash: 'tx-1' })).status, 400);
  const [wallet] = await sql`select available from wallets where owner_type = 'merchant' and owner_id = ${merchantId}`;
  t.is(wallet!.available, 1_000n, 'credited once');

  const { traderId } = await isolatedTrader({ liquidity: 100 });
  const topUp = txHashOf();
  t.is((await asOperator('POST', `/api/v1/p2p/admin/traders/${traderId}/deposits`, { amount: 700, tx_hash: `  ${topUp.toUpperCase()}` })).status, 201);
  t.is((await asOperator('POST', `/api/v1/p2p/admin/traders/${traderId}/deposits`, { amount: 700, tx_hash: topUp })).status, 200);
  t.is(
    (await asOperator('POST', '/api/v1/p2p/admin/deposits', { merchant_id: merchantId, amount: 700, tx_hash: topUp.toUpperCase() })).status,
    409,
    'the same chain transaction cannot also credit a merchant',
  );
});

test('UUIDs compare case-insensitively: an upper-cased deal id, own file ids, filters', async (t) => {
  const { keys } = await newMerchant();
  const deal = await createPayin(keys);
  const upper = deal.deal_id.toUpperCase();
  const got = await signed(keys, 'GET', `/api/v1/p2p/merchant/deals/${upper}`);
  t.is(got.status, 200, got.text);
  t.is(got.body.deal.deal_id, deal.deal_id);
  const file = await signedUpload(keys, filePart(SAMPLES.text));
  t.is(file.status, 201);
  const appeal = await signed(keys, 'POST', '/api/v1/p2p/merchant/appeals', {
    deal_id: upper,
    reason: 'the payer says the money left the bank',
    file_ids: [file.body.file.file_id.toUpperCase()],
  });
  t.is(appeal.status, 200, appeal.text);
  t.is(appeal.body.data.deal_id, deal.deal_id);
  t.deepEqual(appeal.body.data.file_ids, [file.body.file.file_id]);
  const filtered = await signed(keys, 'GET', `/api/v1/p2p/merchant/callbacks?deal_id=${upper}`);
  t.is(filtered.status, 200);
  t.true(filtered.body.data.every((c: { deal_id: string }) => c.deal_id === deal.deal_id));
});

test('kill-switch: the cabinet reads its profile and nothing else; every HMAC request is 403', async (t) => {
  const { keys, merchantId } = await newMerchant();
  await asOperator('POST', `/api/v1/p2p/merchants/${merchantId}/kill-switch`);
  const cabinet = await cabinetToken(merchantId);
  const profile = await withBearer(cabinet, 'GET', '/api/v1/p2p/my-merchant');
  t.is(profile.status, 200);
  t.true(profile.body.merchant.kill_switch);
  for (const path of [
    '/api/v1/p2p/merchant/appeals',
    '/api/v1/p2p/merchant/passes',
    '/api/v1/p2p/merchant/payment-methods',
    '/api/v1/p2p/merchant/banks',
    '/api/v1/p2p/merchant/currencies',
    `/api/v1/p2p/merchant/files/${randomUUID()}`,
  ]) {
    const res = await withBearer(cabinet, 'GET', path);
    t.is(res.status, 403, `${path}: ${res.text}`);
    t.regex(res.body.detail, /merchant is disabled/);
  }
  t.is((await signed(keys, 'GET', '/api/v1/p2p/my-merchant')).status, 403);
  await asOperator('POST', `/api/v1/p2p/merchants/${merchantId}/kill-switch`);
  t.is((await withBearer(cabinet, 'GET', '/api/v1/p2p/merchant/appeals')).status, 200, 'open again once cleared');
});

test('paths match case-sensitively: /V1/… and /API/… are no routes, and never answer without V1 headers', async (t) => {
  for (const path of ['/V1/banks/list', '/v1/Banks/list', '/API/v1/p2p/merchant/balance', '/api/v1/p2p/merchant/Balance']) {
    const res = await unsigned('POST', path, {});
    t.true(res.status === 404 || res.status === 405, `${path}: ${res.status}`);
    t.is(res.headers.get('deprecation'), path.startsWith('/v1/') ? 'true' : null);
  }
});
