import test from 'ava';
import { createHash, randomUUID } from 'node:crypto';
import { asOperator, newMerchant, signed } from '../helpers/api';
import { eventually } from '../helpers/poll';
import { testSql } from '../helpers/app';
import { incomingBody, v1, v1Client, type V1Merchant } from './v1-client';

const sql = testSql();
test.after.always(() => sql.end());

const createDispute = (m: V1Merchant, body: Record<string, unknown>, options = {}) => v1(m, 'POST', '/v1/disputs/create', body, [body.paymentId], options);
const getDispute = (m: V1Merchant, id: string) => v1(m, 'GET', `/v1/disputs/${id}`, undefined, [id]);
const listDisputes = (m: V1Merchant, body: Record<string, unknown> = {}) => v1(m, 'POST', '/v1/disputs/list', body, []);

const LIST_FIELDS = [
  'adminComment',
  'clientComment',
  'createdAt',
  'description',
  'disputId',
  'finalizedAt',
  'lastModifiedAt',
  'merchantComment',
  'paymentId',
  'status',
  'traderComment',
];
const FULL_FIELDS = [...LIST_FIELDS, 'answerFileBody', 'answerFileType', 'answerFileUrl', 'receiptFileBody', 'receiptFileType', 'receiptFileUrl'].sort();

test('a V1 dispute becomes an appeal with the proof as evidence file; 17- and 11-field profiles; resolution shows through', async (t) => {
  const m = await newMerchant({ api_version: 'v1' });
  const payment = (await v1Client(m).createIncoming(incomingBody())).body.value;
  const proof = Buffer.from('Receipt 0042: 1500.50 RUB paid by card *1234 at 10:41').toString('base64');
  const body = {
    paymentId: payment.id,
    receiptType: 'bank-receipt',
    description: 'Paid but the payment is still pending',
    clientComment: 'I paid at 10:41',
    comment: 'please check',
    proofImageBase64: proof,
  };
  const res = await createDispute(m, body);
  t.is(res.status, 200, res.text);
  const d = res.body.value;
  t.deepEqual(Object.keys(d).sort(), FULL_FIELDS);
  t.like(d, {
    paymentId: payment.id,
    status: 1,
    description: body.description,
    clientComment: body.clientComment,
    merchantComment: 'please check',
    traderComment: '',
    adminComment: '',
    receiptFileBody: proof,
    receiptFileType: 'text/plain',
    answerFileBody: '',
    finalizedAt: null,
  });
  t.regex(d.receiptFileUrl, /^\/api\/v1\/p2p\/merchant\/files\/[0-9a-f-]{36}$/);

  // The same appeal through V2, with the proof as its evidence file, and the deal APPEALED (21 on V1).
  const appeal = await signed(m.keys, 'GET', `/api/v1/p2p/merchant/appeals/${d.disputId}`);
  t.like(appeal.body.data, { appeal_id: d.disputId, deal_id: payment.id, status: 'OPEN' });
  t.regex(appeal.body.data.reason, /Paid but the payment is still pending\nplease check\nI paid at 10:41/);
  t.is((await v1Client(m).getIncoming(payment.id)).body.value.status, 21);
  const file = await signed(m.keys, 'GET', d.receiptFileUrl);
  t.is(file.text, 'Receipt 0042: 1500.50 RUB paid by card *1234 at 10:41');

  const again = await createDispute(m, body);
  t.is(again.status, 400);
  t.is(again.body.failures[0].code, 'FAILED_PRECONDITION');

  t.deepEqual((await getDispute(m, d.disputId)).body.value, d);
  const list = (await listDisputes(m)).body.value;
  t.is(list.count, 1);
  t.deepEqual(Object.keys(list.data[0]).sort(), LIST_FIELDS);
  t.deepEqual(list.items, list.data);
  t.is((await listDisputes(m, { status: 1 })).body.value.count, 1);
  t.is((await listDisputes(m, { status: 4 })).body.value.count, 0);
  const unknown = await listDisputes(m, { status: 9 });
  t.is(unknown.status, 400);
  t.regex(unknown.body.failures[0].message, /unknown status code: 9/);

  const resolved = await asOperator('POST', `/api/v1/p2p/admin/appeals/${d.disputId}/resolve`, {
    outcome: 'SATISFIED',
    note: 'payment found in the statement',
  });
  t.is(resolved.status, 200, resolved.text);
  const after = await eventually(async () => {
    const v = (await getDispute(m, d.disputId)).body.value;
    return v.status === 4 && v;
  }, 'resolved');
  t.is(after.adminComment, 'payment found in the statement');
  t.truthy(Date.parse(after.finalizedAt));
  t.is((await v1Client(m).getIncoming(payment.id)).body.value.status, 11);

  const stranger = await newMerchant({ api_version: 'v1' });
  t.is((await getDispute(stranger, d.disputId)).status, 404);
  t.is((await getDispute(m, randomUUID())).status, 404);
  t.is((await listDisputes(stranger)).body.value.count, 0);
  t.is((await createDispute(stranger, { ...body, paymentId: payment.id })).status, 404, "another merchant's payment");
});

test('V1 dispute input and signature: reason length, base64, unknown payment, wrong secret, stale timestamp', async (t) => {
  const m = await newMerchant({ api_version: 'v1' });
  const payment = (await v1Client(m).createIncoming(incomingBody())).body.value;
  const expect400 = async (body: Record<string, unknown>, message: RegExp) => {
    const res = await createDispute(m, { paymentId: payment.id, ...body });
    t.is(res.status, 400, res.text);
    t.regex(JSON.stringify(res.body.failures), message);
  };
  await expect400({ description: 'short' }, /at least 10 characters/);
  await expect400({}, /at least 10 characters/);
  await expect400({ description: 'a long enough description', proofImageBase64: 'not base64!' }, /base64/);
  await expect400(
    { description: 'a long enough description', proofImageBase64: Buffer.from([0, 1, 2, 3, 255, 254]).toString('base64') },
    /unsupported file type/,
  );
  await expect400({ description: 'a long enough description', paymentId: 'x' }, /paymentId/);
  t.is((await createDispute(m, { paymentId: randomUUID(), description: 'a long enough description' })).status, 404);
  const body = { paymentId: payment.id, description: 'a long enough description' };
  t.is((await createDispute(m, body, { secret: 'whsec_wrong' })).status, 401);
  t.is((await createDispute(m, body, { timestamp: Math.floor(Date.now() / 1000) - 301 })).status, 401);
  // Well past the 60 s the future may be ahead (the boundary itself is a unit test's): a loaded box takes its time to answer.
  t.is((await createDispute(m, body, { timestamp: Math.floor(Date.now() / 1000) + 120 })).status, 401);
  t.is((await v1(m, 'POST', '/v1/disputs/create', body, [payment.id, 'salt'])).status, 401, 'the payload has no salt');
  t.is((await createDispute(m, body)).status, 200, 'nothing above opened it');
});

/** A proof no other request sends, and whether anything of it was stored (a metadata row or a blob). */
function uniqueProof() {
  const bytes = Buffer.from(`Receipt ${randomUUID()}: 1500.50 RUB paid by card *1234`);
  return { base64: bytes.toString('base64'), bytes };
}
async function storedCopies(bytes: Buffer) {
  const sha = createHash('sha256').update(bytes).digest('hex');
  const [files] = await sql<{ n: number }[]>`select count(*)::int as n from evidence_files where sha256 = ${sha}`;
  const [blobs] = await sql<{ n: number }[]>`select count(*)::int as n from evidence_blobs where bytes = ${bytes}`;
  return { files: files!.n, blobs: blobs!.n };
}

test('a refused V1 dispute stores nothing of its proof image: unknown, foreign, cancelled or already disputed payment, short reason', async (t) => {
  const m = await newMerchant({ api_version: 'v1' });
  const stranger = await newMerchant({ api_version: 'v1' });
  const payment = (await v1Client(m).createIncoming(incomingBody())).body.value;
  const foreign = (await v1Client(stranger).createIncoming(incomingBody())).body.value;
  const cancelled = (await v1Client(m).createIncoming(incomingBody())).body.value;
  t.is((await signed(m.keys, 'POST', `/api/v1/p2p/merchant/deals/${cancelled.id}/cancel`)).status, 200);
  const opened = await createDispute(m, { paymentId: payment.id, description: 'the payer says it was paid' });
  t.is(opened.status, 200, opened.text);

  const refusals: Array<[Record<string, unknown>, number]> = [
    [{ paymentId: randomUUID(), description: 'a long enough description' }, 404],
    [{ paymentId: foreign.id, description: 'a long enough description' }, 404],
    [{ paymentId: cancelled.id, description: 'a long enough description' }, 400],
    [{ paymentId: payment.id, description: 'a long enough description' }, 400],
    [{ paymentId: payment.id, description: 'short' }, 400],
  ];
  for (const [body, status] of refusals) {
    const proof = uniqueProof();
    const res = await createDispute(m, { ...body, proofImageBase64: proof.base64 });
    t.is(res.status, status, res.text);
    t.true(res.body.isFailure);
    t.deepEqual(await storedCopies(proof.bytes), { files: 0, blobs: 0 }, `nothing stored for ${res.body.failures[0].message}`);
  }
});

test('two simultaneous V1 disputes on one payment: one opens with its proof, the refused one stores nothing', async (t) => {
  const m = await newMerchant({ api_version: 'v1' });
  const payment = (await v1Client(m).createIncoming(incomingBody())).body.value;
  const proofs = [uniqueProof(), uniqueProof(), uniqueProof()];
  // Each its own timestamp (so its own signature): concurrent, and never mistaken for a replay.
  const now = Math.floor(Date.now() / 1000);
  const answers = await Promise.all(
    proofs.map((p, i) =>
      createDispute(m, { paymentId: payment.id, description: 'the payer says it was paid', proofImageBase64: p.base64 }, { timestamp: now - i }),
    ),
  );
  const won = answers.map((res, i) => [res, proofs[i]!] as const).filter(([res]) => res.status === 200);
  t.is(won.length, 1, answers.map((r) => r.text).join('\n'));
  for (const [res, proof] of answers.map((r, i) => [r, proofs[i]!] as const)) {
    if (res.status === 200) {
      t.is(res.body.value.receiptFileBody, proof.base64);
      t.deepEqual(await storedCopies(proof.bytes), { files: 1, blobs: 1 });
    } else {
      t.is(res.status, 400, res.text);
      t.is(res.body.failures[0].code, 'FAILED_PRECONDITION');
      t.deepEqual(await storedCopies(proof.bytes), { files: 0, blobs: 0 });
    }
  }
});
