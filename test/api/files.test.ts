import test from 'ava';
import { createHash, randomUUID } from 'node:crypto';
import { cabinetToken, hmacHeaders, newMerchant, operatorToken, problemDetail, signed } from '../helpers/api';
import { startApp, testSql } from '../helpers/app';
import { eventually } from '../helpers/poll';
import { bearerUpload, download, filePart, FILES, multipart, SAMPLES, signedUpload } from '../helpers/multipart';

const sql = testSql();
test.after.always(() => sql.end());

const filesOf = async (merchantId: string) =>
  Number((await sql<{ n: number }[]>`select count(*)::int as n from evidence_files where merchant_id = ${merchantId}`)[0]!.n);
/** Bytes without metadata (a refused upload must leave none; a concurrent upload's are orphaned only for a moment). */
const orphanBlobs = async () =>
  Number(
    (await sql<{ n: number }[]>`select count(*)::int as n from evidence_blobs b where not exists (select 1 from evidence_files f where f.id = b.file_id)`)[0]!
      .n,
  );

test('upload (HMAC over the raw bytes): 201 with the sniffed type, size and sha256; the owner and operators read it back, others get 404', async (t) => {
  const { merchantId, keys } = await newMerchant();
  // The part claims text; the bytes are a PNG (and not valid UTF-8): the bytes win, and the signature covers them exactly.
  const res = await signedUpload(keys, filePart(SAMPLES.png, 'notes.txt', 'text/plain'));
  t.is(res.status, 201, res.text);
  t.deepEqual(Object.keys(res.body), ['file']);
  const file = res.body.file;
  t.deepEqual(Object.keys(file).sort(), ['content_type', 'created_at', 'file_id', 'sha256', 'size']);
  t.is(file.content_type, 'image/png');
  t.is(file.size, String(SAMPLES.png.length));
  t.is(file.sha256, createHash('sha256').update(SAMPLES.png).digest('hex'));
  t.regex(file.file_id, /^[0-9a-f-]{36}$/);

  const path = `${FILES}/${file.file_id}`;
  const mine = await download(hmacHeaders(keys, ''), path);
  t.is(mine.status, 200);
  t.is(mine.headers.get('content-type'), 'image/png');
  t.is(mine.headers.get('x-content-type-options'), 'nosniff');
  t.regex(mine.headers.get('content-disposition') ?? '', /^attachment/);
  t.true(mine.bytes.equals(SAMPLES.png));
  const viaCabinet = await download({ Authorization: `Bearer ${await cabinetToken(merchantId)}` }, path);
  t.is(viaCabinet.status, 200);

  const stranger = await newMerchant();
  t.is((await download(hmacHeaders(stranger.keys, ''), path)).status, 404);
  t.is((await download(hmacHeaders(keys, ''), `${FILES}/${randomUUID()}`)).status, 404);
  const operator = await download({ Authorization: `Bearer ${await operatorToken()}` }, `/api/v1/p2p/admin/files/${file.file_id}`);
  t.is(operator.status, 200);
  t.true(operator.bytes.equals(SAMPLES.png));
  t.is((await download({}, path)).status, 401);
});

test('every accepted type is sniffed from the bytes: PDF, PNG, JPEG, WEBP, plain text; cabinet JWT uploads too', async (t) => {
  const { merchantId, keys } = await newMerchant();
  const expected = { pdf: 'application/pdf', png: 'image/png', jpeg: 'image/jpeg', webp: 'image/webp', text: 'text/plain' } as const;
  for (const [kind, type] of Object.entries(expected)) {
    const res = await signedUpload(keys, filePart(SAMPLES[kind as keyof typeof expected], `x.${kind}`, 'application/octet-stream'));
    t.is(res.status, 201, `${kind}: ${res.text}`);
    t.is(res.body.file.content_type, type, kind);
  }
  const cabinet = await bearerUpload(await cabinetToken(merchantId), filePart(SAMPLES.pdf, 'receipt.pdf'));
  t.is(cabinet.status, 201, cabinet.text);
  t.is((await download(hmacHeaders(keys, ''), `${FILES}/${cabinet.body.file.file_id}`)).status, 200);
  // An operator upload lives under /admin.
  const operator = await bearerUpload(await operatorToken(), filePart(SAMPLES.text), '/api/v1/p2p/admin/files');
  t.is(operator.status, 201, operator.text);
  t.is((await download(hmacHeaders(keys, ''), `${FILES}/${operator.body.file.file_id}`)).status, 404, 'not attached to any of my appeals');
});

test('abuse: spoofed type, empty, malformed, truncated, no or two file parts, JSON — a clear 4xx and nothing stored', async (t) => {
  const { merchantId, keys } = await newMerchant();
  const refused = async (upload: { body: Buffer; contentType: string }, status: number, message: RegExp) => {
    const res = await signedUpload(keys, upload);
    t.is(res.status, status, res.text);
    t.regex(problemDetail(res.body).message, message);
  };
  // An executable and a zip dressed up as a PNG.
  await refused(filePart(SAMPLES.exe, 'receipt.png', 'image/png'), 400, /unsupported file type.*PDF, PNG, JPEG, WEBP and plain text/);
  await refused(filePart(SAMPLES.zip, 'receipt.pdf', 'application/pdf'), 400, /application\/pdf, image\/png, image\/jpeg, image\/webp, text\/plain/);
  // Binary that is not valid text.
  await refused(filePart(Buffer.from([0xde, 0xad, 0xbe, 0xef, 0x00, 0x01, 0xff])), 400, /unsupported file type/);
  await refused(filePart(Buffer.alloc(0), 'empty.txt', 'text/plain'), 400, /the file is empty/);
  await refused(multipart([{ name: 'file', filename: 'a.txt', data: SAMPLES.text }], { close: false }), 400, /truncated/);
  const whole = filePart(SAMPLES.png);
  await refused({ body: whole.body.subarray(0, whole.body.length - 30), contentType: whole.contentType }, 400, /truncated/);
  await refused(multipart([{ name: 'document', filename: 'a.txt', data: SAMPLES.text }]), 400, /part named "file"/);
  await refused(multipart([{ name: 'note', data: 'just a field' }]), 400, /no file/);
  await refused(
    multipart([
      { name: 'file', filename: 'a.txt', data: SAMPLES.text },
      { name: 'file', filename: 'b.txt', data: SAMPLES.text },
    ]),
    400,
    /exactly one file/,
  );
  await refused({ body: Buffer.from('not multipart at all'), contentType: 'multipart/form-data; boundary=zzz' }, 400, /malformed|truncated|no file/);
  await refused({ body: SAMPLES.text, contentType: 'multipart/form-data' }, 400, /boundary/);
  const json = await signed(keys, 'POST', FILES, { file: 'aGVsbG8=' });
  t.is(json.status, 415, 'an upload route takes multipart only');
  t.regex(problemDetail(json.body).message, /multipart\/form-data/);

  // The signature covers the raw bytes: one changed byte, or a signature over a UTF-8 reading of them, is 401.
  const upload = filePart(SAMPLES.png);
  const tampered = Buffer.from(upload.body);
  tampered.writeUInt8(tampered.readUInt8(tampered.length - 20) ^ 1, tampered.length - 20);
  const bad = await fetch(process.env.TEST_API_URL + FILES, {
    method: 'POST',
    headers: { 'Content-Type': upload.contentType, ...hmacHeaders(keys, upload.body as unknown as string) },
    body: new Uint8Array(tampered),
  });
  t.is(bad.status, 401);
  const lossy = await fetch(process.env.TEST_API_URL + FILES, {
    method: 'POST',
    headers: { 'Content-Type': upload.contentType, ...hmacHeaders(keys, upload.body.toString('utf8')) },
    body: new Uint8Array(upload.body),
  });
  t.is(lossy.status, 401);

  t.is(await filesOf(merchantId), 0, 'no metadata stored');
  await eventually(async () => (await orphanBlobs()) === 0, 'no stored bytes without metadata');
});

test('size cap (EVIDENCE_MAX_BYTES): a file over it is 413 whether the cap trips in the parser or in the body reader', async (t) => {
  const app = await startApp({ EVIDENCE_MAX_BYTES: 1000 });
  t.teardown(() => app.close());
  const { merchantId, keys } = await newMerchant();
  const ok = await signedUpload(keys, filePart(Buffer.alloc(1000, 'a'), 'max.txt', 'text/plain'), `${app.url}${FILES}`);
  t.is(ok.status, 201, ok.text);
  const over = await signedUpload(keys, filePart(Buffer.alloc(1001, 'a'), 'big.txt', 'text/plain'), `${app.url}${FILES}`);
  t.is(over.status, 413, over.text);
  t.regex(problemDetail(over.body).message, /larger than 1000 bytes/);
  // Far beyond the cap plus the multipart allowance: refused by the body reader before parsing.
  const huge = await signedUpload(keys, filePart(Buffer.alloc(200_000, 'a'), 'huge.txt', 'text/plain'), `${app.url}${FILES}`).catch((error) => ({
    status: -1,
    text: String(error),
  }));
  t.is(huge.status, 413, huge.text);
  t.is(await filesOf(merchantId), 1);
});
