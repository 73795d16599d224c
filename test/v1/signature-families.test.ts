/**
 * A captured V1 header opens no other door: V1 signs `;`-joined fields and no amount,
 * card, address or reason, so (1) no signed field may contain ';' (the string of one request
 * could otherwise be spelt as another's), and (2) a signature belongs to the family of the route
 * it was first used on — PayIn create, PayOut create, withdraw, dispute, reads — and is refused
 * by every other (api/v1/auth.ts).
 *
 * The property: for every pair of V1 routes of different families, headers that verified on the
 * first are refused on the second, with a body crafted to make the second's signed string equal
 * the first's (the attacker's best try) and with arbitrary extra fields — and nothing is created.
 */
import test from 'ava';
import fc from 'fast-check';
import { randomUUID } from 'node:crypto';
import { testSql } from '../helpers/app';
import { fundedMerchant, walletOf } from '../helpers/deals';
import { randomTronAddress } from '../helpers/wallet';
import { incomingBody, v1, v1Sign, type V1Merchant } from './v1-client';
import { API_URL, readResponse } from '../helpers/api';

const sql = testSql();
test.after.always(() => sql.end());

type Family = 'payin' | 'payout' | 'withdraw' | 'dispute' | 'read';

interface V1Route {
  name: string;
  family: Family;
  method: 'GET' | 'POST';
  /** The names of the fields the route signs after the timestamp, in order. */
  fields: string[];
  /** The request for these signed values (a GET's id goes in its path). */
  request: (values: string[]) => { path: string; body?: Record<string, unknown> };
}

const create = (name: string, family: Family, path: string, fields: string[], rest: Record<string, unknown>): V1Route => ({
  name,
  family,
  method: 'POST',
  fields,
  request: (values) => ({ path, body: { ...rest, ...Object.fromEntries(fields.map((f, i) => [f, values[i]])) } }),
});
const list = (path: string): V1Route => ({ name: `POST ${path}`, family: 'read', method: 'POST', fields: [], request: () => ({ path, body: {} }) });
const byId = (prefix: string): V1Route => ({
  name: `GET ${prefix}/{id}`,
  family: 'read',
  method: 'GET',
  fields: ['id'],
  request: ([id]) => ({ path: `${prefix}/${encodeURIComponent(id ?? '')}` }),
});

const payin = incomingBody();
const ROUTES: V1Route[] = [
  ...['/v1/payments/incoming', '/v1/payments/incoming/idempotency', '/v1/payments/incoming/nochannel'].map((path) =>
    create(`POST ${path}`, 'payin', path, ['payInId', 'salt'], { ...payin, payInId: undefined, salt: undefined }),
  ),
  create('POST /v1/payments/outgoing', 'payout', '/v1/payments/outgoing', ['payOutId', 'salt'], {
    amount: '20000.00',
    currency: 643,
    paymentMethod: 'card-rub',
    cardNumber: '4000000000000002',
    fullName: 'Attacker',
  }),
  create('POST /v1/merchant/withdraw', 'withdraw', '/v1/merchant/withdraw', ['requestId', 'wallet', 'salt'], { amount: '5.00' }),
  create('POST /v1/disputs/create', 'dispute', '/v1/disputs/create', ['paymentId'], { description: 'The payer paid and nobody confirmed.' }),
  ...[
    '/v1/payments/incoming/list',
    '/v1/payments/outgoing/list',
    '/v1/merchant/withdraw/list',
    '/v1/disputs/list',
    '/v1/banks/list',
    '/v1/payments/incoming/statistics',
    '/v1/payments/outgoing/statistics',
  ].map(list),
  ...['/v1/payments/incoming', '/v1/payments/outgoing', '/v1/merchant/withdraw', '/v1/disputs'].map(byId),
];

/** Sends a request with exactly these headers (a captured TIMESTAMP and SIGNATURE, or freshly signed ones). */
async function send(m: V1Merchant, route: V1Route, values: string[], headers: { timestamp: number; signature: string }, extra: Record<string, unknown> = {}) {
  const { path, body } = route.request(values);
  const raw = route.method === 'GET' ? undefined : JSON.stringify({ ...extra, ...body });
  const response = await fetch(API_URL + path, {
    method: route.method,
    headers: {
      MERCHANT: m.merchantId,
      TIMESTAMP: String(headers.timestamp),
      SIGNATURE: headers.signature,
      ...(raw ? { 'Content-Type': 'application/json' } : {}),
    },
    ...(raw ? { body: raw } : {}),
  });
  return readResponse(response);
}

/** The attacker's best body for `route`: its signed fields spelt so that its string is `values`' (a ';' joins what does not fit). */
function crafted(route: V1Route, values: string[]): string[] {
  const n = route.fields.length;
  if (n === 0) return [];
  if (values.length <= n) return [...values, ...Array(n - values.length).fill('')];
  return [...values.slice(0, n - 1), values.slice(n - 1).join(';')];
}

const made = async (merchantId: string) =>
  (
    await sql<{ n: number }[]>`
      select ((select count(*) from deals where merchant_id = ${merchantId}) + (select count(*) from withdrawals where merchant_id = ${merchantId})
        + (select count(*) from appeals where merchant_id = ${merchantId}))::int as n`
  )[0]!.n;

/** Values a route may sign: short strings of letters, digits, spaces and punctuation (no ';': a field with one is refused before anything). */
const value = fc.string({ unit: fc.constantFrom(...'abcXYZ0189 -_.:/é€'), minLength: 1, maxLength: 12 });
const valuesFor = (route: V1Route) => (route.fields[0] === 'id' ? fc.tuple(fc.uuid()) : fc.tuple(...route.fields.map(() => value)));
const extraFields = fc.dictionary(fc.constantFrom('amount', 'cardNumber', 'fullName', 'wallet', 'address', 'currency', 'note'), fc.oneof(value, fc.integer()), {
  maxKeys: 3,
});

test('headers that verified on one V1 route are refused on every route of another family, with a crafted or any body; nothing is created', async (t) => {
  t.timeout(600_000);
  const m = await fundedMerchant(5_000_000, { api_version: 'v1' });
  const pairs = ROUTES.flatMap((a) => ROUTES.filter((b) => b.family !== a.family).map((b) => [a, b] as const));
  const problems: string[] = [];
  for (const [a, b] of pairs) {
    await fc.assert(
      fc.asyncProperty(valuesFor(a), fc.boolean(), extraFields, async (values, craft, extra) => {
        // Runs in one second share a signature only where they sign alike (reads). Two runs of
        // different pairs may draw the same values in the same second: the signature is then taken
        // by the other family already, and a client signs afresh in the next second, as this does.
        let timestamp = Math.floor(Date.now() / 1000);
        let signature = v1Sign(m.keys.secret, timestamp, values);
        let first = await send(m, a, values, { timestamp, signature });
        while (first.status === 401 && first.text.includes('already used for another kind') && Math.floor(Date.now() / 1000) <= timestamp + 2) {
          await new Promise((r) => setTimeout(r, 1000 - (Date.now() % 1000) + 5));
          timestamp = Math.floor(Date.now() / 1000);
          signature = v1Sign(m.keys.secret, timestamp, values);
          first = await send(m, a, values, { timestamp, signature });
        }
        if (first.status === 401) return void problems.push(`${a.name} ${JSON.stringify(values)} did not verify: ${first.text}`);
        const before = await made(m.merchantId);
        const replay = await send(m, b, craft ? crafted(b, values) : crafted(b, values).map((v) => `${v}x`), { timestamp, signature }, extra);
        if (replay.status < 400 || replay.status >= 500) problems.push(`${a.name} → ${b.name} ${JSON.stringify(values)}: ${replay.status} ${replay.text}`);
        if ((await made(m.merchantId)) !== before) problems.push(`${a.name} → ${b.name} ${JSON.stringify(values)}: something was created`);
      }),
      { numRuns: 3 },
    );
  }
  t.deepEqual(problems, [], `${pairs.length} pairs of routes of different families`);
});

test("the issue's attack: a withdraw's captured headers, replayed as a PayOut to another card with payOutId = '<requestId>;<wallet>', create nothing", async (t) => {
  const m = await fundedMerchant(5_000_000, { api_version: 'v1' });
  const withdraw = { requestId: `wd-${randomUUID()}`, wallet: randomTronAddress(), salt: 'pepper', amount: '5.00' };
  const timestamp = Math.floor(Date.now() / 1000);
  const signature = v1Sign(m.keys.secret, timestamp, [withdraw.requestId, withdraw.wallet, withdraw.salt]);
  const withdrawRoute = ROUTES.find((r) => r.family === 'withdraw')!;
  const sent = await send(m, withdrawRoute, [withdraw.requestId, withdraw.wallet, withdraw.salt], { timestamp, signature }, { amount: withdraw.amount });
  t.is(sent.status, 200, sent.text);
  const held = await walletOf(sql, 'merchant', m.merchantId);

  const payoutRoute = ROUTES.find((r) => r.family === 'payout')!;
  const attack = await send(m, payoutRoute, [`${withdraw.requestId};${withdraw.wallet}`, withdraw.salt], { timestamp, signature });
  t.is(attack.status, 400, attack.text);
  t.like(attack.body.failures[0], { code: 'INVALID_ARGUMENT' });
  t.regex(attack.body.failures[0].message, /payOutId must not contain ';'/);
  const [payouts] = await sql<{ n: number }[]>`select count(*)::int as n from deals where merchant_id = ${m.merchantId} and deal_type = 'PAYOUT'`;
  t.is(payouts!.n, 0, 'no PayOut');
  t.deepEqual(await walletOf(sql, 'merchant', m.merchantId), held, 'nothing more held');
});

test('a legitimate V1 client is not refused: reads within one second share their signature; a create family repeats; every field without a ; passes', async (t) => {
  const m = await fundedMerchant(100_000, { api_version: 'v1' });
  const timestamp = Math.floor(Date.now() / 1000);
  for (const path of ['/v1/payments/incoming/list', '/v1/payments/outgoing/list', '/v1/banks/list', '/v1/payments/incoming/statistics']) {
    const res = await v1(m, 'POST', path, {}, [], { timestamp });
    t.is(res.status, 200, `${path}: ${res.text}`);
  }
  const body = incomingBody({ payInId: `order 7/é-${randomUUID()}`, salt: 'a:b c' });
  const first = await v1(m, 'POST', '/v1/payments/incoming', body, [body.payInId, body.salt], { timestamp: timestamp - 1 });
  t.is(first.status, 200, first.text);
  const again = await v1(m, 'POST', '/v1/payments/incoming/nochannel', body, [body.payInId, body.salt], { timestamp: timestamp - 1 });
  t.is(again.status, 200, again.text);
  t.is(again.body.value.id, first.body.value.id, 'the same request, answered again');
});

test('a field with a ; is refused before its signature is checked (400 naming the field), on every create', async (t) => {
  const m = await fundedMerchant(100_000, { api_version: 'v1' });
  const cases: Array<[string, Record<string, unknown>, unknown[], string]> = [
    ['/v1/payments/incoming', incomingBody({ payInId: 'a;b' }), ['a;b', 'pepper'], 'payInId'],
    ['/v1/payments/incoming', incomingBody({ salt: 's;' }), [undefined, 's;'], 'salt'],
    ['/v1/merchant/withdraw', { requestId: 'r', wallet: randomTronAddress(), salt: ';', amount: '5.00' }, ['r', undefined, ';'], 'salt'],
    ['/v1/disputs/create', { paymentId: `${randomUUID()};x`, description: 'long enough reason' }, [undefined], 'paymentId'],
  ];
  for (const [path, body, fields, field] of cases) {
    const res = await v1(m, 'POST', path, body, fields);
    t.is(res.status, 400, `${path} ${field}: ${res.text}`);
    t.regex(res.body.failures[0].message, new RegExp(`^${field} must not contain ';'`));
    t.is(res.body.failures[1]?.field, field);
  }
  t.is(await made(m.merchantId), 0);
});
