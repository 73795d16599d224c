/**
 * Issue 8, security: a signature accepted on one route is refused on another (the signed string
 * does not name the route), single-use routes refuse any repeat, ordinary repeats stay legal;
 * behind a trusted proxy the client IP is the one the proxy saw, not what the client wrote.
 */
import test from 'ava';
import { API_URL, hmacHeaders, newMerchant, signed } from '../helpers/api';
import { startApp, testSql } from '../helpers/app';
import { payinBody, PAYIN } from '../helpers/deals';

const sql = testSql();
test.after.always(() => sql.end());

const send = (path: string, method: string, headers: Record<string, string>, body?: string, base = API_URL) =>
  fetch(base + path, { method, headers: { ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}), ...headers }, body });

const currentKeys = async (merchantId: string) =>
  (await sql`select count(*)::int as n from api_keys where merchant_id = ${merchantId}`)[0]!.n as number;

test('the headers of a signed GET cannot rotate the keys (or call any other route)', async (t) => {
  const { keys, merchantId } = await newMerchant();
  const headers = hmacHeaders(keys, '');
  t.is((await send('/api/v1/p2p/merchant/balance', 'GET', headers)).status, 200);
  t.is((await send('/api/v1/p2p/merchant/balance', 'GET', headers)).status, 200, 'a GET polled again with the same signature is fine');

  const stolen = await send('/api/v1/p2p/merchant/api-keys/rotate', 'POST', headers);
  t.is(stolen.status, 401, await stolen.text());
  t.is(await currentKeys(merchantId), 1, 'no new pair was made');
  t.is((await send('/api/v1/p2p/my-merchant', 'GET', headers)).status, 401, 'nor read the profile');
  t.is((await send('/api/v1/p2p/merchant/deals', 'GET', headers)).status, 401);
});

test('single-use routes accept a signature once; creates repeated with one signature stay legal', async (t) => {
  const { keys, merchantId } = await newMerchant();
  const headers = hmacHeaders(keys, '', Math.floor(Date.now() / 1000) - 7);
  const first = await send('/api/v1/p2p/merchant/api-keys/rotate', 'POST', headers);
  t.is(first.status, 200, await first.text());
  const again = await send('/api/v1/p2p/merchant/api-keys/rotate', 'POST', headers);
  t.is(again.status, 401, 'the same rotation request is not replayable');
  t.is(await currentKeys(merchantId), 2);

  // The old pair is still in its grace window: a fresh signature works, as does repeating a create.
  const body = JSON.stringify(payinBody());
  const createHeaders = hmacHeaders(keys, body);
  const a = await send(PAYIN, 'POST', createHeaders, body);
  const b = await send(PAYIN, 'POST', createHeaders, body);
  t.is(a.status, 200);
  t.is(b.status, 200);
  t.is((await a.json()).deal.deal_id, (await b.json()).deal.deal_id);
  t.is((await send('/api/v1/p2p/merchant/balance', 'GET', createHeaders)).status, 401, 'but not on another route');
});

test('concurrent first uses of one signature on two routes: exactly one route wins', async (t) => {
  const { keys } = await newMerchant();
  const headers = hmacHeaders(keys, '', Math.floor(Date.now() / 1000) - 11);
  const results = await Promise.all([
    send('/api/v1/p2p/merchant/balance', 'GET', headers),
    send('/api/v1/p2p/merchant/deals', 'GET', headers),
    send('/api/v1/p2p/merchant/balance', 'GET', headers),
    send('/api/v1/p2p/merchant/deals', 'GET', headers),
  ]);
  const okRoutes = new Set(results.map((r, i) => (r.status === 200 ? i % 2 : -1)).filter((i) => i >= 0));
  t.is(okRoutes.size, 1, results.map((r) => r.status).join(','));
});

test('behind a trusted proxy the whitelist checks the address the proxy saw, not a spoofed X-Forwarded-For', async (t) => {
  const { keys, merchantId } = await newMerchant();
  await sql`update merchants set ip_whitelist = ${['203.0.113.7']} where id = ${merchantId}`;
  const proxied = await startApp({ TRUST_PROXY: true });
  t.teardown(() => proxied.close());
  // The attacker writes the whitelisted address first; the proxy appends the real one.
  const spoofed = await signed(keys, 'GET', `${proxied.url}/api/v1/p2p/my-merchant`);
  t.is(spoofed.status, 403, 'no forwarding header: the peer (127.0.0.1) is not whitelisted');
  const headers = { ...hmacHeaders(keys, '', Math.floor(Date.now() / 1000) - 3), 'X-Forwarded-For': '203.0.113.7, 198.51.100.9' };
  t.is((await send('/api/v1/p2p/my-merchant', 'GET', headers, undefined, proxied.url)).status, 403);
  const legit = { ...hmacHeaders(keys, '', Math.floor(Date.now() / 1000) - 4), 'X-Forwarded-For': '198.51.100.9, 203.0.113.7' };
  t.is((await send('/api/v1/p2p/my-merchant', 'GET', legit, undefined, proxied.url)).status, 200);
});
