import test from 'ava';
import { newMerchant, problemDetail, signed } from '../helpers/api';
import { startApp } from '../helpers/app';

const MY = '/api/v1/p2p/my-merchant';

test('the per-merchant minute limit holds across two API processes, with headers on 200 and 429', async (t) => {
  // A frozen clock pins every request into one calendar minute, whatever the wall clock does.
  const frozen = Date.now();
  const [a, b] = await Promise.all([startApp({}, () => frozen), startApp({}, () => frozen)]);
  t.teardown(async () => {
    await a.close();
    await b.close();
  });
  const { keys } = await newMerchant({ rate_limit_per_minute: 5 });
  const ts = Math.floor(frozen / 1000);
  const results = await Promise.all(Array.from({ length: 12 }, (_, i) => signed(keys, 'GET', `${i % 2 ? a.url : b.url}${MY}`, undefined, ts)));
  const ok = results.filter((r) => r.status === 200);
  const limited = results.filter((r) => r.status === 429);
  t.is(ok.length, 5);
  t.is(limited.length, 7);
  const reset = String((Math.floor(frozen / 60_000) + 1) * 60);
  for (const r of [...ok, ...limited]) {
    t.is(r.headers.get('x-ratelimit-limit'), '5');
    t.is(r.headers.get('x-ratelimit-reset'), reset);
  }
  t.deepEqual(ok.map((r) => r.headers.get('x-ratelimit-remaining')).sort(), ['0', '1', '2', '3', '4']);
  const problem = limited[0]!.body;
  t.is(problem.title, 'RESOURCE_EXHAUSTED');
  t.deepEqual(problemDetail(problem), { code: 8, message: 'merchant rate limit exceeded (limit: 5/min)', details: [] });
  t.is(limited[0]!.headers.get('x-ratelimit-remaining'), '0');
  t.truthy(limited[0]!.headers.get('retry-after'));

  // The next calendar minute starts a fresh window.
  const next = await startApp({}, () => frozen + 60_000);
  t.teardown(() => next.close());
  t.is((await signed(keys, 'GET', `${next.url}${MY}`, undefined, ts + 60)).status, 200);
});

test('merchants are limited independently', async (t) => {
  const frozen = Date.now();
  const app = await startApp({}, () => frozen);
  t.teardown(() => app.close());
  const ts = Math.floor(frozen / 1000);
  const first = await newMerchant({ rate_limit_per_minute: 1 });
  const second = await newMerchant({ rate_limit_per_minute: 1 });
  t.is((await signed(first.keys, 'GET', `${app.url}${MY}`, undefined, ts)).status, 200);
  t.is((await signed(first.keys, 'GET', `${app.url}${MY}`, undefined, ts)).status, 429);
  t.is((await signed(second.keys, 'GET', `${app.url}${MY}`, undefined, ts)).status, 200);
});
