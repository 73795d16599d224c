/**
 * What the server really answers is what /openapi.json says it answers. Every
 * operation of the served document is probed — without credentials, with credentials and a
 * valid-looking request (unknown ids), with a body of the wrong media type and with one too
 * large — and every status that comes back must be listed for that operation. Then a few
 * routes are walked through the statuses of their own rules (201 and 200 on a repeated deposit,
 * 409 on a conflicting one, the payment page's 404).
 */
import test from 'ava';
import { randomUUID } from 'node:crypto';
import { API_URL, asOperator, cabinetToken, newMerchant, operatorToken, signedRaw, unsigned, type KeyPair } from '../helpers/api';
import { exemplar, fillPath, loadOperations, type Operation } from '../helpers/openapi';
import { v1Raw } from '../v1/v1-client';

type Answer = { status: number; headers: Headers; text: string };
type Documented = Record<string, Record<string, { responses: Record<string, unknown> }>>;

const served = async () => (await unsigned('GET', '/openapi.json')).body as { paths: Documented };
const listed = (paths: Documented, method: string, path: string) => Object.keys(paths[path]?.[method.toLowerCase()]?.responses ?? {}).map(Number);

test('every status a probe gets from any operation is listed for it in /openapi.json', async (t) => {
  const { paths } = await served();
  const doc = await loadOperations();
  const m = await newMerchant();
  const legacy = await newMerchant({ api_version: 'v1' });
  const cabinet = await cabinetToken(m.merchantId);
  const operator = await operatorToken();
  const pathValues = { merchant_id: randomUUID(), hash: 'f'.repeat(64), currency: 'XXX' };

  /** as: the caller the operation expects, none, or another kind of caller than it expects. */
  async function send(op: Operation, path: string, raw: string, contentType: string | undefined, as: 'caller' | 'nobody' | 'stranger'): Promise<Answer> {
    const isV1 = op.schemes.includes('V1Signature');
    const withBody = op.method !== 'GET';
    if (as === 'caller' && isV1) return v1Raw(legacy, op.method, path, raw, contentType);
    if (as === 'stranger' && isV1) return v1Raw(m, op.method, path, raw, contentType); // a v2 merchant, correctly signed
    if (as === 'caller' && op.schemes.includes('MerchantToken')) return signedRaw(m.keys as KeyPair, op.method, path, raw, contentType);
    const token =
      as === 'nobody'
        ? undefined
        : as === 'stranger'
          ? op.schemes.includes('OperatorJwt')
            ? cabinet
            : operator
          : op.schemes.includes('CabinetJwt')
            ? cabinet
            : op.schemes.includes('OperatorJwt')
              ? operator
              : undefined;
    const res = await fetch(API_URL + path, {
      method: op.method,
      headers: { ...(contentType && withBody ? { 'Content-Type': contentType } : {}), ...(token ? { Authorization: `Bearer ${token}` } : {}) },
      ...(withBody ? { body: raw } : {}),
      signal: AbortSignal.timeout(15_000),
    });
    return { status: res.status, headers: res.headers, text: await res.text() };
  }

  const undocumented: string[] = [];
  const seen = new Map<number, number>();
  for (const op of doc.operations) {
    const path = fillPath(op.path, pathValues);
    const body = op.body ? JSON.stringify(exemplar(doc, op.body) ?? {}) : '';
    const contentType = op.body ? 'application/json' : undefined;
    const probes: Array<[string, () => Promise<Answer>]> = [
      ['without credentials', () => send(op, path, body, contentType, 'nobody')],
      ['valid-looking, unknown ids', () => send(op, path, body, contentType, 'caller')],
      ['a control character in the query', () => send(op, `${path}?q=%01`, body, contentType, 'caller')],
    ];
    if (op.schemes.length > 0) probes.push(['credentials of another kind of caller', () => send(op, path, body, contentType, 'stranger')]);
    if (op.method !== 'GET') {
      probes.push(['a text/plain body', () => send(op, path, 'not json', 'text/plain', 'caller')]);
      probes.push(['a body over 1 MiB', () => send(op, path, JSON.stringify({ pad: 'x'.repeat(1_100_000) }), 'application/json', 'caller')]);
    }
    for (const [probe, run] of probes) {
      const res = await run();
      seen.set(res.status, (seen.get(res.status) ?? 0) + 1);
      if (!listed(paths, op.method, op.path).includes(res.status)) {
        undocumented.push(`${op.method} ${op.path} (${probe}) → ${res.status} ${res.text.slice(0, 160)}`);
      }
    }
  }
  t.log(
    `statuses seen: ${[...seen]
      .sort(([a], [b]) => a - b)
      .map(([s, n]) => `${s}×${n}`)
      .join(' ')}`,
  );
  t.deepEqual(undocumented, []);
  for (const status of [200, 201, 400, 401, 403, 404, 413, 415]) t.true(seen.has(status), `the probes reached ${status}`);
});

test('deposits: 201 then 200 on a repeat, 409 for the same tx_hash otherwise — each documented', async (t) => {
  const { paths } = await served();
  const m = await newMerchant();
  const other = await newMerchant();
  const path = '/api/v1/p2p/admin/deposits';
  const txHash = randomUUID().replace(/-/g, '').padEnd(64, '0');
  const answers = [
    await asOperator('POST', path, { merchant_id: m.merchantId, amount: 500, tx_hash: txHash }),
    await asOperator('POST', path, { merchant_id: m.merchantId, amount: 500, tx_hash: txHash }),
    await asOperator('POST', path, { merchant_id: other.merchantId, amount: 500, tx_hash: txHash }),
    await asOperator('POST', path, { merchant_id: randomUUID(), amount: 500, tx_hash: randomUUID().replace(/-/g, '').padEnd(64, '1') }),
  ].map((r) => r.status);
  t.deepEqual(answers, [201, 200, 409, 404]);
  t.deepEqual(
    answers.filter((s) => !listed(paths, 'post', path).includes(s)),
    [],
  );

  const trader = await asOperator('POST', '/api/v1/p2p/admin/traders', { name: 'Statuses' });
  t.is(trader.status, 201, trader.text);
  const topUp = `/api/v1/p2p/admin/traders/${trader.body.trader.trader_id}/deposits`;
  const topUpHash = randomUUID().replace(/-/g, '').padEnd(64, '2');
  const traderAnswers = [
    await asOperator('POST', topUp, { amount: 700, tx_hash: topUpHash }),
    await asOperator('POST', topUp, { amount: 700, tx_hash: topUpHash }),
    await asOperator('POST', topUp, { amount: 701, tx_hash: topUpHash }),
  ].map((r) => r.status);
  t.deepEqual(traderAnswers, [201, 200, 409]);
  t.deepEqual(
    traderAnswers.filter((s) => !listed(paths, 'post', '/api/v1/p2p/admin/traders/{trader_id}/deposits').includes(s)),
    [],
  );
});

test('the payment page answers 404 as HTML for an unknown hash, as documented', async (t) => {
  const { paths } = await served();
  const res = await fetch(`${API_URL}/pay/${'a'.repeat(64)}`);
  t.is(res.status, 404);
  t.regex(res.headers.get('content-type') ?? '', /^text\/html/);
  t.true(listed(paths, 'get', '/pay/{hash}').includes(404));
  const doc = (await served()) as unknown as { paths: Record<string, Record<string, { responses: Record<string, { content?: object }> }>> };
  t.deepEqual(Object.keys(doc.paths['/pay/{hash}']!.get!.responses['404']!.content ?? {}), ['text/html']);
});
