/**
 * The SDK's client against a real local HTTP server that plays the gateway: signing on every
 * attempt, the retry policy (what is retried, how long it waits, Retry-After), typed errors from
 * problem+json, and pagination.
 */
import test from 'ava';
import { createHmac } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  CallbackWaitTimeoutError,
  GatewayClient,
  GatewayError,
  IdempotencyMismatchError,
  InvalidRequestError,
  NetworkError,
  RateLimitError,
  ServerError,
  stringifyJson,
  type GatewayClientOptions,
} from '../src/index.js';
import { backoffMs, DEFAULT_RETRY, isIdempotent, retryAfterMs } from '../src/retry.js';

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

/** A local server answering each request with `answer(index, request)`; it records what it got. */
async function gateway(answer: (i: number, req: Seen, res: ServerResponse) => void) {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const r = { method: req.method!, url: req.url!, headers: req.headers, body };
      seen.push(r);
      answer(seen.length - 1, r, res);
    });
  });
  server.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    baseUrl,
    seen,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const TOKEN = 'a'.repeat(64);
const SECRET = 'whsec_MfKQ9r7uJ2lHqg0vY3xWc1Zp5oTnR8sE4bAiDkLmNjU=';
const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) =>
  res.writeHead(status, { 'Content-Type': status >= 400 ? 'application/problem+json' : 'application/json', ...headers }).end(JSON.stringify(body));
const problem = (status: number, title: string, code: number, message: string, errors?: unknown[]) => ({
  type: 'about:blank',
  title,
  status,
  detail: JSON.stringify({ code, message, details: [] }),
  instance: '/x',
  ...(errors ? { errors } : {}),
});
const DEAL = { deal_id: '5b0c8f7e-2d41-5c3a-9e6f-0a1b2c3d4e5f', status: 'ESCROW_LOCKED' };

function client(baseUrl: string, sleeps: number[], extra: Partial<GatewayClientOptions> = {}) {
  return new GatewayClient({ baseUrl, token: TOKEN, secret: SECRET, sleep: async (ms) => void sleeps.push(ms), ...extra });
}

/** What the gateway checks (v1 over `<t>.<raw body>` and the request-bound v2), recomputed here independently. */
function verifies(r: Seen): boolean {
  const header = String(r.headers['x-signature']);
  const parts = Object.fromEntries(header.split(',').map((p) => p.split('=') as [string, string]));
  const t = parts.t!;
  const v1 = createHmac('sha256', SECRET).update(`${t}.${r.body}`).digest('hex');
  const v2 = createHmac('sha256', SECRET).update(`${t}.${r.method}.${r.url}.${r.body}`).digest('hex');
  return r.headers['x-merchant-token'] === TOKEN && r.headers['x-timestamp'] === t && parts.v1 === v1 && parts.v2 === v2;
}

test('a GET answered 503 twice is retried with a fresh signature each time, then succeeds', async (t) => {
  const g = await gateway((i, _r, res) => (i < 2 ? json(res, 503, problem(503, 'UNAVAILABLE', 14, 'busy')) : json(res, 200, { deal: DEAL })));
  t.teardown(g.close);
  const sleeps: number[] = [];
  const deal = await client(g.baseUrl, sleeps).getDeal(DEAL.deal_id);
  t.deepEqual(deal, DEAL);
  t.is(g.seen.length, 3);
  t.true(g.seen.every(verifies), 'every attempt carries a valid v1 and v2 over the request as sent');
  t.is(new Set(g.seen.map((r) => r.headers['x-signature'])).size, 3, 'never the same signature twice');
  t.is(sleeps.length, 2);
});

test('a PayIn create answered 500 is retried with the same body (the same idempotency key); a key is made when none is given', async (t) => {
  const g = await gateway((i, _r, res) => (i === 0 ? json(res, 500, problem(500, 'INTERNAL', 13, 'internal error')) : json(res, 200, { deal: DEAL })));
  t.teardown(g.close);
  await client(g.baseUrl, []).createPayin({ amount: 150000, currency: 'RUB', payment_method_id: 'card-rub' });
  t.is(g.seen.length, 2);
  t.is(g.seen[0]!.body, g.seen[1]!.body);
  const key = JSON.parse(g.seen[0]!.body).idempotency_key as string;
  t.regex(key, /^[0-9a-f-]{36}$/);
  t.not(g.seen[0]!.headers['x-signature'], g.seen[1]!.headers['x-signature']);
  t.true(g.seen.every(verifies));
});

test('a POST that could act twice (a pass) is not retried after a 500; it is after 429 and 408, which say nothing was done', async (t) => {
  const script: number[] = [500, 429, 201, 408, 201];
  const g = await gateway((_i, _r, res) => {
    const status = script.shift()!;
    return status === 201 ? json(res, 201, { pass: { pass_id: 'p' } }) : json(res, status, problem(status, 'X', 13, 'failed'));
  });
  t.teardown(g.close);
  const gw = client(g.baseUrl, []);
  const error = await t.throwsAsync(gw.createPass({ amount: 1 }), { instanceOf: ServerError });
  t.is(error.status, 500);
  t.is(g.seen.length, 1, 'sent once');
  t.deepEqual(await gw.createPass({ amount: 1 }), { pass_id: 'p' });
  t.is(g.seen.length, 3, '429, then again');
  await gw.createPass({ amount: 1 });
  t.is(g.seen.length, 5, '408, then again');
});

test('429 honours Retry-After; one beyond maxRetryAfterMs ends the retries with a RateLimitError', async (t) => {
  let retryAfter = '2';
  const g = await gateway((i, _r, res) =>
    i === 0 || retryAfter === '3600'
      ? json(res, 429, problem(429, 'RESOURCE_EXHAUSTED', 8, 'merchant rate limit exceeded (limit: 10/min)'), {
          'Retry-After': retryAfter,
          'X-Trace-Id': 'trace-429',
        })
      : json(res, 200, { wallets: [] }),
  );
  t.teardown(g.close);
  const sleeps: number[] = [];
  const gw = client(g.baseUrl, sleeps);
  await gw.getBalance();
  t.true(sleeps[0]! >= 2000, `waited ${sleeps[0]} ms`);
  retryAfter = '3600';
  const error = await t.throwsAsync(gw.getBalance(), { instanceOf: RateLimitError });
  t.is(error.retryAfterSeconds, 3600);
  t.is(error.traceId, 'trace-429');
  t.is(error.grpcCode, 8);
});

test('400 is final: a typed error with status, gRPC code, title, message, field errors and trace id', async (t) => {
  const g = await gateway((_i, _r, res) =>
    json(
      res,
      400,
      problem(400, 'INVALID_ARGUMENT', 3, 'idempotency_key is required', [
        { field: 'idempotency_key', message: 'idempotency_key is required', code: 'invalid_type' },
      ]),
      { 'X-Trace-Id': 'trace-400' },
    ),
  );
  t.teardown(g.close);
  const error = await t.throwsAsync(client(g.baseUrl, []).getDeal(DEAL.deal_id), { instanceOf: InvalidRequestError });
  t.is(g.seen.length, 1);
  t.like(error, {
    status: 400,
    grpcCode: 3,
    code: 'INVALID_ARGUMENT',
    title: 'INVALID_ARGUMENT',
    message: 'idempotency_key is required',
    traceId: 'trace-400',
  });
  t.deepEqual(error.fieldErrors, [{ field: 'idempotency_key', message: 'idempotency_key is required', code: 'invalid_type' }]);
});

test('network failures are retried for safe requests and end in a NetworkError', async (t) => {
  const g = await gateway((_i, _r, res) => res.socket?.destroy());
  t.teardown(g.close);
  const sleeps: number[] = [];
  await t.throwsAsync(client(g.baseUrl, sleeps).getDeal(DEAL.deal_id), { instanceOf: NetworkError });
  t.is(g.seen.length, DEFAULT_RETRY.maxAttempts);
  await t.throwsAsync(client(g.baseUrl, sleeps).createPass({ amount: 1 }), { instanceOf: NetworkError });
  t.is(g.seen.length, DEFAULT_RETRY.maxAttempts + 1, 'an unsafe POST is sent once');
  await t.throwsAsync(client(g.baseUrl, [], { retry: false }).getDeal(DEAL.deal_id), { instanceOf: NetworkError });
  t.is(g.seen.length, DEFAULT_RETRY.maxAttempts + 2, 'retry: false sends once');
});

test('a timed-out attempt is a network failure: retried, then NetworkError', async (t) => {
  const g = await gateway(() => undefined); // never answers
  t.teardown(g.close);
  // Attempts are counted where the client makes them: a loaded machine's fake gateway may read a
  // request the client already gave up on late, or never.
  let attempts = 0;
  const counting: typeof fetch = (input, init) => {
    attempts += 1;
    return globalThis.fetch(input, init);
  };
  await t.throwsAsync(client(g.baseUrl, [], { timeoutMs: 300, retry: { maxAttempts: 2 }, fetch: counting }).getBalance(), { instanceOf: NetworkError });
  t.is(attempts, 2);
});

test('signatures the gateway would refuse as repeats are never sent; GETs are never held back', async (t) => {
  const g = await gateway((_i, r, res) =>
    r.url.endsWith('/rotate')
      ? json(res, 200, { token: TOKEN, secret: SECRET })
      : r.method === 'POST'
        ? json(res, 201, { pass: {} })
        : json(res, 200, { wallets: [] }),
  );
  t.teardown(g.close);
  const gw = client(g.baseUrl, [], { bindRequests: false, now: () => 1_800_000_000_500 });
  for (let i = 0; i < 3; i += 1) await gw.getBalance();
  t.deepEqual(
    g.seen.map((r) => r.headers['x-timestamp']),
    ['1800000000', '1800000000', '1800000000'],
    'repeats are fine on ordinary routes',
  );
  t.false(String(g.seen[0]!.headers['x-signature']).includes('v2='), 'v1 only');
  // Two identical POSTs in one second: a single-use route would refuse the second.
  await gw.createPass({ amount: 1 });
  await gw.createPass({ amount: 1 });
  t.deepEqual(
    g.seen.slice(3).map((r) => r.headers['x-timestamp']),
    ['1800000000', '1799999999'],
  );
  // An unbound rotation never carries the signature of an earlier body-less request.
  await gw.rotateApiKeys();
  t.is(g.seen[5]!.headers['x-timestamp'], '1799999999');
  // Bound (the default), the rotation's v2 names its route: only its own repeats matter.
  const bound = client(g.baseUrl, [], { now: () => 1_800_000_000_500 });
  await bound.getBalance();
  await bound.rotateApiKeys();
  t.deepEqual(
    g.seen.slice(6).map((r) => r.headers['x-timestamp']),
    ['1800000000', '1800000000'],
  );
});

test('backoff: exponential with jitter, capped; Retry-After parsing; which requests are safe to repeat', (t) => {
  const options = { ...DEFAULT_RETRY, baseDelayMs: 100, maxDelayMs: 1000 };
  t.is(
    backoffMs(1, options, () => 0),
    50,
  );
  t.is(
    backoffMs(1, options, () => 1),
    100,
  );
  t.is(
    backoffMs(3, options, () => 1),
    400,
  );
  t.is(
    backoffMs(10, options, () => 1),
    1000,
  );
  t.is(retryAfterMs('7'), 7000);
  t.is(retryAfterMs(new Date(Date.UTC(2030, 0, 1, 0, 0, 10)).toUTCString(), Date.UTC(2030, 0, 1)), 10_000);
  t.is(retryAfterMs(null), undefined);
  const body = (o: unknown) => new TextEncoder().encode(JSON.stringify(o));
  t.true(isIdempotent('GET', '/api/v1/p2p/merchant/deals', undefined));
  t.true(isIdempotent('POST', '/api/v1/p2p/merchant/deals/payin', body({})));
  t.true(isIdempotent('POST', '/api/v1/p2p/merchant/deals/5b0c8f7e/cancel', undefined));
  t.true(isIdempotent('POST', '/api/v1/p2p/merchant/wallet/withdraw', body({ idempotency_key: 'w-1' })));
  t.false(isIdempotent('POST', '/api/v1/p2p/merchant/wallet/withdraw', body({})));
  t.false(isIdempotent('POST', '/api/v1/p2p/merchant/api-keys/rotate', undefined));
  t.false(isIdempotent('POST', '/api/v1/p2p/merchant/passes', body({})));
});

test('allDeals walks every page until next_page_token is empty; eventFeed stops at a short page and keeps its token', async (t) => {
  const g = await gateway((_i, r, res) => {
    const url = new URL(r.url, 'http://x');
    const token = url.searchParams.get('page_token') ?? '';
    if (url.pathname.endsWith('/deals')) {
      const pages: Record<string, unknown> = {
        '': { data: [{ deal_id: '1' }, { deal_id: '2' }], next_page_token: 't2' },
        t2: { data: [{ deal_id: '3' }], next_page_token: '' },
      };
      return json(res, 200, pages[token]);
    }
    const size = Number(url.searchParams.get('page_size'));
    const feed: Record<string, unknown> = {
      '': { data: Array.from({ length: size }, (_, i) => ({ event_id: `e${i}` })), next_page_token: 'p1' },
      p1: { data: [{ event_id: 'last' }], next_page_token: 'p2' },
      p2: { data: [], next_page_token: 'p2' },
    };
    return json(res, 200, feed[token]);
  });
  t.teardown(g.close);
  const gw = client(g.baseUrl, []);
  const ids: string[] = [];
  for await (const deal of gw.allDeals({ deal_type: 'PAYIN' })) ids.push(deal.deal_id);
  t.deepEqual(ids, ['1', '2', '3']);
  t.true(
    g.seen.every((r) => r.url.includes('deal_type=PAYIN')),
    'the filter goes with every page',
  );

  const feed = gw.eventFeed({ pageSize: 3, types: ['deal.created', 'deal.completed'] });
  const events: string[] = [];
  for await (const e of feed) events.push(e.event_id);
  t.deepEqual(events, ['e0', 'e1', 'e2', 'last']);
  t.is(feed.pageToken, 'p2');
  t.true(g.seen.at(-1)!.url.includes('types=deal.created&types=deal.completed'));
  const resumed = gw.eventFeed({ pageToken: feed.pageToken, pageSize: 3 });
  t.deepEqual(await resumed.nextPage(), []);
  t.is(resumed.pageToken, 'p2');
});

test('bigint amounts are sent as JSON integers', (t) => {
  t.is(stringifyJson({ amount: 2n ** 63n - 1n, n: 1, s: 'x' }), '{"amount":9223372036854775807,"n":1,"s":"x"}');
  t.is(stringifyJson({ a: [1n, 'b'] }), '{"a":[1,"b"]}');
});

test('the client refuses a malformed token at once', (t) => {
  t.throws(() => new GatewayClient({ baseUrl: 'http://x', token: 'nope', secret: SECRET }), { instanceOf: TypeError });
});

// ---- Idempotency without surprises, amounts, answers as objects, the feed, retry waits ----

const PAYIN_DEAL = { ...DEAL, amount: '170000', currency: 'RUB', client_id: 'customer-42', deal_type: 'PAYIN', target_requisite: '' };

test('a repeat create whose original deal has another amount throws IdempotencyMismatchError carrying both; the opt-out answers the original', async (t) => {
  let replayedHeader: string | undefined = 'true';
  const g = await gateway((_i, _r, res) => json(res, 200, { deal: PAYIN_DEAL }, replayedHeader === undefined ? {} : { 'Idempotent-Replayed': replayedHeader }));
  t.teardown(g.close);
  const gw = client(g.baseUrl, []);
  const body = { idempotency_key: 'order-1', amount: 150000, currency: 'RUB', payment_method_id: 'card-rub', client_id: 'customer-42' };
  const error = await t.throwsAsync(gw.createPayin(body), { instanceOf: IdempotencyMismatchError });
  t.true(error instanceof GatewayError);
  t.deepEqual(error.fields, ['amount']);
  t.deepEqual(error.received, PAYIN_DEAL, 'the original deal');
  t.like(error.sent, { idempotency_key: 'order-1', amount: 150000, currency: 'RUB' });
  t.is(error.replayed, true);
  t.is(error.idempotencyKey, 'order-1');
  t.is(g.seen.length, 1, 'a 200 is not retried');

  // Another currency and client_id too; every differing field is named.
  const all = await t.throwsAsync(gw.createPayin({ ...body, currency: 'UZS', client_id: 'customer-7' }), { instanceOf: IdempotencyMismatchError });
  t.deepEqual(all.fields, ['amount', 'currency', 'client_id']);

  // The opt-out: the original deal, and the outcome says what differed.
  t.deepEqual(await gw.createPayin(body, { allowIdempotentMismatch: true }), PAYIN_DEAL);
  t.deepEqual(await gw.createPayinWithOutcome(body, { allowIdempotentMismatch: true }), { deal: PAYIN_DEAL, replayed: true, mismatched: ['amount'] });

  // The same body replayed is no surprise, whatever form the amount takes.
  for (const amount of [170000, 170000n, '170000']) {
    t.deepEqual(await gw.createPayinWithOutcome({ ...body, amount }), { deal: PAYIN_DEAL, replayed: true, mismatched: [] });
  }

  // An answer without the header (an older gateway) is still checked; `false` (made by this call) is not.
  replayedHeader = undefined;
  const silent = await t.throwsAsync(gw.createPayin(body), { instanceOf: IdempotencyMismatchError });
  t.is(silent.replayed, undefined);
  replayedHeader = 'false';
  t.deepEqual(await gw.createPayinWithOutcome({ ...body, amount: 170000 }), { deal: PAYIN_DEAL, replayed: false, mismatched: [] });
});

test('PayOut and withdrawal creates are checked too: the recipient of a PayOut, the amount and address of a keyed withdrawal', async (t) => {
  const payout = {
    ...PAYIN_DEAL,
    deal_type: 'PAYOUT',
    amount: '5000',
    target_requisite: '4111111111111111',
    target_name: 'Ann',
    requisite_details: { bank_name: 'Bank' },
  };
  const withdrawal = {
    withdrawal_id: 'w',
    status: 'COMPLETED',
    currency: 'USDT',
    amount: '500000',
    address: 'TGgd7pXdZALo9GyT4pmF2tT6JRf7ETWVcL',
    idempotency_key: 'w-1',
  };
  const g = await gateway((_i, r, res) => json(res, 200, r.url.endsWith('/payout') ? { deal: payout } : withdrawal, { 'Idempotent-Replayed': 'true' }));
  t.teardown(g.close);
  const gw = client(g.baseUrl, []);
  const body = {
    idempotency_key: 'po-1',
    amount: 5000,
    currency: 'RUB',
    wallet_id: '0d1e2f3a-4b5c-4d6e-8f7a-9b0c1d2e3f4a',
    target_requisite: ' 4111111111111111 ',
    target_name: 'Ann',
    requisite_details: { bank_name: 'Bank' },
    payment_method: 'card-rub',
  };
  t.deepEqual(await gw.createPayout(body), payout, 'the same recipient (the gateway trims target_requisite)');
  const other = await t.throwsAsync(
    gw.createPayout({ ...body, target_requisite: '5500000000000004', target_name: 'Bob', requisite_details: { bank_name: 'Other' } }),
    { instanceOf: IdempotencyMismatchError },
  );
  t.deepEqual(other.fields, ['target_requisite', 'target_name', 'requisite_details']);
  t.deepEqual(other.received, payout);
  t.deepEqual((await gw.createPayoutWithOutcome({ ...body, amount: '6000' }, { allowIdempotentMismatch: true })).mismatched, ['amount']);

  const w = { address: 'TGgd7pXdZALo9GyT4pmF2tT6JRf7ETWVcL', amount: 500000, idempotency_key: 'w-1' };
  t.deepEqual(await gw.createWithdrawal(w), withdrawal);
  const wrong = await t.throwsAsync(gw.createWithdrawal({ ...w, amount: 400000 }), { instanceOf: IdempotencyMismatchError });
  t.deepEqual(wrong.fields, ['amount']);
  t.deepEqual(wrong.received, withdrawal);
  t.deepEqual((await gw.createWithdrawalWithOutcome({ ...w, amount: 400000 }, { allowIdempotentMismatch: true })).withdrawal, withdrawal);
  const { idempotency_key: _key, ...unkeyed } = w;
  t.deepEqual(await gw.createWithdrawal({ ...unkeyed, amount: 400000 }), withdrawal, 'without a key there is no key to have made another withdrawal');
});

test('amounts: a number, a bigint or a digit string go out as a JSON integer; a fraction, an unsafe number or a non-integer string is a TypeError before sending', async (t) => {
  const sentAmount = (r: Seen) => /"amount":(-?\d+)[,}]/.exec(r.body)?.[1];
  const g = await gateway((_i, r, res) =>
    r.url.endsWith('/passes') ? json(res, 201, { pass: { pass_id: 'p' } }) : json(res, 200, { deal: { ...PAYIN_DEAL, amount: sentAmount(r) } }),
  );
  t.teardown(g.close);
  const gw = client(g.baseUrl, []);
  const body = { currency: 'RUB', payment_method_id: 'card-rub' };
  await gw.createPayin({ ...body, amount: 150000 });
  await gw.createPayin({ ...body, amount: 9007199254740993n });
  await gw.createPayin({ ...body, amount: '9223372036854775807' });
  await gw.createPass({ amount: '1500' });
  t.deepEqual(g.seen.map(sentAmount), ['150000', '9007199254740993', '9223372036854775807', '1500'], 'a JSON integer, exact');
  for (const amount of [1500.5, 2 ** 60, Number.NaN, Infinity, '1500.00', '1e5', ' 150', '', '0x10', '+5']) {
    await t.throwsAsync(gw.createPayin({ ...body, amount }), { instanceOf: TypeError }, String(amount));
  }
  // @ts-expect-error a boolean is no amount
  await t.throwsAsync(gw.createPayin({ ...body, amount: true }), { instanceOf: TypeError });
  await t.throwsAsync(gw.createPayout({ ...body, amount: 1.5, wallet_id: 'w', target_requisite: 'x', payment_method: 'card-rub' }), { instanceOf: TypeError });
  await t.throwsAsync(gw.createWithdrawal({ amount: '10.5' }), { instanceOf: TypeError });
  await t.throwsAsync(gw.createPass({ amount: 0.1 }), { instanceOf: TypeError });
  t.is(g.seen.length, 4, 'nothing refused was sent');
});

test('every method answers the object itself: the profile without its wrapper, the catalogs as arrays', async (t) => {
  const merchant = { id: '0d1e2f3a-4b5c-4d6e-8f7a-9b0c1d2e3f4a', name: 'Shop' };
  const g = await gateway((_i, r, res) => {
    if (r.url.endsWith('/my-merchant'))
      return json(res, 200, { merchant, auto_withdrawal_mode: 'MANUAL_ONLY', auto_withdrawal_effective_limit_usdt_cents: '0' });
    return json(res, 200, { data: [{ slug: r.url.split('/').at(-1) }] });
  });
  t.teardown(g.close);
  const gw = client(g.baseUrl, []);
  const me = await gw.getMyMerchant();
  t.deepEqual(me, { ...merchant, auto_withdrawal_mode: 'MANUAL_ONLY', auto_withdrawal_effective_limit_usdt_cents: '0' } as unknown as typeof me);
  t.is(me.id, merchant.id);
  t.deepEqual(await gw.listPaymentMethods(), [{ slug: 'payment-methods' }] as unknown as Awaited<ReturnType<typeof gw.listPaymentMethods>>);
  t.deepEqual(await gw.listBanks(), [{ slug: 'banks' }] as unknown as Awaited<ReturnType<typeof gw.listBanks>>);
  t.deepEqual(await gw.listCurrencies(), [{ slug: 'currencies' }] as unknown as Awaited<ReturnType<typeof gw.listCurrencies>>);
});

/** A feed of 12 events in pages of 5: tokens '' → p1 → p2 (a short last page) → p3. */
async function feedGateway() {
  const events = Array.from({ length: 12 }, (_, i) => ({ event_id: `e${i}` }));
  const at: Record<string, number> = { '': 0, p1: 5, p2: 10, p3: 12 };
  const g = await gateway((_i, r, res) => {
    const url = new URL(r.url, 'http://x');
    const start = at[url.searchParams.get('page_token') ?? '']!;
    const size = Number(url.searchParams.get('page_size'));
    const data = events.slice(start, start + size);
    json(res, 200, { data, next_page_token: `p${Math.ceil((start + data.length) / 5)}` });
  });
  return { g, ids: events.map((e) => e.event_id) };
}

test('eventFeed: a consumer that throws part-way through a page resumes from that page, never after it; every event is seen', async (t) => {
  const { g, ids } = await feedGateway();
  t.teardown(g.close);
  const gw = client(g.baseUrl, []);
  for (const crashAt of ['e6', 'e4', 'e9']) {
    // The 2nd of page 2, the last of page 1, the last of page 2.
    const seen: string[] = [];
    const feed = gw.eventFeed({ pageSize: 5 });
    await t.throwsAsync(async () => {
      for await (const e of feed) {
        seen.push(e.event_id);
        if (e.event_id === crashAt) throw new Error('the handler crashed');
      }
    });
    const crashed = ids.indexOf(crashAt);
    const resumed: string[] = [];
    for await (const e of gw.eventFeed({ pageToken: feed.pageToken, pageSize: 5 })) resumed.push(e.event_id);
    t.true(ids.indexOf(resumed[0]!) <= crashed, `after a crash on ${crashAt} the resume starts at ${resumed[0]}, not after it`);
    t.deepEqual(
      [...new Set([...seen, ...resumed])].sort((a, b) => ids.indexOf(a) - ids.indexOf(b)),
      ids,
      'none skipped',
    );
  }
  // Breaking out after the 2nd event of page 2 keeps the position at page 2's start, too.
  const feed = gw.eventFeed({ pageSize: 5 });
  for await (const e of feed) if (e.event_id === 'e6') break;
  t.is(feed.pageToken, 'p1');
  // Read to the end, the position is the last page's token.
  for await (const _ of feed) void _;
  t.is(feed.pageToken, 'p3');
});

test('retryCallback with wait polls the delivery until a new attempt settled it (SUCCESS or ERROR), and gives up with CallbackWaitTimeoutError', async (t) => {
  const DEAL_ID = '5b0c8f7e-2d41-5c3a-9e6f-0a1b2c3d4e5f';
  const delivery = {
    callback_id: '8f7e6d5c-4b3a-5291-8a0f-1e2d3c4b5a69',
    deal_id: DEAL_ID,
    event_id: 'e',
    event_type: 'deal.created',
    url: 'u',
    status: 'ERROR',
    attempts: 5,
  };
  let queued: object = delivery;
  let states: object[] = [];
  const g = await gateway((_i, r, res) => {
    if (r.method === 'POST') return json(res, 200, queued);
    if (new URL(r.url, 'http://x').pathname !== `/api/v1/p2p/merchant/callbacks/${delivery.callback_id}`) return json(res, 404, {});
    const state = states.length > 1 ? states.shift()! : states[0]!;
    return json(res, 200, { ...delivery, ...state });
  });
  t.teardown(g.close);
  let clock = 1_800_000_000_000;
  const sleeps: number[] = [];
  const gw = client(g.baseUrl, [], {
    now: () => clock,
    sleep: async (ms) => {
      sleeps.push(ms);
      clock += ms;
    },
  });

  // Not asked to wait: the queued delivery as answered.
  states = [{}];
  t.deepEqual(await gw.retryCallback(delivery.callback_id), delivery as never);
  t.is(g.seen.length, 1);

  // An answer that still shows ERROR with 5 attempts (not yet tried), then PENDING, then a failed attempt: ERROR with 6.
  states = [{}, { status: 'PENDING' }, { status: 'ERROR', attempts: 6, http_status: 503 }];
  const failed = await gw.retryCallback(delivery.callback_id, { wait: { timeoutMs: 30_000, intervalMs: 500 } });
  t.like(failed, { status: 'ERROR', attempts: 6, http_status: 503 });
  t.deepEqual(sleeps, [500, 500, 500]);
  t.true(
    g.seen.filter((r) => r.method === 'GET').every((r) => r.url === `/api/v1/p2p/merchant/callbacks/${delivery.callback_id}`),
    'read by its id (getCallback)',
  );

  // The gateway's answer: queued as RETRY; a final status afterwards settles it, whatever the attempt count.
  queued = { ...delivery, status: 'RETRY' };
  states = [{ status: 'RETRY' }, { status: 'ERROR', attempts: 5 }];
  t.like(await gw.retryCallback(delivery.callback_id, { wait: true }), { status: 'ERROR', attempts: 5 });
  states = [{ status: 'RETRY' }, { status: 'SUCCESS', attempts: 6, http_status: 200 }];
  t.like(await gw.retryCallback(delivery.callback_id, { wait: true }), { status: 'SUCCESS', attempts: 6 });

  states = [{ status: 'PENDING' }];
  const timeout = await t.throwsAsync(gw.retryCallback(delivery.callback_id, { wait: { timeoutMs: 3_000 } }), { instanceOf: CallbackWaitTimeoutError });
  t.like(timeout.delivery as object, { status: 'PENDING' });
});
