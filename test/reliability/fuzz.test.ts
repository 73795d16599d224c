/**
 * Property-based fuzzing of every operation in the served OpenAPI document, correctly
 * authenticated so the input reaches validation. Reproducible: FUZZ_SEED (default 20261122)
 * and FUZZ_RUNS (default 300 here; `npm run fuzz` runs 5,000). Properties of every answer:
 *   - never a 5xx, never a hang (10 s), never a connection reset instead of an answer (counted
 *     over the whole run: an oversized body refused while it is still being sent must get its
 *     413, api/lingering-close.ts);
 *   - every error is application/problem+json with an X-Trace-Id (/v1/ errors: the V1 envelope,
 *     application/json with isFailure true — the adapter's documented error format);
 *   - a refused request changes nothing of the merchant's state (deals, wallets, profile, keys,
 *     deliveries), compared before and after.
 */
import { randomUUID } from 'node:crypto';
import test from 'ava';
import fc from 'fast-check';
import { API_URL, cabinetToken, newMerchant, operatorToken, signed, signedRaw, type KeyPair } from '../helpers/api';
import { eventually } from '../helpers/poll';
import { testSql } from '../helpers/app';
import { createPayin } from '../helpers/deals';
import { encodeLoose, exemplar, fillPath, loadOperations, type ApiDocument, type Operation } from '../helpers/openapi';
import { v1Raw } from '../v1/v1-client';

const sql = testSql();
test.after.always(() => sql.end());

async function assertShort(run: Promise<void>) {
  try {
    await run;
  } catch (error) {
    const cause = (error as Error & { cause?: Error }).cause;
    const text = `${(error as Error).message}\ncause: ${cause?.message ?? ''}`;
    throw new Error(text.replace(/(.{400})[^\n]{200,}/g, '$1…').slice(0, 6000));
  }
}

const SEED = Number(process.env.FUZZ_SEED ?? 20261122);
const RUNS = Number(process.env.FUZZ_RUNS ?? 300);

/** Everything a refused request must leave alone, as one digest per table. */
async function stateOf(merchantId: string): Promise<Record<string, string>> {
  const [row] = await sql<Record<string, string>[]>`
    select
      (select md5(coalesce(string_agg(d::text, '|' order by d.id), '')) from deals d where d.merchant_id = ${merchantId}) as deals,
      (select md5(coalesce(string_agg(w::text, '|' order by w.id), '')) from wallets w where w.owner_id = ${merchantId}) as wallets,
      (select md5(m::text) from merchants m where m.id = ${merchantId}) as profile,
      (select md5(coalesce(string_agg(k::text, '|' order by k.created_at), '')) from api_keys k where k.merchant_id = ${merchantId}) as keys,
      (select md5(coalesce(string_agg(w.id || w.status || w.manual_retries, '|' order by w.id), '')) from webhook_deliveries w where w.merchant_id = ${merchantId}) as deliveries`;
  return row!;
}

/** The merchant's state once nothing moves it: two readings half a second apart agree (within a minute). */
async function quietStateOf(merchantId: string): Promise<Record<string, string>> {
  const deadline = Date.now() + 60_000;
  let last = await stateOf(merchantId);
  for (;;) {
    await new Promise((r) => setTimeout(r, 500));
    const next = await stateOf(merchantId);
    if (JSON.stringify(next) === JSON.stringify(last) || Date.now() > deadline) return next;
    last = next;
  }
}

const hostileStrings = fc.constantFrom(
  '',
  ' ',
  'a\u0000b',
  '\u0007',
  'line\r\nbreak',
  '\ud800',
  '\udfff',
  '💳'.repeat(50),
  'x'.repeat(100_000),
  '../../etc/passwd',
  '%00',
  "' or 1=1 --",
  '<script>alert(1)</script>',
  'javascript:alert(1)',
  'http://169.254.169.254/',
  '0000-01-01T00:00:00Z',
  '99999-12-31T00:00:00Z',
  'NaN',
  '-0',
  '1e309',
  '9223372036854775808',
  '-9223372036854775809',
);
const hostileNumbers = fc.constantFrom(
  '0',
  '-1',
  '1.5',
  '150000.00000000001',
  '1e3',
  '1e400',
  '9223372036854775807',
  '9223372036854775808',
  '-9223372036854775808',
  '4503599627370497',
);
const hostileJsonValue: fc.Arbitrary<string> = fc.oneof(
  hostileStrings.map((s) => JSON.stringify(s)),
  hostileNumbers,
  fc.constantFrom('null', 'true', '[]', '{}', '[[[[[[]]]]]]', '{"$ne":1}', '[1,2,3]'),
  fc.string({ maxLength: 40 }).map((s) => JSON.stringify(s)),
  fc.integer().map(String),
);

type Mutation =
  | { kind: 'field'; field: string | undefined; value: string }
  | { kind: 'raw'; raw: string; contentType: string | undefined }
  | { kind: 'path'; value: string }
  | { kind: 'query'; value: string };

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant('field' as const), field: fc.option(fc.string({ maxLength: 12 }), { nil: undefined }), value: hostileJsonValue }),
  fc.record({
    kind: fc.constant('raw' as const),
    raw: fc.oneof(
      fc.constantFrom('{', '{"a":', '[1,]', '{"a":1}}', 'null', '"just a string"', '1', '{"__proto__":{"x":1}}', '\u0000', '{}'.repeat(10)),
      fc.integer({ min: 40, max: 5000 }).map((n) => '['.repeat(n) + ']'.repeat(n)),
      fc.constant(`{"a":"${'x'.repeat(1_100_000)}"}`),
      // Several MB over every limit: refused while it is still being sent, it must still get its answer.
      fc.constant(`{"a":"${'x'.repeat(6_000_000)}"}`),
      fc.json({ maxDepth: 4 }),
    ),
    contentType: fc.constantFrom('application/json', 'text/plain', 'application/x-www-form-urlencoded', 'application/json; charset=latin1', undefined),
  }),
  fc.record({ kind: fc.constant('path' as const), value: fc.oneof(hostileStrings, fc.string({ maxLength: 40 })) }),
  fc.record({ kind: fc.constant('query' as const), value: fc.oneof(hostileStrings, fc.string({ maxLength: 40 })) }),
);

function buildRequest(doc: ApiDocument, op: Operation, m: Mutation, pathValues: Record<string, string>) {
  let path = fillPath(op.path, pathValues);
  let raw = '';
  let contentType: string | undefined = op.body ? 'application/json' : undefined;
  const body = op.body ? (exemplar(doc, op.body) as Record<string, unknown> | undefined) : undefined;
  if (body !== undefined) raw = JSON.stringify(body);
  if (m.kind === 'field' && op.body) {
    const base = body && typeof body === 'object' ? { ...body } : {};
    const keys = Object.keys(base);
    const field = m.field ?? keys[0] ?? 'field';
    raw = JSON.stringify({ ...base, [field]: '\u0001FUZZ\u0001' }).replace('"\\u0001FUZZ\\u0001"', () => m.value);
  } else if (m.kind === 'raw' && op.method !== 'GET') {
    raw = m.raw;
    contentType = m.contentType;
  } else if (m.kind === 'path' && op.pathParams.length > 0) {
    path = fillPath(op.path, Object.fromEntries(op.pathParams.map((p) => [p, m.value])));
  } else if (m.kind === 'query') {
    const name = op.queryParams[0]?.name ?? 'unexpected';
    path += `${path.includes('?') ? '&' : '?'}${encodeLoose(name)}=${encodeLoose(m.value)}`;
  }
  return { path, raw: op.method === 'GET' ? '' : raw, contentType: op.method === 'GET' ? undefined : contentType };
}

test('fuzzing every operation of the OpenAPI document: no 5xx, problem+json errors, no state change on refusal, no hang', async (t) => {
  const doc = await loadOperations();
  const ops = doc.operations.filter((op) => !op.path.startsWith('/pay/'));
  const m = await newMerchant();
  // V1 routes serve only api_version v1 merchants: they get a merchant of their own.
  const legacy = await newMerchant({ api_version: 'v1' });
  const deal = await createPayin(m.keys);
  // Quiescent state first: a terminal deal (no timer will move it) whose deliveries have finished.
  await signed(m.keys, 'POST', `/api/v1/p2p/merchant/deals/${deal.deal_id}/cancel`);
  await eventually(async () => {
    const rows = await sql`select status from webhook_deliveries where merchant_id = ${m.merchantId}`;
    return rows.length === 3 && rows.every((r) => r.status === 'SUCCESS');
  }, "the deal's deliveries to finish");
  const cabinet = await cabinetToken(m.merchantId);
  const operator = await operatorToken();
  const pathValues = { deal_id: deal.deal_id, merchant_id: randomUUID(), hash: 'f'.repeat(64), currency: 'XXX' };
  let sent = 0;
  let refused = 0;
  const resets: string[] = [];

  // fast-check's report repeats the counterexample in full (100 kB strings): keep it readable.
  await assertShort(
    fc.assert(
      fc.asyncProperty(fc.nat({ max: ops.length - 1 }), mutation, async (index, mut) => {
        const op = ops[index]!;
        const req = buildRequest(doc, op, mut, pathValues);
        const isV1 = op.schemes.includes('V1Signature');
        const merchantScoped = op.schemes.includes('MerchantToken') || op.schemes.includes('CabinetJwt') || isV1;
        const owner = isV1 ? legacy.merchantId : m.merchantId;
        const before = merchantScoped ? await stateOf(owner) : undefined;
        const send = async (): Promise<{ status: number; headers: Headers; text: string }> => {
          if (isV1) return v1Raw(legacy, op.method, req.path, req.raw, req.contentType, 10_000);
          if (op.schemes.includes('MerchantToken')) return signedRaw(m.keys as KeyPair, op.method, req.path, req.raw, req.contentType, 10_000);
          const token = op.schemes.includes('CabinetJwt') ? cabinet : op.schemes.includes('OperatorJwt') ? operator : undefined;
          const r = await fetch(API_URL + req.path, {
            method: op.method,
            headers: { ...(req.contentType ? { 'Content-Type': req.contentType } : {}), ...(token ? { Authorization: `Bearer ${token}` } : {}) },
            ...(op.method === 'GET' ? {} : { body: req.raw }),
            signal: AbortSignal.timeout(10_000),
          });
          return { status: r.status, headers: r.headers, text: await r.text() };
        };
        let res: { status: number; headers: Headers; text: string };
        try {
          res = await send();
        } catch (error) {
          // A hang (the 10 s timeout) fails at once; a connection that broke instead of answering is counted.
          const cause = (error as { cause?: { code?: string } }).cause;
          if ((error as Error).name === 'TimeoutError' || !cause?.code) throw error;
          resets.push(`${cause.code}: ${op.method} ${req.path.slice(0, 120)} ${JSON.stringify(mut).slice(0, 120)}`);
          return;
        }
        sent += 1;
        const label = `${op.method} ${req.path.slice(0, 120)} ${JSON.stringify(mut).slice(0, 200)} → ${res.status} ${res.text.slice(0, 200)}`;
        if (res.status >= 500) throw new Error(`5xx: ${label}`);
        if (!res.headers.get('x-trace-id')) throw new Error(`no X-Trace-Id: ${label}`);
        if (res.status >= 400) {
          refused += 1;
          // Node's parser refuses an oversized request line before any route is known: problem+json there, V1 or not.
          const parserLevel = res.status === 431 && (res.headers.get('content-type') ?? '').startsWith('application/problem+json');
          if (isV1 && !parserLevel) {
            const envelope = (() => {
              try {
                return JSON.parse(res.text) as { isFailure?: unknown; failures?: unknown[] };
              } catch {
                return undefined;
              }
            })();
            if (!(res.headers.get('content-type') ?? '').startsWith('application/json') || envelope?.isFailure !== true || !envelope.failures?.length) {
              throw new Error(`not the V1 error envelope: ${label}`);
            }
          } else if (!isV1 && !(res.headers.get('content-type') ?? '').startsWith('application/problem+json')) throw new Error(`not problem+json: ${label}`);
          if (before && JSON.stringify(await stateOf(owner)) !== JSON.stringify(before)) {
            // Work an earlier accepted request started (a deal's timer, a webhook delivery) moves the
            // merchant's rows on its own: once they are quiet, the same request again must change nothing.
            const quiet = await quietStateOf(owner);
            const again = await send();
            if (again.status < 400 || JSON.stringify(await stateOf(owner)) !== JSON.stringify(quiet)) {
              throw new Error(`state changed by a refused request: ${label}`);
            }
          }
        }
      }),
      { seed: SEED, numRuns: RUNS, endOnFailure: true },
    ),
  );
  t.log(`fuzz: ${sent} requests over ${ops.length} operations, ${refused} refused, 0 5xx, ${resets.length} connection resets, seed ${SEED}`);
  t.deepEqual(resets, [], 'every request got an answer, none a broken connection');
  t.true(sent + resets.length >= RUNS);
});
